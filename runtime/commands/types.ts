/**
 * The shapes of the one command path. REST (runtime/http) and MCP call `executeCommand`; it calls
 * masking, approval plans and the audit trail itself.
 */
import type { Knex } from 'knex';
import type { ApprovalRequiredAnswer, CommandEnvelope } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { Dialect } from '../db/connect.ts';
import type { CompiledList, ModelQuery } from '../query/list-query.ts';
import type { ActionMeta, CommandMeta, FieldMeta, ModelMeta, ModelQueries, Registry } from '../registry.ts';
import type { CallerRights, ModelRights } from '../rights.ts';

/** What `executeCommand` answers; REST sends `status` and `body` as they are. */
export type CommandOutcome = { readonly status: 200; readonly body: CommandEnvelope } | { readonly status: 202; readonly body: ApprovalRequiredAnswer };

export type { CommandEnvelope };

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
  /**
   * An agent's call: for each personal field the input gives a value, the token the agent knows
   * that value by (the one it sent, or one issued for a value it sent in clear). What the agent
   * sees of its own input, and what its bindings hold once the command runs (see masking).
   */
  readonly written?: Readonly<Record<string, string>>;
}

/** Everything a step of the path knows about the call. */
export interface CommandContext {
  readonly service: RecordService;
  readonly caller: Caller;
  readonly rights: CallerRights;
  readonly command: CompiledCommand;
  /** The caller's field rights on the command's model. */
  readonly fields: ModelRights;
}

/** What happened, for the audit trail. */
export type AuditEvent =
  /** `changeId`: the history entry of the change a write made. */
  | { readonly outcome: 'executed'; readonly prepared: PreparedCommand; readonly recordId: string | null; readonly changeId?: string | undefined }
  | { readonly outcome: 'proposed'; readonly prepared: PreparedCommand; readonly planId: string }
  | { readonly outcome: 'refused'; readonly status: number; readonly error: string; readonly prepared?: PreparedCommand }
  | { readonly outcome: 'failed'; readonly error: string; readonly prepared?: PreparedCommand };

/** A model compiled once at start: lookups, its generated queries and the filter compiler the handlers use on every call. */
export interface CompiledModel {
  readonly meta: ModelMeta;
  /** Its generated data access: every read and write of its records. */
  readonly queries: ModelQueries;
  readonly fields: ReadonlyMap<string, FieldMeta>;
  readonly governed: readonly FieldMeta[];
  readonly actions: ReadonlyMap<string, ActionMeta>;
  /** Personal fields, by name: their token label. */
  readonly personal: ReadonlyMap<string, string>;
  /** What `list`/`search` filters and orders are compiled against. */
  readonly query: ModelQuery;
}

export interface CompiledCommand {
  readonly meta: CommandMeta;
  readonly model: CompiledModel;
}

/** The record service: the registry compiled once for one database, which every command reads. */
export interface RecordService {
  readonly registry: Registry;
  readonly db: Knex;
  readonly dialect: Dialect;
  readonly models: ReadonlyMap<string, CompiledModel>;
  /** The lookup table of the one command route. */
  readonly commands: ReadonlyMap<string, CompiledCommand>;
  /** Logs unexpected failures server-side (never sent to clients). */
  readonly logError: (error: unknown) => void;
}

/** A validated list/search keeps its compiled query next to the serialisable input. */
export interface PreparedList extends PreparedCommand {
  readonly list?: CompiledList;
}
