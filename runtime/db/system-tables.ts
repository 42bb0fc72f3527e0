/**
 * The runtime's own tables (sign-in, masking, plans, the audit trail, rate windows) are made and
 * extended here, on every start and by `rmsgen migrate`, inside the migration's transaction (which
 * holds the migration lock on PostgreSQL). They only ever grow: a table or column an older release
 * does not know is left alone by it.
 */
import type { Knex } from 'knex';
import { dialectOf } from './connect.ts';

/** Creates the table unless it exists. */
export async function createTableIfMissing(db: Knex, name: string, build: (table: Knex.CreateTableBuilder) => void): Promise<void> {
  if (await db.schema.hasTable(name)) return;
  try {
    await db.schema.createTable(name, build);
  } catch (err) {
    // Another instance may have created it between our check and our create (SQLite has no lock).
    if (!(await db.schema.hasTable(name))) throw err;
  }
}

/**
 * Adds the columns the table lacks (a table made by an older release), and returns their names.
 * Columns added later must be nullable or have a default.
 */
export async function addColumnsIfMissing(db: Knex, name: string, columns: Readonly<Record<string, (table: Knex.AlterTableBuilder) => void>>): Promise<string[]> {
  const present = await db(name).columnInfo();
  const missing = Object.entries(columns).filter(([column]) => !(column in present));
  if (missing.length === 0) return [];
  await db.schema.alterTable(name, (table) => {
    for (const [, add] of missing) add(table);
  });
  return missing.map(([column]) => column);
}

/**
 * Creates an index on a system table unless it exists, looking it up first: PostgreSQL's
 * `create index if not exists` locks the table against writes even when the index is there, until
 * the migration's transaction ends. A request that had written its model's row and then wrote its
 * audit row waited on that lock while the migration waited on the model's table for its next
 * change: a deadlock (seen with `rms_audit`, and with the webhook deliveries between instances).
 */
export async function createIndexIfMissing(db: Knex, name: string, table: string, columns: readonly string[]): Promise<void> {
  if (await indexExists(db, name)) return;
  await db.raw(`create index if not exists ${name} on ${table} (${columns.join(', ')})`);
}

async function indexExists(db: Knex, name: string): Promise<boolean> {
  if (dialectOf(db) === 'sqlite') return ((await db.raw(`select 1 from sqlite_master where type = 'index' and name = ?`, [name])) as unknown[]).length > 0;
  return ((await db.raw('select 1 from pg_indexes where schemaname = current_schema() and indexname = ?', [name])) as { rows: unknown[] }).rows.length > 0;
}
