/**
 * `<module>/<model>.tools.ts`: the MCP tool of every command (SPEC 4.6). The input JSON Schema is
 * computed at build time from the same zod schema the REST body is checked with, then given
 * descriptions an agent can act on, and printed as a literal.
 */
import { z } from 'zod';
import { COMMAND_KINDS, type CommandKind, type CommandResultShape } from '../../runtime/command-kinds.ts';
import { BULK_LIMITS, LIMITS } from '../../runtime/kinds.ts';
import { describeTool } from '../../runtime/mcp/describe.ts';
import { mayBeHeldForApproval } from '../../runtime/view/caller-schemas.ts';
import { acceptSentence } from './schemas.ts';
import { forFieldKind, type ActionIR, type CommandIR, type FieldIR, type FieldKindTable, type LineListIR, type ModelIR } from '../ir.ts';
import { minorUnitsExample } from '../../runtime/words.ts';
import { ordersBy } from '../../runtime/shapes/values.ts';
import { MAX_ID_LENGTH, TEXT_LIMITS } from '../../runtime/value-checks.ts';
import { camelCase, defaultLabel, inSentence, minorUnitsSentence, plural, withArticle } from '../names.ts';
import { modelBase, modelExports, type EmitContext, type Emitter, type PlannedFile } from './context.ts';
import { buildInput, buildLine, commandInput, type CommandInput, type InputProperty } from './inputs.ts';
import { alwaysSet } from './model.ts';
import { code, literal, type Code } from './print.ts';
import type { SourceText } from './source.ts';

type Json = { [key: string]: unknown };

/**
 * Who reads a schema's descriptions: the OpenAPI document (every hint spelled out), or an MCP
 * client's model, which pays for each word of `tools/list` in every conversation and so gets only
 * what the schema's own keywords do not say (docs/api.md, "What a tool's schema says").
 */
type Audience = 'openapi' | 'mcp';

/** What an agent needs to know about the value of a field of each kind. */
const KIND_HINTS: FieldKindTable<string> = {
  text: () => 'Text.',
  longtext: () => 'Text, may span lines.',
  number: () => 'Integer.',
  money: (field) => minorUnitsSentence(field.currency),
  date: () => 'Date as YYYY-MM-DD.',
  bool: () => 'true or false.',
  select: (field) => `One of: ${field.options.join(', ')}.`,
  // Where an agent finds the id to send.
  ref: (field) => `Id of ${withArticle(field.target)} record: find it with ${field.target}__search.`,
  decimal: (field) => `Number with at most ${field.scale} decimals.`,
  datetime: () => 'Date and time, ISO 8601 with an offset (2026-11-26T14:30:00Z); comes back in UTC.',
  email: () => 'Email address.',
  url: () => 'Absolute http or https URL.',
  phone: () => 'Phone number: digits, spaces and + - ( ), 6 to 20 digits.',
  multiselect: (field) => `Any of: ${field.options.join(', ')}; a list, each once ([] for none).`,
  file: (field) => `${field.multiple ? 'A list of file ids' : 'The id of a file'} (each {"id", "name", "size", "type", "sha256"} when read); read a file's content as an MCP resource.${acceptSentence(field)}`,
};

/**
 * What a model needs besides the input schema's keywords: nothing where the type, format, enum,
 * step or pattern says it all (text, dates, options, decimals, emails, URLs).
 */
const MCP_KIND_HINTS: FieldKindTable<string | undefined> = {
  text: () => undefined,
  longtext: () => undefined,
  number: () => undefined,
  money: (field) => `Minor units: ${minorUnitsExample(field.currency)}.`,
  date: () => undefined,
  bool: () => undefined,
  select: () => undefined,
  ref: (field) => `Id of ${withArticle(field.target)}, from ${field.target}__search.`,
  decimal: () => undefined,
  datetime: () => 'Comes back in UTC.',
  email: () => undefined,
  url: () => undefined,
  phone: () => '6 to 20 digits.',
  multiselect: () => undefined,
  file: (field) => KIND_HINTS.file(field),
};

/** JSON Schema of a field's value: a type, with a format, a pattern, a step or the allowed values. */
interface ValueSchema {
  readonly type: string;
  readonly format?: string;
  readonly enum?: readonly string[];
  readonly multipleOf?: number;
  readonly pattern?: string;
  readonly items?: Json;
  readonly uniqueItems?: boolean;
  readonly properties?: Json;
  readonly required?: readonly string[];
}

