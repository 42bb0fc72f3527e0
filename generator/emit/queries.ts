/**
 * `<module>/<model>.queries.ts`: typed data-access functions over knex for code that works with
 * records outside the command path (scripts, extensions, tests). Values go to and from the
 * database through the runtime's own converters (`runtime/query/values.ts`), so there is one
 * conversion, and the command path keeps using the model metadata alone.
 */
import { StructureKind, VariableDeclarationKind, type OptionalKind, type ParameterDeclarationStructure, type SourceFile } from 'ts-morph';
import { allModels, isGoverned, type FieldIR, type ModelIR } from '../ir.ts';
import { camelCase, inSentence, pascalCase, plural, withArticle } from '../names.ts';
import { modelBase, modelExports, type EmitContext, type Emitter, type PlannedFile } from './context.ts';
import { tableName } from './model.ts';
import { code, literal, quote } from './print.ts';
import { absentForSomeCallers, valueType } from './schemas.ts';

/** The exported names of a model's queries file. */
export function queryNames(model: ModelIR) {
  const pascal = pascalCase(model.name);
  return {
    find: `find${pascal}`,
    list: `list${pascalCase(plural(model.name))}`,
    insert: `insert${pascal}`,
    update: `update${pascal}`,
    remove: `delete${pascal}`,
    referrers: `${camelCase(model.name)}Referrers`,
    newValues: `New${pascal}`,
    changes: `${pascal}Changes`,
    referrer: `${pascal}Referrer`,
  };
}

/** Whether `insert<Model>` needs the field: required, and not a governed select (those start at their first option). */
function requiredOnInsert(field: FieldIR): boolean {
  return field.required && !field.governed;
}

/** The value a left-out field is stored with. */
function insertDefault(field: FieldIR): string {
  return field.governed ? quote(field.options[0]) : 'null';
}

