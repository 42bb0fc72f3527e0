/**
 * Agent tokens: made by a person, limited to scopes, valid for a number of days. The rights an
 * agent has are its scopes cut down to its creator's current rights; that cut is made per request
 * by the rights code, so here a scope is only checked to grant something when it is issued.
 */
import type { Knex } from 'knex';
import type { AgentTokenInfo, IssuedAgentToken } from '../api-shapes.ts';
import type { PersonCaller } from '../caller.ts';
import { newId } from '../ids.ts';
import { agentMaxAffected } from '../kinds.ts';
import { ADMIN_ROLE } from '../rights.ts';
import { parseScopes } from './authenticate.ts';
import { effectiveLimits, limitsInfo, type OwnLimits, type RateLimits } from './rate-limits.ts';
import { scopeMatches } from './scopes.ts';
import { TOKENS_TABLE, type TokenRow } from './tables.ts';
import { hashToken, isoNow, newToken } from './tokens.ts';

export const DEFAULT_AGENT_TOKEN_DAYS = 30;
export const MAX_AGENT_TOKEN_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

// What `POST /api/auth/agent-token` and `GET /api/auth/agent-tokens` answer: declared with the API's shapes.
export type { AgentTokenInfo, IssuedAgentToken };

export interface NewAgentToken {
  /** Well-formed, de-duplicated scope patterns, each granting at least one command the person may use. */
  readonly scopes: readonly string[];
  readonly label: string;
  readonly expiresInDays: number;
  /** The token's own rate limits (checked against the server's); null where the server's apply. */
  readonly limits: OwnLimits;
  /** Its own cap on the records one bulk command changes (checked by the caller); null: the default. */
  readonly maxAffected?: number | null;
}

/** The scopes among `scopes` that match no command in `allowed`. */
export function scopesGrantingNothing(scopes: readonly string[], allowed: Iterable<string>): string[] {
  const commands = [...allowed];
  return scopes.filter((scope) => !commands.some((id) => scopeMatches(scope, id)));
}

export async function issueAgentToken(
  db: Knex,
  person: PersonCaller,
  input: NewAgentToken,
  serverLimits: RateLimits,
  now: number = Date.now(),
): Promise<IssuedAgentToken> {
  const token = newToken('agent');
  const id = newId(now);
  const created = isoNow(now);
  const expires = isoNow(now + input.expiresInDays * DAY_MS);
  await db(TOKENS_TABLE).insert({
    id,
    token_hash: hashToken(token),
    kind: 'agent',
    user_id: person.userId,
    label: input.label,
    scopes: JSON.stringify(input.scopes),
    created_at: created,
    expires_at: expires,
    revoked_at: null,
    last_used_at: null,
    requests_per_minute: input.limits.requestsPerMinute,
    writes_per_minute: input.limits.writesPerMinute,
    max_affected: input.maxAffected ?? null,
  });
  const limits = limitsInfo(effectiveLimits(input.limits, person.roles.includes(ADMIN_ROLE), serverLimits));
  return { id, token, label: input.label, scopes: input.scopes, created, expires, limits, max_affected: agentMaxAffected(input.maxAffected) };
}

/** The person's own agent tokens, newest first, revoked and expired ones included. */
export async function listAgentTokens(db: Knex, person: PersonCaller, serverLimits: RateLimits, now: number = Date.now()): Promise<AgentTokenInfo[]> {
  const rows = await db<TokenRow>(TOKENS_TABLE)
    .where({ user_id: person.userId, kind: 'agent' })
    .orderBy('id', 'desc')
    .select('id', 'label', 'scopes', 'created_at', 'expires_at', 'last_used_at', 'revoked_at', 'requests_per_minute', 'writes_per_minute', 'max_affected');
  const admin = person.roles.includes(ADMIN_ROLE);
  const nowIso = isoNow(now);
  return rows.map((row) => ({
    id: row.id,
    label: row.label ?? '',
    scopes: parseScopes(row.scopes),
    created: row.created_at,
    expires: row.expires_at,
    last_used: row.last_used_at,
    revoked: row.revoked_at,
    status: row.revoked_at !== null ? 'revoked' : row.expires_at <= nowIso ? 'expired' : 'active',
    limits: limitsInfo(effectiveLimits(ownLimits(row), admin, serverLimits)),
    max_affected: agentMaxAffected(row.max_affected === null ? null : Number(row.max_affected)),
  }));
}

function ownLimits(row: Pick<TokenRow, 'requests_per_minute' | 'writes_per_minute'>): OwnLimits {
  const number = (value: number | string | null) => (value === null ? null : Number(value));
  return { requestsPerMinute: number(row.requests_per_minute), writesPerMinute: number(row.writes_per_minute) };
}

/**
 * Sets an agent token's cap on the records one bulk command changes (null: back to the default):
 * one of `ownerId`'s, or anyone's when `ownerId` is undefined (an admin's). False when there is no
 * such token (of theirs). It applies from the token's next request.
 */
export async function setAgentTokenMaxAffected(db: Knex, ownerId: string | undefined, tokenId: string, maxAffected: number | null): Promise<boolean> {
  const changed = await db(TOKENS_TABLE)
    .where({ id: tokenId, kind: 'agent', ...(ownerId === undefined ? {} : { user_id: ownerId }) })
    .update({ max_affected: maxAffected });
  return changed > 0;
}

/**
 * Revokes an agent token: one of `ownerId`'s, or anyone's when `ownerId` is undefined (an admin's
 * revocation). False when there is no such token (of theirs).
 */
export async function revokeAgentToken(db: Knex, ownerId: string | undefined, tokenId: string): Promise<boolean> {
  const row = await db<TokenRow>(TOKENS_TABLE)
    .where({ id: tokenId, kind: 'agent', ...(ownerId === undefined ? {} : { user_id: ownerId }) })
    .first('id');
  if (!row) return false;
  await db(TOKENS_TABLE).where('id', tokenId).whereNull('revoked_at').update({ revoked_at: isoNow() });
  return true;
}