/** A file as records hold it (runtime/shapes/values.ts, `FileRef`). */
const FILE_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' }, size: { type: 'integer' }, type: { type: 'string' }, sha256: { type: 'string' } },
  required: ['id', 'name', 'size', 'type', 'sha256'],
} as const;

/** What a phone number looks like (runtime/kinds.ts checks the count of digits too). */
const PHONE_PATTERN = '^[0-9 +\\-()]+$';

/** JSON Schema of a field's value in a returned record. */
const RECORD_SCHEMAS: FieldKindTable<ValueSchema> = {
  text: () => ({ type: 'string' }),
  longtext: () => ({ type: 'string' }),
  number: () => ({ type: 'integer' }),
  money: () => ({ type: 'integer' }),
  date: () => ({ type: 'string', format: 'date' }),
  bool: () => ({ type: 'boolean' }),
  select: (field) => ({ type: 'string', enum: field.options }),
  ref: () => ({ type: 'string' }),
  // No `multipleOf` for decimals: 33.33 / 0.01 is 3332.9999… in floating point, so validators
  // with their default settings (ajv's) refuse values the server takes. The scale is in the description.
  decimal: (field) => (field.scale === 0 ? { type: 'number', multipleOf: 1 } : { type: 'number' }),
  datetime: () => ({ type: 'string', format: 'date-time' }),
  email: () => ({ type: 'string', format: 'email' }),
  url: () => ({ type: 'string', format: 'uri' }),
  phone: () => ({ type: 'string', pattern: PHONE_PATTERN }),
  multiselect: (field) => ({ type: 'array', items: { type: 'string', enum: field.options }, uniqueItems: true }),
  file: (field) => (field.multiple ? { type: 'array', items: FILE_SCHEMA } : FILE_SCHEMA),
};

/**
 * What the input schema of a field says besides its type (which zod's own JSON Schema gives):
 * the kind's form and the module's checks, as JSON Schema keywords (dates' bounds, which JSON
 * Schema cannot say, are in the description). A text's `maxLength` is the least of the module's
 * `length` and what its column stores (`indexedMaxLength`: a text in an index; else the kind's
 * limit, runtime/value-checks.ts), both of which the server checks; a ref's, an id's.
 */
function checksOf(field: FieldIR, indexedMaxLength?: number): Json {
  const { type: _type, enum: _enum, items: _items, ...form } = forFieldKind(RECORD_SCHEMAS, field);
  switch (field.kind) {
    case 'number':
    case 'money':
    case 'decimal':
      return { ...form, minimum: field.min, maximum: field.max };
    case 'text':
    case 'longtext':
    case 'email':
    case 'url':
    case 'phone': {
      const stored = indexedMaxLength ?? TEXT_LIMITS[field.kind === 'longtext' ? 'longtext' : 'text'];
      // JSON Schema's pattern matches anywhere; the module's must match the whole value.
      return { ...form, maxLength: Math.min(field.length ?? stored, stored), ...(field.pattern === undefined ? {} : { pattern: `^(?:${field.pattern})$` }) };
    }
    case 'ref':
      return { ...form, maxLength: MAX_ID_LENGTH };
    default:
      return form;
  }
}

