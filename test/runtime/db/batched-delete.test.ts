/**
 * Deleting in batches, on SQLite and (under RMS_TEST_PG_URL) PostgreSQL: exactly the selected rows
 * go, by a single or composite key, whatever the batch size; the count is right; and `proceed`
 * answering false stops before the next batch, leaving the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deleteInBatches } from '../../../runtime/db/batched-delete.ts';
import { openDatabase } from '../../../runtime/db/connect.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../../helpers/postgres.ts';

let dir: string;
let database: TestDatabase | undefined;
let db: Knex;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmsgen-batched-'));
  const pgUrl = testPostgresUrl();
  database = pgUrl ? await createTestDatabase(pgUrl) : undefined;
  db = openDatabase(database?.url ?? `sqlite:${join(dir, 'batched.sqlite')}`);
  await db.schema.createTable('single', (table) => {
    table.string('id', 8).primary();
    table.integer('n').notNullable();
  });
  await db.schema.createTable('composite', (table) => {
    table.string('owner', 8).notNullable();
    table.integer('n').notNullable();
    table.primary(['owner', 'n']);
  });
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await db('single').delete();
  await db('composite').delete();
  const numbers = Array.from({ length: 250 }, (_, n) => n);
  await db.batchInsert('single', numbers.map((n) => ({ id: `r${String(n).padStart(3, '0')}`, n })), 100);
  await db.batchInsert('composite', numbers.flatMap((n) => [{ owner: 'gone', n }, { owner: 'live', n }]), 100);
});

describe('deleteInBatches', () => {
  it.each([1, 7, 20, 500])('removes exactly the selected rows, by one key, in batches of %i first', async (firstBatch) => {
    const removed = await deleteInBatches(db, 'single', ['id'], (query) => query.where('n', '<', 180), { firstBatch, targetMs: 1_000, pauseMs: 0 });
    expect(removed).toBe(180);
    expect(await db('single').orderBy('n').pluck('n')).toEqual(Array.from({ length: 70 }, (_, i) => 180 + i));
  });

  it('removes by a composite key, leaving the rows of other owners', async () => {
    const removed = await deleteInBatches(db, 'composite', ['owner', 'n'], (query) => query.where('owner', 'gone'), { firstBatch: 30, pauseMs: 0 });
    expect(removed).toBe(250);
    expect(Number(((await db('composite').where('owner', 'gone').count({ c: '*' }).first()) as { c: string | number }).c)).toBe(0);
    expect(Number(((await db('composite').where('owner', 'live').count({ c: '*' }).first()) as { c: string | number }).c)).toBe(250);
  });

  it('stops before the next batch when told not to proceed, and says what it removed', async () => {
    let asked = 0;
    const removed = await deleteInBatches(db, 'single', ['id'], () => {}, { firstBatch: 40, targetMs: 1_000_000, pauseMs: 0, proceed: () => ++asked <= 1 });
    // Batches grow when fast (40, then 80): one batch ran before proceed said no.
    expect(removed).toBe(40);
    expect(asked).toBe(2);
    expect(Number(((await db('single').count({ c: '*' }).first()) as { c: string | number }).c)).toBe(210);
  });
});
