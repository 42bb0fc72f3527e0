/**
 * Stage 3: carries out a plan's steps and records its snapshots. The only place that changes the
 * database's structure, so the only place that writes DDL.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../connect.ts';
import { sqlIdentifier, sqlIdentifiers } from '../statements.ts';
import type { ColumnMeta, ColumnType, TableMeta } from '../../registry.ts';
import { indexedColumns, type IndexDesign } from './index-design.ts';
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

/** Applies the steps and records the snapshots. Returns one line per change. */
export async function applyPlan(db: Knex, dialect: Dialect, plan: MigrationPlan): Promise<string[]> {
  const changes: string[] = [];
  for (const step of plan.steps) {
    switch (step.kind) {
      case 'create-table': {
        const table = step.model.table.name;
        if (step.recreate) await db.schema.dropTable(table);
        await createTable(db, dialect, step.model.table, step.indexes);
        changes.push(step.recreate ? `recreated empty table ${table} as designed` : `created table ${table}`);
        break;
      }
      case 'add-column':
        await db.schema.alterTable(step.model.table.name, (builder) => defineColumn(builder, dialect, step.column));
        changes.push(`added column ${step.model.name}.${step.column.name}`);
        break;
      case 'drop-column':
        for (const index of step.indexes) await dropIndex(db, index);
        await db.raw(`alter table ${sqlIdentifier(step.table)} drop column ${sqlIdentifier(step.column)}`);
        changes.push(`dropped empty column ${step.table}.${step.column} (field removed)`);
        break;
      case 'replace-column': {
        const table = step.model.table.name;
        for (const index of step.indexes) await dropIndex(db, index);
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
        changes.push(`rebuilt table ${step.model.table.name} (column constraints changed; rows kept)`);
        break;
      case 'add-index':
        await createIndex(db, step.index);
        changes.push(`created index on ${indexedColumns(step.index.table, step.index)}`);
        break;
      case 'drop-index':
        await dropIndex(db, step.index);
        changes.push(`dropped index on ${indexedColumns(step.index.table, step.index)}`);
        break;
      case 'drop-table':
        await db.schema.dropTable(step.table);
        changes.push(`dropped empty table ${step.table} (model removed)`);
        break;
    }
  }
  await recordSnapshots(db, plan);
  return changes;
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

async function createIndex(db: Knex, index: IndexDesign): Promise<void> {
  const unique = index.unique ? 'unique ' : '';
  await db.raw(`create ${unique}index if not exists ${sqlIdentifier(index.name)} on ${sqlIdentifier(index.table)} (${sqlIdentifiers(index.columns)})`);
}

async function dropIndex(db: Knex, index: IndexDesign): Promise<void> {
  await db.raw(`drop index if exists ${sqlIdentifier(index.name)}`);
}

async function createTable(db: Knex, dialect: Dialect, table: TableMeta, indexes: readonly IndexDesign[]): Promise<void> {
  await db.schema.createTable(table.name, (builder) => {
    for (const column of table.columns) defineColumn(builder, dialect, column);
  });
  for (const index of indexes) await createIndex(db, index);
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
  for (const index of indexes) await createIndex(db, index);
}