/** Adds keywords to a property's schema: to its non-null branch when zod wrote it as `anyOf [value, null]`. */
function refined(schema: Json, keywords: Json): Json {
  const present = Object.fromEntries(Object.entries(keywords).filter(([, value]) => value !== undefined));
  if (Object.keys(present).length === 0) return schema;
  const anyOf = schema.anyOf as Json[] | undefined;
  if (anyOf) return { ...schema, anyOf: anyOf.map((branch) => (branch.type === 'null' ? branch : { ...branch, ...present })) };
  return { ...schema, ...present };
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The field's label and its module's description, when they say more than its name. */
function fieldLead(field: FieldIR, audience: Audience): string | undefined {
  if (field.description) return `${field.label}: ${field.description}`;
  if (audience === 'openapi' || field.label.toLowerCase() !== defaultLabel(field.name).toLowerCase()) return `${field.label}.`;
  return undefined;
}

function fieldDescription(model: ModelIR, field: FieldIR, command: CommandIR | undefined, audience: Audience = 'openapi'): string | undefined {
  const mcp = audience === 'mcp';
  const parts = [fieldLead(field, audience), forFieldKind(mcp ? MCP_KIND_HINTS : KIND_HINTS, field)];
  if (!command && field.computed) parts.push('Computed by the service on every write.');
  if (command && (field.kind === 'date' || field.kind === 'datetime')) {
    if (field.min !== undefined) parts.push(`Not before ${field.min}.`);
    if (field.max !== undefined) parts.push(`Not after ${field.max}.`);
  }
  if (command?.kind === 'create' && (field.default === 'today' || field.default === 'now')) parts.push(`When absent: ${field.default === 'today' ? "today (the server's UTC day)" : 'now'}.`);
  // To a model the nullable type says it; the update tool's description says what null does once.
  if (!mcp && command && !field.required && !field.governed && (command.kind === 'create' || command.kind === 'update')) parts.push('null clears it.');
  if (field.governed && command?.kind === 'update') {
    const actions = model.actions.filter((action) => action.field === field.name).map((action) => `${model.name}__${action.name}`);
    parts.push(`Changing it runs the matching action (${actions.join(', ')}).`);
  }
  if (field.personal) {
    if (!command) parts.push(`Personal: comes back masked as a token like ${field.maskLabel}_1.`);
    else parts.push(mcp ? `Personal: may be a token like ${field.maskLabel}_1 you were given.` : `Personal: you may send a masking token like ${field.maskLabel}_1 that you received, and the service puts the real value in its place.`);
  }
  const described = parts.filter((part) => part !== undefined);
  return described.length > 0 ? described.join(' ') : undefined;
}

/** A property's schema with its description, or without one when there is nothing to say. */
function described(schema: Json, description: string | undefined): Json {
  const { description: _none, ...rest } = schema;
  return description === undefined ? rest : { ...rest, description };
}

function nullable(schema: ValueSchema): Json {
  return { ...schema, type: [schema.type, 'null'], ...(schema.enum ? { enum: [...schema.enum, null] } : {}) };
}

/** The JSON Schema of each field of a record (or a line) as tools return it; computed fields read-only. */
function fieldProperties(model: ModelIR, fields: readonly FieldIR[]): Json {
  const properties: Json = {};
  for (const field of fields) {
    const schema = forFieldKind(RECORD_SCHEMAS, field);
    properties[field.name] = {
      ...(alwaysSet(field) ? schema : nullable(schema)),
      ...(field.computed ? { readOnly: true } : {}),
      description: fieldDescription(model, field, undefined),
    };
  }
  return properties;
}

/** JSON Schema of a record as commands answer it (MCP's output schemas, the OpenAPI document's components). */
export function recordSchema(model: ModelIR): Json {
  const properties: Json = { id: { type: 'string', description: `Id of the ${inSentence(model.label)}.` }, ...fieldProperties(model, model.fields) };
  for (const list of model.lines) {
    properties[list.name] = {
      type: 'array',
      description: `${list.label}${list.description ? `: ${list.description}` : ''}; its lines in order. In get and writes; in list and search with include.`,
      items: { type: 'object', properties: { id: { type: 'string', description: 'Id of the line.' }, ...fieldProperties(model, list.fields) }, required: ['id'] },
    };
  }
  return {
    type: 'object',
    description: `${capitalised(withArticle(inSentence(model.label)))} record. Fields you may not read are absent and named in denied.`,
    properties,
    required: ['id'],
  };
}

/** A line list property of a create or update: the lines as objects, min to max of them. */
function linesProperty(model: ModelIR, command: CommandIR, property: Extract<InputProperty, { kind: 'lines' }>, zodSchema: Json, audience: Audience): Json {
  const line = z.toJSONSchema(buildLine(model, property), { io: 'input' }) as Json;
  const { $schema: _schema, ...item } = line;
  const properties = (item.properties ?? {}) as Record<string, Json>;
  describeProperty(properties.id, audience === 'openapi' ? 'Id of a line the list keeps (from get); without it the line is added.' : 'Id of a line kept (from get); without it the line is added.');
  limitIdLength(properties, 'id');
  for (const lineField of property.lines) {
    const target = properties[lineField.name];
    if (target) properties[lineField.name] = described(refined(target, checksOf(lineField.field, lineField.maxLength)), fieldDescription(model, lineField.field, command, audience));
    if (lineField.field.kind === 'file') limitIdLength(properties, lineField.name);
  }
  const list: LineListIR = property.list;
  // An update's line with an id gives only the fields it changes: what a line needs is a new line's.
  const needed = (item.required ?? []) as string[];
  if (property.ids) delete item.required;
  const how = property.ids
    ? ` The new list: a line with an id changes that line (give only what changes), one without adds a line${needed.length > 0 ? ` (needs ${needed.join(', ')})` : ''}, a line left out is removed.`
    : '';
  return {
    type: 'array',
    minItems: zodSchema.minItems,
    maxItems: zodSchema.maxItems,
    items: item,
    // The count is in minItems and maxItems; the label says what the lines are.
    description: audience === 'openapi' ? `${list.label}: ${list.min} to ${list.max} lines.${how}` : `${list.label}${list.description ? `: ${list.description}` : ''}.${how}`,
  };
}

/** JSON Schema of a command's input: the one REST checks with zod, as the OpenAPI document describes it. */
export function commandInputSchema(model: ModelIR, command: CommandIR): Json {
  return inputJsonSchema(model, command, commandInput(model, command), 'openapi');
}

/**
 * JSON Schema of a command's input as its MCP tool gives it: the OpenAPI document's constraints,
 * worded for a model (`Audience`), without what says nothing to one (see `withoutNoise`).
 */
export function toolInputSchema(model: ModelIR, command: CommandIR, input: CommandInput = commandInput(model, command)): Json {
  return withoutNoise(inputJsonSchema(model, command, input, 'mcp')) as Json;
}

/**
 * What zod's JSON Schema says that a model need not read, taken out of a tool's input schema (the
 * runtime's zod still checks all of it): the dialect (MCP's default, 2020-12), zod's ISO date
 * regular expression beside `format: date`, which says the same, the bounds of a safe integer, and
 * the defaults said outright (any extra property, string property names).
 */
export function withoutNoise(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutNoise);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema') continue;
    if (key === 'pattern' && (schema as Json).format === 'date') continue;
    if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) continue;
    if ((key === 'additionalProperties' || key === 'propertyNames') && saysNothing(value, key)) continue;
    out[key] = withoutNoise(value);
  }
  return out;
}

