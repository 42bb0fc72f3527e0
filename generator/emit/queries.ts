/**
 * `<module>/<model>.queries.ts`: how a model's records are stored. The statements of its table,
 * written once as portable SQL, and its rows ↔ records typed with the record interface, converted
 * by the runtime's own converters (`runtime/query/values.ts`). The registry hands these to the
 * record service, which reads and writes records only through them: what is the same for every
 * call is written out here; what depends on the call (filters, order, paging) the runtime compiles.
 */
import { allModels, forFieldKind, type FieldIR, type FieldKindTable, type LineListIR, type ModelIR } from '../ir.ts';
import { camelCase, inSentence, pascalCase, plural, withArticle } from '../names.ts';
import { modelBase, modelExports, type EmitContext, type Emitter, type PlannedFile } from './context.ts';
import { alwaysSet, lineTableName, storedWhere, tableName } from './model.ts';
import { code, docComment, lineComment, literal, quote } from './print.ts';
import { absentForSomeCallers, lineTypeName, valueType } from './schemas.ts';
import type { ImportedName, Parameter, SourceText } from './source.ts';
import { BINDINGS_COLUMN, bindingsColumn } from '../../runtime/masking/bindings.ts';

/** The exported names of a model's queries file. */
export function queryNames(model: ModelIR) {
  const pascal = pascalCase(model.name);
  const camel = camelCase(model.name);
  return {
    columns: `${camel}Columns`,
    changes: `${pascal}Changes`,
    fromRow: `${camel}FromRow`,
    find: `find${pascal}`,
    list: `list${pascalCase(plural(model.name))}`,
    listPages: `list${pascalCase(plural(model.name))}ByPage`,
    count: `count${pascalCase(plural(model.name))}`,
    insert: `insert${pascal}`,
    insertMany: `insertMany${pascalCase(plural(model.name))}`,
    update: `update${pascal}`,
    remove: `delete${pascal}`,
    lockForWrite: `lock${pascal}ForWrite`,
    lockForRef: `lock${pascal}ForRef`,
    firstReferrer: `first${pascal}Referrer`,
    findForAgent: `find${pascal}ForAgent`,
    stored: `Stored${pascal}`,
    queries: modelExports(model).queries,
  };
}

/** A column name in SQL. Field names are lower snake_case identifiers (validated), so quoting never has to escape. */
function sqlName(name: string): string {
  return `"${name}"`;
}

/**
 * How a field's JSON value is bound, as an expression over `value`, where it needs a runtime
 * converter: booleans (SQLite stores 1/0; the converter takes the dialect), decimals (stored as
 * integers, the value × 10^scale) and multiselects (a JSON array). Undefined: bound as it is.
 */
const TO_DB: FieldKindTable<((value: string) => string) | undefined> = {
  text: () => undefined,
  longtext: () => undefined,
  number: () => undefined,
  money: () => undefined,
  date: () => undefined,
  bool: () => (value) => `toDb.bool(${value}, dialect)`,
  select: () => undefined,
  ref: () => undefined,
  decimal: (field) => (value) => `toDb.decimal(${value}, ${field.scale})`,
  datetime: () => undefined,
  email: () => undefined,
  url: () => undefined,
  phone: () => undefined,
  multiselect: () => (value) => `toDb.multiselect(${value})`,
  file: () => (value) => `toDb.file(${value})`,
};

/** The bound value of a field, as an expression over `value`. */
function boundValue(field: FieldIR, value: string): string {
  return forFieldKind(TO_DB, field)?.(value) ?? value;
}

/** Whether a field's value is bound through a converter. */
function converted(field: FieldIR): boolean {
  return forFieldKind(TO_DB, field) !== undefined;
}

/** Whether binding the field's value depends on the database. */
function boundByDialect(field: FieldIR): boolean {
  return field.kind === 'bool';
}

/** Kinds whose values the converter reads back as a wider type than the field's (`string` for a select's options). */
const NARROWED_KINDS: ReadonlySet<FieldIR['kind']> = new Set(['select', 'multiselect', 'file']);

/**
 * The record property read from a row: the kind's converter, cast where the column says more than
 * the converter's type. `files`: the parameter that reads file columns, where the function has one.
 */
