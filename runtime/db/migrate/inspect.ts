/**
 * Stage 1: reads the database into plain data for the planner (see inspected.ts). Reads only.
 */
import type { Knex } from 'knex';
import { dialectOf, type Dialect } from '../connect.ts';
import { inspectedTable, type DataQuestion, type InspectedDatabase, type InspectedTable, type ValueCount } from './inspected.ts';
import { SCHEMA_TABLE, type TableSnapshot } from './snapshot.ts';

/** The snapshots recorded by earlier migrations, by table, in the order they are stored. */
export async function readSnapshots(db: Knex): Promise<Map<string, TableSnapshot>> {
  const snapshots = new Map<string, TableSnapshot>();
  if (!(await db.schema.hasTable(SCHEMA_TABLE))) return snapshots;
  const rows: { table_name: string; snapshot: string }[] = await db(SCHEMA_TABLE).select('table_name', 'snapshot');
  for (const row of rows) snapshots.set(row.table_name, JSON.parse(row.snapshot) as TableSnapshot);
  return snapshots;
}

/**
 * Which of `tables` exist, with their columns, and which indexes the database holds. Reads no rows.
 * The catalogue is read for all tables at once (one query for the columns, one for the indexes),
 * whatever their number: asking table by table cost two round trips each, which is most of the
 * start of a server with hundreds of models on PostgreSQL.
 */
export async function inspectTables(db: Knex, tables: Iterable<string>): Promise<InspectedDatabase> {
  const dialect = dialectOf(db);
  const names = [...new Set(tables)];
  const columnsByTable = await tableColumns(db, dialect, names);
  const inspected = new Map<string, InspectedTable>();
  // In the order asked, as before.
  for (const table of names) {
    const columns = columnsByTable.get(table);
    if (columns !== undefined) inspected.set(table, inspectedTable(columns));
  }
  return { dialect, tables: inspected, indexNames: await indexNames(db, dialect) };
}

/** How many names one catalogue query binds at most (SQLite allows 32,766 variables, PostgreSQL 65,535). */
const NAMES_PER_QUERY = 1000;

/**
 * The columns of each of `tables` that exists, in the database's order (a table without columns
 * has an empty list); tables that do not exist are absent. What knex's `hasTable` and `columnInfo`
 * see, for every table in one query: on PostgreSQL the tables and views of the current schema, on
 * SQLite the tables.
 */
async function tableColumns(db: Knex, dialect: Dialect, tables: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (let start = 0; start < tables.length; start += NAMES_PER_QUERY) {
    const batch = tables.slice(start, start + NAMES_PER_QUERY);
    const placeholders = batch.map(() => '?').join(', ');
    // A left join, so that a table without columns is found too (its one row has no column).
    const sql =
      dialect === 'postgres'
        ? `select t.table_name as "table", c.column_name as "column"
           from information_schema.tables t
           left join information_schema.columns c
             on c.table_catalog = t.table_catalog and c.table_schema = t.table_schema and c.table_name = t.table_name
           where t.table_schema = current_schema() and t.table_catalog = current_database() and t.table_name in (${placeholders})
           order by t.table_name, c.ordinal_position`
        : `select m.name as "table", c.name as "column"
           from sqlite_master m left join pragma_table_info(m.name) c
           where m.type = 'table' and m.name in (${placeholders})
           order by m.name, c.cid`;
    const result = (await db.raw(sql, batch)) as { rows: CatalogueRow[] } | CatalogueRow[];
    for (const row of Array.isArray(result) ? result : result.rows) {
      const columns = found.get(row.table) ?? [];
      if (row.column !== null) columns.push(row.column);
      found.set(row.table, columns);
    }
  }
  return found;
}

interface CatalogueRow {
  readonly table: string;
  readonly column: string | null;
}

/**
 * The indexes the database holds, by name. On PostgreSQL only valid ones: a concurrent build that
 * failed leaves an invalid index behind, to be built again. SQLite's search tables count as indexes.
 */
async function indexNames(db: Knex, dialect: Dialect): Promise<Set<string>> {
  if (dialect === 'postgres') {
    const result = await db.raw(
      `select c.relname as name from pg_index x join pg_class c on c.oid = x.indexrelid join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = current_schema() and x.indisvalid`,
    );
    return new Set((result as { rows: { name: string }[] }).rows.map((row) => row.name));
  }
  const rows = (await db.raw(`select name from sqlite_master where type = 'index' or (type = 'table' and name like 'rms\\_fts\\_%' escape '\\')`)) as { name: string }[];
  return new Set(rows.map((row) => row.name));
}

