/**
 * `seedRecords` on SQLite and (under RMS_TEST_PG_URL) PostgreSQL: targets seeded first when they
 * have no records, refs spread over them, options spread, dates within a year of the day it counts
 * from, the same values for the same seed, unique values that continue after what is there, and a
 * bulk load that leaves exactly the indexes it found. Values by each field's kind and name, on the
 * fixture modules and on a service that is not the demo (test/helpers/lettings.ts): amounts of a
 * plausible size, ends after starts, codes, people, sentences, and governed states only as the
 * model's actions reach them, with the fields those actions require filled.
 */
import type { Knex } from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import { dialectOf, openDatabase } from '../../../runtime/db/connect.ts';
import { migrate } from '../../../runtime/db/migrate.ts';
import type { ModelMeta, Registry } from '../../../runtime/registry.ts';
import { buildLettings, removeModuleTrees } from '../../helpers/lettings.ts';
import { SeedRefusedError, seedRecords } from '../../../runtime/seed/seed.ts';
import { valuesMaker } from '../../../runtime/seed/values.ts';
import { SYSTEM_TABLES } from '../../../runtime/system-table-list.ts';
import { emptyDatabases, testPostgresUrl } from '../../helpers/postgres.ts';
import { lineAmount } from '../../helpers/line-amount.ts';

const pg = testPostgresUrl();
const databases = emptyDatabases('seed');
let open: Knex[] = [];

afterEach(async () => {
  await Promise.all(open.map((db) => db.destroy()));
  open = [];
});
afterAll(async () => {
  await databases.removeAll();
  removeModuleTrees();
});

async function migratedDatabase(served: Registry = registry): Promise<Knex> {
  const db = openDatabase(await databases.url());
  open.push(db);
  await migrate(db, served, { systemTables: SYSTEM_TABLES });
  return db;
}

async function rows<Row>(db: Knex, sql: string, bindings: readonly unknown[] = []): Promise<Row[]> {
  const result = (await db.raw(sql, bindings as Knex.RawBinding[])) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

/** How many times each value occurs. */
function countBy<T>(values: readonly T[]): Map<T, number> {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
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
    const seeded = await seedRecords(db, registry, {
      model: 'lead',
      count: 400,
      today: '2026-06-15',
      log: (line) => lines.push(line),
      onProgress: (done, total) => progress.push([done, total]),
    });
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
    // Spread over the parties: each is pointed at by some lead, none by most.
    const byParty = countBy(leads.flatMap((lead) => (lead.party === null ? [] : [lead.party])));
    expect(byParty.size).toBe(40);
    expect(Math.max(...byParty.values())).toBeLessThan(30);
    expect(new Set(leads.map((lead) => lead.stage))).toEqual(new Set(['new', 'qualified', 'won', 'lost']));
    const dates = leads.flatMap((lead) => (lead.close_date === null ? [] : [String(lead.close_date)]));
    expect(dates.every((date) => date >= '2025-06-15' && date <= '2027-06-15')).toBe(true);
    expect(dates.some((date) => date < '2026-01-01') && dates.some((date) => date > '2027-01-01')).toBe(true);
    expect(leads.map((lead) => lead.title)).toContain('Lead 1');
    // Expected revenue: whole amounts from 1,000.00 to 250,000.00.
    const revenues = leads.flatMap((lead) => (lead.expected_revenue === null ? [] : [Number(lead.expected_revenue)]));
    expect(revenues.every((amount) => amount % 100 === 0 && amount >= 100_000 && amount <= 25_000_000)).toBe(true);
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
    // As many targets as records when they are fewer than ten, so that refs spread.
    expect(Number((await rows<{ n: number }>(db, 'select count(*) as n from party'))[0]!.n)).toBe(5);
    expect(Number((await rows<{ n: number }>(db, 'select count(*) as n from lead'))[0]!.n)).toBe(5);
  });

  it('a unique value a record already holds stops a seed of records with lines too, with the field named, and the transaction writes no line', async () => {
    const db = await migratedDatabase();
    await seedRecords(db, registry, { model: 'order', count: 2, today: '2026-06-15' });
    // Record 4's number (unique: the record's number alone gives it), taken by record 2.
    const fourth = valuesMaker(registry.models.order!, 1, {}, '2026-06-15')(4).number as string;
    const [second] = await rows<{ id: string }>(db, 'select id from "order" order by number desc limit 1');
    await db('order').where({ id: second!.id }).update({ number: fourth });
    const lines = Number((await rows<{ n: number }>(db, 'select count(*) as n from "order__items"'))[0]!.n);
    const refused = await seedRecords(db, registry, { model: 'order', count: 3, today: '2026-06-15' }).catch((error: unknown) => error);
    // Record 2 and record 4 may have the same customer: then the (customer, number) unique is broken too, and SQLite may name either.
    expect(['order.number must be unique', 'order: customer, number must be unique']).toContain((refused as Error).message);
    expect(Number((await rows<{ n: number }>(db, 'select count(*) as n from "order"'))[0]!.n)).toBe(2);
    expect(Number((await rows<{ n: number }>(db, 'select count(*) as n from "order__items"'))[0]!.n)).toBe(lines);
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
      `building ${pg ? 10 : 5} indexes of lead`, // PostgreSQL: the declared ones, each ordered one also descending, the trigram index and the ids byte by byte
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
    await expect(seedRecords(db, registry, { model: 'nope', count: 1 })).rejects.toThrow(new SeedRefusedError('unknown model nope: the models are party, lead, invoice, order'));
    for (const count of [0, -1, 1.5, 10_000_001]) {
      await expect(seedRecords(db, registry, { model: 'lead', count })).rejects.toThrow(new SeedRefusedError('count must be a whole number from 1 to 10,000,000'));
    }
    expect(Number((await rows<{ n: number }>(db, 'select count(*) as n from party'))[0]!.n)).toBe(0);
  });
});

