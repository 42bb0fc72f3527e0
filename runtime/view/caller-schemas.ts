/**
 * A command's JSON Schemas as a caller sees them, for MCP's tool list (mcp/tools.ts) and the
 * caller's OpenAPI document (caller-openapi.ts) alike:
 * - only commands the caller may use (`usableWith`);
 * - record inputs (create, update, actions) without the fields the caller does not read (the
 *   command path refuses them as `unknown field`), of the record and of its lines;
 * - `filter` / `order` of list and search (and the bulk commands' `filter`) offer only `id` and the
 *   fields the caller reads in clear (the only ones it may filter and order on);
 * - a bulk command's records, `set` and `input` as the single command's input;
 * - records in answers without the fields withheld from the caller, of the record and of its
 *   lines; for an agent, a masked field (of any kind) is a token in answers (a string, whatever
 *   the kind: a personal email is `CONTACT_EMAIL_1`, no address), and an input takes a token
 *   where it takes a value.
 */
import { dryRunShowsChanges, noModelCommand, type CommandKind } from '../command-kinds.ts';
import type { CallerRights, FieldRights, ModelRights } from '../rights.ts';
import type { CommandMeta, FieldMeta, JsonSchema } from '../registry.ts';

/**
 * Whether an agent's call of the command may be held as a plan: a command that needs approval,
 * or an `update` of a model with an action that does (changing the governed field runs that action).
 */
export function mayBeHeldForApproval(command: { readonly kind: string; readonly needsApproval: boolean }, modelActions: readonly { readonly needsApproval: boolean }[]): boolean {
  return command.needsApproval || (command.kind === 'update' && modelActions.some((action) => action.needsApproval));
}

/**
 * Whether an agent's dry run of the command may answer `{"dry_run": true, "approval_required":
 * true}`: a call that may be held, unless its dry run answers its changes either way.
 */
export function dryRunMayBeHeld(command: { readonly kind: CommandKind; readonly needsApproval: boolean }, modelActions: readonly { readonly needsApproval: boolean }[]): boolean {
  return mayBeHeldForApproval(command, modelActions) && !dryRunShowsChanges(command.kind);
}

/** The caller's rights on the command's model when it may use the command; undefined when it may not. */
export function usableWith(rights: CallerRights, command: CommandMeta): ModelRights | undefined {
  return rights.commands.has(command.id) ? rights.models[command.model] : undefined;
}

export function fitInputSchema(command: CommandMeta, fields: ModelRights, schema: JsonSchema): JsonSchema {
  switch (command.kind) {
    case 'get':
    case 'delete':
    case 'erase':
    case 'history':
    case 'revert':
    case 'revert_batch':
      return schema;
    case 'list':
    case 'search':
      return fitSelection(schema, fields, ['filter', 'order']);
    case 'create':
    case 'update':
    case 'action':
      return fitRecord(schema, fields, 'input');
    // A bulk command's parts are its single commands' inputs (generator/emit/tools.ts), fitted alike.
    case 'create_many':
      return updateAt(schema, ['properties', 'records', 'items'], (record) => fitRecord(record, fields, 'input'));
    case 'update_many':
      return updateAt(fitSelection(schema, fields, ['filter']), ['properties', 'set'], (set) => fitRecord(set, fields, 'input'));
    case 'action_many':
      return updateAt(fitSelection(schema, fields, ['filter']), ['properties', 'input'], (input) => fitRecord(input, fields, 'input'));
    case 'delete_many':
      return fitSelection(schema, fields, ['filter']);
    default:
      return noModelCommand(command.kind);
  }
}

/**
 * `filter` / `order` offering only `id` and the fields the caller reads in clear: the only ones it
 * may select and order by. A line field (`items.description`) as its list's rights say.
 */
function fitSelection(schema: JsonSchema, fields: ModelRights, keys: readonly ('filter' | 'order')[]): JsonSchema {
  const lineClear = (name: string) => {
    const [list, field] = name.split('.');
    return field !== undefined && fields.lines[list!]?.clearNames.has(field) === true;
  };
  const clear = (name: unknown) => name === 'id' || (typeof name === 'string' && (fields.clearNames.has(name) || lineClear(name)));
  return keys.reduce((fitted, key) => updateAt(fitted, ['properties', key, 'items', 'properties', 'field'], (field) => restrictEnum(field, clear)), schema);
}

/** Whether a schema is fitted as what a tool answers (records) or as what it takes (inputs). */
export type Side = 'output' | 'input';

/**
 * A record schema (a record, or a record input) as the caller sees it: without the fields it does
 * not read; for an agent, its masked fields as tokens; each line list's items likewise, by the
 * list's rights. `schema` itself when nothing changes.
 */
