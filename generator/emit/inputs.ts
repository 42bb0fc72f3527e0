/**
 * The input of each command, described once and used twice: printed as the zod code of
 * `<model>.schemas.ts`, and built as a live zod schema at build time to compute the MCP tools'
 * JSON Schema. Both go through the same `runtime/kinds.ts` builders, so they cannot disagree.
 */
import { z } from 'zod';
import { historyInput, indexedTextMaxLength, kinds, listInput, recordId, revertInput, unknownFieldError } from '../../runtime/kinds.ts';
import { forFieldKind, type CommandIR, type FieldIR, type FieldKindTable, type ModelIR } from '../ir.ts';
import { camelCase, pascalCase } from '../names.ts';
import { call, code, quote, type Code } from './print.ts';

export interface InputProperty {
  readonly name: string;
  /** Undefined for the record `id`. */
  readonly field: FieldIR | undefined;
  readonly nullable: boolean;
  readonly optional: boolean;
}

/** `list`, `history`, `revert`: a shared input of the runtime's (`listInput`, `historyInput(model)`, `revertInput(model)`). */
export type CommandInput =
  | { readonly kind: 'list' }
  | { readonly kind: 'history' }
  | { readonly kind: 'revert' }
  | { readonly kind: 'object'; readonly properties: readonly InputProperty[] };

const ID: InputProperty = { name: 'id', field: undefined, nullable: false, optional: false };

/**
 * create: required fields required, others nullable and optional, governed fields left out (the
 * runtime refuses them before zod); update: id plus every field optional (optional fields also
 * nullable); get/delete: id; list/search: the shared list input; history: id and a page; revert: id
 * and a change id; action: id plus its required fields.
 */
export function commandInput(model: ModelIR, command: CommandIR): CommandInput {
  switch (command.kind) {
    case 'get':
    case 'delete':
      return { kind: 'object', properties: [ID] };
    case 'list':
    case 'search':
      return { kind: 'list' };
    case 'history':
      return { kind: 'history' };
    case 'revert':
      return { kind: 'revert' };
    case 'create':
      return {
        kind: 'object',
        properties: model.fields
          .filter((field) => !field.governed)
          .map((field) => ({ name: field.name, field, nullable: !field.required, optional: !field.required })),
      };
    case 'update':
      return {
        kind: 'object',
        properties: [ID, ...model.fields.map((field) => ({ name: field.name, field, nullable: !field.required && !field.governed, optional: true }))],
      };
    case 'action': {
      const required = new Set(command.action.required);
      const fields = model.fields.filter((field) => required.has(field.name));
      return { kind: 'object', properties: [ID, ...fields.map((field) => ({ name: field.name, field, nullable: false, optional: false }))] };
    }
  }
}

/** `leadCreateInput`. */
export function inputSchemaName(model: ModelIR, command: CommandIR): string {
  return `${camelCase(model.name)}${pascalCase(command.name)}Input`;
}

/** `LeadCreateInput`. */
export function inputTypeName(model: ModelIR, command: CommandIR): string {
  return `${pascalCase(model.name)}${pascalCase(command.name)}Input`;
}

/**
 * A field's value schema, printed (for `<model>.schemas.ts`) and live (for the tools' JSON Schema),
 * from the same builder. `maxLength`: an indexed text field's (see `indexedMaxLength`).
 */
interface KindBuilder {
  print(path: string, maxLength?: number): string;
  build(path: string, maxLength?: number): z.ZodType;
}

const textOptions = (maxLength: number | undefined) => (maxLength === undefined ? {} : { maxLength });
const printTextOptions = (maxLength: number | undefined) => (maxLength === undefined ? '' : `, { maxLength: ${maxLength} }`);

/** One builder per field kind. */
const KIND_BUILDERS: FieldKindTable<KindBuilder> = {
  text: () => ({ print: (path, maxLength) => `kinds.text(${quote(path)}${printTextOptions(maxLength)})`, build: (path, maxLength) => kinds.text(path, textOptions(maxLength)) }),
  longtext: () => ({
    print: (path, maxLength) => `kinds.longtext(${quote(path)}${printTextOptions(maxLength)})`,
    build: (path, maxLength) => kinds.longtext(path, textOptions(maxLength)),
  }),
  number: () => ({ print: (path) => `kinds.number(${quote(path)})`, build: (path) => kinds.number(path) }),
  money: () => ({ print: (path) => `kinds.money(${quote(path)})`, build: (path) => kinds.money(path) }),
  date: () => ({ print: (path) => `kinds.date(${quote(path)})`, build: (path) => kinds.date(path) }),
  bool: () => ({ print: (path) => `kinds.bool(${quote(path)})`, build: (path) => kinds.bool(path) }),
  select: (field) => ({
    print: (path) => `kinds.select(${quote(path)}, [${field.options.map(quote).join(', ')}])`,
    build: (path) => kinds.select(path, field.options),
  }),
  ref: (field) => ({
    print: (path) => `kinds.ref(${quote(path)}, ${quote(field.target)})`,
    build: (path) => kinds.ref(path, field.target),
  }),
};

