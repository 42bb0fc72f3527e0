/**
 * Stage 1: reads the database into plain data for the planner (see inspected.ts). Reads only.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../connect.ts';
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

/** Which of `tables` exist, with their columns. Reads no rows. */
export async function inspectTables(db: Knex, tables: Iterable<string>): Promise<InspectedDatabase> {
  const inspected = new Map<string, InspectedTable>();
  for (const table of new Set(tables)) {
    if (!(await db.schema.hasTable(table))) continue;
    inspected.set(table, inspectedTable(Object.keys(await db(table).columnInfo())));
  }
  return { dialect: dialectOf(db), tables: inspected };
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
          valuesUsed.set(question.column, await countUsing(db, table, question.column, question.values));
          break;
      }
    }
    for (const [column, count] of await countFilled(db, table, filledColumns)) filled.set(column, count);
    tables.set(table, { ...known, ...(rows === undefined ? {} : { rows }), filled, valuesOutside, valuesUsed });
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

function valueCount(column: string): (row: unknown) => ValueCount {
  return (row) => [String((row as Record<string, unknown>)[column]), Number((row as { n: unknown }).n)];
}
