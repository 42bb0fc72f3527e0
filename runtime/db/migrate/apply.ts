/**
 * Stage 3: carries out a plan's steps and records its snapshots. The only place that changes the
 * database's structure, so the only place that writes DDL.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../connect.ts';
import { sqlIdentifier, sqlIdentifiers } from '../statements.ts';
import type { ColumnMeta, ColumnType, TableMeta } from '../../registry.ts';
import { describeIndex, searchDesign, searchIdsTable, type IndexDesign } from './index-design.ts';
import { SCHEMA_TABLE } from './snapshot.ts';
import type { MigrationPlan } from './steps.ts';

export async function ensureSchemaTable(db: Knex): Promise<void> {
  if (await db.schema.hasTable(SCHEMA_TABLE)) return;
  await db.schema.createTable(SCHEMA_TABLE, (table) => {
    table.string('table_name', 200).primary();
    table.text('snapshot').notNullable();
    table.string('applied_at', 32).notNullable();
  });
}

/** What applying a plan did, and the index builds left for after its transaction. */
export interface Applied {
  /** One line per change. */
  readonly changes: string[];
  /** PostgreSQL: indexes on tables that existed (named in `changes` already), built `CONCURRENTLY` once the transaction commits (see `buildLater`). */
  readonly later: IndexDesign[];
}

/**
 * Applies the steps and records the snapshots. On PostgreSQL an index added to a table that
 * existed is not built here but returned in `later`: `CREATE INDEX CONCURRENTLY` does not lock
 * writes out of a live table, and cannot run inside a transaction.
 */
export async function applyPlan(db: Knex, dialect: Dialect, plan: MigrationPlan): Promise<Applied> {
  const changes: string[] = [];
  const later: IndexDesign[] = [];
  /** SQLite tables whose search triggers must be made again after the steps. */
  const searchTables = new Set<string>();
  for (const step of plan.steps) {
    switch (step.kind) {
      case 'create-table': {
        const table = step.model.table.name;
        if (step.recreate) await dropTable(db, dialect, table);
        await createTable(db, dialect, step.model.table, step.indexes);
        if (step.indexes.some((index) => index.method === 'search')) searchTables.add(table);
        changes.push(step.recreate ? `recreated empty table ${table} as designed` : `created table ${table}`);
        break;
      }
      case 'add-column':
        await db.schema.alterTable(step.model.table.name, (builder) => defineColumn(builder, dialect, step.column));
        changes.push(`added column ${step.model.name}.${step.column.name}`);
        break;
      case 'drop-column':
        for (const index of step.indexes) await dropIndex(db, dialect, index);
        await db.raw(`alter table ${sqlIdentifier(step.table)} drop column ${sqlIdentifier(step.column)}`);
        changes.push(`dropped empty column ${step.table}.${step.column} (field removed)`);
        break;
      case 'replace-column': {
        const table = step.model.table.name;
        for (const index of step.indexes) await dropIndex(db, dialect, index);
        await db.raw(`alter table ${sqlIdentifier(table)} drop column ${sqlIdentifier(step.column.name)}`);
        await db.schema.alterTable(table, (builder) => defineColumn(builder, dialect, step.column));
        changes.push(`changed the type of empty column ${step.model.name}.${step.column.name} to ${step.column.type}`);
        break;
      }
      case 'alter-not-null':
        await db.raw(`alter table ${sqlIdentifier(step.table)} alter column ${sqlIdentifier(step.column)} ${step.notNull ? 'set' : 'drop'} not null`);
        changes.push(`${step.table}.${step.column} is ${step.notNull ? 'now' : 'no longer'} NOT NULL`);
        break;
      case 'rebuild-table':
        await rebuildTable(db, dialect, step.model.table, step.keep, step.indexes);
        // The triggers went with the old table; the search tables hold the same ids.
        searchTables.add(step.model.table.name);
        changes.push(`rebuilt table ${step.model.table.name} (column constraints changed; rows kept)`);
        break;
      case 'add-index':
        // PostgreSQL builds it after the commit; a build that fails then fails the migration.
        if (dialect === 'postgres') later.push(step.index);
        else await createIndex(db, dialect, step.index);
        if (step.index.method === 'search') searchTables.add(step.index.table);
        changes.push(`created ${describeIndex(step.index)}`);
        break;
      case 'drop-index':
        await dropIndex(db, dialect, step.index);
        if (step.index.method === 'search') searchTables.add(step.index.table);
        changes.push(`dropped ${describeIndex(step.index)}`);
        break;
      case 'drop-table':
        await dropTable(db, dialect, step.table);
        changes.push(`dropped empty table ${step.table} (model removed)`);
        break;
    }
  }
  if (dialect === 'sqlite') for (const table of searchTables) await makeSearchTriggers(db, table);
  await recordSnapshots(db, plan);
  return { changes, later };
}