/** `{}` as additionalProperties, `{type: 'string'}` as propertyNames: what JSON Schema assumes anyway. */
function saysNothing(value: unknown, key: 'additionalProperties' | 'propertyNames'): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value);
  return key === 'additionalProperties' ? keys.length === 0 : keys.length === 1 && (value as Json).type === 'string';
}

function inputJsonSchema(model: ModelIR, command: CommandIR, input: CommandInput, audience: Audience): Json {
  const schema = z.toJSONSchema(buildInput(model, input), { io: 'input' }) as Json;
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  // The OpenAPI document's words, or a model's (undefined: the keywords say it, or the tool's description does).
  const say = (openapi: string, mcp?: string) => (audience === 'openapi' ? openapi : mcp);
  if (input.kind === 'list') {
    const fields = ['id', ...model.fields.map((field) => field.name)];
    const lineFields = model.lines.flatMap((list) => list.fields.map((field) => `${list.name}.${field.name}`));
    const filter = properties.filter as Json & { items: { properties: Record<string, Json> } };
    const order = properties.order as Json & { items: { properties: Record<string, Json> } };
    describeProperty(filter, say(`Conditions combined with AND, at most ${LIMITS.filterConditions}.`, 'Conditions, all of which must hold.'));
    filter.items.properties.field = described(
      { type: 'string', enum: [...fields, ...lineFields] },
      lineFields.length > 0 ? say('Field to test; <lines>.<field>: records with a line that passes.', '<lines>.<field>: records with a line that passes.') : say('Field to test.'),
    );
    filter.items.properties.op = described(
      filter.items.properties.op!,
      say(
        'eq equal; ne not equal (also matches empty); contains case-insensitive substring (text only); ' +
          `in value is an array of up to ${LIMITS.inValues} values; gt/gte/lt/lte not for bool or ref fields; is_null field is empty.`,
        `ne also matches empty; contains: case-insensitive substring, text only; in: value is an array of up to ${LIMITS.inValues}; gt/gte/lt/lte: not for bool or ref; is_null: no value.`,
      ),
    );
    filter.items.properties.value = described({}, say('Value to compare with; omit for is_null, an array for in.'));
    describeProperty(order, say(`Sort keys, at most ${LIMITS.orderKeys}; empty values sort last.`, 'Empty values sort last.'));
    const orderFields = ['id', ...model.fields.filter((field) => ordersBy(field.kind)).map((field) => field.name)];
    order.items.properties.field = described({ type: 'string', enum: orderFields }, say('Field to sort by.'));
    order.items.properties.dir = described(order.items.properties.dir!, say('asc (default) or desc.', 'asc by default.'));
    properties.limit = described(properties.limit!, say(`Rows to return, ${LIMITS.minLimit} to ${LIMITS.maxLimit}; no limit when omitted.`, 'No limit when omitted.'));
    properties.offset = described(properties.offset!, say('Rows to skip.'));
    properties.after = described(
      properties.after!,
      say('Keyset paging instead of offset: "" for the first page, then the next the answer gave; pages of any depth come as fast.', 'Keyset paging instead of offset: "" for the first page, then the next the answer gave.'),
    );
    // Line lists to answer with each record: only a model with lines has any to name.
    if (model.lines.length === 0) delete properties.include;
    else if (properties.include) {
      properties.include = described(
        { type: 'array', items: { type: 'string', enum: model.lines.map((list) => list.name) } },
        say('Line lists to answer with each record; without, records come without their lines.', 'Line lists to answer with each record.'),
      );
    }
    return schema;
  }
  if (input.kind === 'history') {
    describeProperty(properties.id, say(`Id of the ${inSentence(model.label)}; a deleted one's too.`));
    limitIdLength(properties, 'id');
    describeProperty(properties.limit, say(`Entries to return, ${LIMITS.minLimit} to ${LIMITS.maxLimit}, newest first; all when omitted.`, 'All when omitted.'));
    describeProperty(properties.offset, say('Entries to skip.'));
    return schema;
  }
  const dryRun = say('true: answer what would change, change nothing.');
  const agentCap = `${BULK_LIMITS.agentMaxAffected} by default`;
  // A bulk command's parts are checked as the single commands check theirs (commands/bulk.ts): their
  // schemas are those commands' own, so that a client knows what a record, `set` or `input` holds.
  // A tool names the single tool instead (its schema is in the same list: a model pays for each
  // copy in every conversation), but for the filter, which is short.
  const sibling = (pick: (candidate: CommandIR) => boolean) => {
    const found = model.commands.find(pick);
    return found && (withoutDialect(inputJsonSchema(model, found, commandInput(model, found), audience)) as Json);
  };
  const embedded = (pick: (candidate: CommandIR) => boolean) => (audience === 'openapi' ? sibling(pick) : undefined);
  if (input.kind === 'createMany') {
    const create = embedded((candidate) => candidate.kind === 'create');
    if (create) (properties.records as Json).items = create;
    describeProperty(
      properties.records,
      say(
        `The ${plural(inSentence(model.label))} to create, each as ${model.name}__create takes one; all are created or none. An agent's token caps how many (${agentCap}).`,
        `Each as ${model.name}__create takes one.`,
      ),
    );
    describeProperty(properties.dry_run, dryRun);
    return schema;
  }
  if (input.kind === 'updateMany' || input.kind === 'deleteMany' || input.kind === 'actionMany') {
    // The list's filter; a tool's takes only its `field` names (the list tool words the operators).
    const filter = (sibling((candidate) => candidate.kind === 'list')?.properties as Record<string, Json> | undefined)?.filter as (Json & { items: { properties: Json } }) | undefined;
    if (filter && audience === 'openapi') properties.filter = filter;
    else if (filter) (properties.filter as { items: { properties: Json } }).items.properties.field = filter.items.properties.field;
    describeProperty(properties.filter, say(`Conditions combined with AND, as ${model.name}__list takes them; a filter or ids is required.`, `As ${model.name}__list takes it; a filter or ids is required.`));
    describeProperty(properties.ids, say('Record ids to change; a filter or ids is required, not both.', 'A filter or ids is required, not both.'));
    limitIdLength(properties, 'ids');
    describeProperty(
      properties.max_affected,
      say(`The most records the call may change; more selected refuses the call (409). An agent's token caps it (${agentCap}).`, 'More selected refuses the call.'),
    );
    describeProperty(properties.dry_run, dryRun);
    if (input.kind === 'updateMany') {
      const update = embedded((candidate) => candidate.kind === 'update');
      // At least one field: an empty `set` is refused.
      if (update) properties.set = { ...withoutIdProperty(update), minProperties: 1 };
      describeProperty(properties.set, say(`Field values to set on every selected record, as ${model.name}__update takes them.`, `Fields as ${model.name}__update takes them.`));
    }
    if (input.kind === 'actionMany') {
      const action = command.action!;
      const single = embedded((candidate) => candidate.kind === 'action' && candidate.action.name === action.name);
      if (single) properties.input = withoutIdProperty(single);
      const names = action.inputs.map(({ input: one }) => one.name).join(', ');
      describeProperty(
        properties.input,
        say(
          `The inputs of ${model.name}__${action.name} but id, the same for every selected record${action.inputs.length > 0 ? ` (${names})` : '; this action takes none'}.`,
          action.inputs.length > 0 ? `The inputs of ${model.name}__${action.name} but id (${names}), for every record.` : `${model.name}__${action.name} takes none.`,
        ),
      );
    }
    return schema;
  }
  if (input.kind === 'revertBatch') {
    describeProperty(properties.batch_id, say(`The batch_id of the ${model.name}__update_many to put back.`, `Of the ${model.name}__update_many to put back.`));
    limitIdLength(properties, 'batch_id');
    describeProperty(properties.dry_run, dryRun);
    return schema;
  }
  if (input.kind === 'revert') {
    describeProperty(properties.id, say(`Id of the ${inSentence(model.label)}.`));
    describeProperty(properties.change_id, say(`The change_id of the update to put back, from ${model.name}__history.`));
    limitIdLength(properties, 'id');
    limitIdLength(properties, 'change_id');
    return schema;
  }
  for (const property of input.properties) {
    const target = properties[property.name];
    if (!target) continue;
    if (property.kind === 'id') {
      describeProperty(target, say(`Id of the ${inSentence(model.label)}.`));
      limitIdLength(properties, property.name);
    }
    else if (property.kind === 'lines') properties[property.name] = linesProperty(model, command, property, target, audience);
    else {
      properties[property.name] = described(refined(target, inputKeywords(property.field, command, property.maxLength)), inputDescription(model, property, command, audience));
      if (property.field.kind === 'file') limitIdLength(properties, property.name);
    }
  }
  return schema;
}

