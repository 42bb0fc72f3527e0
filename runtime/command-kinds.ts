/**
 * Every kind of command, with what it is, declared once. The generator reads this table to give
 * each model its commands (and their MCP hints), and the runtime to run them (transaction,
 * history), to count them (an agent's write budget) and to audit them (read or write). A new kind
 * is one more row here: every consumer keyed by kind (`Record<CommandKind, …>`) then fails to
 * compile until it has decided what the kind means for it, and every consumer that derives its
 * answer from the traits below gets it at once.
 *
 * This module imports nothing: the web app's bundle takes `CommandKind` from here through
 * runtime/api-shapes.ts (and `NOT_AN_AGENTS_KINDS` for its scope picker), and the generator
 * imports it too.
 */

/** Whether a command reads records or changes them. */
export type CommandAccess = 'read' | 'write';

/** What a command does to one record, as its history entry says; null for reads. */
export type RecordChangeKind = 'create' | 'update' | 'delete' | 'action' | 'erase';

/** What the `value` of a command's answer holds. */
export type CommandResultShape = 'record' | 'records' | 'page' | 'deleted' | 'history' | 'erased' | 'batch' | 'service';

/** What a kind is; `impliedBy` is checked to name a kind below, once the kinds are known. */
interface Traits<Kind extends string> {
  /** Reads or changes records: the audit trail's `access`, an agent's writes per minute, MCP's `readOnlyHint`. */
  readonly access: CommandAccess;
  /** The entry a record's history gets for it (a revert is an update); null: none. */
  readonly change: RecordChangeKind | null;
  /**
   * Runs in one transaction with its history, masking bindings and audit row. Reads run as single
   * statements (a `search` on PostgreSQL is the exception: its page and total share one snapshot).
   */
  readonly transaction: boolean;
  /** Every model has a command of this kind (with `personalData`, every model that holds some), named after it; false: a model declares its own (actions). */
  readonly everyModel: boolean;
  /**
   * Given with the command of this other kind of the same model: whoever may use that one may use
   * this (roles from the generator, agents' scopes at run time). Implied commands come last in a
   * model's catalogue, after its actions.
   */
  readonly impliedBy: Kind | null;
  /** An agent may only propose it (SPEC 4.4); for actions each action says. */
  readonly needsApproval: boolean;
  /** MCP `destructiveHint`: removes what cannot be had back by another command. */
  readonly destructive: boolean;
  /** MCP `idempotentHint`: calling it again with the same input changes nothing more. */
  readonly idempotent: boolean;
  /** What the answer's `value` is. */
  readonly result: CommandResultShape;
  /** Its input carries field values besides the record's `id` (what masking and the caller's view of an input apply to). */
  readonly takesFields: boolean;
  /** Its input names one record by `id`: the audit trail's `record_id`, kept even when the rest of the input is refused. */
  readonly namesRecord: boolean;
  /**
   * Only the built-in `admin` role may use it: no module grants it to another role (`'*'` leaves it
   * out), and no agent token has it, whatever its scopes and whoever made it.
   */
  readonly adminOnly: boolean;
  /** Only a model that holds personal data (a personal field of its own or of its lines) has it. */
  readonly personalData: boolean;
}