/**
 * PostgreSQL: builds indexes on live tables without locking writes out (`CONCURRENTLY`), after the
 * migration's transaction. One that fails (a duplicate written meanwhile, say) is dropped again —
 * a failed concurrent build leaves an unusable index behind — and its error is reported: the next
 * migration plans it again. Returns one line per index that could not be built.
 */
export async function buildLater(db: Knex, indexes: readonly IndexDesign[]): Promise<string[]> {
  const failed: string[] = [];
  if (indexes.some((index) => index.method === 'search')) await db.raw('create extension if not exists pg_trgm');
  for (const index of indexes) {
    try {
      await dropIfInvalid(db, index);
      await db.raw(createIndexSql('postgres', index, { concurrently: true }));
    } catch (error) {
      await db.raw(`drop index concurrently if exists ${sqlIdentifier(index.name)}`).catch(() => {});
      failed.push(`could not create ${describeIndex(index)}: ${(error as Error).message}`);
    }
  }
  return failed;
}

/** A concurrent build that failed earlier left an unusable index of this name: it goes before the build. */
async function dropIfInvalid(db: Knex, index: IndexDesign): Promise<void> {
  const result = await db.raw(
    `select 1 from pg_index x join pg_class c on c.oid = x.indexrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and c.relname = ? and not x.indisvalid`,
    [index.name],
  );
  if ((result as { rows: unknown[] }).rows.length > 0) await db.raw(`drop index concurrently if exists ${sqlIdentifier(index.name)}`);
}

async function recordSnapshots(db: Knex, plan: MigrationPlan): Promise<void> {
  const now = new Date().toISOString();
  for (const table of plan.forgotten) await db(SCHEMA_TABLE).where('table_name', table).delete();
  for (const snapshot of plan.snapshots) {
    const json = JSON.stringify(snapshot);
    const existing = (await db(SCHEMA_TABLE).first('snapshot').where('table_name', snapshot.table.name)) as { snapshot: string } | undefined;
    if (existing?.snapshot === json) continue;
    if (existing) await db(SCHEMA_TABLE).where('table_name', snapshot.table.name).update({ snapshot: json, applied_at: now });
    else await db(SCHEMA_TABLE).insert({ table_name: snapshot.table.name, snapshot: json, applied_at: now });
  }
}

/** The one copy of index DDL. */
export function createIndexSql(dialect: Dialect, index: IndexDesign, options: { concurrently?: boolean } = {}): string {
  const concurrently = options.concurrently ? 'concurrently ' : '';
  const name = sqlIdentifier(index.name);
  const table = sqlIdentifier(index.table);
  if (index.method === 'search') {
    // Only PostgreSQL gets here: SQLite's search index is a table of its own (createSearchIndex).
    return `create index ${concurrently}if not exists ${name} on ${table} using gin (${pgSearchExpression(index.columns[0]!)} gin_trgm_ops)`;
  }
  const columns = index.columns
    .map((column) => `${sqlIdentifier(column)}${index.bytewise?.includes(column) ? ' COLLATE "C"' : ''}${index.descending?.includes(column) ? ' desc nulls last' : ''}`)
    .join(', ');
  return `create ${index.unique ? 'unique ' : ''}index ${concurrently}if not exists ${name} on ${table} (${columns})${whereClause(dialect, index)}`;
}

