/**
 * `seedRecords` on SQLite and (under RMS_TEST_PG_URL) PostgreSQL: targets seeded first
 * when they have no records, refs that point at them, options spread, dates over four years, the
 * same values for the same seed, unique values that continue after what is there, and a bulk
 * load that leaves exactly the indexes it found.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import { dialectOf, openDatabase } from '../../../runtime/db/connect.ts';
import { migrate } from '../../../runtime/db/migrate.ts';
import type { ModelMeta } from '../../../runtime/registry.ts';
import { SeedRefusedError, seedRecords } from '../../../runtime/seed/seed.ts';
import { seedableCount, valuesMaker } from '../../../runtime/seed/values.ts';
import { systemTableSetups } from '../../../runtime/server.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../../helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-seed-'));
const pg = testPostgresUrl();
const databases: TestDatabase[] = [];
let open: Knex[] = [];

afterEach(async () => {
  await Promise.all(open.map((db) => db.destroy()));
  open = [];
});
afterAll(async () => {
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
async function migratedDatabase(): Promise<Knex> {
  let url = `sqlite:${join(dir, `s${counter++}.sqlite`)}`;
  if (pg) {
    const database = await createTestDatabase(pg);
    databases.push(database);
    url = database.url;
  }
  const db = openDatabase(url);
  open.push(db);
  await migrate(db, registry, { systemTables: systemTableSetups() });
  return db;
}

async function rows<Row>(db: Knex, sql: string, bindings: readonly unknown[] = []): Promise<Row[]> {
  const result = (await db.raw(sql, bindings as Knex.RawBinding[])) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

/** Index names and definitions of a table, as the database has them. */
async function indexesOfTable(db: Knex, table: string): Promise<string[]> {
  const found =
    dialectOf(db) === 'sqlite'
      ? await rows<{ name: string; sql: string | null }>(db, `select name, sql from sqlite_master where type = 'index' and tbl_name = ? order by name`, [table])
      : await rows<{ name: string; sql: string }>(db, `select indexname as name, indexdef as sql from pg_indexes where tablename = ? order by indexname`, [table]);
  return found.map((index) => `${index.name}: ${index.sql ?? '(automatic)'}`);
}

