/** Sign-in, agent tokens and the audit trail (admins). */

import type { SearchAnswer } from './commands.ts';

/** `POST /api/auth/login`. */
export interface LoginAnswer {
  /** The session token, sent back as a bearer token. */
  readonly token: string;
  readonly expires: string;
}

/** An agent token's rate limits, per minute; 0 means unlimited. */
export interface RateLimitsInfo {
  readonly requests_per_minute: number;
  /** Creates, updates, deletes, actions and proposals. */
  readonly writes_per_minute: number;
}

/** `POST /api/auth/agent-token`. */
export interface IssuedAgentToken {
  readonly id: string;
  /** The clear token: shown once, never stored. */
  readonly token: string;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly created: string;
  readonly expires: string;
  /** The limits that apply to it. */
  readonly limits: RateLimitsInfo;
  /** The most records one of its bulk commands may change or create (docs/api.md, Bulk commands). */
  readonly max_affected: number;
}

/** What a person sees of one of their agent tokens. Never the token or its hash. */
export interface AgentTokenInfo {
  readonly id: string;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly created: string;
  readonly expires: string;
  readonly last_used: string | null;
  /** When it was revoked, or null. */
  readonly revoked: string | null;
  readonly status: 'active' | 'expired' | 'revoked';
  /** The limits that apply to it: its own, else the server's. */
  readonly limits: RateLimitsInfo;
  /** The most records one of its bulk commands may change or create: its own cap, else the default 100. */
  readonly max_affected: number;
}

/** `GET /api/auth/agent-tokens`: the person's own tokens, newest first. */
export interface AgentTokensAnswer {
  readonly tokens: readonly AgentTokenInfo[];
  /** What a token made without limits of its own gets, and the most a person who is not an admin may give one. */
  readonly server_limits: RateLimitsInfo;
}

// ---------------------------------------------------------------------------------------------
// GET /api/audit (admins)

export type AuditOutcome = 'executed' | 'refused' | 'failed' | 'proposed' | 'approved' | 'rejected';

/** One entry of the audit trail. */
export interface AuditTrailRow {
  readonly id: string;
  readonly at: string;
  readonly actor: 'person' | 'agent';
  /** The person; for an agent, the person who created its token. */
  readonly user_id: string;
  readonly username: string;
  readonly agent_token_id: string | null;
  readonly agent_label: string | null;
  readonly command: string;
  readonly record_id: string | null;
  readonly outcome: AuditOutcome;
  readonly plan_id: string | null;
  /** HTTP status of a refusal or failure. */
  readonly status: number | null;
  readonly error: string | null;
  /** Input of the call (masked for agents); null for reads without input. */
  readonly input: unknown;
  /** Whether the call read records or changed them (proposals, approvals, rejections change). */
  readonly access: 'read' | 'write';
  /** The record's title as it is now (its title field), null without a record or once it is deleted. */
  readonly record_title: string | null;
  /** The history entry (`change_id` of `<model>.history`) of the change the call made, or null. */
  readonly change_id: string | null;
  /** A dry run (`?dry_run=true`): the outcome is what the call would have had; nothing was changed and no plan made. */
  readonly dry_run: boolean;
  /** The request that made the call (its `X-Request-Id`), or null for rows written before requests had ids. */
  readonly request_id: string | null;
}

/** `GET /api/audit`: the input of `search`, the answer of `search`. */
export type AuditAnswer = SearchAnswer<AuditTrailRow>;