export const COMMAND_KINDS = {
  get: {
    access: 'read', change: null, transaction: false, everyModel: true, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: true, result: 'record', takesFields: false, namesRecord: true,
    adminOnly: false, personalData: false,
  },
  list: {
    access: 'read', change: null, transaction: false, everyModel: true, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: true, result: 'records', takesFields: false, namesRecord: false,
    adminOnly: false, personalData: false,
  },
  search: {
    access: 'read', change: null, transaction: false, everyModel: true, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: true, result: 'page', takesFields: false, namesRecord: false,
    adminOnly: false, personalData: false,
  },
  create: {
    access: 'write', change: 'create', transaction: true, everyModel: true, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: false, result: 'record', takesFields: true, namesRecord: false,
    adminOnly: false, personalData: false,
  },
  update: {
    access: 'write', change: 'update', transaction: true, everyModel: true, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: true, result: 'record', takesFields: true, namesRecord: true,
    adminOnly: false, personalData: false,
  },
  delete: {
    access: 'write', change: 'delete', transaction: true, everyModel: true, impliedBy: null,
    needsApproval: true, destructive: true, idempotent: false, result: 'deleted', takesFields: false, namesRecord: true,
    adminOnly: false, personalData: false,
  },
  history: {
    access: 'read', change: null, transaction: false, everyModel: true, impliedBy: 'get',
    needsApproval: false, destructive: false, idempotent: true, result: 'history', takesFields: false, namesRecord: true,
    adminOnly: false, personalData: false,
  },
  revert: {
    access: 'write', change: 'update', transaction: true, everyModel: true, impliedBy: 'update',
    needsApproval: true, destructive: false, idempotent: false, result: 'record', takesFields: false, namesRecord: true,
    adminOnly: false, personalData: false,
  },
  action: {
    access: 'write', change: 'action', transaction: true, everyModel: false, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: false, result: 'record', takesFields: true, namesRecord: true,
    adminOnly: false, personalData: false,
  },
  /**
   * Forgets the personal data of one record (GDPR article 17): its personal fields and its lines'
   * become empty, and the same values leave its history, the audit trail, plans and masking
   * (runtime/erasure/). Idempotent: a second erase finds nothing more to forget.
   */
  erase: {
    access: 'write', change: 'erase', transaction: true, everyModel: true, impliedBy: null,
    needsApproval: false, destructive: true, idempotent: true, result: 'erased', takesFields: false, namesRecord: true,
    adminOnly: true, personalData: true,
  },
  create_many: {
    access: 'write', change: 'create', transaction: true, everyModel: true, impliedBy: 'create',
    needsApproval: true, destructive: false, idempotent: false, result: 'batch', takesFields: true, namesRecord: false,
    adminOnly: false, personalData: false,
  },
  update_many: {
    access: 'write', change: 'update', transaction: true, everyModel: true, impliedBy: 'update',
    needsApproval: true, destructive: false, idempotent: true, result: 'batch', takesFields: true, namesRecord: false,
    adminOnly: false, personalData: false,
  },
  delete_many: {
    access: 'write', change: 'delete', transaction: true, everyModel: true, impliedBy: 'delete',
    needsApproval: true, destructive: true, idempotent: false, result: 'batch', takesFields: false, namesRecord: false,
    adminOnly: false, personalData: false,
  },
  revert_batch: {
    access: 'write', change: 'update', transaction: true, everyModel: true, impliedBy: 'update',
    needsApproval: true, destructive: false, idempotent: false, result: 'batch', takesFields: false, namesRecord: false,
    adminOnly: false, personalData: false,
  },
  /**
   * A workflow action run on each record a selection names (`lead.qualify_many`): a model has one
   * per action, named `<action>_many`, implied by the action itself. Its history entries are the
   * action's (an action's change is not reverted, nor is its batch).
   */
  action_many: {
    access: 'write', change: 'action', transaction: true, everyModel: false, impliedBy: 'action',
    needsApproval: true, destructive: false, idempotent: false, result: 'batch', takesFields: true, namesRecord: false,
    adminOnly: false, personalData: false,
  },
  /** `webhook.create`: a subscription to change events (runtime/webhooks/). */
  webhook_create: {
    access: 'write', change: null, transaction: true, everyModel: false, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: false, result: 'service', takesFields: false, namesRecord: false,
    adminOnly: true, personalData: false,
  },
  /** `webhook.list`: the subscriptions, without their secrets. */
  webhook_list: {
    access: 'read', change: null, transaction: false, everyModel: false, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: true, result: 'service', takesFields: false, namesRecord: false,
    adminOnly: true, personalData: false,
  },
  /** `webhook.get`: one subscription, without its secrets. */
  webhook_get: {
    access: 'read', change: null, transaction: false, everyModel: false, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: true, result: 'service', takesFields: false, namesRecord: false,
    adminOnly: true, personalData: false,
  },
  /** `webhook.update`: a subscription's URL, filters, role or secrets. */
  webhook_update: {
    access: 'write', change: null, transaction: true, everyModel: false, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: true, result: 'service', takesFields: false, namesRecord: false,
    adminOnly: true, personalData: false,
  },
  /** `webhook.delete`: a subscription and its deliveries. */
  webhook_delete: {
    access: 'write', change: null, transaction: true, everyModel: false, impliedBy: null,
    needsApproval: false, destructive: true, idempotent: false, result: 'service', takesFields: false, namesRecord: false,
    adminOnly: true, personalData: false,
  },
  /** `webhook.deliveries`: a subscription's deliveries, with their state, attempts and last error. */
  webhook_deliveries: {
    access: 'read', change: null, transaction: false, everyModel: false, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: true, result: 'service', takesFields: false, namesRecord: false,
    adminOnly: true, personalData: false,
  },
  /** `webhook.redeliver`: sends one event again, or every dead one. */
  webhook_redeliver: {
    access: 'write', change: null, transaction: true, everyModel: false, impliedBy: null,
    needsApproval: false, destructive: false, idempotent: false, result: 'service', takesFields: false, namesRecord: false,
    adminOnly: true, personalData: false,
  },
} as const satisfies { readonly [kind: string]: Traits<string> };
// The `service` kinds are commands of the service, not of a model (`webhook.*`): no model has them
// (`everyModel: false`, and no module declares them), only `admin` may use them, and
// runtime/webhooks/commands.ts runs them (SERVICE_COMMANDS below).
// The bulk kinds (`result: 'batch'`) need approval: an agent's bulk call is one plan listing every
// record and what it changes in each.

/** SPEC 2.5's generated commands, their record history, erasure, and `action` for a model's workflow actions. */
export type CommandKind = keyof typeof COMMAND_KINDS;

export type CommandKindTraits = Traits<CommandKind>;

