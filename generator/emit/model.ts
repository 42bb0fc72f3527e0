/** `<module>/<model>.model.ts`: the model's metadata (fields, actions, table) for the runtime. */
import type { ColumnType } from '../../runtime/registry.ts';
import type { ActionIR, FieldIR, FieldKind, ModelIR } from '../ir.ts';
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
};

/** `leadQualifyAction`. */
export function actionConstName(model: ModelIR, action: ActionIR): string {
  return `${camelCase(model.name)}${pascalCase(action.name)}Action`;
}

/** Whether the field's column is NOT NULL: required fields, and governed selects (which start at their first option). */
export function neverEmpty(field: FieldIR): boolean {
  return field.required || field.governed;
}

/** The database table of a model: named after it. */
export function tableName(model: ModelIR): string {
  return model.name;
}

function fieldMeta(field: FieldIR) {
  return {
    name: field.name,
    kind: field.kind,
    label: field.label,
    description: field.description,
    required: field.required,
    personal: field.personal,
    maskLabel: field.personal ? field.maskLabel : undefined,
    governed: field.governed,
    options: field.kind === 'select' ? field.options : undefined,
    target: field.kind === 'ref' ? field.target : undefined,
    readRoles: field.readRoles,
    hiddenFromAgents: field.hiddenFromAgents,
    currency: field.kind === 'money' ? field.currency : undefined,
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
  return [...automatic, ...unique, ...indexed, ...declared];
}

function tableMeta(model: ModelIR) {
  const searched = model.fields.filter((field) => (field.kind === 'text' || field.kind === 'longtext') && field.search).map((field) => field.name);
  return {
    name: tableName(model),
    columns: [
      { name: 'id', type: 'id', notNull: true },
      ...model.fields.map((field) => ({
        name: field.name,
        type: COLUMN_TYPES[field.kind],
        notNull: neverEmpty(field),
        default: field.governed ? field.options[0] : undefined,
      })),
    ],
    indexes: indexesOf(model),
    search: searched.length > 0 ? searched : undefined,
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
