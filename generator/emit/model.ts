/** `<module>/<model>.model.ts`: the model's metadata (fields, actions, line lists, tables, uniques, locked states, rules) for the runtime. */
import { utcInstant } from '../../runtime/kinds.ts';
import { toDb } from '../../runtime/query/values.ts';
import type { ColumnType } from '../../runtime/registry.ts';
import type { ActionIR, FieldIR, FieldKind, LineListIR, ModelIR } from '../ir.ts';
import { camelCase, pascalCase } from '../names.ts';
import { modelBase, modelExports, type EmitContext, type Emitter, type PlannedFile } from './context.ts';
import { code, literal } from './print.ts';
import type { SourceText } from './source.ts';

/** Database column type per field kind. */
const COLUMN_TYPES: Record<FieldKind, ColumnType> = {
  text: 'text',
  longtext: 'text',
  number: 'integer',
  money: 'integer',
  date: 'date',
  bool: 'bool',
  select: 'text',
  ref: 'id',
  // Exactly: the value × 10^scale (a bigint on PostgreSQL), never a float.
  decimal: 'integer',
  // The UTC form `YYYY-MM-DDTHH:MM:SS.sssZ`, which sorts as the instants do.
  datetime: 'text',
  email: 'text',
  url: 'text',
  phone: 'text',
  // The JSON array of the chosen options, in their declared order.
  multiselect: 'text',
  // JSON: the file ({"id", "name", "size", "type", "sha256"}), or the list of them with `multiple`.
  file: 'text',
};

/** `leadQualifyAction`. */
export function actionConstName(model: ModelIR, action: ActionIR): string {
  return `${camelCase(model.name)}${pascalCase(action.name)}Action`;
}

/** Whether the field's column is NOT NULL: required fields, and governed selects (which start at their first option). */
export function neverEmpty(field: FieldIR): boolean {
  return field.required || field.governed;
}

/**
 * Whether the field holds a value in every record the service writes: a NOT NULL column, or a
 * computed field (its function returns a value of the kind on every write; its column stays
 * nullable so that one can be added to a table that has rows) — but a multiselect, whose function
 * may give no options: that is stored empty, as a written `[]` is.
 */
export function alwaysSet(field: FieldIR): boolean {
  return neverEmpty(field) || (field.computed !== undefined && field.kind !== 'multiselect');
}

/** The database table of a model: named after it. */
export function tableName(model: ModelIR): string {
  return model.name;
}

/** The table of a line list: `<model>__<lines>` (model names have no double underscore, so it is never a model's). */
export function lineTableName(model: ModelIR, list: LineListIR): string {
  return `${model.name}__${list.name}`;
}

/** What only some kinds have. */
interface KindParts {
  readonly options?: readonly string[];
  readonly target?: string;
  readonly currency?: string | undefined;
  readonly scale?: number;
  readonly min?: number | string | undefined;
  readonly max?: number | string | undefined;
  readonly length?: number | undefined;
  readonly pattern?: string | undefined;
  readonly multiple?: boolean;
  readonly accept?: readonly string[];
  readonly maxSize?: number | undefined;
}

/** What only some kinds have, on the fields of those kinds; the rest absent. */
function kindParts(field: FieldIR): KindParts {
  switch (field.kind) {
    case 'select':
    case 'multiselect':
      return { options: field.options };
    case 'ref':
      return { target: field.target };
    case 'money':
      return { currency: field.currency, min: field.min, max: field.max };
    case 'decimal':
      return { scale: field.scale, min: field.min, max: field.max };
    case 'number':
    case 'date':
    case 'datetime':
      return { min: field.min, max: field.max };
    case 'text':
    case 'longtext':
    case 'email':
    case 'url':
    case 'phone':
      return { length: field.length, pattern: field.pattern };
    case 'bool':
      return {};
    case 'file':
      return { multiple: field.multiple, accept: field.accept.length > 0 ? field.accept : undefined, maxSize: field.maxSize };
  }
}

export function fieldMeta(field: FieldIR) {
  const parts = kindParts(field);
  return {
    name: field.name,
    kind: field.kind,
    label: field.label,
    description: field.description,
    required: field.required,
    personal: field.personal,
    maskLabel: field.personal ? field.maskLabel : undefined,
    governed: field.governed,
    options: parts.options,
    target: parts.target,
    readRoles: field.readRoles,
    hiddenFromAgents: field.hiddenFromAgents,
    currency: parts.currency,
    scale: parts.scale,
    min: parts.min,
    max: parts.max,
    length: parts.length,
    pattern: parts.pattern,
    multiple: parts.multiple,
    accept: parts.accept,
    maxSize: parts.maxSize,
    default: field.default,
    computed: field.computed !== undefined,
    writeRoles: field.writeRoles,
  };
}

/**
 * The table's indexes: each ref and governed select by name (the runtime's own, as ever), then
 * what the module declared — `unique` fields, `index` fields (unless indexed already) and
 * `indexes` — as `{fields, unique}`.
 */