/** The keywords of a field's input schema: its form and checks, and on create its constant default. */
function inputKeywords(field: FieldIR, command: CommandIR, indexedMaxLength?: number): Json {
  const value = command.kind === 'create' && typeof field.default === 'object' ? field.default.value : undefined;
  return { ...checksOf(field, indexedMaxLength), default: value };
}

function inputDescription(model: ModelIR, property: Extract<InputProperty, { kind: 'field' }>, command: CommandIR, audience: Audience): string | undefined {
  const isField = property.path === `${model.name}.${property.name}`;
  if (isField) return fieldDescription(model, property.field, command, audience);
  const field = property.field;
  const kindHint = forFieldKind(audience === 'openapi' ? KIND_HINTS : MCP_KIND_HINTS, field);
  return [fieldLead(field, audience), kindHint, 'Kept with the action in the history.'].filter((part) => part !== undefined).join(' ');
}

/** Without the `$schema` zod writes: the OpenAPI document's dialect (2020-12) is every schema's, and a schema inside another is of its dialect. */
export function withoutDialect(schema: Json): Json {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** A single command's input schema without its record's `id` (a bulk command names its records otherwise). */
function withoutIdProperty(schema: Json): Json {
  const { id: _id, ...properties } = schema.properties as Json;
  const { required, ...rest } = schema;
  const stillRequired = Array.isArray(required) ? required.filter((name) => name !== 'id') : [];
  return { ...rest, properties, ...(stillRequired.length > 0 ? { required: stillRequired } : {}) };
}

/** Sets a property's description; none when `description` is undefined. */
/**
 * An id's schema (a string, an array of them, a file as `{id}`, either or null) with the most
 * characters the server takes in one (`MAX_ID_LENGTH`).
 */
function limitIdLength(properties: Record<string, Json>, name: string): void {
  const property = properties[name];
  if (!property) return;
  // A copy: the schema may share parts with others (a file as records answer it is one object,
  // in inputs and outputs alike), which must not take the limit by chance of the order emitted.
  const copy = structuredClone(property);
  idLength(copy);
  properties[name] = copy;
}

function idLength(property: Json | undefined): void {
  if (!property) return;
  if (property.type === 'string') property.maxLength = MAX_ID_LENGTH;
  if (property.type === 'array') idLength(property.items as Json | undefined);
  if (property.type === 'object') idLength((property.properties as Record<string, Json> | undefined)?.id);
  for (const branch of (property.anyOf as Json[] | undefined) ?? []) idLength(branch);
}

function describeProperty(property: Json | undefined, description: string | undefined): void {
  if (!property) return;
  if (description === undefined) delete property.description;
  else property.description = description;
}

/**
 * The description an agent that reads all the model's fields gets, its personal fields as tokens
 * (the runtime words it again for other callers, people among them, from the model's metadata).
 */
function toolDescription(model: ModelIR, command: CommandIR): string {
  // Actions' inputs as the metadata has them: a name, whether required, whether a field.
  const described = (action: ActionIR) => ({ ...action, inputs: action.inputs.map(({ input, field }) => ({ name: input.name, required: input.required, field })) });
  const personal = new Set(model.fields.filter((field) => field.personal).map((field) => field.name));
  const everything = { reads: () => true, masks: (_model: string, field: string) => personal.has(field) };
  return describeTool({ ...model, actions: model.actions.map(described) }, { ...command, action: command.action && described(command.action) }, everything);
}

const ENVELOPE_DENIED: Json = { type: 'array', items: { type: 'string' }, description: 'Fields withheld from you, as <model>.<field>.' };

/** What `<model>.erase` answers as its value (runtime/api-shapes.ts, `ErasureInfo`). */
const ERASURE: Json = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    fields: { type: 'array', items: { type: 'string' }, description: 'The personal fields emptied: <field>, or <lines>.<field>.' },
    history_entries: { type: 'integer' },
    audit_rows: { type: 'integer' },
    plans: { type: 'integer' },
    plans_rejected: { type: 'integer' },
    mask_tokens: { type: 'integer' },
    bindings: { type: 'integer' },
  },
  required: ['id', 'fields', 'history_entries', 'audit_rows', 'plans', 'plans_rejected', 'mask_tokens', 'bindings'],
};

