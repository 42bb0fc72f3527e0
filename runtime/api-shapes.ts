/**
 * The JSON shapes of the HTTP API, declared once for both of its sides: the runtime annotates the
 * answers it sends with them, and the web app (web/src) reads the answers through them, so that
 * renaming a field here fails `tsc` on both sides.
 *
 * This module imports only types, and only from modules that import nothing themselves: esbuild
 * bundles it into the web app, which must not pull zod or anything server-side. Keep it to types
 * and plain constants. Names follow the JSON
 * (snake_case), not the runtime's camelCase registry (runtime/registry.ts).
 *
 * Naming: `…Answer` is the whole body of one endpoint's answer; `…Info` is an item inside one.
 */

/**
 * The kinds a field can have: SPEC 2.2's, then `decimal` (a number with a fixed count of decimals),
 * `datetime` (an instant, ISO 8601), `email`, `url`, `phone` (text of that form) and `multiselect`
 * (an array of distinct options).
 */
export type FieldKind = 'text' | 'longtext' | 'number' | 'money' | 'date' | 'bool' | 'select' | 'ref' | 'decimal' | 'datetime' | 'email' | 'url' | 'phone' | 'multiselect';

/** A field's value when a record is created without it: a constant, or the day or instant of the write. */
export type FieldDefault = { readonly value: unknown } | 'today' | 'now';

/** What an action sets a field to: a constant, the day or instant it runs, or one of its inputs. */
export type ActionSet = { readonly value: unknown } | 'today' | 'now' | { readonly input: string };

import type { CommandKind } from './command-kinds.ts';

/** SPEC 2.5: generated commands, plus `action` for a model's workflow actions; declared with what each kind is. */
export type { CommandKind };

