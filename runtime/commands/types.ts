/**
 * The shapes of the one command path. REST (runtime/http) and MCP call `executeCommand`; the
 * agent side (masking, approval plans, audit) plugs in through `CommandHooks`.
 */
import type { Knex } from 'knex';
import type { Caller } from '../caller.ts';
import type { Dialect } from '../db/connect.ts';
import type { CompiledList, ModelQuery } from '../query/list-query.ts';
import type { ActionMeta, CommandMeta, FieldMeta, ModelMeta, Registry } from '../registry.ts';
import type { CallerRights, ModelRights } from '../rights.ts';

/** What `executeCommand` answers; REST sends `status` and `body` as they are. */
export type CommandOutcome =
  | { readonly status: 200; readonly body: CommandEnvelope }
  | { readonly status: 202; readonly body: { readonly approval_required: true; readonly plan_id: string } };

/** SPEC 4.2. */
export interface CommandEnvelope {
  readonly denied: readonly string[];
  readonly value: unknown;
}

/** A record as the command path carries it: `id` plus field values, null when empty. */
export type RecordValue = Record<string, unknown>;

/**
 * A validated command, ready to run. JSON-serialisable on purpose: an approval plan stores it
 * (with clear values, after unmasking) and `runPrepared` executes it later for the approver.
 */
export interface PreparedCommand {
  /** Command id, e.g. `lead.update`. */
  readonly command: string;
  /** Validated input with clear values. For `update`, `null` means "empty the field". */
  readonly input: Readonly<Record<string, unknown>>;
  /**
   * Actions an `update` of governed fields runs (resolved against the record's state when the
   * command was prepared); the action of an action command. Names, in the command's model.
   */
  readonly actions: readonly string[];
  /** The record the command works on, when it has one (get, update, delete, actions). */
  readonly recordId: string | null;
  /** Whether an agent may only propose it: the command's rule or that of an action it runs. */
  readonly needsApproval: boolean;
}

/** Everything a step of the path knows about the call. */
export interface CommandContext {
  readonly service: CommandService;
  readonly caller: Caller;
  readonly rights: CallerRights;
  readonly command: CompiledCommand;
  /** The caller's field rights on the command's model. */
  readonly fields: ModelRights;
}

/** What happened, for the audit trail. */
export type AuditEvent =
  | { readonly outcome: 'executed'; readonly prepared: PreparedCommand; readonly recordId: string | null }
  | { readonly outcome: 'proposed'; readonly prepared: PreparedCommand; readonly planId: string }
  | { readonly outcome: 'refused'; readonly status: number; readonly error: string; readonly prepared?: PreparedCommand }
  | { readonly outcome: 'failed'; readonly error: string; readonly prepared?: PreparedCommand };

/**
 * Where the agent side plugs into the command path. The defaults (`personHooks`) are identity
 * and no-ops; every hook gets the caller in `ctx` and decides for itself what applies to it.
 */
export interface CommandHooks {
  /**
   * After validation, before approval: turn what the caller sent into clear values (agents:
   * masking tokens in personal fields → clear values, or throw 400 `invalid token`). Receives and
   * returns the validated input; `ctx.fields.masked` names the fields that may hold tokens.
   */
  unmaskInput(ctx: CommandContext, input: Record<string, unknown>, db: Knex): Promise<Record<string, unknown>>;
  /** Whether this call only proposes the command (default: an agent calling a command that needs approval). */
  needsProposal(ctx: CommandContext, prepared: PreparedCommand): boolean;
  /**
   * Stores a plan for a prepared command and returns its id. Called after the command was dry-run
   * (and rolled back), so a plan is only made for input that would run now.
   */
  propose(ctx: CommandContext, prepared: PreparedCommand, db: Knex): Promise<string>;
  /**
   * The records of the result as this caller sees them (agents: personal fields → tokens).
   * Records hold only fields the caller reads; `ctx.fields.masked` lists those to mask. Runs with
   * the command's transaction for writes and `search`, with the database for `get` and `list`.
   */
  presentRecords(ctx: CommandContext, records: RecordValue[], db: Knex): Promise<RecordValue[]>;
  /**
   * Records what happened. `executed`: inside the command's transaction (for writes), so the entry
   * commits with the change; other outcomes: after the fact, on the database.
   */
  audit(ctx: CommandContext, event: AuditEvent, db: Knex): Promise<void>;
}

/** A model compiled once at start: lookups and SQL pieces the handlers use on every call. */
export interface CompiledModel {
  readonly meta: ModelMeta;
  readonly table: string;
  readonly fields: ReadonlyMap<string, FieldMeta>;
  readonly governed: readonly FieldMeta[];
  readonly actions: ReadonlyMap<string, ActionMeta>;
  readonly query: ModelQuery;
  /** JSON value → bound parameter, per field. */
  readonly toDb: ReadonlyMap<string, (value: unknown) => unknown>;
}

export interface CompiledCommand {
  readonly meta: CommandMeta;
  readonly model: CompiledModel;
}

export interface CommandService {
  readonly registry: Registry;
  readonly db: Knex;
  readonly dialect: Dialect;
  readonly models: ReadonlyMap<string, CompiledModel>;
  /** The lookup table of the one command route. */
  readonly commands: ReadonlyMap<string, CompiledCommand>;
  readonly hooks: CommandHooks;
  /** Logs unexpected failures server-side (never sent to clients). */
  readonly logError: (error: unknown) => void;
}

/** A validated list/search keeps its compiled query next to the serialisable input. */
export interface PreparedList extends PreparedCommand {
  readonly list?: CompiledList;
}