/** What a bulk command changed (or, in a dry run, would change). */
const BATCH: Json = {
  type: 'object',
  properties: {
    batch_id: { type: ['string', 'null'], description: 'Names the history entries of the batch; null in a dry run.' },
    count: { type: 'integer' },
    ids: { type: 'array', items: { type: 'string' } },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'string' }, changes: { type: 'object', additionalProperties: { type: 'object', properties: { from: {}, to: {} }, required: ['from', 'to'] } } },
        required: ['id', 'changes'],
      },
    },
  },
  required: ['batch_id', 'count', 'ids', 'changes'],
};

/** A field's change in a history entry: from and to, or the marker of values erased (`<model>.erase`). */
const FIELD_CHANGE: Json = {
  type: 'object',
  anyOf: [
    { properties: { from: {}, to: {} }, required: ['from', 'to'] },
    { properties: { erased: { const: true } }, required: ['erased'] },
  ],
};

/** What a change did to a line list, in a history entry. */
const LINES_CHANGE: Json = {
  type: 'object',
  properties: {
    added: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    removed: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    changed: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'string' }, changes: { type: 'object', additionalProperties: FIELD_CHANGE } }, required: ['id', 'changes'] },
    },
    order: {
      type: 'object',
      description: "The lines' ids in their order before and after, when the change moved lines or removed one from before a kept one.",
      properties: { from: { type: 'array', items: { type: 'string' } }, to: { type: 'array', items: { type: 'string' } } },
      required: ['from', 'to'],
    },
  },
  required: ['added', 'removed', 'changed'],
};