/** SPEC 4.5: the operators of a `list`/`search` filter condition. */
export const FILTER_OPERATORS = ['eq', 'ne', 'contains', 'in', 'gt', 'gte', 'lt', 'lte', 'is_null'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** One condition of the `filter` of `list`/`search` (and of `GET /api/audit`). */
export interface FilterCondition {
  readonly field: string;
  readonly op: FilterOperator;
  readonly value?: unknown;
}

/** One key of the `order` of `list`/`search`. */
export interface OrderKey {
  readonly field: string;
  readonly dir: 'asc' | 'desc';
}

/** A record as commands answer it: its `id` and the fields the caller reads (personal ones masked for agents). */
export type RecordValue = { readonly id: string } & Readonly<Record<string, unknown>>;

// ---------------------------------------------------------------------------------------------
// GET /api/meta: what the caller may see

/** A field the caller reads. */
export interface FieldInfo {
  readonly name: string;
  readonly kind: FieldKind;
  readonly label: string;
  readonly description: string;
  readonly required: boolean;
  readonly personal: boolean;
  /** The caller sees this field's values as masking tokens (agents, personal fields). */
  readonly masked: boolean;
  /** A select changed only through actions. */
  readonly governed: boolean;
  /** Options of a select, in order. */
  readonly options?: readonly string[];
  /** Target model of a ref. */
  readonly target?: string;
  /** A money field's currency (ISO 4217, e.g. `EUR`), from the field or its module; absent: none. */
  readonly currency?: string;
  /** A decimal's count of decimals (0–6). */
  readonly scale?: number;
  /** The least and most value (number, decimal, money in minor units; date and datetime as their strings). */
  readonly min?: number | string;
  readonly max?: number | string;
  /** Text kinds: the most characters. */
  readonly length?: number;
  /** Text kinds: a regular expression the whole value must match. */
  readonly pattern?: string;
  /** The value a create gives the field when the input has none. */
  readonly default?: FieldDefault;
  /** Worked out from the record on every write: callers never write it. */
  readonly computed: boolean;
  /** The caller may write it (not computed, and its role among the field's writers). */
  readonly writable: boolean;
}

/** A record's line list (`lines:` of its model): rows it owns, in order, written only with it. */
export interface LineListInfo {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** Fewest and most lines a record has. */
  readonly min: number;
  readonly max: number;
  /** The line fields the caller reads. */
  readonly fields: readonly FieldInfo[];
  /** `<model>.<lines>.<field>` of the line fields withheld from the caller. */
  readonly denied: readonly string[];
}

/** A rule of a model: the record as it will be must pass `check` (run on the server), else the message. */
export interface RuleInfo {
  readonly fields: readonly string[];
  readonly message: string;
}

/** A workflow action the caller may run. */
export interface ActionInfo {
  readonly name: string;
  readonly description: string;
  /** The governed select field the action moves. */
  readonly field: string;
  readonly from: readonly string[];
  readonly to: string;
  /** Fields the caller must give with the action. */
  readonly required: readonly string[];
  readonly needs_approval: boolean;
  /** What the action takes besides the record's id: each input, required or not; `field` marks one named like a field, which it sets when given. */
  readonly inputs: readonly (FieldInfo & { readonly field: boolean })[];
  /** Fields the action sets when it runs. */
  readonly set: Readonly<Record<string, ActionSet>>;
}

/** A model the caller may use at least one command of. */
export interface ModelInfo {
  readonly name: string;
  readonly module: string;
  readonly label: string;
  readonly description: string;
  readonly title_field: string;
  /** Names of the commands the caller may use (`get`, `search`, …, action names). */
  readonly commands: readonly string[];
  /** `<model>.<field>` of the fields withheld from the caller. */
  readonly denied: readonly string[];
  readonly fields: readonly FieldInfo[];
  readonly actions: readonly ActionInfo[];
  /** The fields a list shows by default besides the title (the model's `list` hint), among those the caller reads; absent: no hint. */
  readonly list?: readonly string[];
  /** Its line lists, in declaration order. */
  readonly lines: readonly LineListInfo[];
  /** Its rules, which the server checks on every write. */
  readonly rules: readonly RuleInfo[];
  /** States of its governed field in which it cannot be changed (update, lines, delete); actions still run. */
  readonly locked_in?: { readonly field: string; readonly states: readonly string[] };
}

/** A module with at least one model the caller may see. */
export interface ModuleInfo {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** Names of the module's models the caller may see. */
  readonly models: readonly string[];
}

export interface PersonCallerInfo {
  readonly kind: 'person';
  readonly username: string;
  readonly roles: readonly string[];
}

export interface AgentCallerInfo {
  readonly kind: 'agent';
  readonly label: string;
  readonly scopes: readonly string[];
  /** Username of the person who created the agent's token. */
  readonly creator: string;
}

export type CallerInfo = PersonCallerInfo | AgentCallerInfo;

/** What the service calls itself for people (`serve --name`, `--colour`, `--locale`). */
export interface ServiceInfo {
  /** Its name, in the web app's top bar and page titles; default `Records`. */
  readonly name: string;
  /** Its colour as `#rrggbb`, the web app's top bar; default `#1f2735`. */
  readonly colour: string;
  /** The BCP 47 locale the web app writes amounts and dates in; null: each reader's browser locale. */
  readonly locale: string | null;
}

/** Today's app when the service says nothing: "Records", its dark blue-grey bar, each reader's browser locale. */
export const DEFAULT_SERVICE_INFO: ServiceInfo = { name: 'Records', colour: '#1f2735', locale: null };

/** `GET /api/service`: answered without signing in (the sign-in page shows it). */
export type ServiceAnswer = ServiceInfo;

/** `GET /api/meta`. */
export interface MetaAnswer {
  readonly caller: CallerInfo;
  readonly modules: readonly ModuleInfo[];
  readonly models: readonly ModelInfo[];
  /** What the service calls itself (as `GET /api/service` answers). */
  readonly service?: ServiceInfo;
  /**
   * For a person: whether they may decide some agent's plan, i.e. may run a command an agent's
   * call is held for (one that needs approval, or an update that runs such an action). Without it
   * the approvals inbox stays empty. Absent for agents.
   */
  readonly decides_plans?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Commands

/** An entry of the command catalogue. */
export interface CommandInfo {
  /** `<model>.<command>`, e.g. `lead.qualify`. */
  readonly id: string;
  readonly description: string;
  readonly needs_approval: boolean;
}

/** `GET /api/commands`. */
export interface CommandsAnswer {
  readonly commands: readonly CommandInfo[];
}

/** SPEC 4.2: the 200 answer of a command (`POST /api/<model>/<command>`), and of `POST /api/approve/<plan>`. */
export interface CommandEnvelope<Value = unknown> {
  /** `<model>.<field>` of the fields withheld from the caller. */
  readonly denied: readonly string[];
  readonly value: Value;
  /** Keyset paging (`list`/`search` with `after`): the `after` of the next page, when more rows follow. */
  readonly next?: string;
}

/** The 202 answer of a command the caller may only propose (SPEC 4.4). */
export interface ApprovalRequiredAnswer {
  readonly approval_required: true;
  readonly plan_id: string;
}

/**
 * `POST /api/<model>/<command>?dry_run=true`: what the call would answer, with nothing changed —
 * the envelope (a create's record carries an id that was never stored), or, for an agent's call
 * that needs approval, that it would be proposed.
 */
export type DryRunAnswer = ({ readonly dry_run: true } & CommandEnvelope) | { readonly dry_run: true; readonly approval_required: true };

/** The value of `search`: one page of records and how many match in all. */
export interface SearchAnswer<Row = RecordValue> {
  readonly rows: readonly Row[];
  readonly total: number;
}

// ---------------------------------------------------------------------------------------------
// Record history (`<model>.history`, `<model>.revert`)

/** One change of a record, as `<model>.history` lists it (the value of that command is a `SearchAnswer` of these). */
export interface HistoryEntryInfo {
  readonly change_id: string;
  /** ISO-8601 UTC with milliseconds. */
  readonly at: string;
  /** The command that made the change, e.g. `lead.update`. */
  readonly command: string;
  /** Who: a person, or an agent (its label) and the person who made its token. For an approved plan, the agent that proposed it. */
  readonly by: { readonly kind: 'person' | 'agent'; readonly username: string; readonly agent_label: string | null };
  /** The approved plan the change came from, or null. */
  readonly plan_id: string | null;
  /** On a revert: the change it put back. */
  readonly reverts?: string;
  /**
   * Field → what it was and became (null for empty): every field a create set, every field of a
   * delete, what an update or action changed; only fields the caller reads. A line list → its
   * lines added, removed and changed. A personal field whose values were erased → `{"erased": true}`
   * (a line's erased field holds it too).
   */
  readonly changes: Readonly<Record<string, FieldChangeInfo | LinesChangeInfo | ErasedChangeInfo>>;
  /** An action's inputs that are not fields of the record, as given. */
  readonly inputs?: Readonly<Record<string, unknown>>;
}

/** What a field was and became. */
export interface FieldChangeInfo {
  readonly from: unknown;
  readonly to: unknown;
}

/** Where an erased personal value was (`<model>.erase`): in history, audit inputs and plans. */
export interface ErasedChangeInfo {
  readonly erased: true;
}

/**
 * The value of `<model>.erase`: the record, and where its personal values were taken out (counts
 * of rows changed).
 */
export interface ErasureInfo {
  readonly id: string;
  /** The personal fields emptied on the record (`<field>`; a line's `<lines>.<field>`), in declaration order. */
  readonly fields: readonly string[];
  readonly history_entries: number;
  readonly audit_rows: number;
  readonly plans: number;
  /** Pending plans that carried the values: they cannot run as proposed, and are rejected. */
  readonly plans_rejected: number;
  /** Masking tokens of the values (any agent's), emptied. */
  readonly mask_tokens: number;
  /** Agents' masking bindings of the record and its lines, removed. */
  readonly bindings: number;
}

/** What a change did to a line list: whole lines added and removed, and the fields changed of the others. */
export interface LinesChangeInfo {
  readonly added: readonly RecordValue[];
  readonly removed: readonly RecordValue[];
  readonly changed: readonly { readonly id: string; readonly changes: Readonly<Record<string, FieldChangeInfo>> }[];
}

// ---------------------------------------------------------------------------------------------
// Approval plans

export type PlanStatus = 'pending' | 'approved' | 'rejected' | 'failed';

/** A plan as the caller sees it (its input masked for agents). */
export interface PlanInfo {
  readonly plan_id: string;
  readonly command: string;
  readonly record_id: string | null;
  readonly input: Readonly<Record<string, unknown>> | null;
  readonly status: PlanStatus;
  readonly created: string;
  /** The agent token that proposed it. */
  readonly agent: { readonly id: string; readonly label: string };
  /** Username of the person who created that token, when known. */
  readonly creator: string | null;
  readonly decided_at: string | null;
  /** Username of the person who decided it, when known. */
  readonly decided_by: string | null;
  /** Why the command failed when it was approved. */
  readonly error: string | null;
}

/** `GET /api/plans`. */
export interface PlansAnswer {
  readonly plans: readonly PlanInfo[];
}

/** `GET /api/plans/<plan>`. */
export interface PlanAnswer {
  readonly plan: PlanInfo;
}

/** `POST /api/reject/<plan>`. (`POST /api/approve/<plan>` answers the command's `CommandEnvelope`.) */
export interface RejectAnswer {
  readonly plan_id: string;
  readonly status: 'rejected';
}

// ---------------------------------------------------------------------------------------------
// Sign-in and agent tokens

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
