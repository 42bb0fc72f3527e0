/**
 * The runtime's own tables (sign-in, masking, plans, the audit trail, rate windows) are made and
 * extended here, on every start and by `rmsgen migrate`, inside the migration's transaction (which
 * holds the migration lock on PostgreSQL). They only ever grow: a table or column an older release
 * does not know is left alone by it.
 */
import type { Knex } from 'knex';

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