describe('rmsgen seed on a service that is not the demo', () => {
  const TODAY = '2026-06-15';
  let lettings: Registry;
  let db: Knex;
  let lines: string[];
  let leases: Record<string, any>[];

  beforeAll(async () => {
    lettings = await buildLettings();
    db = await migratedDatabase(lettings);
    open.splice(open.indexOf(db), 1); // kept for the describe's tests
    lines = [];
    await seedRecords(db, lettings, { model: 'lease', count: 600, seed: 3, today: TODAY, log: (line) => lines.push(line) });
    leases = await rows(db, 'select * from lease');
  }, 120_000);
  afterAll(() => db?.destroy());

  it('seeds the targets first, a tenth as many (at least ten), and spreads the refs over all of them', async () => {
    expect(lines).toEqual([
      'unit has no records for lease.unit to point at: seeding 60 unit records first',
      'property has no records for unit.property to point at: seeding 10 property records first',
      'tenant has no records for lease.tenant to point at: seeding 60 tenant records first',
    ]);
    for (const [field, targets] of [['unit', 60], ['tenant', 60]] as const) {
      const counts = countBy(leases.map((lease) => lease[field] as string));
      expect(counts.size, field).toBe(targets);
      expect(Math.max(...counts.values()), field).toBeLessThan(30);
    }
    const units = await rows<{ property: string }>(db, 'select property from unit');
    expect(countBy(units.map((unit) => unit.property)).size).toBe(10);
  });

  it.each([
    ['rent', 400, 3_000, 10],
    ['deposit', 500, 6_000, 50],
  ])('money %s: whole amounts from %d to %d, in steps of %d, in minor units', (field, min, max, step) => {
    const amounts = leases.flatMap((lease) => (lease[field] === null ? [] : [Number(lease[field])]));
    expect(amounts.length).toBeGreaterThan(400);
    expect(amounts.filter((amount) => amount < min * 100 || amount > max * 100 || amount % (step * 100) !== 0)).toEqual([]);
    // Spread over the range, not bunched at one end.
    expect(amounts.some((amount) => amount < min * 200) && amounts.some((amount) => amount > max * 50)).toBe(true);
  });

  it('dates within a year of the day, an end after its start', () => {
    for (const lease of leases) {
      if (lease.starts_on !== null) expect(String(lease.starts_on) >= '2025-06-15' && String(lease.starts_on) <= '2026-07-15', String(lease.starts_on)).toBe(true);
      if (lease.starts_on !== null && lease.ends_on !== null) {
        const months = (Date.parse(String(lease.ends_on)) - Date.parse(String(lease.starts_on))) / 86_400_000 / 30;
        expect(months >= 6 && months <= 25, `${lease.starts_on} → ${lease.ends_on}`).toBe(true);
      }
    }
  });

  it('states only as the actions reach them, with the inputs of the actions on the way', () => {
    expect(new Set(leases.map((lease) => lease.state))).toEqual(new Set(['draft', 'active', 'ended']));
    for (const lease of leases) expect(lease.end_reason !== null, `${lease.state}: ${lease.end_reason}`).toBe(lease.state === 'ended');
  });

  it('text by what the field holds: codes, people with their emails, titles, sentences; nothing of a trade', async () => {
    expect(leases.map((lease) => lease.reference).sort().slice(0, 2)).toEqual(['LEA-0000001', 'LEA-0000002']);
    const tenants = await rows<{ full_name: string; email: string | null; phone: string | null }>(db, 'select full_name, email, phone from tenant');
    for (const tenant of tenants) {
      expect(tenant.full_name).toMatch(/^\p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+$/u);
      if (tenant.email !== null) expect(tenant.email).toMatch(new RegExp(`^${tenant.full_name.toLowerCase().replace(' ', '\\.')}\\d+@example\\.com$`));
    }
    const properties = await rows<{ name: string; address: string | null }>(db, 'select name, address from property');
    expect(properties.map((property) => property.name).sort()).toContain('Property 1');
    expect(properties.every((property) => property.address === null || /^\d+ \S/.test(property.address))).toBe(true);
    const notes = leases.flatMap((lease) => (lease.notes === null ? [] : [String(lease.notes)]));
    expect(notes.every((note) => /^(\p{Lu}[^.]+\. ?){1,3}$/u.test(note))).toBe(true);
    const everything = JSON.stringify([leases, tenants, properties, await rows(db, 'select * from unit')]);
    expect(everything).not.toMatch(/Acme|Soylent|renewal|procurement|pricing|Lead \d/i);
  });

  it('the same seed and day give the same values', async () => {
    const again = await migratedDatabase(lettings);
    await seedRecords(again, lettings, { model: 'lease', count: 600, seed: 3, today: TODAY });
    const values = (rowsOf: Record<string, unknown>[]) => rowsOf.map(({ id, unit, tenant, ...rest }) => rest);
    expect(values(await rows(again, 'select * from lease order by reference'))).toEqual(values(await rows(db, 'select * from lease order by reference')));
  });
});