function buildQueriesFile(context: EmitContext, model: ModelIR, path: string, file: SourceFile): void {
  const pascal = pascalCase(model.name);
  const names = queryNames(model);
  const table = quote(tableName(model));
  const phrase = inSentence(model.label);
  const some = withArticle(phrase);
  // A model named `knex` has an interface `Knex` of its own.
  const knex = pascal === 'Knex' ? 'KnexClient' : 'Knex';
  // Every field is read here, including those some callers may not see.
  const record = model.fields.some(absentForSomeCallers) ? `Required<${pascal}>` : pascal;
  const reader = `read${pascal}`;
  const referrers = model.referencedBy.map((ref) => {
    const referring = allModels(context.ir).find((candidate) => candidate.name === ref.model);
    if (!referring) throw new Error(`model ${model.name} is referred to by unknown model ${ref.model}`);
    return { ...ref, table: tableName(referring), local: `${camelCase(ref.model)}By${pascalCase(ref.field)}` };
  });
  const requiredFields = model.fields.filter(requiredOnInsert);

  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: 'knex', namedImports: [knex === 'Knex' ? 'Knex' : { name: 'Knex', alias: knex }] });
  file.addImportDeclaration({ moduleSpecifier: context.runtimeImport(path, 'db/connect.ts'), namedImports: ['dialectOf'] });
  file.addImportDeclaration({ moduleSpecifier: context.runtimeImport(path, 'ids.ts'), namedImports: ['newId'] });
  file.addImportDeclaration({ moduleSpecifier: context.runtimeImport(path, 'query/values.ts'), namedImports: ['compileRowReader', 'toDbConverter'] });
  file.addImportDeclaration({ moduleSpecifier: `./${model.name}.model.ts`, namedImports: [modelExports(model).model] });
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: `./${model.name}.schemas.ts`, namedImports: [pascal] });

  const required = requiredFields.map((field) => `\`${field.name}\``);
  const governed = model.fields.filter(isGoverned).map((field) => `\`${field.name}\` starts at \`${field.options[0]}\``);
  const rules = [
    ...(required.length > 0 ? [`${required.join(', ')} ${required.length === 1 ? 'is' : 'are'} required`] : []),
    ...(model.fields.length > requiredFields.length + governed.length ? ['fields left out are null'] : []),
    ...governed,
  ];
  if (model.fields.length === 0) {
    file.addTypeAlias({ name: names.newValues, isExported: true, docs: [`${model.label} has no fields: a new one is just its id.`], type: 'Record<string, never>' });
  } else {
    file.addInterface({
      name: names.newValues,
      isExported: true,
      docs: [`Values of a new ${phrase} for \`${names.insert}\`${rules.length > 0 ? `: ${rules.join('; ')}` : ''}.`],
      properties: model.fields.map((field) => ({
        name: field.name,
        type: valueType(field) + (field.required || field.governed ? '' : ' | null'),
        hasQuestionToken: !requiredOnInsert(field),
      })),
    });
  }
  file.addTypeAlias({
    name: names.changes,
    isExported: true,
    docs: [`Fields to change with \`${names.update}\`; null empties an optional field.`],
    type: `Partial<${names.newValues}>`,
  });
  if (referrers.length > 0) {
    const union = (values: readonly string[]) => [...new Set(values)].map(quote).join(' | ');
    file.addInterface({
      name: names.referrer,
      isExported: true,
      docs: [`A record that refers to ${some} through one of its ref fields, as \`${names.referrers}\` finds it.`],
      properties: [
        { name: 'model', isReadonly: true, type: union(referrers.map((ref) => ref.model)) },
        { name: 'field', isReadonly: true, type: union(referrers.map((ref) => ref.field)) },
        { name: 'id', isReadonly: true, type: 'string' },
      ],
    });
  }

  const modelConst = modelExports(model).model;
  file.addStatements([
    {
      kind: StructureKind.VariableStatement,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['The columns read: `id`, then one per field.'],
      declarations: [{ name: 'columns', initializer: `['id', ...${modelConst}.fields.map((field) => field.name)]` }],
    },
    {
      kind: StructureKind.VariableStatement,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['Each field\'s kind, which decides how its value is stored.'],
      declarations: [{ name: 'fieldKinds', initializer: `new Map(${modelConst}.fields.map((field) => [field.name, field.kind]))` }],
    },
    {
      kind: StructureKind.VariableStatement,
      declarationKind: VariableDeclarationKind.Const,
      docs: [
        `Row → record through the runtime's converters (integers from PostgreSQL bigint strings, booleans from SQLite 0/1, null when empty); it gives \`id\` and every field, as \`${pascal}\` describes.`,
      ],
      declarations: [{ name: reader, initializer: `compileRowReader(${modelConst}.fields) as unknown as (row: Record<string, unknown>) => ${record}` }],
    },
  ]);

  const db: OptionalKind<ParameterDeclarationStructure> = { name: 'db', type: knex };
  const id: OptionalKind<ParameterDeclarationStructure> = { name: 'id', type: 'string' };
  file.addFunction({
    name: 'toRow',
    docs: [`Record values → column values, through the runtime's converters (booleans become 0/1 on SQLite). Refuses unknown fields.`],
    parameters: [db, { name: 'values', type: `Partial<${pascal}>` }],
    returnType: 'Record<string, unknown>',
    statements: `const dialect = dialectOf(db);
const row: Record<string, unknown> = {};
for (const [name, value] of Object.entries(values)) {
  const kind = name === 'id' ? 'id' : fieldKinds.get(name);
  if (kind === undefined) throw new Error(\`unknown field ${model.name}.\${name}\`);
  if (value !== undefined) row[name] = toDbConverter(kind, dialect)(value);
}
return row;`,
  });

  file.addFunction({
    name: names.find,
    isExported: true,
    isAsync: true,
    docs: [`The ${phrase} with this id, or undefined when there is none.`],
    parameters: [db, id],
    returnType: `Promise<${record} | undefined>`,
    statements: [`const row = await db(${table}).first(...columns).where('id', id);`, `return row === undefined ? undefined : ${reader}(row);`],
  });

  file.addFunction({
    name: names.list,
    isExported: true,
    isAsync: true,
    docs: [
      `The ${plural(phrase)} whose fields equal every value in \`where\` (null matches empty fields), by id (oldest first for generated ids); all of them when \`where\` is empty.`,
    ],
    parameters: [db, { name: 'where', type: `Partial<${pascal}>`, initializer: '{}' }],
    returnType: `Promise<${record}[]>`,
    statements: [
      `const rows = await db(${table}).select(...columns).where(toRow(db, where)).orderBy('id');`,
      `return rows.map(${reader});`,
    ],
  });

  const values = Object.fromEntries([
    ['id', code('id')],
    ...model.fields.map((field) => [field.name, code(requiredOnInsert(field) ? `values.${field.name}` : `values.${field.name} ?? ${insertDefault(field)}`)]),
  ]);
  file.addFunction({
    name: names.insert,
    isExported: true,
    isAsync: true,
    docs: [`Stores a new ${phrase} under \`id\` (a new id when left out) and returns it.`],
    parameters: [db, { name: 'values', type: names.newValues, initializer: requiredFields.length === 0 ? '{}' : undefined }, { ...id, initializer: 'newId()' }],
    returnType: `Promise<${record}>`,
    statements: [
      `const record: ${record} = ${literal(values, 1, `const record: ${record} = `.length)};`,
      `await db(${table}).insert(toRow(db, record));`,
      'return record;',
    ],
  });

  file.addFunction({
    name: names.update,
    isExported: true,
    isAsync: true,
    docs: [`Changes fields of the ${phrase} with this id and returns it as stored, or undefined when there is none.`],
    parameters: [db, id, { name: 'changes', type: names.changes }],
    returnType: `Promise<${record} | undefined>`,
    statements: [
      'const row = toRow(db, changes);',
      `if (Object.keys(row).length > 0) await db(${table}).where('id', id).update(row);`,
      `return ${names.find}(db, id);`,
    ],
  });

  file.addFunction({
    name: names.remove,
    isExported: true,
    isAsync: true,
    docs: [
      `Deletes the ${phrase} with this id; false when there was none.` +
        (referrers.length > 0
          ? ` References to it are not checked (the \`${model.name}.delete\` command refuses while \`${names.referrers}\` finds any).`
          : ''),
    ],
    parameters: [db, id],
    returnType: 'Promise<boolean>',
    statements: [`return (await db(${table}).where('id', id).delete()) > 0;`],
  });

  if (referrers.length > 0) {
    const statements = [`const referrers: ${names.referrer}[] = [];`];
    for (const ref of referrers) {
      // A record that refers to itself does not keep itself alive (as in the delete command).
      const self = ref.model === model.name ? `.whereNot('id', id)` : '';
      statements.push(
        `const ${ref.local}: string | undefined = (await db(${quote(ref.table)}).first('id').where(${quote(ref.field)}, id)${self})?.id;`,
        `if (${ref.local} !== undefined) referrers.push({ model: ${quote(ref.model)}, field: ${quote(ref.field)}, id: ${ref.local} });`,
      );
    }
    statements.push('return referrers;');
    file.addFunction({
      name: names.referrers,
      isExported: true,
      isAsync: true,
      docs: [
        `The first record of each ref field that refers to the ${phrase} with this id (${referrers.map((ref) => `${ref.model}.${ref.field}`).join(', ')}); empty when nothing does.`,
      ],
      parameters: [db, id],
      returnType: `Promise<${names.referrer}[]>`,
      statements,
    });
  }

  file.insertStatements(0, [
    `/**
 * Data access for ${plural(phrase)} outside the command path (scripts, extensions, tests): no rights,
 * masking, approval, audit or reference checks. Pass a transaction as \`db\` to group calls.
 */`,
  ]);
}

export const emitQueries: Emitter = (context) =>
  context.ir.modules.flatMap((module) =>
    module.models.map((model): PlannedFile => {
      const path = `${modelBase(model)}.queries.ts`;
      return { path, source: module.source, build: (file) => buildQueriesFile(context, model, path, file) };
    }),
  );

