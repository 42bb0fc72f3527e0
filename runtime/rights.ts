/**
 * What a caller may do: which commands it may use and, per model, which fields it reads in
 * clear, which it reads masked, and which are withheld (`denied`).
 *
 * Rights depend only on the caller's role set (people) or on the creator's role set plus the
 * scopes (agents), so they are compiled once per distinct set and cached: the command path only
 * looks them up.
 */
import { scopeMatches } from './auth/scopes.ts';
import { ADMIN_ONLY_KINDS, EVERY_MODEL_COMMANDS, NOT_AN_AGENTS_KINDS, actionManyName, kindTraits } from './command-kinds.ts';
import type { Caller } from './caller.ts';
import type { FieldMeta, LineListMeta, ModelMeta, Registry } from './registry.ts';

/** The built-in role that may use every command and read every field. */
export const ADMIN_ROLE = 'admin';

/** What a caller may do with the fields of a set of fields: a model's, or one of its line lists'. */
export interface FieldRights {
  /** Fields the caller reads (in clear or masked), in declaration order. */
  readonly readable: readonly FieldMeta[];
  readonly readableNames: ReadonlySet<string>;
  /** Fields the caller reads in clear: the only ones it may filter and order on. */
  readonly clearNames: ReadonlySet<string>;
  /** Fields the caller reads only as masking tokens (agents: personal fields). */
  readonly masked: readonly FieldMeta[];
  readonly maskedNames: ReadonlySet<string>;
  /** `<model>.<field>` of every field withheld from the caller, in declaration order. */
  readonly denied: readonly string[];
  /** Fields the caller may write: read (in clear or masked), not computed, and its roles among the field's writers. */
  readonly writableNames: ReadonlySet<string>;
}

/** A line list's fields as the caller may use them (`denied` names them `<model>.<lines>.<field>`). */
export interface LineRights extends FieldRights {
  readonly list: LineListMeta;
}

export interface ModelRights extends FieldRights {
  readonly model: ModelMeta;
  /** Each line list's field rights, by name; their withheld fields are in the model's `denied` too. */
  readonly lines: Readonly<Record<string, LineRights>>;
}

export interface CallerRights {
  /** Identifies the role set / scope set these rights were compiled for. */
  readonly key: string;
  /** Command ids the caller may use. */
  readonly commands: ReadonlySet<string>;
  /** Field rights per model, for every model of the registry. */
  readonly models: Readonly<Record<string, ModelRights>>;
}

/**
 * Commands that come with another of the same model (runtime/command-kinds.ts: whoever may read a
 * record may read its history, whoever may update it may revert one of its updates), by the
 * command that implies them. Roles get them from the generator (`roles.ts`), agents whose scopes
 * name the first from here.
 */
const IMPLIED_BY = new Map<string, string[]>();
for (const kind of EVERY_MODEL_COMMANDS) {
  const by = kindTraits(kind).impliedBy;
  if (by !== null) IMPLIED_BY.set(by, [...(IMPLIED_BY.get(by) ?? []), kind]);
}

/**
 * The command ids with those their commands imply, of the ids `available` allows. A name that is no
 * every-model kind's is an action's: it implies the action's bulk command (`lead.qualify` brings
 * `lead.qualify_many`).
 */
export function withImpliedCommands(ids: Iterable<string>, available: (id: string) => boolean): Set<string> {
  const all = new Set(ids);
  for (const id of [...all]) {
    const dot = id.lastIndexOf('.');
    const name = id.slice(dot + 1);
    const implied = EVERY_MODEL_KIND_NAMES.has(name) ? (IMPLIED_BY.get(name) ?? []) : [actionManyName(name)];
    for (const command of implied) {
      if (available(`${id.slice(0, dot)}.${command}`)) all.add(`${id.slice(0, dot)}.${command}`);
    }
  }
  return all;
}

const EVERY_MODEL_KIND_NAMES: ReadonlySet<string> = new Set(EVERY_MODEL_COMMANDS);

/** Command ids the caller may use: a person's roles, or an agent's scopes cut down to its creator's roles. */
export function allowedCommands(registry: Registry, caller: Caller): ReadonlySet<string> {
  return rightsOf(registry, caller).commands;
}

/** Field rights of the caller on one model. */
export function fieldRights(registry: Registry, caller: Caller, model: string): ModelRights {
  const rights = rightsOf(registry, caller).models[model];
  if (!rights) throw new Error(`unknown model ${model}`);
  return rights;
}

const MAX_CACHED = 10_000;
const cache = new WeakMap<Registry, Map<string, CallerRights>>();

/** The caller's compiled rights (cached per registry and role set / scope set). */
export function rightsOf(registry: Registry, caller: Caller): CallerRights {
  const key = rightsKey(caller);
  let perRegistry = cache.get(registry);
  if (!perRegistry) cache.set(registry, (perRegistry = new Map()));
  let rights = perRegistry.get(key);
  if (!rights) {
    // Scope sets are as many as agent tokens; keep the cache bounded all the same.
    if (perRegistry.size >= MAX_CACHED) perRegistry.clear();
    rights = compileRights(registry, caller, key);
    perRegistry.set(key, rights);
  }
  return rights;
}

