/**
 * runtime/commands/recompute.ts: the version of each model's logic is recorded once per database,
 * however many instances record it at the same moment. Two `rmsgen serve` on an empty PostgreSQL
 * database started together, and the second failed to start on the first's row ("duplicate key
 * value violates unique constraint rms_logic_pkey"): the record was a delete and then an insert.
 */
import type { Knex } from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import { openDatabase } from '../../../runtime/db/connect.ts';
import { migrate } from '../../../runtime/db/migrate.ts';
import { LOGIC_TABLE, RecomputeError, recomputeStale, recordFreshLogic, staleComputedModels } from '../../../runtime/commands/recompute.ts';
import { createRecordService } from '../../../runtime/commands/service.ts';
import { SYSTEM_TABLES } from '../../../runtime/system-table-list.ts';
import { emptyDatabases } from '../../helpers/postgres.ts';

const databases = emptyDatabases('recompute');
const open: Knex[] = [];

afterAll(async () => {
  await Promise.all(open.map((db) => db.destroy()));
  await databases.removeAll();
});

/** The database's URL, migrated: the fixture models' tables and the system tables, no records. */
async function emptyDatabase(): Promise<string> {
  const url = await databases.url();
  const db = openDatabase(url);
  open.push(db);
  await migrate(db, registry, { systemTables: SYSTEM_TABLES });
  return url;
}

describe('recording the logic version of models without records', () => {
  it('succeeds for every instance doing it at once, and leaves one row per computing model', async () => {
    const url = await emptyDatabase();
    // Instances of their own: each its own connections to the one database.
    const instances = [0, 1, 2, 3].map(() => {
      const db = openDatabase(url);
      open.push(db);
      return createRecordService({ registry, db });
    });
    const computing = (await staleComputedModels(instances[0]!)).map((model) => model.meta.name).sort();
    expect(computing.length).toBeGreaterThan(0);
    for (let round = 0; round < 20; round++) {
      await instances[0]!.db(LOGIC_TABLE).delete();
      await Promise.all(instances.map((service) => recordFreshLogic(service)));
      const rows = (await instances[0]!.db(LOGIC_TABLE).select('model').orderBy('model')) as { model: string }[];
      expect(rows.map((row) => row.model)).toEqual(computing);
      expect(await staleComputedModels(instances[0]!)).toEqual([]);
    }
  });
});

describe('a computed function that throws on a stored record', () => {
  it('stops the recompute naming the model, the record and what it threw, and leaves the version unrecorded', async () => {
    const url = await emptyDatabase();
    const db = openDatabase(url);
    open.push(db);
    await db('party').insert({ id: 'P1', name: 'Buyer' });
    await db('order').insert({ id: 'O1', number: 'R-1', customer: 'P1', status: 'draft', ordered_on: '2026-01-01' });
    // Functions changed since the values were stored, and one of them now throws.
    const order = registry.logic.order!;
    const throwing = { ...registry, logic: { ...registry.logic, order: { ...order, version: 'changed', compute: () => { throw new Error('no R-1'); } } } };
    const service = createRecordService({ registry: throwing, db });
    await recordFreshLogic(service);
    const error = await recomputeStale(service).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RecomputeError);
    expect((error as Error).message).toBe(
      "the computed fields of order O1 could not be worked out: no R-1; fix the model's computed functions, then run rmsgen migrate again (its records are computed again from the first)",
    );
    expect((await db(LOGIC_TABLE).where('model', 'order').first())?.version).not.toBe('changed');
  });
});