describe('rmsgen seed', () => {
  it('seeds the targets a ref needs first, then records whose refs point at them, with options and dates spread', async () => {
    const db = await migratedDatabase();
    const lines: string[] = [];
    const progress: [number, number][] = [];
    const seeded = await seedRecords(db, registry, { model: 'lead', count: 400, log: (line) => lines.push(line), onProgress: (done, total) => progress.push([done, total]) });
    expect(seeded).toEqual([
      { model: 'party', count: 40 },
      { model: 'lead', count: 400 },
    ]);
    expect(lines).toEqual(['party has no records for lead.party to point at: seeding 40 party records first']);
    expect(progress).toEqual([
      [40, 440],
      [440, 440],
    ]);
    const parties = (await rows<{ id: string }>(db, 'select id from party')).map((row) => row.id);
    expect(parties).toHaveLength(40);
    const leads = await rows<{ title: string; party: string | null; stage: string; close_date: string | null; expected_revenue: number | string | null }>(
      db,
      'select title, party, stage, close_date, expected_revenue from lead',
    );
    expect(leads).toHaveLength(400);
    expect(leads.every((lead) => lead.party === null || parties.includes(lead.party))).toBe(true);
    expect(leads.filter((lead) => lead.party !== null).length).toBeGreaterThan(300);
    expect(new Set(leads.map((lead) => lead.stage))).toEqual(new Set(['new', 'qualified', 'won', 'lost']));
    const dates = leads.flatMap((lead) => (lead.close_date === null ? [] : [String(lead.close_date)]));
    expect(dates.every((date) => /^202[3-6]-\d\d-\d\d$/.test(date))).toBe(true);
    expect(new Set(dates.map((date) => date.slice(0, 4)))).toEqual(new Set(['2023', '2024', '2025', '2026']));
    expect(leads.map((lead) => lead.title)).toContain('Lead 1: Soylent hardware refresh');
    expect(leads.every((lead) => lead.expected_revenue === null || Number(lead.expected_revenue) % 100 === 0)).toBe(true);
  });

  it('gives the same values for the same seed and others for another seed', async () => {
    const values = async (seed: number) => {
      const db = await migratedDatabase();
      await seedRecords(db, registry, { model: 'party', count: 30, seed });
      return rows<Record<string, unknown>>(db, 'select name, email, phone, kind, tax_id, notes from party order by id');
    };
    const first = await values(7);
    expect(await values(7)).toEqual(first);
    expect(await values(8)).not.toEqual(first);
  });

  it('continues unique values after the records already there and seeds no target that has records', async () => {
    const db = await migratedDatabase();
    await seedRecords(db, registry, { model: 'invoice', count: 5 });
    const lines: string[] = [];
    const seeded = await seedRecords(db, registry, { model: 'invoice', count: 3, log: (line) => lines.push(line) });
    expect(seeded).toEqual([{ model: 'invoice', count: 3 }]);
    expect(lines).toEqual([]);
    const numbers = (await rows<{ number: string }>(db, 'select number from invoice order by number')).map((row) => row.number);
    expect(numbers).toEqual(['INV-0000001', 'INV-0000002', 'INV-0000003', 'INV-0000004', 'INV-0000005', 'INV-0000006', 'INV-0000007', 'INV-0000008']);
    expect(Number((await rows<{ n: number }>(db, 'select count(*) as n from party'))[0]!.n)).toBe(1);
    expect(Number((await rows<{ n: number }>(db, 'select count(*) as n from lead'))[0]!.n)).toBe(1);
  });

  it('a unique value that a record already holds stops the seed with the field named', async () => {
    const db = await migratedDatabase();
    await seedRecords(db, registry, { model: 'invoice', count: 2 });
    await db('invoice').where({ number: 'INV-0000002' }).update({ number: 'INV-0000004' });
    const refused = await seedRecords(db, registry, { model: 'invoice', count: 3 }).catch((error: unknown) => error);
    expect((refused as Error).message).toBe('invoice.number must be unique');
    // The failed transaction wrote nothing.
    expect(Number((await rows<{ n: number }>(db, 'select count(*) as n from invoice'))[0]!.n)).toBe(2);
  });

  it('a bulk load drops and builds again exactly the indexes the table had, and the data is searchable', async () => {
    const db = await migratedDatabase();
    const before = await indexesOfTable(db, 'lead');
    expect(before.length).toBeGreaterThan(5);
    const lines: string[] = [];
    await seedRecords(db, registry, { model: 'lead', count: 500, rebuildIndexesFrom: 100, log: (line) => lines.push(line) });
    expect(lines).toEqual([
      'party has no records for lead.party to point at: seeding 50 party records first',
      `building ${pg ? 9 : 5} indexes of lead`,
    ]);
    expect(await indexesOfTable(db, 'lead')).toEqual(before);
    // SQLite's search tables are kept by triggers during the load: every title is found.
    if (!pg) {
      const searched = await rows<{ n: number }>(db, `select count(*) as n from rms_fts_lead_title where rms_fts_lead_title match '"lead"'`);
      expect(Number(searched[0]!.n)).toBe(500);
    }
  });

  it('leaves the seeded tables vacuumed (PostgreSQL) and analyzed', async () => {
    const db = await migratedDatabase();
    await seedRecords(db, registry, { model: 'lead', count: 300 });
    if (pg) {
      // Vacuumed (so that index-only scans need not visit the rows of a fresh bulk load) and analyzed.
      const stats = await rows<{ relname: string; vacuumed: boolean; analyzed: boolean }>(
        db,
        `select relname, last_vacuum is not null as vacuumed, last_analyze is not null as analyzed from pg_stat_user_tables
         where relname in ('lead', 'party') order by relname`,
      );
      expect(stats).toEqual([
        { relname: 'lead', vacuumed: true, analyzed: true },
        { relname: 'party', vacuumed: true, analyzed: true },
      ]);
    } else {
      const analyzed = await rows<{ tbl: string }>(db, `select distinct tbl from sqlite_stat1 where tbl in ('lead', 'party') order by tbl`);
      expect(analyzed.map((row) => row.tbl)).toEqual(['lead', 'party']);
    }
  });

  it('refuses an unknown model and a count out of range, writing nothing', async () => {
    const db = await migratedDatabase();
    await expect(seedRecords(db, registry, { model: 'nope', count: 1 })).rejects.toThrow(new SeedRefusedError('unknown model nope: the models are party, lead, invoice'));
    for (const count of [0, -1, 1.5, 10_000_001]) {
      await expect(seedRecords(db, registry, { model: 'lead', count })).rejects.toThrow(new SeedRefusedError('count must be a whole number from 1 to 10,000,000'));
    }
    expect(Number((await rows<{ n: number }>(db, 'select count(*) as n from party'))[0]!.n)).toBe(0);
  });
});

describe('seed values', () => {
  const lead = registry.models.lead!;

  it('never leaves a required field, the title or a governed select empty', () => {
    const make = valuesMaker(lead, 3, { party: ['P1', 'P2'] });
    for (let n = 1; n <= 500; n++) {
      const values = make(n);
      expect(values.title).toMatch(new RegExp(`^Lead ${n}: `));
      expect(['new', 'qualified', 'won', 'lost']).toContain(values.stage);
      expect([null, 'P1', 'P2']).toContain(values.party);
    }
  });

  it('a required unique select has one value per option, and seedableCount says how many are left', () => {
    const model: ModelMeta = {
      ...lead,
      fields: lead.fields.map((field) => (field.name === 'lost_reason' ? { ...field, kind: 'select', options: ['a', 'b', 'c'], required: true } : field)),
      table: { ...lead.table, indexes: [...lead.table.indexes, { fields: ['lost_reason'], unique: true }] },
    };
    expect(seedableCount(model, 1, {})).toEqual({ count: 3, field: 'lost_reason' });
    expect(seedableCount(model, 3, {})).toEqual({ count: 1, field: 'lost_reason' });
    expect(seedableCount(lead, 1, {})).toBeUndefined();
    const make = valuesMaker(model, 1, {});
    expect([1, 2, 3].map((n) => make(n).lost_reason)).toEqual(['a', 'b', 'c']);
  });
});