function indexesOf(model: ModelIR) {
  const automatic = model.fields.filter((field) => field.kind === 'ref' || field.governed).map((field) => field.name);
  const unique = model.fields.filter((field) => field.unique).map((field) => ({ fields: [field.name], unique: true }));
  const indexed = model.fields
    .filter((field) => field.index && !field.unique && !automatic.includes(field.name))
    .map((field) => ({ fields: [field.name], unique: false }));
  const declared = model.indexes.map((fields) => ({ fields, unique: false }));
  // The model's `unique`: composite ones, and partial ones (unique among the records `where` selects).
  const uniques = model.uniques.map((entry) => ({ fields: entry.fields, unique: true, where: entry.where && storedWhere(model, entry.where) }));
  return [...automatic, ...unique, ...indexed, ...declared, ...uniques];
}

/**
 * A partial index's constants as its columns hold them: the index compares the stored values, so a
 * decimal's is the integer it is stored as (× 10^scale) and a datetime's its UTC form.
 */
export function storedWhere(model: ModelIR, where: Readonly<Record<string, string | number | boolean>>): Record<string, string | number | boolean> {
  const stored: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(where)) {
    const field = model.fields.find((candidate) => candidate.name === name);
    if (field?.kind === 'decimal' && typeof value === 'number') stored[name] = toDb.decimal(value, field.scale)!;
    else if (field?.kind === 'datetime' && typeof value === 'string') stored[name] = utcInstant(value) ?? value;
    else stored[name] = value;
  }
  return stored;
}

/** A field's column. */
function columnOf(field: FieldIR) {
  return { name: field.name, type: COLUMN_TYPES[field.kind], notNull: neverEmpty(field), default: field.governed ? field.options[0] : undefined };
}

function searchedFields(fields: readonly FieldIR[]): string[] | undefined {
  const searched = fields.filter((field) => (field.kind === 'text' || field.kind === 'longtext') && field.search).map((field) => field.name);
  return searched.length > 0 ? searched : undefined;
}

function tableMeta(model: ModelIR) {
  return {
    name: tableName(model),
    columns: [{ name: 'id', type: 'id', notNull: true }, ...model.fields.map(columnOf)],
    indexes: indexesOf(model),
    search: searchedFields(model.fields),
  };
}

/**
 * A line list's table: `id`, `owner` (the record's id), `position` (its place in the list, from
 * 0), then one column per field. Indexed by owner (every read of lines is by owners) and, as a
 * model's, by each ref and what its fields declare.
 */
function lineTableMeta(model: ModelIR, list: LineListIR) {
  const refs = list.fields.filter((field) => field.kind === 'ref').map((field) => field.name);
  const indexed = list.fields.filter((field) => field.index && field.kind !== 'ref').map((field) => ({ fields: [field.name], unique: false }));
  return {
    name: lineTableName(model, list),
    columns: [
      { name: 'id', type: 'id', notNull: true },
      { name: 'owner', type: 'id', notNull: true },
      { name: 'position', type: 'integer', notNull: true },
      ...list.fields.map(columnOf),
    ],
    indexes: ['owner', ...refs, ...indexed],
    search: searchedFields(list.fields),
  };
}

function lineListMeta(model: ModelIR, list: LineListIR) {
  return {
    name: list.name,
    label: list.label,
    description: list.description,
    min: list.min,
    max: list.max,
    fields: list.fields.map(fieldMeta),
    table: lineTableMeta(model, list),
  };
}

function buildModelFile(context: EmitContext, model: ModelIR, path: string, file: SourceText): void {
  const types = model.actions.length > 0 ? ['ActionMeta', 'ModelMeta'] : ['ModelMeta'];
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: context.runtimeImport(path, 'registry.ts'), namedImports: types });
  for (const action of model.actions) {
    const meta = {
      name: action.name,
      description: action.description,
      field: action.field,
      from: action.from,
      to: action.to,
      required: action.required,
      needsApproval: action.needsApproval,
      inputs: action.inputs.map(({ input, field }) => ({ ...fieldMeta(input), field })),
      set: Object.fromEntries(action.set.map(({ field, to }) => [field, to])),
    };
    file.addConst({
      isExported: true,
      docs: `\`${model.name}.${action.name}\`: ${action.field} ${action.from.join(' | ')} → ${action.to}.`,
      name: actionConstName(model, action), type: 'ActionMeta', initializer: literal(meta),
    });
  }
  const meta = {
    name: model.name,
    module: model.module,
    label: model.label,
    description: model.description,
    table: tableMeta(model),
    titleField: model.titleField,
    fields: model.fields.map(fieldMeta),
    actions: model.actions.map((action) => code(actionConstName(model, action))),
    referencedBy: model.referencedBy,
    list: model.list.length > 0 ? model.list : undefined,
    lines: model.lines.map((list) => lineListMeta(model, list)),
    uniques: model.uniques.map((entry) => ({ fields: entry.fields, where: entry.where })),
    lockedIn: model.lockedIn,
    rules: model.rules.map((rule) => ({ fields: rule.fields, message: rule.message })),
  };
  file.addConst({
    isExported: true,
    docs: `Model \`${model.name}\` of module ${model.module}.`,
    name: modelExports(model).model, type: 'ModelMeta', initializer: literal(meta),
  });
}

export const emitModels: Emitter = (context) =>
  context.ir.modules.flatMap((module) =>
    module.models.map((model): PlannedFile => {
      const path = `${modelBase(model)}.model.ts`;
      return { path, source: module.source, build: (file) => buildModelFile(context, model, path, file) };
    }),
  );
