/**
 * The MCP tools, as each caller sees them. The generator emits one tool per command with its
 * JSON Schemas (`registry.tools`); here they are fitted once per rights set (see `rightsOf`) and
 * kept, so `tools/list` only returns a prepared object and `tools/call` only looks a name up.
 *
 * Fitting, per caller, is view/caller-schemas.ts's (the caller's OpenAPI document fits the same
 * way): only the tools of commands the caller may use, inputs without the fields it does not
 * read, filters and orders on the fields it reads in clear; descriptions worded again without the
 * fields it does not read. Tools have no output schema (generator/emit/tools.ts says why).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CallerRights } from '../rights.ts';
import { fitInputSchema, usableWith } from '../view/caller-schemas.ts';
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
    // `annotations.title` is where 2025-03-26 clients look for the display name.
    annotations: { title: meta.title, ...meta.annotations },
  };
}

function buildList(registry: Registry, entries: readonly CatalogueEntry[], rights: CallerRights): ToolList {
  // list and search share one input schema object: fit it once.
  const fitted = new Map<JsonSchema, JsonSchema>();
  const tools: Tool[] = [];
  for (const entry of entries) {
    const fields = usableWith(rights, entry.command);
    if (!fields) continue;
    const original = entry.meta.inputSchema;
    let inputSchema = fitted.get(original);
    if (!inputSchema) {
      inputSchema = fitInputSchema(entry.command, fields, original);
      fitted.set(original, inputSchema);
    }
    const description = describedFor(registry, entry, rights);
    if (inputSchema === original && description === entry.meta.description) tools.push(entry.wire);
    else tools.push({ ...entry.wire, description, inputSchema: inputSchema as Tool['inputSchema'] });
  }
  return Object.freeze({ tools: Object.freeze(tools) });
}

/**
 * The tool's description for this caller: the generated one when the caller reads every field it
 * could name (the model's, and those of other models referring to it) and reads the personal ones
 * as tokens, as an agent does; else worded again for what it reads, and how (a person reads
 * personal fields in clear).
 */
function describedFor(registry: Registry, entry: CatalogueEntry, rights: CallerRights): string {
  const model = registry.models[entry.command.model]!;
  // A field, or a line's as `<lines>.<field>`.
  const reads = (modelName: string, field: string) => {
    const [list, lineField] = field.split('.');
    const modelRights = rights.models[modelName];
    return lineField === undefined ? modelRights?.readableNames.has(field) === true : modelRights?.lines[list!]?.readableNames.has(lineField) === true;
  };
  const masks = (modelName: string, field: string) => rights.models[modelName]?.maskedNames.has(field) === true;
  const named = [...model.fields.map((field) => [model.name, field.name] as const), ...model.referencedBy.map((ref) => [ref.model, ref.lines === undefined ? ref.field : `${ref.lines}.${ref.field}`] as const)];
  const asGenerated = named.every(([modelName, field]) => reads(modelName, field)) && model.fields.every((field) => field.personal === masks(model.name, field.name));
  if (asGenerated) return entry.meta.description;
  return describeTool(model, entry.command, { reads, masks });
}
