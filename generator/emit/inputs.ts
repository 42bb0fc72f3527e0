/**
 * The input of each command, described once and used twice: printed as the zod code of
 * `<model>.schemas.ts`, and built as a live zod schema at build time to compute the MCP tools'
 * JSON Schema. Both go through the same `runtime/kinds.ts` builders, so they cannot disagree.
 */
import { z } from 'zod';
import { noModelCommand } from '../../runtime/command-kinds.ts';
import { actionManyInput, createManyInput, deleteManyInput, historyInput, indexedTextMaxLength, revertBatchInput, updateManyInput, kinds, lineObject as lineObjectOf, listInput, recordId, revertInput, unknownFieldError } from '../../runtime/kinds.ts';
import type { CommandIR, FieldIR, LineListIR, ModelIR } from '../ir.ts';
import { camelCase, pascalCase } from '../names.ts';
import { builderCall, valueSchema, type ValueArguments } from '../../runtime/value-schemas.ts';
import { call, Call, code, literal, quote, type Code } from './print.ts';

/** A property of a command's input object: the record's `id`, a field's value, or a line list. */
export type InputProperty =
  | { readonly kind: 'id'; readonly name: 'id' }
  | {
      readonly kind: 'field';
      readonly name: string;
      /** How its errors name it: `order.number`, `order.cancel.reason` (an action's input that is no field). */
      readonly path: string;
      readonly field: FieldIR;
      readonly nullable: boolean;
      readonly optional: boolean;
      /** The most characters storage takes, for a text field in an index (see `indexedMaxLength`). */
      readonly maxLength: number | undefined;
    }
  | {
      readonly kind: 'lines';
      readonly name: string;
      readonly list: LineListIR;
      /** Its lines are the fields of the list; with `ids`, each may carry the id of a line it keeps (update). */
      readonly lines: readonly Extract<InputProperty, { kind: 'field' }>[];
      readonly ids: boolean;
      readonly optional: boolean;
    };

type FieldProperty = Extract<InputProperty, { kind: 'field' }>;

/** `list`, `history`, `revert`: a shared input of the runtime's (`listInput`, `historyInput(model)`, `revertInput(model)`). */
export type CommandInput =
  | { readonly kind: 'list' }
  | { readonly kind: 'history' }
  | { readonly kind: 'revert' }
  | { readonly kind: 'createMany' }
  | { readonly kind: 'updateMany' }
  | { readonly kind: 'deleteMany' }
  | { readonly kind: 'revertBatch' }
  | { readonly kind: 'actionMany' }
  | { readonly kind: 'object'; readonly properties: readonly InputProperty[] };

const ID: InputProperty = { kind: 'id', name: 'id' };

/**
 * create: required fields required, others nullable and optional, governed and computed fields
 * left out (the runtime refuses them before zod), each line list (required when it needs a line);
 * update: id plus every field but the computed ones optional (optional fields also nullable), each
 * line list optional (it becomes the new list); get/delete/erase: id; list/search: the shared list input;
 * history: id and a page; revert: id and a change id; action: id plus its inputs (required or not).
 */