function readValue(field: FieldIR, files?: string): string {
  const read =
    field.kind === 'file' && files !== undefined ? `${files}(row.${field.name})` : `fromDb.${field.kind}(row.${field.name}${field.kind === 'decimal' ? `, ${field.scale}` : ''})`;
  // NOT NULL columns and computed fields are never empty; a select holds one of its options.
  if (!alwaysSet(field) && !NARROWED_KINDS.has(field.kind)) return read;
  return `${read} as ${valueType(field)}${alwaysSet(field) ? '' : ' | null'}`;
}

function buildQueriesFile(context: EmitContext, model: ModelIR, path: string, file: SourceText): void {
  const names = queryNames(model);
  const pascal = pascalCase(model.name);
  const phrase = inSentence(model.label);
  const table = sqlName(tableName(model));
  // The imported names a model's own names would hide: a model `knex` has a record interface `Knex`.
  const alias = (name: string) => (name !== pascal ? name : name === 'Knex' ? 'KnexClient' : `Runtime${name}`);
  const knex = alias('Knex');
  // Every field is read here, including those some callers may not see; lines are read by their own queries.
  const everyField = model.fields.some(absentForSomeCallers) ? `Required<${pascal}>` : pascal;
  const record = model.lines.length > 0 ? names.stored : everyField;
  const columns = ['id', ...model.fields.map((field) => field.name)];
  const referrers = model.referencedBy.map((ref) => {
    const referring = allModels(context.ir).find((candidate) => candidate.name === ref.model);
    if (!referring) throw new Error(`model ${model.name} is referred to by unknown model ${ref.model}`);
    const label = inSentence(referring.label);
    if (ref.lines === undefined) return { ...ref, label, table: sqlName(tableName(referring)), record: '"id"', local: `${camelCase(ref.model)}By${pascalCase(ref.field)}` };
    // A line's ref: the record that owns the line refers to the target.
    const list = referring.lines.find((candidate) => candidate.name === ref.lines);
    if (!list) throw new Error(`model ${model.name} is referred to by unknown lines ${ref.model}.${ref.lines}`);
    return { ...ref, label, table: sqlName(lineTableName(referring, list)), record: '"owner"', local: `${camelCase(ref.model)}${pascalCase(ref.lines)}By${pascalCase(ref.field)}` };
  });
  const lineFields = model.lines.flatMap((list) => list.fields);
  const dialectBound = [...model.fields, ...lineFields].some(boundByDialect);
  const anyConverted = [...model.fields, ...lineFields].some(converted);

  file.addLeadingComment(
    docComment(
      `How ${plural(phrase)} are stored: the statements of table ${table}, written once, and its rows as \`${pascal}\` records. ` +
        `The record service reads and writes ${plural(phrase)} only through these; rights, checks, masking and the audit trail are the command path's. ` +
        'Scripts may use them too (pass a transaction as `db` to group calls).',
    ),
  );
  const namedImport = (name: string, isTypeOnly = false): ImportedName =>
    alias(name) === name ? { name, isTypeOnly } : { name, alias: alias(name), isTypeOnly };
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: 'knex', namedImports: [namedImport('Knex')] });
  file.addImportDeclaration({ moduleSpecifier: context.runtimeImport(path, 'db/connect.ts'), namedImports: ['dialectOf'] });
  const hasUnique = model.fields.some((field) => field.unique) || model.uniques.length > 0;
  file.addImportDeclaration({
    moduleSpecifier: context.runtimeImport(path, 'db/statements.ts'),
    namedImports: ['runSelect', 'runWrite', 'selectFirst', ...(model.lines.length > 0 ? ['selectIn'] : []), ...(hasUnique ? ['uniqueFields'] : [])],
  });
  file.addImportDeclaration({
    moduleSpecifier: context.runtimeImport(path, 'query/list-query.ts'),
    namedImports: ['countList', 'selectList', namedImport('CompiledList', true)],
  });
  file.addImportDeclaration({ moduleSpecifier: context.runtimeImport(path, 'query/list-pages.ts'), namedImports: ['mapListPages', 'openListPages', namedImport('ListPages', true)] });
  file.addImportDeclaration({ moduleSpecifier: context.runtimeImport(path, 'query/values.ts'), namedImports: anyConverted ? ['fromDb', 'toDb'] : ['fromDb'] });
  const personal = model.fields.some((field) => field.personal);
  if (personal) file.addImportDeclaration({ moduleSpecifier: context.runtimeImport(path, 'masking/bindings.ts'), namedImports: ['bindingsFromColumn'] });
  // A person's `get` over REST reads file columns as their stored text (runtime/query/stored-json.ts).
  const holdsFiles = model.fields.some((field) => field.kind === 'file');
  const registryTypes = [
    ...(holdsFiles ? ['FileColumnReader'] : []),
    ...(model.lines.length > 0 ? ['LineQueries'] : []),
    ...(personal ? ['MaskBinding'] : []),
    'ModelQueries',
    'Referrer',
    ...(referrers.length > 0 ? ['StoredRecord'] : []),
  ];
  file.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: context.runtimeImport(path, 'registry.ts'), namedImports: registryTypes.map((name) => namedImport(name)) });
  file.addImportDeclaration({
    isTypeOnly: true,
    moduleSpecifier: `./${model.name}.schemas.ts`,
    namedImports: [pascal, ...model.lines.map((list) => lineTypeName(model, list))],
  });
  if (model.lines.length > 0) {
    file.addTypeAlias({
      name: names.stored,
      isExported: true,
      docs: `${withArticleCapitalised(phrase)} as table ${table} holds it: every field, without its lines (${model.lines.map((list) => list.name).join(', ')}), which their own queries read and write.`,
      type: `Omit<${everyField}, ${model.lines.map((list) => quote(list.name)).join(' | ')}>`,
    });
  }

  file.addConst({
    name: names.columns,
    isExported: true,
    docs: `The columns of table ${table}: \`id\`, then one per field.`,
    initializer: `${literal(columns, 0, `export const ${names.columns} = `.length + ' as const'.length)} as const`,
  });
  file.addTypeAlias({
    name: names.changes,
    isExported: true,
    docs: `Fields to write with \`${names.update}\`; null empties a field.`,
    type: `Partial<Omit<${record}, 'id'>>`,
  });

  const select = `select ${columns.map(sqlName).join(', ')} from ${table}`;
  const statement = (name: string, initializer: string, doc?: string) =>
    file.addConst({ name, docs: doc, initializer });
  statement(
    'SELECT',
    quote(select),
    `The statements of ${plural(phrase)}, written once: portable SQL (double-quoted names, \`?\` placeholders). Every read selects every column.`,
  );
  statement('SELECT_BY_ID', '`${SELECT} where "id" = ?`');
  statement('COUNT', quote(`select count(*) as "n" from ${table}`));
  statement('INSERT', quote(`insert into ${table} (${columns.map(sqlName).join(', ')}) values (${columns.map(() => '?').join(', ')})`));
  statement('INSERT_ROWS', quote(`insert into ${table} (${columns.map(sqlName).join(', ')}) values `));
  statement('ROW', quote(`(${columns.map(() => '?').join(', ')})`));
  statement('DELETE', quote(`delete from ${table} where "id" = ?`));
  const unique = model.fields.filter((field) => field.unique).map((field) => field.name);
  const composite = model.uniques.map((entry) => {
    // The index is named by its condition as stored (model.ts), the refusal says it as written.
    const indexWhere = entry.where && storedWhere(model, entry.where);
    return { fields: entry.fields, where: entry.where, indexWhere: indexWhere && JSON.stringify(indexWhere) !== JSON.stringify(entry.where) ? indexWhere : undefined };
  });
  if (unique.length > 0 || composite.length > 0) {
    statement(
      'UNIQUE',
      `uniqueFields(${quote(table.slice(1, -1))}, ${literal(unique)}${composite.length > 0 ? `, ${literal(composite)}` : ''})`,
      composite.length > 0
        ? 'Its unique fields and indexes: a write that would repeat a value of one is refused with `<model>.<field> must be unique`, `<model>: <fields> must be unique` (the database decides, race-free).'
        : 'Its unique fields: a write that would repeat a value of one is refused with `<model>.<field> must be unique` (the database decides, race-free).',
    );
  }
  statement(
    'LOCK_FOR_WRITE',
    "{ sqlite: SELECT_BY_ID, postgres: `${SELECT_BY_ID} for update` }",
    'Reading a record to write it: PostgreSQL locks the row until the transaction ends; SQLite has one writer at a time.',
  );
  const exists = `select "id" from ${table} where "id" = ?`;
  statement(
    'LOCK_FOR_REF',
    `{ sqlite: ${quote(exists)}, postgres: ${quote(`${exists} for share`)} }`,
    'Checking the target of a ref being written: PostgreSQL keeps the row from deletion until the transaction ends.',
  );

  const db: Parameter = { name: 'db', type: knex };
  const id: Parameter = { name: 'id', type: 'string' };
  // Models with a file field: the reader of their file columns, `fromDb.file` unless told another.
  const files: Parameter[] = holdsFiles ? [{ name: 'files', type: alias('FileColumnReader'), initializer: 'fromDb.file' }] : [];
  const list: Parameter = { name: 'list', type: alias('CompiledList') };

  file.addFunction({
    name: names.fromRow,
    isExported: true,
    docs: `A row of ${table} as the driver returns it → ${record === pascal ? `a \`${pascal}\`` : `\`${record}\``}, through the runtime's converters (integers from PostgreSQL's bigint strings, booleans from SQLite's 0/1, null when empty).${holdsFiles ? ' `files` reads the file columns.' : ''}`,
    parameters: [{ name: 'row', type: 'Record<string, unknown>' }, ...files],
    returnType: record,
    statements: [`return {\n${['  id: fromDb.id(row.id),', ...model.fields.map((field) => `  ${field.name}: ${readValue(field, holdsFiles ? 'files' : undefined)},`)].join('\n')}\n};`],
  });

  file.addFunction({
    name: names.find,
    isExported: true,
    isAsync: true,
    docs: `The ${phrase} with this id, or undefined. Outside a transaction SQLite reads it on its read-only connection.${holdsFiles ? ' `files` reads its file columns.' : ''}`,
    parameters: [db, id, ...files],
    returnType: `Promise<${record} | undefined>`,
    statements: [`const row = await selectFirst<Record<string, unknown>>(db, SELECT_BY_ID, [id]);`, `return row === undefined ? undefined : ${names.fromRow}(row${holdsFiles ? ', files' : ''});`],
  });

  if (personal) {
    const forAgent = (dialect: 'sqlite' | 'postgres') => `select ${columns.map(sqlName).join(', ')}, ${bindingsColumn(dialect, table)} from ${table} where "id" = ?`;
    statement(
      'SELECT_BY_ID_FOR_AGENT',
      `{ sqlite: ${quote(forAgent('sqlite'))}, postgres: ${quote(forAgent('postgres'))} }`,
      "An agent's read of one record with its bindings on it (runtime/masking/bindings.ts): one statement.",
    );
    file.addFunction({
      name: names.findForAgent,
      isExported: true,
      isAsync: true,
      docs: `The ${phrase} with this id and the bindings of the agent (its token's id) on it, read together; undefined when there is none.`,
      parameters: [db, id, { name: 'agentTokenId', type: 'string' }],
      returnType: `Promise<{ record: ${record}; bindings: Map<string, ${alias('MaskBinding')}> } | undefined>`,
      statements: [
        `const row = await selectFirst<Record<string, unknown>>(db, SELECT_BY_ID_FOR_AGENT[dialectOf(db)], [agentTokenId, ${quote(model.name)}, id]);`,
        `return row === undefined ? undefined : { record: ${names.fromRow}(row), bindings: bindingsFromColumn(id, row[${quote(BINDINGS_COLUMN)}]) };`,
      ],
    });
  }

  file.addFunction({
    name: names.list,
    isExported: true,
    isAsync: true,
    docs: `The ${plural(phrase)} a compiled \`list\`/\`search\` input selects, in its order and page.`,
    parameters: [db, list],
    returnType: `Promise<${record}[]>`,
    statements: [`const rows = await selectList(db, SELECT, list);`, holdsFiles ? `return rows.map((row) => ${names.fromRow}(row));` : `return rows.map(${names.fromRow});`],
  });

  file.addFunction({
    name: names.listPages,
    isExported: true,
    isAsync: true,
    docs: `Every ${phrase} a compiled \`list\`/\`search\` input without a limit selects, read a page at a time in one snapshot (and their count, when asked for).`,
    parameters: [db, list, { name: 'withTotal', type: 'boolean' }],
    returnType: `Promise<${alias('ListPages')}<${record}>>`,
    statements: [`return mapListPages(await openListPages(db, SELECT, COUNT, list, withTotal), ${holdsFiles ? `(row) => ${names.fromRow}(row)` : names.fromRow});`],
  });

  file.addFunction({
    name: names.count,
    isExported: true,
    docs: `How many ${plural(phrase)} the conditions of a compiled \`list\`/\`search\` input select.`,
    parameters: [db, list],
    returnType: 'Promise<number>',
    statements: ['return countList(db, COUNT, list);'],
  });

  const dialect = dialectBound ? ['const dialect = dialectOf(db);'] : [];
  const inserted = columns.map((name) => {
    const field = model.fields.find((candidate) => candidate.name === name);
    return field ? boundValue(field, `record.${name}`) : `record.${name}`;
  });
  file.addFunction({
    name: names.insert,
    isExported: true,
    isAsync: true,
    docs: `Stores a new ${phrase}: every field as given (null when empty).`,
    parameters: [db, { name: 'record', type: record }],
    returnType: 'Promise<void>',
    statements: [...dialect, `await runWrite(db, INSERT, ${literal(inserted.map(code), 0, '  await runWrite(db, INSERT, '.length)}${hasUnique ? ', UNIQUE' : ''});`],
  });

  const rowsPerInsert = recordsPerInsert(columns.length);
  const rowBindings = 'const bindings = rows.flatMap((record) => ';
  file.addFunction({
    name: names.insertMany,
    isExported: true,
    isAsync: true,
    docs: `Stores new ${plural(phrase)}, each as \`${names.insert}\` stores one, up to ${rowsPerInsert} a statement (a bulk create). A refusal (a unique value repeated) does not say which record: insert them one by one to know.`,
    parameters: [db, { name: 'records', type: `readonly ${record}[]` }],
    returnType: 'Promise<void>',
    statements: [
      ...dialect,
      `for (let i = 0; i < records.length; i += ${rowsPerInsert}) {`,
      `  const rows = records.slice(i, i + ${rowsPerInsert});`,
      `  ${rowBindings}${literal(inserted.map(code), 1, rowBindings.length + 2)});`,
      `  await runWrite(db, \`\${INSERT_ROWS}\${rows.map(() => ROW).join(', ')}\`, bindings${hasUnique ? ', UNIQUE' : ''});`,
      '}',
    ],
  });

  file.addFunction({
    name: names.update,
    isExported: true,
    isAsync: true,
    docs: `Writes the given fields of the ${phrase} with this id; the others keep their values.`,
    parameters: [db, id, { name: 'changes', type: names.changes }],
    returnType: 'Promise<void>',
    statements: model.fields.length === 0 ? [lineComment(`${plural(model.label)} have no fields: there is nothing to write.`)] : [
      ...dialect,
      'const assignments: string[] = [];',
      'const bindings: unknown[] = [];',
      `const set = (assignment: string, value: unknown) => {\n  assignments.push(assignment);\n  bindings.push(value);\n};`,
      ...model.fields.map((field) => `if (changes.${field.name} !== undefined) set(${quote(`${sqlName(field.name)} = ?`)}, ${boundValue(field, `changes.${field.name}`)});`),
      'if (assignments.length === 0) return;',
      `await runWrite(db, \`update ${table} set \${assignments.join(', ')} where "id" = ?\`, [...bindings, id]${hasUnique ? ', UNIQUE' : ''});`,
    ],
  });

  file.addFunction({
    name: names.remove,
    isExported: true,
    isAsync: true,
    docs: `Deletes the ${phrase} with this id. References to it are not checked here: see \`${names.firstReferrer}\`.`,
    parameters: [db, id],
    returnType: 'Promise<void>',
    statements: ['await runWrite(db, DELETE, [id]);'],
  });

  file.addFunction({
    name: names.lockForWrite,
    isExported: true,
    isAsync: true,
    docs: `Reads the ${phrase} with this id to write it, locking its row until the transaction ends; undefined when there is none.`,
    parameters: [db, id],
    returnType: `Promise<${record} | undefined>`,
    statements: [`const [row] = await runSelect<Record<string, unknown>>(db, LOCK_FOR_WRITE[dialectOf(db)], [id]);`, `return row === undefined ? undefined : ${names.fromRow}(row);`],
  });

  file.addFunction({
    name: names.lockForRef,
    isExported: true,
    isAsync: true,
    docs: `Whether the ${phrase} with this id exists, kept from deletion until the transaction ends: the target of a ref being written.`,
    parameters: [db, id],
    returnType: 'Promise<boolean>',
    statements: ['const rows = await runSelect(db, LOCK_FOR_REF[dialectOf(db)], [id]);', 'return rows.length > 0;'],
  });

  if (referrers.length === 0) {
    file.addFunction({
      name: names.firstReferrer,
      isExported: true,
      isAsync: true,
      docs: `Nothing refers to ${plural(phrase)}: no model has a ref field to ${model.name}.`,
      parameters: [{ ...db, name: '_db' }, { ...id, name: '_id' }],
      returnType: `Promise<${alias('Referrer')} | undefined>`,
      statements: ['return undefined;'],
    });
  } else {
    const statements: string[] = [];
    for (const ref of referrers) {
      const self = ref.model === model.name;
      const sql = `select ${ref.record === '"id"' ? '"id"' : `${ref.record} as "id"`} from ${ref.table} where ${sqlName(ref.field)} = ?${self ? ` and ${ref.record} <> ?` : ''} limit 1`;
      const named = ref.lines === undefined ? ref.field : `${ref.lines}.${ref.field}`;
      if (self) statements.push(lineComment(`A ${ref.label} whose ${named} is itself does not keep itself alive.`));
      const lines = ref.lines === undefined ? '' : `, lines: ${quote(ref.lines)}`;
      statements.push(
        `const ${ref.local} = await selectFirst<${alias('StoredRecord')}>(db, ${quote(sql)}, ${self ? '[id, id]' : '[id]'});`,
        `if (${ref.local} !== undefined) return { model: ${quote(ref.model)}, field: ${quote(ref.field)}${lines}, id: ${ref.local}.id };`,
      );
    }
    statements.push('return undefined;');
    file.addFunction({
      name: names.firstReferrer,
      isExported: true,
      isAsync: true,
      docs: `The first record that refers to the ${phrase} with this id (${referrers.map((ref) => [ref.model, ref.lines, ref.field].filter((part) => part !== undefined).join('.')).join(', ')}), or undefined.`,
      parameters: [db, id],
      returnType: `Promise<${alias('Referrer')} | undefined>`,
      statements,
    });
  }

  const lineQueries = model.lines.map((list) => addLineQueries(file, model, list));

  file.addConst({
    name: names.queries,
    isExported: true,
    docs: `The queries of ${plural(phrase)}, as the registry hands them to the record service.`,
    type: `${alias('ModelQueries')}<${record}>`,
    initializer: `{
  table: ${quote(tableName(model))},
  columns: ${names.columns},
  find: ${names.find},${personal ? `\n  findForAgent: ${names.findForAgent},` : ''}
  list: ${names.list},
  listPages: ${names.listPages},
  count: ${names.count},
  insert: ${names.insert},
  insertMany: ${names.insertMany},
  update: ${names.update},
  remove: ${names.remove},
  lockForWrite: ${names.lockForWrite},
  lockForRef: ${names.lockForRef},
  firstReferrer: ${names.firstReferrer},
  lines: ${lineQueries.length === 0 ? '{}' : `{ ${lineQueries.map(({ list, name }) => `${list}: ${name}`).join(', ')} }`},
}`,
  });
}