/** One entry of a record's history, as `<model>.history` answers it. */
function historyEntry(model: ModelIR): Json {
  return {
    type: 'object',
    properties: {
      change_id: { type: 'string', description: 'Names the change, for revert.' },
      at: { type: 'string', description: 'When, ISO-8601 UTC.' },
      command: { type: 'string', description: `The command that made the change, e.g. ${model.name}.update.` },
      by: {
        type: 'object',
        properties: {
          kind: { type: 'string', enum: ['person', 'agent'] },
          username: { type: 'string', description: 'The person, or the person whose agent token it was.' },
          agent_label: { type: ['string', 'null'], description: "The agent token's label." },
        },
        required: ['kind', 'username', 'agent_label'],
      },
      plan_id: { type: ['string', 'null'], description: 'The approved plan the change was made by.' },
      reverts: { type: 'string', description: 'The change this one put back.' },
      batch_id: { type: 'string', description: 'A change by a bulk command: the batch its records share.' },
      changes: {
        type: 'object',
        description:
          'Each changed field you may read: {from, to}, null for empty; personal values as masking tokens; {erased: true} where personal values were erased.' +
          (model.lines.length > 0 ? ' A line list: {added, removed, changed, order?}, whole lines added and removed, the changed fields of the others, and the line ids before and after when lines moved.' : ''),
        ...(model.lines.length > 0 ? { properties: Object.fromEntries(model.lines.map((list) => [list.name, LINES_CHANGE])) } : {}),
        additionalProperties: FIELD_CHANGE,
      },
      inputs: { type: 'object', description: "The action's inputs that are not fields, as given." },
    },
    required: ['change_id', 'at', 'command', 'by', 'plan_id', 'changes'],
  };
}