export function commandInput(model: ModelIR, command: CommandIR): CommandInput {
  const own = (field: FieldIR, nullable: boolean, optional: boolean): FieldProperty => ({
    kind: 'field',
    name: field.name,
    path: `${model.name}.${field.name}`,
    field,
    nullable,
    optional,
    maxLength: indexedMaxLength(model.fields, [...model.indexes, ...model.uniques.map((entry) => entry.fields)], field),
  });
  const lineLists = (ids: boolean) =>
    model.lines.map(
      (list): InputProperty => ({
        kind: 'lines',
        name: list.name,
        list,
        lines: list.fields
          .filter((field) => field.computed === undefined)
          .map((field) => ({
            kind: 'field',
            name: field.name,
            path: `${model.name}.${list.name}[].${field.name}`,
            field,
            nullable: !field.required,
            optional: !field.required,
            maxLength: indexedMaxLength(list.fields, [], field),
          })),
        ids,
        optional: ids || list.min === 0,
      }),
    );
  switch (command.kind) {
    case 'get':
    case 'delete':
    case 'erase':
      return { kind: 'object', properties: [ID] };
    case 'list':
    case 'search':
      return { kind: 'list' };
    case 'history':
      return { kind: 'history' };
    case 'revert':
      return { kind: 'revert' };
    // Bulk commands: the records and `set` are checked by the runtime with the create and update schemas.
    case 'create_many':
      return { kind: 'createMany' };
    case 'update_many':
      return { kind: 'updateMany' };
    case 'delete_many':
      return { kind: 'deleteMany' };
    case 'revert_batch':
      return { kind: 'revertBatch' };
    case 'action_many':
      return { kind: 'actionMany' };
    case 'create':
      return {
        kind: 'object',
        properties: [
          ...model.fields.filter((field) => !field.governed && field.computed === undefined).map((field) => own(field, !field.required, !field.required)),
          ...lineLists(false),
        ],
      };
    case 'update':
      return {
        kind: 'object',
        properties: [
          ID,
          ...model.fields.filter((field) => field.computed === undefined).map((field) => own(field, !field.required && !field.governed, true)),
          ...lineLists(true),
        ],
      };
    case 'action':
      return {
        kind: 'object',
        properties: [
          ID,
          ...command.action.inputs.map(({ input, field }): InputProperty =>
            field
              ? own(input, false, !input.required)
              : { kind: 'field', name: input.name, path: `${model.name}.${command.action.name}.${input.name}`, field: input, nullable: false, optional: !input.required, maxLength: undefined },
          ),
        ],
      };
    default:
      return noModelCommand(command.kind);
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

/** What the runtime's builder of the field's kind is told: its options, target, scale, bounds and text checks, and the storage limit. */
export function valueArguments(field: FieldIR, maxLength?: number): ValueArguments {
  switch (field.kind) {
    case 'text':
    case 'longtext':
    case 'email':
    case 'url':
    case 'phone':
      return { maxLength, length: field.length, pattern: field.pattern };
    case 'number':
    case 'money':
    case 'date':
    case 'datetime':
      return { min: field.min, max: field.max };
    case 'decimal':
      return { scale: field.scale, min: field.min, max: field.max };
    case 'select':
    case 'multiselect':
      return { options: field.options };
    case 'ref':
      return { target: field.target };
    case 'bool':
      return {};
    case 'file':
      return { multiple: field.multiple };
  }
}

/**
 * The most characters a text field in a btree index (`unique`, `index`, an `indexes` or `unique`
 * entry) may hold, shared among the text fields of its largest such index (runtime/kinds.ts,
 * `indexedTextMaxLength`); undefined for a field in none, which takes its kind's default.
 */
function indexedMaxLength(fields: readonly FieldIR[], indexes: readonly (readonly string[])[], field: FieldIR): number | undefined {
  const isText = (name: string) => fields.some((other) => other.name === name && isTextKind(other));
  if (!isTextKind(field)) return undefined;
  const textFieldsPerIndex = [
    ...(field.index || field.unique ? [1] : []),
    ...indexes.filter((names) => names.includes(field.name)).map((names) => names.filter(isText).length),
  ];
  return textFieldsPerIndex.length === 0 ? undefined : indexedTextMaxLength(Math.max(...textFieldsPerIndex));
}

function isTextKind(field: FieldIR): boolean {
  return field.kind === 'text' || field.kind === 'longtext' || field.kind === 'email' || field.kind === 'url' || field.kind === 'phone';
}

function printField(property: FieldProperty): string {
  const { builder, args } = builderCall(property.field.kind, valueArguments(property.field, property.maxLength));
  let text = `kinds.${builder}(${[quote(property.path), ...args.map((arg) => literal(arg))].join(', ')})`;
  if (property.nullable) text += '.nullable()';
  if (property.optional) text += '.optional()';
  return text;
}

function buildField(property: FieldProperty): z.ZodType {
  let schema = valueSchema(property.path, property.field.kind, valueArguments(property.field, property.maxLength));
  if (property.nullable) schema = schema.nullable();
  if (property.optional) schema = schema.optional();
  return schema;
}

/** The options `kinds.lines` takes. */
function linesOptions(property: Extract<InputProperty, { kind: 'lines' }>) {
  return { min: property.list.min, max: property.list.max, ...(property.ids ? { ids: true } : {}) };
}

function printProperty(model: ModelIR, property: InputProperty): Code | Call {
  if (property.kind === 'id') return code('recordId');
  if (property.kind === 'field') return code(printField(property));
  const fields = Object.fromEntries(property.lines.map((line) => [line.name, code(printField(line))]));
  return new Call('kinds.lines', [`${model.name}.${property.name}`, fields, linesOptions(property)], property.optional ? '.optional()' : '');
}

function buildProperty(model: ModelIR, property: InputProperty): z.ZodType {
  if (property.kind === 'id') return recordId;
  if (property.kind === 'field') return buildField(property);
  const fields = Object.fromEntries(property.lines.map((line) => [line.name, buildField(line)]));
  const schema = kinds.lines(`${model.name}.${property.name}`, fields, linesOptions(property));
  return property.optional ? schema.optional() : schema;
}

/** One line of a line list property, live: what the tools' JSON Schema describes each item of the list as. */
export function buildLine(model: ModelIR, property: Extract<InputProperty, { kind: 'lines' }>): z.ZodType {
  return lineObjectOf(`${model.name}.${property.name}`, Object.fromEntries(property.lines.map((line) => [line.name, buildField(line)])), property.ids);
}

/**
 * The zod expression of a command's input, e.g. `z.strictObject({ id: recordId }, { error: unknownFieldError('lead') })`.
 * `indent` is the nesting level of the line it starts on, `prefix` the characters before it there
 * and `suffix` those after it.
 */
export function printInput(model: ModelIR, input: CommandInput, indent = 0, prefix = 0, suffix = 0): Code {
  if (input.kind === 'list') return code('listInput');
  if (input.kind !== 'object') return code(`${input.kind}Input(${quote(model.name)})`);
  const shape = Object.fromEntries(input.properties.map((property) => [property.name, printProperty(model, property)]));
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
  if (input.kind === 'createMany') return createManyInput(model.name);
  if (input.kind === 'updateMany') return updateManyInput(model.name);
  if (input.kind === 'deleteMany') return deleteManyInput(model.name);
  if (input.kind === 'revertBatch') return revertBatchInput(model.name);
  if (input.kind === 'actionMany') return actionManyInput(model.name);
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
      for (const property of input.properties) used.add(property.kind === 'id' ? 'recordId' : 'kinds');
    }
  }
  return ['actionManyInput', 'createManyInput', 'deleteManyInput', 'historyInput', 'kinds', 'listInput', 'recordId', 'revertBatchInput', 'revertInput', 'unknownFieldError', 'updateManyInput'].filter((name) => used.has(name));
}
