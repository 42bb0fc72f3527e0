/**
 * A command's JSON Schemas as a caller sees them, for MCP's tool list (mcp/tools.ts) and the
 * caller's OpenAPI document (caller-openapi.ts) alike:
 * - only commands the caller may use (`usableWith`);
 * - record inputs (create, update, actions) without the fields the caller does not read (the
 *   command path refuses them as `unknown field`);
 * - `filter` / `order` of list and search offer only `id` and the fields the caller reads in clear
 *   (the only ones it may filter and order on);
 * - records in answers without the fields withheld from the caller.
 */
import type { CallerRights, ModelRights } from '../rights.ts';
import type { CommandMeta, JsonSchema } from '../registry.ts';

/**
 * Whether an agent's call of the command may be held as a plan: a command that needs approval,
 * or an `update` of a model with an action that does (changing the governed field runs that action).
 */
export function mayBeHeldForApproval(command: { readonly kind: string; readonly needsApproval: boolean }, modelActions: readonly { readonly needsApproval: boolean }[]): boolean {
  return command.needsApproval || (command.kind === 'update' && modelActions.some((action) => action.needsApproval));
}

/** The caller's rights on the command's model when it may use the command; undefined when it may not. */
export function usableWith(rights: CallerRights, command: CommandMeta): ModelRights | undefined {
  return rights.commands.has(command.id) ? rights.models[command.model] : undefined;
}

export function fitInputSchema(command: CommandMeta, fields: ModelRights, schema: JsonSchema): JsonSchema {
  switch (command.kind) {
    case 'get':
    case 'delete':
    case 'history':
    case 'revert':
      return schema;
    case 'list':
    case 'search': {
      // A line field (`items.description`) filters as its list's rights say.
      const lineClear = (name: string) => {
        const [list, field] = name.split('.');
        return field !== undefined && fields.lines[list!]?.clearNames.has(field) === true;
      };
      const clear = (name: unknown) => name === 'id' || (typeof name === 'string' && (fields.clearNames.has(name) || lineClear(name)));
      const withFilter = updateAt(schema, ['properties', 'filter', 'items', 'properties', 'field'], (field) => restrictEnum(field, clear));
      return updateAt(withFilter, ['properties', 'order', 'items', 'properties', 'field'], (field) => restrictEnum(field, clear));
    }
    case 'create':
    case 'update':
    case 'action': {
      const unreadable = unreadableFields(fields);
      return unreadable.size === 0 ? schema : withoutProperties(schema, unreadable);
    }
  }
}

/** Fields of the command's model the caller does not read: no schema it is sent may name or describe them. */
export function unreadableFields(fields: ModelRights): ReadonlySet<string> {
  return new Set(fields.model.fields.filter((field) => !fields.readableNames.has(field.name)).map((field) => field.name));
}

/**
 * The output schema without the withheld fields: each record schema in it (an object schema with
 * an `id` property: the record of get and writes, the items of list and of search's rows, inside
 * the approval branch's `anyOf` too) loses those properties. `schema` itself when none is named.
 */
export function withoutWithheld(schema: JsonSchema, withheld: ReadonlySet<string>): JsonSchema {
  if (withheld.size === 0) return schema;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) {
      const mapped = node.map(visit);
      return mapped.some((item, i) => item !== node[i]) ? mapped : node;
    }
    if (!isSchema(node)) return node;
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const next = visit(value);
      if (next !== value) changed = true;
      out[key] = next;
    }
    const result = changed ? out : node;
    const properties = result.properties;
    return isSchema(properties) && 'id' in properties ? withoutProperties(result, withheld) : result;
  };
  return visit(schema) as JsonSchema;
}

export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `schema` with the sub-schema at `path` replaced by `fn(sub)`; `schema` itself when nothing changes. */
export function updateAt(schema: JsonSchema, path: readonly string[], fn: (sub: JsonSchema) => JsonSchema): JsonSchema {
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

export function withoutProperties(schema: JsonSchema, names: ReadonlySet<string>): JsonSchema {
  const properties = schema.properties;
  if (!isSchema(properties) || !Object.keys(properties).some((key) => names.has(key))) return schema;
  const required = schema.required;
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(properties).filter(([key]) => !names.has(key))),
    ...(Array.isArray(required) ? { required: required.filter((key) => !names.has(key as string)) } : {}),
  };
}
