/** `<module>/<model>.schemas.ts`: the record interface (with its line lists' line interfaces) and the zod input schema of every command. */
import { sizeInWords } from '../../runtime/files/media-types.ts';
import { forFieldKind, type FieldIR, type FileFieldIR, type FieldKindTable, type LineListIR, type ModelIR } from '../ir.ts';
import { minorUnitsSentence, pascalCase, withArticle } from '../names.ts';
import { modelBase, type EmitContext, type Emitter, type PlannedFile } from './context.ts';
import { commandInput, inputSchemaName, inputTypeName, kindsImports, printLazyInput } from './inputs.ts';
import { alwaysSet } from './model.ts';
import { quote } from './print.ts';
import type { PropertySignature, SourceText } from './source.ts';

/** A file as a record holds it (`FileRef` of runtime/shapes/values.ts), written out: the logic files import no runtime module. */
const FILE_REF_TYPE = '{ readonly id: string; readonly name: string; readonly size: number; readonly type: string; readonly sha256: string }';

/** TypeScript type of a field's value in a record (SPEC 2.2). */
const RECORD_TYPES: FieldKindTable<string> = {
  text: () => 'string',
  longtext: () => 'string',
  number: () => 'number',
  money: () => 'number',
  date: () => 'string',
  bool: () => 'boolean',
  select: (field) => field.options.map(quote).join(' | '),
  ref: () => 'string',
  decimal: () => 'number',
  datetime: () => 'string',
  email: () => 'string',
  url: () => 'string',
  phone: () => 'string',
  multiselect: (field) => `(${field.options.map(quote).join(' | ')})[]`,
  file: (field) => (field.multiple ? `${FILE_REF_TYPE}[]` : FILE_REF_TYPE),
};

/** A comment for the record interface where the type alone does not say enough. */
const RECORD_NOTES: FieldKindTable<string | undefined> = {
  text: () => undefined,
  longtext: () => undefined,
  number: () => 'Integer.',
  money: (field) => minorUnitsSentence(field.currency),
  date: () => 'Calendar date `YYYY-MM-DD`.',
  bool: () => undefined,
  select: (field) => (field.governed ? 'Governed: changed only through actions; a new record starts at the first option.' : undefined),
  ref: (field) => `Id of ${withArticle(field.target)} record.`,
  decimal: (field) => `At most ${field.scale} decimals.`,
  datetime: () => 'Instant in UTC, `YYYY-MM-DDTHH:MM:SS.sssZ`.',
  email: () => 'Email address.',
  url: () => 'Absolute http(s) URL.',
  phone: () => 'Phone number.',
  multiselect: () => 'Some of the options, each once, in their order.',
  file: (field) => `${field.multiple ? 'Files' : 'A file'} uploaded with POST /api/files; written as ${field.multiple ? 'a list of file ids' : 'its id'}.${acceptSentence(field)}`,
};

/** What a file field takes, in a sentence (or nothing when it takes any file). */
export function acceptSentence(field: FileFieldIR): string {
  const parts = [field.accept.length > 0 ? `types ${field.accept.join(', ')}` : undefined, field.maxSize !== undefined ? `at most ${sizeInWords(field.maxSize)}` : undefined].filter((part) => part !== undefined);
  return parts.length > 0 ? ` Takes ${parts.join(', ')}.` : '';
}

function fieldDocs(field: FieldIR): string {
  const notes = [field.label + (field.description ? `: ${field.description}` : '.'), forFieldKind(RECORD_NOTES, field)];
  if (field.computed) notes.push('Computed: worked out on every write; never written by callers.');
  if (field.personal) notes.push(`Personal: agents receive a token like \`${field.maskLabel}_1\`.`);
  if (field.readRoles) notes.push(`Readable only by ${['admin', ...field.readRoles].join(', ')}; absent for other callers.`);
  if (field.writeRoles) notes.push(`Written only by ${['admin', ...field.writeRoles].join(', ')}.`);
  if (field.hiddenFromAgents) notes.push('Withheld from agents.');
  return notes.filter((note) => note !== undefined).join(' ');
}

/** A field as a property of the record (or line) interface. */
function fieldProperty(field: FieldIR): PropertySignature {
  return { name: field.name, type: valueType(field) + (alwaysSet(field) ? '' : ' | null'), hasQuestionToken: absentForSomeCallers(field), docs: fieldDocs(field) };
}

/** `OrderItemsLine`: a line of `order.items`. */
export function lineTypeName(model: ModelIR, list: LineListIR): string {
  return `${pascalCase(model.name)}${pascalCase(list.name)}Line`;
}

/** TypeScript type of a field's value, without `| null`. */
export function valueType(field: FieldIR): string {
  return forFieldKind(RECORD_TYPES, field);
}

/** Whether some callers may get the record without this field (so it is optional in the record interface). */
export function absentForSomeCallers(field: FieldIR): boolean {
  return field.readRoles !== undefined || field.hiddenFromAgents;
}

function buildSchemasFile(context: EmitContext, model: ModelIR, path: string, file: SourceText): void {
  const inputs = model.commands.map((command) => ({ command, input: commandInput(model, command) }));
  file.addImportDeclaration({ moduleSpecifier: 'zod', namedImports: ['z'] });
  file.addImportDeclaration({ moduleSpecifier: context.runtimeImport(path, 'kinds.ts'), namedImports: kindsImports(inputs.map(({ input }) => input)) });
  for (const list of model.lines) {
    file.addInterface({
      name: lineTypeName(model, list),
      isExported: true,
      // A type, not an interface: the runtime holds lines as records of any fields (`StoredLine`).
      asTypeAlias: true,
      docs: `A line of \`${model.name}.${list.name}\`: ${list.label}${list.description ? `, ${list.description}` : ''}.`,
      properties: [{ name: 'id', type: 'string', docs: 'Opaque unique identifier of the line.' }, ...list.fields.map(fieldProperty)],
    });
  }
  file.addInterface({
    name: pascalCase(model.name),
    isExported: true,
    docs: `${model.label}${model.description ? `: ${model.description}` : '.'} A record as \`${model.name}.get\` returns it to a caller who may read every field.`,
    properties: [
      { name: 'id', type: 'string', docs: 'Opaque unique identifier of the record.' },
      ...model.fields.map(fieldProperty),
      ...model.lines.map((list) => ({
        name: list.name,
        type: `${lineTypeName(model, list)}[]`,
        hasQuestionToken: true,
        docs: `${list.label}${list.description ? `: ${list.description}` : '.'} ${list.min} to ${list.max} lines, in order. In \`${model.name}.get\` and writes' answers; in \`list\` and \`search\` with \`include\`.`,
      })),
    ],
  });
  for (const { command, input } of inputs) {
    const name = inputSchemaName(model, command);
    const prefix = `export const ${name} = `.length;
    file.addConst({
      name,
      isExported: true,
      docs: `Input of \`${command.id}\`.`,
      initializer: printLazyInput(model, input, prefix).text,
    });
    file.addTypeAlias({ name: inputTypeName(model, command), isExported: true, type: `z.infer<typeof ${name}>` });
  }
}

export const emitSchemas: Emitter = (context) =>
  context.ir.modules.flatMap((module) =>
    module.models.map((model): PlannedFile => {
      const path = `${modelBase(model)}.schemas.ts`;
      return { path, source: module.source, build: (file) => buildSchemasFile(context, model, path, file) };
    }),
  );
