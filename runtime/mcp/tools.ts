/**
 * The MCP tools, as each caller sees them. The generator emits one tool per command with its
 * JSON Schemas (`registry.tools`); here they are fitted once per rights set (see `rightsOf`) and
 * kept, so `tools/list` only returns a prepared object and `tools/call` only looks a name up.
 *
 * Fitting, per caller:
 * - only the tools of commands the caller may use;
 * - record inputs (create, update, actions) without the fields the caller does not read (the
 *   command path refuses them as `unknown field`);
 * - `filter` / `order` of list and search offer only `id` and the fields the caller reads in clear
 *   (the only ones it may filter and order on).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CallerRights, ModelRights } from '../rights.ts';
import { describeTool } from './describe.ts';
import type { CommandMeta, JsonSchema, Registry, ToolMeta } from '../registry.ts';

/** `tools/list` result for one rights set. */
export interface ToolList {
  readonly tools: readonly Tool[];
}

export interface ToolCatalogue {
  /** The tool of this name, whether or not the caller may use it (the command path decides that). */
  find(name: string): ToolMeta | undefined;
  /** The tools a caller with these rights may use; built on first use, then cached with the rights. */
  listFor(rights: CallerRights): ToolList;
}

interface CatalogueEntry {
  readonly meta: ToolMeta;
  readonly command: CommandMeta;
  /** The tool as sent when no field needs fitting. */
  readonly wire: Tool;
}

/** Builds the catalogue once per server. Throws when a tool names a command the registry lacks. */
export function createToolCatalogue(registry: Registry): ToolCatalogue {
  const entries: CatalogueEntry[] = [];
  const byName = new Map<string, ToolMeta>();
  for (const [name, meta] of Object.entries(registry.tools)) {
    const command = Object.hasOwn(registry.commands, meta.command) ? registry.commands[meta.command] : undefined;
    if (!command) {
      throw new Error(`MCP tool ${name} runs ${meta.command}, which the registry does not have: run rmsgen build`);
    }
    byName.set(name, meta);
    entries.push({ meta, command, wire: wireTool(meta) });
  }
  // Rights objects are cached and reused by `rightsOf`; keyed weakly so evicted ones go too.
  const lists = new WeakMap<CallerRights, ToolList>();

  return {
    find: (name) => byName.get(name),
    listFor(rights) {
      let list = lists.get(rights);
      if (!list) {
        list = buildList(registry, entries, rights);
        lists.set(rights, list);
      }
      return list;
    },
  };
}

function wireTool(meta: ToolMeta): Tool {
  return {
    name: meta.name,
    title: meta.title,
    description: meta.description,
    inputSchema: meta.inputSchema as Tool['inputSchema'],
    ...(meta.outputSchema ? { outputSchema: meta.outputSchema as Tool['outputSchema'] } : {}),
    // `annotations.title` is where 2025-03-26 clients look for the display name.
    annotations: { title: meta.title, ...meta.annotations },
  };
}

function buildList(registry: Registry, entries: readonly CatalogueEntry[], rights: CallerRights): ToolList {
  // list and search share one input schema object: fit it once.
  const fitted = new Map<JsonSchema, JsonSchema>();
  const tools: Tool[] = [];
  for (const entry of entries) {
    if (!rights.commands.has(entry.command.id)) continue;
    const fields = rights.models[entry.command.model];
    if (!fields) continue;
    const original = entry.meta.inputSchema;
    let inputSchema = fitted.get(original);
    if (!inputSchema) {
      inputSchema = fitInputSchema(registry, entry.command, fields, original);
      fitted.set(original, inputSchema);
    }
    const outputSchema = entry.meta.outputSchema && withoutWithheld(entry.meta.outputSchema, unreadableFields(registry, entry.command, fields));
    const description = describedFor(registry, entry, rights);
    if (inputSchema === original && outputSchema === entry.meta.outputSchema && description === entry.meta.description) tools.push(entry.wire);
    else {
      tools.push({
        ...entry.wire,
        description,
        inputSchema: inputSchema as Tool['inputSchema'],
        ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
      });
    }
  }
  return Object.freeze({ tools: Object.freeze(tools) });
}

function fitInputSchema(registry: Registry, command: CommandMeta, fields: ModelRights, schema: JsonSchema): JsonSchema {
  switch (command.kind) {
    case 'get':
    case 'delete':
    case 'history':
    case 'revert':
    case 'create_many':
    case 'update_many':
    case 'delete_many':
    case 'revert_batch':
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
      const unreadable = unreadableFields(registry, command, fields);
      return unreadable.size === 0 ? schema : withoutProperties(schema, unreadable);
    }
  }
}

/**
 * The tool's description for this caller: the generated one when the caller reads every field it
 * could name (the model's, and those of other models referring to it); else worded again without
 * the fields the caller may not read.
 */
function describedFor(registry: Registry, entry: CatalogueEntry, rights: CallerRights): string {
  const model = registry.models[entry.command.model]!;
  const reads = (modelName: string, field: string) => rights.models[modelName]?.readableNames.has(field) === true;
  const named = [...model.fields.map((field) => [model.name, field.name] as const), ...model.referencedBy.map((ref) => [ref.model, ref.field] as const)];
  if (named.every(([modelName, field]) => reads(modelName, field))) return entry.meta.description;
  return describeTool(model, entry.command, reads);
}

/** Fields of the command's model the caller does not read: no schema it is sent may name or describe them. */
function unreadableFields(registry: Registry, command: CommandMeta, fields: ModelRights): ReadonlySet<string> {
  const model = registry.models[command.model]!;
  return new Set(model.fields.filter((field) => !fields.readableNames.has(field.name)).map((field) => field.name));
}

/**
 * The output schema without the withheld fields: each record schema in it (an object schema with
 * an `id` property: the record of get and writes, the items of list and of search's rows, inside
 * the approval branch's `anyOf` too) loses those properties. `schema` itself when none is named.
 */
function withoutWithheld(schema: JsonSchema, withheld: ReadonlySet<string>): JsonSchema {
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

function isSchema(value: unknown): value is JsonSchema {
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
