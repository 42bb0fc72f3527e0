/**
 * The shapes of the one command path. REST (runtime/http) and MCP call `executeCommand`; it calls
 * masking, approval plans, history and the audit trail itself.
 */
import type { Knex } from 'knex';
import type { ApprovalRequiredAnswer, CommandEnvelope } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { Clock } from '../clock.ts';
import type { Dialect } from '../db/connect.ts';
import type { CompiledList, ModelQuery } from '../query/compiled-list.ts';
import type { ActionMeta, CommandMeta, FieldMeta, LineListMeta, LineQueries, ModelLogic, ModelMeta, ModelQueries, Registry } from '../registry.ts';
import type { CallerRights, ModelRights } from '../rights.ts';

/** What `executeCommand` answers; REST sends `status` and `body` as they are. */
export type CommandOutcome = { readonly status: 200; readonly body: CommandEnvelope } | { readonly status: 202; readonly body: ApprovalRequiredAnswer };

export type { CommandEnvelope };

/**
 * A validated command, ready to run. JSON-serialisable on purpose: an approval plan stores it
 * (with clear values, after unmasking) and `runApprovedCommand` executes it later for the approver.
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
   * that value by — the one it sent, or the written token issued for a value it sent in clear
   * (issued with the write or the plan that keeps the value, see `PreparedCall.clearPersonal`).
   * What the agent sees of its own input afterwards, and what its bindings hold once the command
   * runs (see masking/bindings.ts).
   */
  readonly agentTokens?: Readonly<Record<string, string>>;
}

/**
 * A prepared command as the call that made it holds it: with its compiled list (list, search) and
 * the personal fields an agent gave in clear, whose written tokens are issued in the transaction
 * that stores their values (never for a call that is refused, fails or is only tried).
 */
export interface PreparedCall extends PreparedCommand {
  readonly list?: CompiledList;
  readonly clearPersonal?: readonly string[];
}

/** Everything a step of the path knows about the call. */
export interface CommandContext {
  readonly service: RecordService;
  readonly caller: Caller;
  readonly rights: CallerRights;
  readonly command: CompiledCommand;
  /** The caller's field rights on the command's model. */
  readonly fields: ModelRights;
  /** An approved plan's command: the agent token that proposed it (the files it uploaded may be attached). */
  readonly proposedByAgent?: string;
  /**
   * Nothing reads the answer but REST's sender (http/send.ts): a record read for it may keep its
   * file values as the text the database holds (query/stored-json.ts), and a list without a limit
   * may be answered a page at a time as it is read (`RecordPages`, view/record-pages.ts).
   */
  readonly answerIsJsonOnly?: boolean;
}

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
  /** Its computed fields and rules. */
  readonly logic: ModelLogic;
  /** Its line lists, by name, in declaration order. */
  readonly lines: ReadonlyMap<string, CompiledLineList>;
  /** Whether a write must work out computed fields or check rules (and so needs the whole record with its lines). */
  readonly hasLogic: boolean;
}

/** A line list compiled once: its fields by name, its personal fields' labels, its queries. */
export interface CompiledLineList {
  readonly meta: LineListMeta;
  readonly fields: ReadonlyMap<string, FieldMeta>;
  readonly personal: ReadonlyMap<string, string>;
  readonly queries: LineQueries;
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
  /** Logs unexpected failures server-side (never sent to clients), with the request's id when known. */
  readonly logError: (error: unknown, requestId?: string) => void;
  /** The time a write gives `'today'` and `'now'` (runtime/clock.ts). */
  readonly clock: Clock;
}

/** The command as a plan stores it: without what only the call itself needs. */
export function storedForm(prepared: PreparedCall): PreparedCommand {
  const { list: _list, clearPersonal: _clear, ...stored } = prepared;
  return stored;
}

/**
 * A plan's stored command, read back. Plans stored before `agentTokens` had its name kept the
 * same tokens under `written`.
 */
export function parseStoredCommand(json: string): PreparedCommand {
  const stored = JSON.parse(json) as PreparedCommand & { readonly written?: Readonly<Record<string, string>> };
  if (stored.written === undefined) return stored;
  const { written, ...rest } = stored;
  return { ...rest, agentTokens: written };
}