/** A partial index's condition: each column equal to its constant (written in the DDL: indexes take no parameters). */
function whereClause(dialect: Dialect, index: IndexDesign): string {
  if (!index.where) return '';
  const literal = (value: string | number | boolean): string => {
    if (typeof value === 'number') return String(value);
    if (typeof value === 'boolean') return dialect === 'sqlite' ? (value ? '1' : '0') : String(value);
    return `'${value.replaceAll("'", "''")}'`;
  };
  return ` where ${Object.entries(index.where).map(([column, value]) => `${sqlIdentifier(column)} = ${literal(value)}`).join(' and ')}`;
}

/**
 * The lowered value a PostgreSQL search index keeps; `contains` on a search field filters on
 * exactly this expression (runtime/query/list-query.ts), so the index serves it.
 */
export function pgSearchExpression(column: string): string {
  return `lower(${sqlIdentifier(column)} COLLATE "und-x-icu")`;
}

async function createIndex(db: Knex, dialect: Dialect, index: IndexDesign): Promise<void> {
  if (index.method === 'search') {
    if (dialect === 'sqlite') return createSearchTable(db, index);
    await db.raw('create extension if not exists pg_trgm');
  }
  await db.raw(createIndexSql(dialect, index));
}

async function dropIndex(db: Knex, dialect: Dialect, index: IndexDesign): Promise<void> {
  if (index.method === 'search' && dialect === 'sqlite') {
    await db.raw(`drop table if exists ${sqlIdentifier(index.name)}`);
    return;
  }
  await db.raw(`drop index if exists ${sqlIdentifier(index.name)}`);
}

async function dropTable(db: Knex, dialect: Dialect, table: string): Promise<void> {
  await db.schema.dropTable(table);
  if (dialect !== 'sqlite') return;
  // Its search tables and their ids go with it (the triggers went with the table).
  for (const column of await searchColumnsOf(db, table)) await db.raw(`drop table if exists ${sqlIdentifier(searchDesign(table, column, 'sqlite').name)}`);
  await db.raw(`drop table if exists ${sqlIdentifier(searchIdsTable(table))}`);
}

// ---------------------------------------------------------------------------------------------
// SQLite search: an FTS5 trigram table per search field, over the field's lowered value.
//
// FTS5 keys its rows by integer; a model's table is keyed by its text id, and SQLite may
// renumber the hidden rowids of such a table (VACUUM does). So each searched table has a table of
// ids with stable integer keys (`rms_ftsid_<table>`), and triggers keep the search tables in step
// with every write, inside the write's transaction. The lowered value is JavaScript's lowercasing
// (`rms_lower`, which every connection the runtime opens has), the folding `contains` uses.

async function createSearchTable(db: Knex, index: IndexDesign): Promise<void> {
  const ids = sqlIdentifier(searchIdsTable(index.table));
  const table = sqlIdentifier(index.table);
  const column = sqlIdentifier(index.columns[0]!);
  const fts = sqlIdentifier(index.name);
  await db.raw(`create table if not exists ${ids} ("n" integer primary key, "id" text not null unique)`);
  await db.raw(`insert into ${ids} ("id") select "id" from ${table} where "id" not in (select "id" from ${ids})`);
  await db.raw(`create virtual table if not exists ${fts} using fts5(value, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`);
  await db.raw(`delete from ${fts}`);
  await db.raw(`insert into ${fts} (rowid, value) select m."n", rms_lower(t.${column}) from ${table} t join ${ids} m on m."id" = t."id" where t.${column} is not null`);
}

/** The columns of `table` that have a search table now. */
async function searchColumnsOf(db: Knex, table: string): Promise<string[]> {
  const columns = (await db.raw(`select name from pragma_table_info(?)`, [table])) as { name: string }[];
  const found: string[] = [];
  for (const { name } of columns) {
    const rows = (await db.raw(`select 1 from sqlite_master where type = 'table' and name = ?`, [searchDesign(table, name, 'sqlite').name])) as unknown[];
    if (rows.length > 0) found.push(name);
  }
  return found;
}