/**
 * The most characters a text field in a btree index (`unique`, `index`, an `indexes` entry) may
 * hold, shared among the text fields of its largest such index (runtime/kinds.ts,
 * `indexedTextMaxLength`); undefined for a field in none, which takes its kind's default.
 */
function indexedMaxLength(model: ModelIR, field: FieldIR): number | undefined {
  if (field.kind !== 'text' && field.kind !== 'longtext') return undefined;
  const isText = (name: string) => model.fields.some((other) => other.name === name && (other.kind === 'text' || other.kind === 'longtext'));
  const textFieldsPerIndex = [
    ...(field.index || field.unique ? [1] : []),
    ...model.indexes.filter((fields) => fields.includes(field.name)).map((fields) => fields.filter(isText).length),
  ];
  return textFieldsPerIndex.length === 0 ? undefined : indexedTextMaxLength(Math.max(...textFieldsPerIndex));
}

function printProperty(model: ModelIR, property: InputProperty): string {
  if (!property.field) return 'recordId';
  let text = forFieldKind(KIND_BUILDERS, property.field).print(`${model.name}.${property.name}`, indexedMaxLength(model, property.field));
  if (property.nullable) text += '.nullable()';
  if (property.optional) text += '.optional()';
  return text;
}

function buildProperty(model: ModelIR, property: InputProperty): z.ZodType {
  if (!property.field) return recordId;
  let schema: z.ZodType = forFieldKind(KIND_BUILDERS, property.field).build(`${model.name}.${property.name}`, indexedMaxLength(model, property.field));
  if (property.nullable) schema = schema.nullable();
  if (property.optional) schema = schema.optional();
  return schema;
}

/**
 * The zod expression of a command's input, e.g. `z.strictObject({ id: recordId }, { error: unknownFieldError('lead') })`.
 * `indent` is the nesting level of the line it starts on, `prefix` the characters before it there
 * and `suffix` those after it.
 */
export function printInput(model: ModelIR, input: CommandInput, indent = 0, prefix = 0, suffix = 0): Code {
  if (input.kind === 'list') return code('listInput');
  if (input.kind !== 'object') return code(`${input.kind}Input(${quote(model.name)})`);
  const shape = Object.fromEntries(input.properties.map((property) => [property.name, code(printProperty(model, property))]));
  return call('z.strictObject', [shape, { error: code(`unknownFieldError(${quote(model.name)})`) }], indent, prefix + suffix);
}

/**
 * The input schema as `<model>.schemas.ts` declares it: built on first use (`z.lazy`), so that
 * loading the registry builds no schema and a server holds only those of the commands called.
 * The shared list input (`listInput`) is built once by the runtime and stays as it is.
 */
export function printLazyInput(model: ModelIR, input: CommandInput, prefix = 0): Code {
  if (input.kind === 'list') return code('listInput');
  const head = 'z.lazy(() => ';
  // On one line when it fits, `)` and `;` after it.
  const flat = printInput(model, input, 0, prefix + head.length, 1);
  if (!flat.text.includes('\n')) return code(`${head}${flat.text})`);
  return code(`z.lazy(() =>\n  ${printInput(model, input, 1).text},\n)`);
}

/** The same schema, live. */
export function buildInput(model: ModelIR, input: CommandInput): z.ZodType {
  if (input.kind === 'list') return listInput;
  if (input.kind === 'history') return historyInput(model.name);
  if (input.kind === 'revert') return revertInput(model.name);
  const shape = Object.fromEntries(input.properties.map((property) => [property.name, buildProperty(model, property)]));
  return z.strictObject(shape, { error: unknownFieldError(model.name) });
}

/** Which runtime/kinds.ts exports the printed inputs of a model use. */
export function kindsImports(inputs: readonly CommandInput[]): string[] {
  const used = new Set<string>();
  for (const input of inputs) {
    if (input.kind === 'list') used.add('listInput');
    else if (input.kind !== 'object') used.add(`${input.kind}Input`);
    else {
      used.add('unknownFieldError');
      for (const property of input.properties) used.add(property.field ? 'kinds' : 'recordId');
    }
  }
  return ['historyInput', 'kinds', 'listInput', 'recordId', 'revertInput', 'unknownFieldError'].filter((name) => used.has(name));
}