export function fitRecord(schema: JsonSchema, rights: ModelRights, side: Side): JsonSchema {
  const properties = schema.properties;
  if (!isSchema(properties)) return schema;
  let fitted = fitFields(schema, rights.model.fields, rights, side);
  for (const [name, line] of Object.entries(rights.lines)) {
    const list = (fitted.properties as Record<string, unknown>)[name];
    if (!isSchema(list) || !isSchema(list.items)) continue;
    const items = fitFields(list.items, line.list.fields, line, side);
    if (items !== list.items) fitted = { ...fitted, properties: { ...(fitted.properties as JsonSchema), [name]: { ...list, items } } };
  }
  return fitted;
}

/** The properties of one object schema (a record's or a line's) fitted to the caller's rights on its fields. */
function fitFields(schema: JsonSchema, fields: readonly FieldMeta[], rights: FieldRights, side: Side): JsonSchema {
  const properties = schema.properties;
  if (!isSchema(properties)) return schema;
  const withheld = new Set(fields.filter((field) => !rights.readableNames.has(field.name)).map((field) => field.name));
  const without = withoutProperties(schema, withheld);
  if (rights.masked.length === 0) return without;
  const masked: Record<string, unknown> = { ...(without.properties as JsonSchema) };
  for (const field of rights.masked) {
    const property = masked[field.name];
    if (isSchema(property)) masked[field.name] = side === 'output' ? tokenOutput(property, field.maskLabel!) : tokenInput(property, field.maskLabel!);
  }
  return { ...without, properties: masked };
}

/** What an agent's masking tokens look like: `<LABEL>_<n>`. */
function tokenPattern(label: string): string {
  return `^${label}_[1-9][0-9]*$`;
}

/** A masked field as an agent reads it: a token, whatever its kind (null when empty, where the field may be). */
function tokenOutput(property: JsonSchema, label: string): JsonSchema {
  const type = property.type;
  const nullable = (Array.isArray(type) && type.includes('null')) || (Array.isArray(property.anyOf) && property.anyOf.some((branch) => isSchema(branch) && branch.type === 'null'));
  return {
    type: nullable ? ['string', 'null'] : 'string',
    pattern: tokenPattern(label),
    ...(property.readOnly === true ? { readOnly: true } : {}),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
  };
}

/** A masked field as an agent writes it: a value of its kind, or a token it was given. */
function tokenInput(property: JsonSchema, label: string): JsonSchema {
  const { description, default: _default, ...value } = property;
  return { anyOf: [value, { type: 'string', pattern: tokenPattern(label) }], ...(typeof description === 'string' ? { description } : {}) };
}

/**
 * The output schema as the caller sees its records (`fitRecord`): each record schema in it (an
 * object schema with an `id` property: the record of get and writes, the items of list and of
 * search's rows, inside the approval branch's `anyOf` too). `schema` itself when nothing changes.
 */
export function fitRecords(schema: JsonSchema, rights: ModelRights, side: Side): JsonSchema {
  if (rights.denied.length === 0 && rights.masked.length === 0 && Object.values(rights.lines).every((line) => line.masked.length === 0)) return schema;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) {
      const mapped = node.map(visit);
      return mapped.some((item, i) => item !== node[i]) ? mapped : node;
    }
    if (!isSchema(node)) return node;
    // A record: fitted whole (its line lists by their own rights), not visited further.
    if (isSchema(node.properties) && 'id' in node.properties) return fitRecord(node, rights, side);
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const next = visit(value);
      if (next !== value) changed = true;
      out[key] = next;
    }
    return changed ? out : node;
  };
  return visit(schema) as JsonSchema;
}


export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `schema` with the sub-schema at `path` replaced by `fn(sub)`; `schema` itself when nothing changes. */
function updateAt(schema: JsonSchema, path: readonly string[], fn: (sub: JsonSchema) => JsonSchema): JsonSchema {
  if (path.length === 0) return fn(schema);
  const [key, ...rest] = path as [string, ...string[]];
  const sub = schema[key];
  if (!isSchema(sub)) return schema;
  const next = updateAt(sub, rest, fn);
  return next === sub ? schema : { ...schema, [key]: next };
}

function restrictEnum(schema: JsonSchema, keep: (value: unknown) => boolean): JsonSchema {
  const values = schema.enum;
  if (!Array.isArray(values)) return schema;
  const kept = values.filter(keep);
  return kept.length === values.length ? schema : { ...schema, enum: kept };
}

function withoutProperties(schema: JsonSchema, names: ReadonlySet<string>): JsonSchema {
  const properties = schema.properties;
  if (!isSchema(properties) || !Object.keys(properties).some((key) => names.has(key))) return schema;
  const required = schema.required;
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(properties).filter(([key]) => !names.has(key))),
    ...(Array.isArray(required) ? { required: required.filter((key) => !names.has(key as string)) } : {}),
  };
}