function rightsKey(caller: Caller): string {
  if (caller.kind === 'person') return `person:${sortedKey(caller.roles)}`;
  return `agent:${sortedKey(caller.creatorRoles)}|${sortedKey(caller.scopes)}`;
}

function sortedKey(values: readonly string[]): string {
  return values.length === 1 ? values[0]! : [...new Set(values)].sort().join(',');
}

function compileRights(registry: Registry, caller: Caller, key: string): CallerRights {
  const roles = caller.kind === 'person' ? caller.roles : caller.creatorRoles;
  const personCommands = commandsOfRoles(registry, roles);
  // An admin-only command (erase) is a person's act: no agent has it, even one an admin made with `*.*`.
  const commands =
    caller.kind === 'person'
      ? personCommands
      : withImpliedCommands(
          [...personCommands].filter((id) => !notAnAgents(registry, id) && caller.scopes.some((scope) => scopeMatches(scope, id))),
          (id) => personCommands.has(id) && !notAnAgents(registry, id),
        );
  const models: Record<string, ModelRights> = {};
  for (const model of Object.values(registry.models)) {
    models[model.name] = compileModelRights(model, roles, caller.kind === 'agent');
  }
  return Object.freeze({ key, commands, models: Object.freeze(models) });
}

/**
 * The commands an agent does not have: `revert_batch` (an agent proposes reverts one change at a
 * time), and an admin-only one (`erase`), whoever made the token. Its other bulk commands are each
 * one plan listing every record and change (docs/api.md, Bulk commands).
 */
function notAnAgents(registry: Registry, id: string): boolean {
  const command = Object.hasOwn(registry.commands, id) ? registry.commands[id] : undefined;
  return command !== undefined && NOT_AN_AGENTS_KINDS.has(command.kind);
}

function commandsOfRoles(registry: Registry, roles: readonly string[]): Set<string> {
  const commands = new Set<string>();
  // Admin-only commands are never another role's, whatever a registry lists for it.
  for (const role of roles) {
    for (const id of registry.roles[role] ?? []) if (!isAdminOnly(registry, id)) commands.add(id);
  }
  for (const id of withImpliedCommands(commands, (implied) => Object.hasOwn(registry.commands, implied))) commands.add(id);
  // `admin` may use everything even if a registry forgot to list a command for it.
  if (roles.includes(ADMIN_ROLE)) for (const id of Object.keys(registry.commands)) commands.add(id);
  return commands;
}

/** Whether the command is one only `admin` may use (runtime/command-kinds.ts, `adminOnly`). */
function isAdminOnly(registry: Registry, id: string): boolean {
  const command = Object.hasOwn(registry.commands, id) ? registry.commands[id] : undefined;
  return command !== undefined && ADMIN_ONLY_KINDS.has(command.kind);
}

/** Whether a person with these roles reads the field (before anything agent-specific). */
export function personReads(field: FieldMeta, roles: readonly string[]): boolean {
  if (roles.includes(ADMIN_ROLE) || field.readRoles === undefined) return true;
  return field.readRoles.some((role) => roles.includes(role));
}

/** Whether a person with these roles may write the field they read (an agent: its creator's roles). Computed fields nobody writes. */
export function personWrites(field: FieldMeta, roles: readonly string[]): boolean {
  if (field.computed) return false;
  if (roles.includes(ADMIN_ROLE) || field.writeRoles === undefined) return true;
  return field.writeRoles.some((role) => roles.includes(role));
}

/** The caller's rights on a set of fields; `owner` prefixes the names in `denied` (`lead`, `order.items`). */
function compileFieldRights(owner: string, fields: readonly FieldMeta[], roles: readonly string[], agent: boolean): FieldRights {
  const readable: FieldMeta[] = [];
  const masked: FieldMeta[] = [];
  const denied: string[] = [];
  for (const field of fields) {
    const reads = personReads(field, roles) && !(agent && field.hiddenFromAgents);
    if (!reads) {
      denied.push(`${owner}.${field.name}`);
      continue;
    }
    readable.push(field);
    if (agent && field.personal) masked.push(field);
  }
  const maskedNames = new Set(masked.map((field) => field.name));
  return {
    readable: Object.freeze(readable),
    readableNames: new Set(readable.map((field) => field.name)),
    clearNames: new Set(readable.filter((field) => !maskedNames.has(field.name)).map((field) => field.name)),
    masked: Object.freeze(masked),
    maskedNames,
    denied: Object.freeze(denied),
    writableNames: new Set(readable.filter((field) => personWrites(field, roles)).map((field) => field.name)),
  };
}

function compileModelRights(model: ModelMeta, roles: readonly string[], agent: boolean): ModelRights {
  const own = compileFieldRights(model.name, model.fields, roles, agent);
  const lines: Record<string, LineRights> = {};
  for (const list of model.lines) {
    lines[list.name] = Object.freeze({ list, ...compileFieldRights(`${model.name}.${list.name}`, list.fields, roles, agent) });
  }
  return Object.freeze({ model, ...own, denied: Object.freeze([...own.denied, ...Object.values(lines).flatMap((line) => line.denied)]), lines: Object.freeze(lines) });
}
