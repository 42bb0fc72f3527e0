/**
 * Declared indexes in migrations, on SQLite and (under RMS_TEST_PG_URL) PostgreSQL:
 * an index declared later is added to a table that holds rows (on PostgreSQL without locking it),
 * a unique index is refused over values records share (naming a few) and added once they do not,
 * a search index added later covers the rows already there, and `serve` names what it added.
 */
import type { Knex } from 'knex';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../../fixtures/generated/registry.ts';
import { openDatabase } from '../../../../runtime/db/connect.ts';
import { MigrationRefusedError, migrate } from '../../../../runtime/db/migrate.ts';
import type { ModelMeta, Registry, TableMeta } from '../../../../runtime/registry.ts';
import { startServer } from '../../../../runtime/server.ts';
import { SYSTEM_TABLES } from '../../../../runtime/system-table-list.ts';
import { emptyDatabases, testPostgresUrl } from '../../../helpers/postgres.ts';

const pg = testPostgresUrl();
const databases = emptyDatabases('migrate-indexes');
let open: Knex[] = [];

afterEach(async () => {
  await Promise.all(open.map((db) => db.destroy()));
  open = [];
});
afterAll(async () => {
  await databases.removeAll();
});

async function emptyDatabase(): Promise<{ url: string; db: Knex }> {
  const url = await databases.url();
  const db = openDatabase(url);
  open.push(db);
  return { url, db };
}

function withTable(base: Registry, name: string, change: (table: TableMeta) => TableMeta): Registry {
  const model: ModelMeta = base.models[name]!;
  return { ...base, models: { ...base.models, [name]: { ...model, table: change(model.table) } } };
}

/** The fixture modules as a release before invoice.number was unique and lead.title searchable. */
const before = withTable(
  withTable(registry, 'invoice', (table) => ({ ...table, indexes: table.indexes.filter((index) => typeof index === 'string' || !index.unique || index.fields[0] !== 'number') })),
  'lead',
  (table) => ({ ...table, search: [] }),
);

async function seedInvoices(db: Knex, numbers: readonly string[]): Promise<void> {
  await db('party').insert({ id: 'P1', name: 'Billed' });
  await db('invoice').insert(numbers.map((number, i) => ({ id: `I${i}`, number, party: 'P1', amount: 100, issue_date: '2026-01-01', state: 'draft' })));
}

describe('declared indexes in migrations', () => {
  it('refuses a unique index over shared values, naming them, and adds it once they are gone', async () => {
    const { db } = await emptyDatabase();
    await migrate(db, before, { systemTables: SYSTEM_TABLES });
    await seedInvoices(db, ['INV-1', 'INV-1', 'INV-2', 'INV-3', 'INV-3', 'INV-3']);
    const refused = await migrate(db, registry).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(MigrationRefusedError);
    expect((refused as MigrationRefusedError).problems).toEqual([
      'invoice.number must be unique, but records share values: "INV-1" (2 records), "INV-3" (3 records): change those records so each value is held once, then migrate again',
    ]);
    await db('invoice').where({ id: 'I1' }).update({ number: 'INV-1b' });
    await db('invoice').whereIn('id', ['I4', 'I5']).update({ number: db.raw(`number || id`) });
    const done = await migrate(db, registry);
    expect(done.changes).toContain('created unique index on invoice.number');
    await expect(db('invoice').insert({ id: 'I9', number: 'INV-2', party: 'P1', amount: 1, issue_date: '2026-01-01', state: 'draft' })).rejects.toThrow(/unique/i);
  });

  it('a search index added later covers the rows already there, and serve names what it added', async () => {
    const { url, db } = await emptyDatabase();
    await migrate(db, before, { systemTables: SYSTEM_TABLES });
    await db('lead').insert([
      { id: 'L1', title: 'Old Straße deal', stage: 'new' },
      { id: 'L2', title: 'Another lead', stage: 'new' },
    ]);
    const lines: string[] = [];
    const server = await startServer({ registry, dbUrl: url, port: 0, adminPassword: 'index-test-password', log: (line) => lines.push(line) });
    try {
      // The ids byte by byte (PostgreSQL) came with the table: every model's table has them.
      expect(lines.filter((line) => !line.startsWith('listening on'))).toEqual(['created search index on lead.title', 'created unique index on invoice.number']);
      const login = await fetch(`${server.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'index-test-password' }) });
      const { token } = (await login.json()) as { token: string };
      const res = await fetch(`${server.url}/api/lead/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ filter: [{ field: 'title', op: 'contains', value: 'straße d' }] }),
      });
      expect(((await res.json()) as { value: { rows: { id: string }[] } }).value.rows.map((row) => row.id)).toEqual(['L1']);
    } finally {
      await server.close();
    }
    // A second start finds everything in place: it adds nothing and says nothing.
    const again: string[] = [];
    const second = await startServer({ registry, dbUrl: url, port: 0, adminPassword: 'index-test-password', log: (line) => again.push(line) });
    await second.close();
    expect(again.filter((line) => !line.startsWith('listening on'))).toEqual([]);
  });

  it('rmsgen migrate drops a declared index the definitions no longer have', async () => {
    const { db } = await emptyDatabase();
    await migrate(db, registry, { systemTables: SYSTEM_TABLES });
    const without = withTable(registry, 'lead', (table) => ({ ...table, indexes: table.indexes.filter((index) => typeof index === 'string' || index.fields.join() !== 'hot,close_date') }));
    const result = await migrate(db, without);
    expect(result.changes).toEqual(
      pg ? ['dropped index on lead (hot, close_date)', 'dropped index on lead (hot, close_date, descending)'] : ['dropped index on lead (hot, close_date)'],
    );
  });
});