function withArticleCapitalised(phrase: string): string {
  const text = withArticle(phrase);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Lines bound in one multi-row insert at most: far below either database's limit on bound values. */
const LINES_PER_INSERT = 100;

/**
 * Records bound in one multi-row insert at most: 500, fewer for a wide table, so that a statement
 * binds at most 30,000 values (SQLite takes 32,766, PostgreSQL 65,535).
 */
function recordsPerInsert(columns: number): number {
  return Math.max(1, Math.min(500, Math.floor(30_000 / columns)));
}

/**
 * The queries of one line list: its statements written once, its rows as typed lines, and the
 * \`LineQueries\` object the model's queries hand the record service under the list's name.
 */
function addLineQueries(file: SourceText, model: ModelIR, list: LineListIR): { list: string; name: string } {
  const constant = `${list.name.toUpperCase()}_LINES`;
  const lineType = lineTypeName(model, list);
  const prefix = `${camelCase(model.name)}${pascalCase(list.name)}`;
  const table = sqlName(lineTableName(model, list));
  const columns = ['id', 'owner', 'position', ...list.fields.map((field) => field.name)];
  const fromRow = `${prefix}FromRow`;
  const queries = `${prefix}Queries`;
  const dialectBound = list.fields.some(boundByDialect);
  const dialect = dialectBound ? ['const dialect = dialectOf(db);'] : [];

  file.addConst({
    name: `${constant}_COLUMNS`,
    docs: `The columns of table ${table}: \`id\`, its record (\`owner\`), its place in the list (\`position\`, from 0), then one per field.`,
    initializer: `${literal(columns, 0, `const ${constant}_COLUMNS = `.length + ' as const'.length)} as const`,
  });
  file.addConst({ name: `${constant}_SELECT`, initializer: quote(`select ${columns.map(sqlName).join(', ')} from ${table} where`) });
  file.addConst({ name: `${constant}_INSERT`, initializer: quote(`insert into ${table} (${columns.map(sqlName).join(', ')}) values `) });
  file.addConst({ name: `${constant}_DELETE`, initializer: quote(`delete from ${table} where "owner" = ?`) });

  file.addFunction({
    name: fromRow,
    isExported: true,
    docs: `A row of ${table} → ${withArticle(lineType).replace(lineType, `\`${lineType}\``)}, through the runtime's converters.`,
    parameters: [{ name: 'row', type: 'Record<string, unknown>' }],
    returnType: lineType,
    statements: [`return {\n${['  id: fromDb.id(row.id),', ...list.fields.map((field) => `  ${field.name}: ${readValue(field)},`)].join('\n')}\n};`],
  });

  const bound = (field: FieldIR, value: string) => boundValue(field, value);
  // Printed three levels in (object, method, loop), after the text before it on its line.
  const bindingsHead = '  const bindings = rows.flatMap(({ line, position }) => ';
  const insertBindings = literal([code('line.id'), code('ownerId'), code('position'), ...list.fields.map((field) => code(bound(field, `line.${field.name}`)))], 3, bindingsHead.length);
  file.addConst({
    name: queries,
    isExported: true,
    docs: `The queries of the lines of \`${model.name}.${list.name}\`, in table ${table}.`,
    type: `LineQueries<${lineType}>`,
    initializer: `{
  table: ${quote(lineTableName(model, list))},
  columns: ${constant}_COLUMNS,
  async linesOf(db, ownerIds) {
    const lines = new Map<string, ${lineType}[]>(ownerIds.map((id) => [id, []]));
    const rows = await selectIn<Record<string, unknown> & { owner: string; position: number }>(db, ${constant}_SELECT, '"owner"', [], ownerIds);
    rows.sort((a, b) => Number(a.position) - Number(b.position));
    for (const row of rows) lines.get(row.owner)?.push(${fromRow}(row));
    return lines;
  },
  async insert(db, ownerId, lines) {
${[...dialect, `for (let i = 0; i < lines.length; i += ${LINES_PER_INSERT}) {`, `  const rows = lines.slice(i, i + ${LINES_PER_INSERT});`, `  const values = rows.map(() => ${quote(`(${columns.map(() => '?').join(', ')})`)}).join(', ');`, `  const bindings = rows.flatMap(({ line, position }) => ${insertBindings});`, `  await runWrite(db, \`\${${constant}_INSERT}\${values}\`, bindings);`, '}'].map((line) => `    ${line}`).join('\n')}
  },
  async update(db, ownerId, lines) {
${[
  ...dialect,
  'for (const { id, changes, position } of lines) {',
  "  const assignments = ['\"position\" = ?'];",
  '  const bindings: unknown[] = [position];',
  ...list.fields.flatMap((field) => [
    `  if (changes.${field.name} !== undefined) {`,
    `    assignments.push(${quote(`${sqlName(field.name)} = ?`)});`,
    // Converters take the field's type; the others bind what they are given.
    `    bindings.push(${bound(field, converted(field) ? `changes.${field.name} as ${lineType}[${quote(field.name)}]` : `changes.${field.name}`)});`,
    '  }',
  ]),
  `  await runWrite(db, \`update ${table} set \${assignments.join(', ')} where "owner" = ? and "id" = ?\`, [...bindings, ownerId, id]);`,
  '}',
].map((line) => `    ${line}`).join('\n')}
  },
  async remove(db, ownerId, ids) {
    for (const id of ids) await runWrite(db, \`\${${constant}_DELETE} and "id" = ?\`, [ownerId, id]);
  },
  async removeAll(db, ownerId) {
    await runWrite(db, ${constant}_DELETE, [ownerId]);
  },
}`,
  });
  return { list: list.name, name: queries };
}

export const emitQueries: Emitter = (context) =>
  context.ir.modules.flatMap((module) =>
    module.models.map((model): PlannedFile => {
      const path = `${modelBase(model)}.queries.ts`;
      return { path, source: module.source, build: (file) => buildQueriesFile(context, model, path, file) };
    }),
  );