describe('orders: records with lines, computed fields, rules and uniques', () => {
  const TODAY = '2026-06-15';
  const order = registry.models.order!;

  /** Every order with its lines, as the generated queries read them back. */
  async function ordersOf(db: Knex): Promise<{ values: Record<string, unknown>; items: Record<string, unknown>[] }[]> {
    const ids = (await rows<{ id: string }>(db, 'select id from "order" order by number')).map((row) => row.id);
    const queries = registry.queries.order!;
    const lines = await queries.lines.items!.linesOf(db, ids);
    return Promise.all(ids.map(async (id) => ({ values: (await queries.find(db, id)) as unknown as Record<string, unknown>, items: (lines.get(id) ?? []) as unknown as Record<string, unknown>[] })));
  }

  /** The registry with `order` changed (and its logic, when given). */
  function withOrder(changes: Partial<ModelMeta>, logic = registry.logic.order!): Registry {
    return { ...registry, models: { ...registry.models, order: { ...order, ...changes } }, logic: { ...registry.logic, order: logic } };
  }

  async function counts(db: Knex): Promise<Record<string, number>> {
    const count = async (table: string) => Number((await rows<{ n: number }>(db, `select count(*) as n from "${table}"`))[0]!.n);
    return { party: await count('party'), order: await count('order'), items: await count('order__items') };
  }

  it('seeds orders with their lines, as a create would leave them: checks, computed fields, rules, uniques, workflow', async () => {
    const db = await migratedDatabase();
    const seeded = await seedRecords(db, registry, { model: 'order', count: 300, today: TODAY });
    const { items } = await counts(db);
    expect(seeded).toEqual([
      { model: 'party', count: 30 },
      { model: 'order', count: 300, lines: items },
    ]);
    const orders = await ordersOf(db);
    expect(orders).toHaveLength(300);
    const schema = registry.commands['order.create']!.input;
    const given = (fields: typeof order.fields, values: Record<string, unknown>) =>
      Object.fromEntries(fields.filter((field) => !field.computed && !field.governed && values[field.name] !== null).map((field) => [field.name, values[field.name]]));
    for (const { values, items: lines } of orders) {
      // What a create would take, read back from the database.
      const checked = schema.safeParse({ ...given(order.fields, values), items: lines.map((line) => given(order.lines[0]!.fields, line)) });
      expect(checked.success, `${values.number}: ${checked.error?.issues[0]?.message}`).toBe(true);
      expect(lines.length >= 1 && lines.length <= 10).toBe(true);
      for (const line of lines) expect(line.amount).toBe(lineAmount(line));
      expect(values.total).toBe(lines.reduce((sum, line) => sum + (line.amount as number), 0));
      expect(registry.logic.order!.failedRules({ ...values, items: lines })).toEqual([]);
    }
    // Numbers match the pattern, hold the record's number, and never repeat.
    const numbers = orders.map(({ values }) => values.number as string);
    expect(numbers.every((number) => /^[A-Z]{2}-[0-9]{4}$/.test(number))).toBe(true);
    expect(numbers.map((number) => number.slice(3)).sort().slice(0, 3)).toEqual(['0001', '0002', '0003']);
    expect(new Set(numbers).size).toBe(300);
    // Lines in order, from position 0.
    const positions = await rows<{ owner: string; positions: string }>(db, `select owner, ${dialectOf(db) === 'sqlite' ? 'group_concat(position)' : "string_agg(position::text, ',' order by position)"} as positions from order__items group by owner`);
    expect(positions.every((row) => row.positions.split(',').map(Number).sort((a, b) => a - b).every((p, i) => p === i))).toBe(true);
    expect(new Set(orders.map(({ values }) => values.status))).toEqual(new Set(['draft', 'confirmed', 'done', 'cancelled']));
    // Stored computed values are current: the version of the logic that made them is recorded.
    expect(await rows(db, 'select model, version from rms_logic')).toEqual([{ model: 'order', version: registry.logic.order!.version }]);
  });

  it('the same seed and day give the same orders and lines; lines as many as asked', async () => {
    const made = async (lines?: { min: number; max: number }) => {
      const db = await migratedDatabase();
      await seedRecords(db, registry, { model: 'order', count: 40, seed: 9, today: TODAY, ...(lines ? { lines } : {}) });
      return (await ordersOf(db)).map(({ values: { id, customer, ...values }, items }) => ({ values, items: items.map(({ id: _id, ...line }) => line) }));
    };
    const first = await made();
    expect(await made()).toEqual(first);
    const three = await made({ min: 3, max: 3 });
    expect(three.every(({ items }) => items.length === 3)).toBe(true);
  });

  it('continues numbers after the orders already there; records the logic version only over values it made', async () => {
    const db = await migratedDatabase();
    await seedRecords(db, registry, { model: 'order', count: 5, today: TODAY });
    await db('rms_logic').delete();
    await seedRecords(db, registry, { model: 'order', count: 5, today: TODAY });
    const numbers = (await rows<{ number: string }>(db, 'select number from "order"')).map((row) => row.number.slice(3)).sort();
    expect(numbers).toEqual(['0001', '0002', '0003', '0004', '0005', '0006', '0007', '0008', '0009', '0010']);
    // Orders were there without a recorded version: stale, for migrate to compute again.
    expect(await rows(db, 'select model from rms_logic')).toEqual([]);
  });

  it.each<[string, () => Registry, string]>([
    [
      'a rule no draw of values keeps',
      () => withOrder({ rules: [{ fields: ['deliver_by'], message: 'never' }] }, { ...registry.logic.order!, failedRules: () => [{ fields: ['deliver_by'], message: 'never' }] }),
      `cannot seed order: every one of 20 draws of record 1's values breaks its rule "never" (deliver_by)`,
    ],
    [
      'a pattern it cannot make',
      () => withOrder({ fields: order.fields.map((field) => (field.name === 'number' ? { ...field, pattern: '(a)\\1' } : field)) }),
      'order.number: cannot make text for the pattern (a)\\1: a backreference (\\1) is not supported',
    ],
    [
      'records a create would not take',
      () => withOrder({ fields: order.fields.map((field) => (field.name === 'contact_email' ? { ...field, pattern: '[a-z]{5}' } : field)) }),
      'cannot seed order: record 1 it made is not one a create would take: order.contact_email must be an email address',
    ],
  ])('refuses %s with one line, writing nothing (the targets it would seed first neither)', async (_name, variant, message) => {
    const db = await migratedDatabase();
    await expect(seedRecords(db, variant(), { model: 'order', count: 50, today: TODAY })).rejects.toThrow(new SeedRefusedError(message));
    expect(await counts(db)).toEqual({ party: 0, order: 0, items: 0 });
  });

  it('a bulk load drops and builds again the indexes of the line tables too', async () => {
    const db = await migratedDatabase();
    const before = [...(await indexesOfTable(db, 'order')), ...(await indexesOfTable(db, 'order__items'))];
    const lines: string[] = [];
    await seedRecords(db, registry, { model: 'order', count: 120, rebuildIndexesFrom: 100, log: (line) => lines.push(line) });
    // PostgreSQL: the order's ids byte by byte too (a line list's table has none).
    expect(lines).toEqual(['party has no records for order.customer to point at: seeding 12 party records first', `building ${pg ? 5 : 4} indexes of order`]);
    expect([...(await indexesOfTable(db, 'order')), ...(await indexesOfTable(db, 'order__items'))]).toEqual(before);
  });
});