// Fails to compile when a row's `impliedBy` names no kind of the table.
const impliedByNamesAKind: Exclude<(typeof COMMAND_KINDS)[CommandKind]['impliedBy'], null> extends CommandKind ? true : never = true;
void impliedByNamesAKind;

/** The kinds in table order. */
export const COMMAND_KIND_NAMES = Object.keys(COMMAND_KINDS) as readonly CommandKind[];

/** The traits of a kind, typed as traits (the table's literal types are for its own checks). */
export function kindTraits(kind: CommandKind): CommandKindTraits {
  return COMMAND_KINDS[kind];
}

/**
 * Whether a dry run of the kind answers what it would change even for an agent whose call would be
 * held as a plan: the bulk kinds, whose dry run is how an agent sees what its plan would list
 * (`?dry_run=true` and the input's `"dry_run": true` alike). Other held calls answer that they would
 * be proposed.
 */
export function dryRunShowsChanges(kind: CommandKind): boolean {
  return COMMAND_KINDS[kind].result === 'batch';
}

/** The kinds every model has a command of, named after the kind. */
export type EveryModelKind = { [K in CommandKind]: (typeof COMMAND_KINDS)[K]['everyModel'] extends true ? K : never }[CommandKind];

/** Those kinds in table order. */
export const EVERY_MODEL_COMMANDS = COMMAND_KIND_NAMES.filter((kind): kind is EveryModelKind => COMMAND_KINDS[kind].everyModel);

/**
 * The kinds every model has, in catalogue order around its actions: SPEC's commands before them;
 * after them those that come with another (history, revert), then those only `admin` uses.
 */
export const KINDS_BEFORE_ACTIONS = EVERY_MODEL_COMMANDS.filter((kind) => COMMAND_KINDS[kind].impliedBy === null && !COMMAND_KINDS[kind].adminOnly);
export const KINDS_IMPLIED = EVERY_MODEL_COMMANDS.filter((kind) => COMMAND_KINDS[kind].impliedBy !== null && !COMMAND_KINDS[kind].adminOnly);
export const KINDS_ADMIN_ONLY = EVERY_MODEL_COMMANDS.filter((kind) => COMMAND_KINDS[kind].adminOnly);
export const KINDS_AFTER_ACTIONS = [...KINDS_IMPLIED, ...KINDS_ADMIN_ONLY];

/**
 * A model's command names in catalogue order: SPEC's commands, its actions, the commands that come
 * with another (history, revert, the bulk commands), each action's bulk command, then the admin's.
 */
export function catalogueNames(actions: readonly string[], has: (kind: EveryModelKind) => boolean = () => true): string[] {
  return [
    ...KINDS_BEFORE_ACTIONS.filter(has),
    ...actions,
    ...KINDS_IMPLIED.filter(has),
    ...actions.map(actionManyName),
    ...KINDS_ADMIN_ONLY.filter(has),
  ];
}

/** The kinds whose commands read records. */
export const READING_KINDS = COMMAND_KIND_NAMES.filter((kind) => COMMAND_KINDS[kind].access === 'read');

/** The kinds only `admin` may use (see `adminOnly`). */
export const ADMIN_ONLY_KINDS: ReadonlySet<CommandKind> = new Set(COMMAND_KIND_NAMES.filter((kind) => COMMAND_KINDS[kind].adminOnly));

/**
 * The kinds no agent token has, whatever its scopes and whoever made it: those only `admin` uses,
 * and `revert_batch` (an agent proposes reverts one change at a time). Those of models are
 * every-model kinds, so their commands are named `<model>.<kind>` (what the web app's scope picker
 * leaves out by); the service's own (`webhook.*`) belong to no model.
 */
export const NOT_AN_AGENTS_KINDS: ReadonlySet<CommandKind> = new Set(
  COMMAND_KIND_NAMES.filter((kind) => COMMAND_KINDS[kind].adminOnly || kind === 'revert_batch'),
);

/** The name of an action's bulk command (`qualify` → `qualify_many`). */
export function actionManyName(action: string): string {
  return `${action}_many`;
}

/** The kinds of the service's own commands (`result: 'service'`), which belong to no model. */
export type ServiceKind = { [K in CommandKind]: (typeof COMMAND_KINDS)[K]['result'] extends 'service' ? K : never }[CommandKind];

/** The service's own commands, by id (`webhook.create`), in table order: `<area>_<name>` kinds are `<area>.<name>` commands. */
export const SERVICE_COMMANDS: ReadonlyMap<string, ServiceKind> = new Map(
  COMMAND_KIND_NAMES.filter((kind): kind is ServiceKind => COMMAND_KINDS[kind].result === 'service').map((kind) => [kind.replace('_', '.'), kind]),
);

/**
 * What a consumer of models' commands does with a service kind: no model has a command of one, so
 * reaching it is a bug (the switches over kinds end here for them).
 */
export function noModelCommand(kind: ServiceKind): never {
  throw new Error(`bug: ${kind} is a command of the service, not of a model`);
}