function envelopeOf(value: unknown): Json {
  return { type: 'object', properties: { denied: ENVELOPE_DENIED, value }, required: ['denied', 'value'] };
}

/** JSON Schema of a command's answer: `{denied, value}`, `value` by the kind's result (`record` stands for the record's schema). */
export function resultEnvelope(model: ModelIR, command: CommandIR, record: unknown): Json {
  const values: Record<CommandResultShape, unknown> = {
    record,
    records: { type: 'array', items: record },
    page: { type: 'object', properties: { rows: { type: 'array', items: record }, total: { type: 'integer' } }, required: ['rows', 'total'] },
    deleted: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    erased: ERASURE,
    history: { type: 'object', properties: { rows: { type: 'array', items: historyEntry(model) }, total: { type: 'integer' } }, required: ['rows', 'total'] },
    batch: BATCH,
    // No model's command answers a service command's value (runtime/command-kinds.ts).
    service: {},
  };
  const envelope = envelopeOf(values[COMMAND_KINDS[command.kind].result]);
  if (command.kind !== 'list' && command.kind !== 'search') return envelope;
  return { ...envelope, properties: { ...(envelope.properties as Json), next: { type: 'string', description: 'With after: the after of the next page, when more rows follow.' } } };
}

/**
 * MCP's hints of a command kind, each said outright: a client takes an absent `destructiveHint`
 * as true and an absent `idempotentHint` as false (the MCP schema's defaults).
 */
export function toolAnnotations(kind: CommandKind): { readonly readOnlyHint: boolean; readonly destructiveHint: boolean; readonly idempotentHint: boolean; readonly openWorldHint: false } {
  const traits = COMMAND_KINDS[kind];
  return { readOnlyHint: traits.access === 'read', destructiveHint: traits.destructive, idempotentHint: traits.idempotent, openWorldHint: false };
}

/** Whether an agent's call may come back as a plan (the runtime's rule). */
export function proposable(model: ModelIR, command: CommandIR): boolean {
  return mayBeHeldForApproval(command, model.actions);
}

export function toolTitle(model: ModelIR, command: CommandIR): string {
  const phrase = inSentence(model.label);
  const subject = command.kind === 'list' || command.kind === 'search' ? plural(phrase) : phrase;
  return `${defaultLabel(command.name)} ${subject}`;
}

function buildToolsFile(context: EmitContext, model: ModelIR, path: string, file: SourceText): void {
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: context.runtimeImport(path, 'registry.ts'), namedImports: ['JsonSchema', 'ToolMeta'] });
  const listName = `${camelCase(model.name)}ListJsonSchema`;
  const listCommand = model.commands.find((command) => command.kind === 'list');
  if (listCommand) {
    file.addConst({
      isExported: true,
      docs: `JSON Schema of the input of \`${model.name}__list\` and \`${model.name}__search\` (filter, order, paging; SPEC 4.5).`,
      name: listName, type: 'JsonSchema', initializer: literal(toolInputSchema(model, listCommand, { kind: 'list' })),
    });
  }
  // No output schema (optional in MCP): what a tool answers is said in its description and comes
  // as JSON text beside the structured content; the OpenAPI document keeps the full result schemas
  // (docs/api.md, "What a tool's schema says").
  const tools = model.commands.map((command) => {
    const input = commandInput(model, command);
    return {
      name: `${model.name}__${command.name}`,
      command: command.id,
      title: toolTitle(model, command),
      description: toolDescription(model, command),
      inputSchema: input.kind === 'list' ? code(listName) : toolInputSchema(model, command, input),
      annotations: toolAnnotations(command.kind),
    };
  });
  file.addConst({
    isExported: true,
    docs: `MCP tools of \`${model.name}\`, one per command (\`<model>__<command>\`).`,
    name: modelExports(model).tools, type: 'readonly ToolMeta[]', initializer: literal(tools),
  });
}

export const emitTools: Emitter = (context) =>
  context.ir.modules.flatMap((module) =>
    module.models.map((model): PlannedFile => {
      const path = `${modelBase(model)}.tools.ts`;
      return { path, source: module.source, build: (file) => buildToolsFile(context, model, path, file) };
    }),
  );

