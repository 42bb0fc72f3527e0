/**
 * Inspection for migrations against real databases: the structure it reads up front, and its
 * answers to the planner's questions about stored data, as plain numbers and strings on both
 * drivers. On SQLite always; on PostgreSQL too when `RMS_TEST_PG_URL` names a server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Dialect } from '../../../../runtime/db/connect.ts';
import { answerQuestions, inspectTables } from '../../../../runtime/db/migrate/inspect.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../../../helpers/postgres.ts';

const targets: Dialect[] = testPostgresUrl() === undefined ? ['sqlite'] : ['sqlite', 'postgres'];

describe.each(targets)('migration inspection on %s', (dialect) => {
  let db: Knex;
  let folder: string | undefined;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    if (dialect === 'postgres') {
      database = await createTestDatabase(testPostgresUrl() as string, 'rms_inspect');
      db = openDatabase(database.url);
    } else {
      folder = mkdtempSync(join(tmpdir(), 'rmsgen-inspect-'));
      db = openDatabase(`sqlite:${join(folder, 'rms.sqlite')}`);
    }
    await db.schema.createTable('deal', (table) => {
      table.string('id', 64).primary();
      table.text('stage');
      table.text('reason');
      table.bigInteger('amount');
      table.text('empty');
    });
    await db('deal').insert([
      { id: 'D1', stage: 'new', reason: 'price', amount: 5 },
      { id: 'D2', stage: 'won', reason: 'weather', amount: null },
      { id: 'D3', stage: 'won', reason: null, amount: 7 },
    ]);
  });

  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('reads which tables exist and their columns, and no rows', async () => {
    const inspected = await inspectTables(db, ['deal', 'gone', 'deal']);
    expect(inspected.dialect).toBe(dialect);
    expect([...inspected.tables.keys()]).toEqual(['deal']);
    const deal = inspected.tables.get('deal')!;
    expect(deal.columns).toEqual(['id', 'stage', 'reason', 'amount', 'empty']);
    expect(deal.rows).toBeUndefined();
    expect(deal.filled.size).toBe(0);
  });

  it('reads the catalogue of many tables in a fixed number of queries, each table as knex sees it', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `many_${String(i).padStart(2, '0')}`);
    for (const [i, name] of names.entries()) {
      await db.schema.createTable(name, (table) => {
        table.string('id', 64).primary();
        // Columns in an order that is not alphabetical, and a different number per table.
        for (let c = i % 4; c >= 0; c--) table.text(`c${c}`);
      });
    }
    const asked = ['missing', ...names.slice().reverse(), 'deal'];
    const queries: string[] = [];
    const count = (query: { sql: string }) => queries.push(query.sql);
    db.on('query', count);
    let inspected;
    try {
      inspected = await inspectTables(db, asked);
    } finally {
      db.off('query', count);
    }
    expect(queries.length).toBeLessThanOrEqual(2);
    // In the order asked; those that do not exist left out.
    expect([...inspected.tables.keys()]).toEqual([...names.slice().reverse(), 'deal']);
    for (const name of [...names, 'deal']) {
      expect(inspected.tables.get(name)!.columns, name).toEqual(Object.keys(await db(name).columnInfo()));
    }
    expect(inspected.tables.get('many_03')!.columns).toEqual(['id', 'c3', 'c2', 'c1', 'c0']);
    for (const name of names) await db.schema.dropTable(name);
  });

  it.runIf(dialect === 'postgres')('finds a table without columns on PostgreSQL, and none of another schema', async () => {
    await db.raw('create table no_columns ()');
    await db.raw('create schema elsewhere');
    await db.raw('create table elsewhere.deal_copy (id text)');
    try {
      const inspected = await inspectTables(db, ['no_columns', 'deal_copy']);
      expect([...inspected.tables.keys()]).toEqual(['no_columns']);
      expect(inspected.tables.get('no_columns')!.columns).toEqual([]);
    } finally {
      await db.raw('drop table no_columns');
      await db.raw('drop schema elsewhere cascade');
    }
  });

  it('answers rows, filled counts (several columns at once), values outside options and values used', async () => {
    const inspected = await inspectTables(db, ['deal']);
    const answered = await answerQuestions(db, inspected, [
      { kind: 'rows', table: 'deal' },
      { kind: 'filled', table: 'deal', column: 'reason' },
      { kind: 'filled', table: 'deal', column: 'amount' },
      { kind: 'filled', table: 'deal', column: 'empty' },
      { kind: 'values-outside', table: 'deal', column: 'reason', options: ['price'] },
      { kind: 'values-used', table: 'deal', column: 'stage', values: ['won', 'lost'] },
    ]);
    const deal = answered.tables.get('deal')!;
    expect(deal.rows).toBe(3);
    expect(Object.fromEntries(deal.filled)).toEqual({ reason: 2, amount: 2, empty: 0 });
    expect(deal.valuesOutside.get('reason')).toEqual([['weather', 1]]);
    expect(deal.valuesUsed.get('stage')).toEqual([['won', 2]]);
    // Earlier answers stay; the inspection it started from is not changed.
    const more = await answerQuestions(db, answered, [{ kind: 'filled', table: 'deal', column: 'stage' }]);
    expect(Object.fromEntries(more.tables.get('deal')!.filled)).toEqual({ reason: 2, amount: 2, empty: 0, stage: 3 });
    expect(inspected.tables.get('deal')!.rows).toBeUndefined();
  });
});