/** `inspected` with the answers to `questions` added. The filled counts of a table take one scan. */
export async function answerQuestions(db: Knex, inspected: InspectedDatabase, questions: readonly DataQuestion[]): Promise<InspectedDatabase> {
  const tables = new Map(inspected.tables);
  const byTable = new Map<string, DataQuestion[]>();
  for (const question of questions) byTable.set(question.table, [...(byTable.get(question.table) ?? []), question]);
  for (const [table, asked] of byTable) {
    const known = tables.get(table);
    if (!known) throw new Error(`migration planner asked about ${table}, which was not inspected`);
    let rows = known.rows;
    const filled = new Map(known.filled);
    const valuesOutside = new Map(known.valuesOutside);
    const valuesUsed = new Map(known.valuesUsed);
    const duplicates = new Map(known.duplicates);
    const filledColumns: string[] = [];
    for (const question of asked) {
      switch (question.kind) {
        case 'rows':
          rows = await countRows(db, table);
          break;
        case 'filled':
          filledColumns.push(question.column);
          break;
        case 'values-outside':
          valuesOutside.set(question.column, await countOutside(db, table, question.column, question.options));
          break;
        case 'values-used':
          valuesUsed.set(question.column, question.list ? await countHolding(db, table, question.column, question.values) : await countUsing(db, table, question.column, question.values));
          break;
        case 'duplicates':
          duplicates.set(question.columns.join(','), await countDuplicates(db, table, question.columns));
          break;
      }
    }
    for (const [column, count] of await countFilled(db, table, filledColumns)) filled.set(column, count);
    tables.set(table, { ...known, ...(rows === undefined ? {} : { rows }), filled, valuesOutside, valuesUsed, duplicates });
  }
  return { ...inspected, tables };
}

async function countRows(db: Knex, table: string): Promise<number> {
  const row = await db(table).count({ n: '*' }).first();
  return Number((row as { n: unknown } | undefined)?.n ?? 0);
}

async function countFilled(db: Knex, table: string, columns: readonly string[]): Promise<Map<string, number>> {
  const distinct = [...new Set(columns)];
  if (distinct.length === 0) return new Map();
  // Aliased by position: column names need not be valid aliases.
  const row = (await db(table)
    .count(Object.fromEntries(distinct.map((column, i) => [`c${i}`, column])))
    .first()) as Record<string, unknown> | undefined;
  return new Map(distinct.map((column, i) => [column, Number(row?.[`c${i}`] ?? 0)]));
}

async function countOutside(db: Knex, table: string, column: string, options: readonly string[]): Promise<ValueCount[]> {
  const rows = await db(table).select(column).count({ n: '*' }).whereNotNull(column).whereNotIn(column, [...options]).groupBy(column).limit(5);
  return rows.map(valueCount(column));
}

async function countUsing(db: Knex, table: string, column: string, values: readonly string[]): Promise<ValueCount[]> {
  const rows = await db(table).select(column).count({ n: '*' }).whereIn(column, [...values]).groupBy(column);
  return rows.map(valueCount(column));
}

/** How many rows' lists (a multiselect's JSON array) hold each of `values`, for those some row holds. */
async function countHolding(db: Knex, table: string, column: string, values: readonly string[]): Promise<ValueCount[]> {
  const counts: ValueCount[] = [];
  for (const value of values) {
    // An option is a JSON string in the array: quoted, it cannot be a part of another option.
    const pattern = `%${JSON.stringify(value).replace(/[\\%_]/g, '\\$&')}%`;
    const row = await db(table).count({ n: '*' }).whereRaw('?? like ? escape ?', [column, pattern, '\\']).first();
    const rows = Number((row as { n: unknown } | undefined)?.n ?? 0);
    if (rows > 0) counts.push([value, rows]);
  }
  return counts;
}

/** Up to five value combinations that several rows hold in `columns` (empty values never collide, so rows with one are left out). */
async function countDuplicates(db: Knex, table: string, columns: readonly string[]): Promise<ValueCount[]> {
  const query = db(table)
    .select(...columns)
    .count({ n: '*' })
    .groupBy(...columns)
    .havingRaw('count(*) > 1')
    .limit(5);
  for (const column of columns) query.whereNotNull(column);
  const rows = (await query) as Record<string, unknown>[];
  return rows.map((row) => [columns.map((column) => String(row[column])).join(', '), Number(row.n)] as const);
}

function valueCount(column: string): (row: unknown) => ValueCount {
  return (row) => [String((row as Record<string, unknown>)[column]), Number((row as { n: unknown }).n)];
}