/** Makes the triggers that keep `table`'s search tables in step again, for the search tables it has now. */
async function makeSearchTriggers(db: Knex, table: string): Promise<void> {
  const names = { insert: `rms_ftst_${table}_insert`, delete: `rms_ftst_${table}_delete` };
  const existing = (await db.raw(`select name from sqlite_master where type = 'trigger' and tbl_name = ? and name like 'rms\\_ftst\\_%' escape '\\'`, [table])) as { name: string }[];
  for (const { name } of existing) await db.raw(`drop trigger if exists ${sqlIdentifier(name)}`);
  const columns = await searchColumnsOf(db, table);
  if (columns.length === 0) {
    await db.raw(`drop table if exists ${sqlIdentifier(searchIdsTable(table))}`);
    return;
  }
  const t = sqlIdentifier(table);
  const ids = sqlIdentifier(searchIdsTable(table));
  const fts = (column: string) => sqlIdentifier(searchDesign(table, column, 'sqlite').name);
  const insertValue = (column: string) =>
    `insert into ${fts(column)} (rowid, value) select "n", rms_lower(new.${sqlIdentifier(column)}) from ${ids} where "id" = new."id" and new.${sqlIdentifier(column)} is not null;`;
  const deleteValue = (column: string) => `delete from ${fts(column)} where rowid = (select "n" from ${ids} where "id" = old."id");`;
  await db.raw(`create trigger ${sqlIdentifier(names.insert)} after insert on ${t} begin insert into ${ids} ("id") values (new."id"); ${columns.map(insertValue).join(' ')} end`);
  await db.raw(`create trigger ${sqlIdentifier(names.delete)} after delete on ${t} begin ${columns.map(deleteValue).join(' ')} delete from ${ids} where "id" = old."id"; end`);
  for (const column of columns) {
    const name = sqlIdentifier(`rms_ftst_${table}_update_${column}`);
    await db.raw(`create trigger ${name} after update of ${sqlIdentifier(column)} on ${t} begin ${deleteValue(column)} ${insertValue(column)} end`);
  }
}

async function createTable(db: Knex, dialect: Dialect, table: TableMeta, indexes: readonly IndexDesign[]): Promise<void> {
  await db.schema.createTable(table.name, (builder) => {
    for (const column of table.columns) defineColumn(builder, dialect, column);
  });
  for (const index of indexes) await createIndex(db, dialect, index);
}

function defineColumn(builder: Knex.CreateTableBuilder, dialect: Dialect, column: ColumnMeta): void {
  let definition: Knex.ColumnBuilder;
  switch (column.type) {
    case 'id':
      definition = builder.string(column.name, 64);
      break;
    case 'text':
      definition = builder.text(column.name);
      break;
    case 'integer':
      definition = builder.bigInteger(column.name);
      break;
    case 'date':
      // PostgreSQL checks dates itself; SQLite has no date type and keeps `YYYY-MM-DD` text, which sorts as dates do.
      definition = dialect === 'postgres' ? builder.date(column.name) : builder.text(column.name);
      break;
    case 'bool':
      definition = builder.boolean(column.name);
      break;
  }
  if (column.name === 'id') definition.primary();
  if (column.notNull) definition.notNullable();
  else definition.nullable();
  if (column.default !== undefined) definition.defaultTo(defaultValue(column.type, column.default) as Knex.Value);
}

function defaultValue(type: ColumnType, value: string): unknown {
  if (type === 'integer') return Number(value);
  if (type === 'bool') return value === 'true' || value === '1';
  return value;
}

/**
 * SQLite cannot change a column's constraints in place: make the table again under a new name,
 * copy the rows, swap. Runs inside the migration's transaction.
 */
async function rebuildTable(db: Knex, dialect: Dialect, table: TableMeta, keep: readonly string[], indexes: readonly IndexDesign[]): Promise<void> {
  const temporary = `${table.name}__rms_rebuild`;
  if (await db.schema.hasTable(temporary)) await db.schema.dropTable(temporary);
  await db.schema.createTable(temporary, (builder) => {
    for (const column of table.columns) defineColumn(builder, dialect, column);
  });
  const columns = sqlIdentifiers(keep);
  await db.raw(`insert into ${sqlIdentifier(temporary)} (${columns}) select ${columns} from ${sqlIdentifier(table.name)}`);
  await db.schema.dropTable(table.name);
  await db.schema.renameTable(temporary, table.name);
  for (const index of indexes) if (index.method !== 'search') await createIndex(db, dialect, index);
}
