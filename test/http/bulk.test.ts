/**
 * Bulk commands over real HTTP, on SQLite and (under RMS_TEST_PG_URL) PostgreSQL:
 * `<model>.create_many`, `update_many` and `delete_many` run every record through the
 * single-record command in one transaction — all or nothing —, refuse a missing selection, a
 * selection over `max_affected` (409) and every bad record naming it by index or id, answer a dry
 * run without writing, and leave one history entry and one audit row per record, the entries
 * sharing one batch id; `revert_batch` puts back an update_many's batch as one. Agents do not have them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
/** Role sales: reads parties without tax_id. */
let sales: string;
/** Role accountant: reads leads, does not write them. */
let accountant: string;
let agent: string;
let party: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  sales = await t.addPerson('bsales', ['sales']);
  accountant = await t.addPerson('baccountant', ['accountant']);
  agent = await agentToken(t, admin, ['party.*', 'lead.*'], 'bulk-bot');
  party = (await t.command(admin, 'party.create', { name: 'Acme' })).body.value.id;
});

afterAll(async () => {
  await t?.close();
});

const rows = (sql: string, ...args: unknown[]) => t.inspect((db) => db.prepare(sql).all(...args)) as Record<string, unknown>[];
const count = (sql: string, ...args: unknown[]) => Number((rows(sql, ...args)[0] as { n: number }).n);
const leadCount = () => count('select count(*) as n from lead');
const historyCount = () => count('select count(*) as n from rms_history');

/** A fresh tag so each test selects only its own leads. */
let tagNumber = 0;
const freshTag = () => `bulk-${++tagNumber}`;

async function makeLeads(tag: string, n: number, extra: Record<string, unknown> = {}): Promise<string[]> {
  const res = await t.command(admin, 'lead.create_many', { records: Array.from({ length: n }, (_, i) => ({ title: `${tag} ${i}`, lost_reason: tag, ...extra })) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value.ids;
}

const byTag = (tag: string) => [{ field: 'lost_reason', op: 'eq', value: tag }];

describe('create_many', () => {
  it('creates every record in one transaction, with one history entry and one audit row per record sharing a batch id', async () => {
    const before = leadCount();
    const res = await t.command(admin, 'lead.create_many', {
      records: [
        { title: 'First', party, expected_revenue: 1000 },
        { title: 'Second', hot: true },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { batch_id, count: created, ids, changes } = res.body.value;
    expect(res.body.denied).toEqual([]);
    expect(batch_id).toEqual(expect.any(String));
    expect(created).toBe(2);
    expect(ids).toHaveLength(2);
    expect(changes[0]).toEqual({ id: ids[0], changes: expect.objectContaining({ title: { from: null, to: 'First' }, party: { from: null, to: party }, stage: { from: null, to: 'new' }, expected_revenue: { from: null, to: 1000 } }) });
    expect(changes[1].changes.hot).toEqual({ from: null, to: true });
    expect(leadCount()).toBe(before + 2);
    expect(rows('select id, title, stage from lead where id in (?, ?) order by id', ids[0], ids[1])).toEqual([
      { id: ids[0], title: 'First', stage: 'new' },
      { id: ids[1], title: 'Second', stage: 'new' },
    ]);
    const entries = rows('select id, record_id, kind, command, batch_id from rms_history where batch_id = ? order by id', batch_id);
    expect(entries.map(({ record_id, kind, command }) => ({ record_id, kind, command }))).toEqual(ids.map((id: string) => ({ record_id: id, kind: 'create', command: 'lead.create_many' })));
    const audit = rows("select record_id, change_id, outcome, access from rms_audit where command = 'lead.create_many' and change_id in (?, ?) order by record_id", entries[0]!.id, entries[1]!.id);
    expect(audit).toEqual(
      entries
        .map((entry) => ({ record_id: entry.record_id, change_id: entry.id, outcome: 'executed', access: 'write' }))
        .sort((a, b) => String(a.record_id).localeCompare(String(b.record_id))),
    );
    // A record's history names the batch.
    const history = await t.command(admin, 'lead.history', { id: ids[0] });
    expect(history.body.value.rows[0]).toMatchObject({ command: 'lead.create_many', batch_id });
  });

  it('takes 1,000 records, the limit: every one with its history entry and audit row (written a few hundred a statement)', async () => {
    const tag = freshTag();
    const res = await t.command(admin, 'lead.create_many', { records: Array.from({ length: 1000 }, (_, i) => ({ title: `${tag} ${i}`, lost_reason: tag, notes: `note ${i}` })) });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    const { batch_id, ids } = res.body.value;
    expect(ids).toHaveLength(1000);
    expect(count('select count(*) as n from lead where lost_reason = ?', tag)).toBe(1000);
    expect(count('select count(distinct record_id) as n from rms_history where batch_id = ?', batch_id)).toBe(1000);
    expect(count("select count(*) as n from rms_audit a join rms_history h on h.id = a.change_id where h.batch_id = ? and a.record_id = h.record_id and a.command = 'lead.create_many'", batch_id)).toBe(1000);
    const [last] = rows('select record_id from rms_history where batch_id = ? order by id desc limit 1', batch_id);
    expect(last!.record_id).toBe(ids[999]);
  });

  it.each([
    ['a required field missing', [{ title: 'ok' }, { title: 'ok' }, { title: 'ok' }, { probability: 5 }], 400, 'lead.create_many records[3].title is required'],
    ['a wrong value', [{ title: 'ok', probability: 'many' }], 400, 'lead.create_many records[0].probability must be an integer'],
    ['an unknown field', [{ title: 'ok' }, { title: 'ok', nope: 1 }], 400, 'unknown field lead.create_many records[1].nope'],
    ['a governed field', [{ title: 'ok', stage: 'won' }], 400, 'lead.create_many records[0].stage is set by actions (qualify, win, lose), not by create'],
    ['a record that is no object', [{ title: 'ok' }, 'x'], 400, 'lead.create_many records[1]: input must be a JSON object'],
    // Found while writing, inside the transaction: the records before it are undone.
    ['a ref to no record', [{ title: 'ok' }, { title: 'ok', party: '01M8452PGTZ3QHM2AWMARJ1NTB' }], 400, 'lead.create_many records[1].party: no party with id 01M8452PGTZ3QHM2AWMARJ1NTB'],
    ['no records', [], 400, 'records must be an array of 1 to 1000 records'],
    ['too many records', Array.from({ length: 1001 }, () => ({ title: 'x' })), 400, 'records must be an array of 1 to 1000 records'],
  ])('refuses %s, naming the record, and writes nothing', async (_case, records, status, error) => {
    const before = { leads: leadCount(), history: historyCount() };
    const res = await t.command(admin, 'lead.create_many', { records });
    expect({ status: res.status, body: res.body }).toEqual({ status, body: { error } });
    expect({ leads: leadCount(), history: historyCount() }).toEqual(before);
    expect(rows("select outcome, status, error from rms_audit where command = 'lead.create_many' order by id desc limit 1")).toEqual([{ outcome: 'refused', status, error }]);
  });

  it('a unique value taken by an earlier record of the same call undoes the whole call', async () => {
    const before = count('select count(*) as n from party');
    const res = await t.command(admin, 'party.create_many', { records: [{ name: 'One', tax_id: 'BULK-1' }, { name: 'Two', tax_id: 'BULK-1' }] });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'party.create_many records[1].tax_id must be unique' } });
    expect(count('select count(*) as n from party')).toBe(before);
  });

  // Rows are stored a few hundred a statement; the record a statement refuses is still the one named.
  it.each([
    ['a unique value a record holds already', (taken: string) => [{ name: 'Fine' }, { name: 'Repeats', tax_id: taken }, { name: 'Also fine' }], 'party.create_many records[1].tax_id must be unique'],
    ['the same unique value in two records, far apart', () => [{ name: 'First', tax_id: 'ROW-DUP' }, ...Array.from({ length: 600 }, (_, i) => ({ name: `Filler ${i}` })), { name: 'Last', tax_id: 'ROW-DUP' }], 'party.create_many records[601].tax_id must be unique'],
  ])('stores rows several a statement, and still names the record refused for %s', async (_case, records, error) => {
    const taken = `TAKEN-${++tagNumber}`;
    expect((await t.command(admin, 'party.create', { name: 'Holder', tax_id: taken })).status).toBe(200);
    const before = count('select count(*) as n from party');
    const res = await t.command(admin, 'party.create_many', { records: records(taken) });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
    expect(count('select count(*) as n from party')).toBe(before);
  });

  it('names the first record refused in the transaction, in their order, whether its row or its check refuses it', async () => {
    const missing = '01M8452PGTZ3QHM2AWMARJ1NTB';
    const number = `BK-${5000 + ++tagNumber}`;
    const order = (overrides: Record<string, unknown>) => ({ number: `BK-${6000 + ++tagNumber}`, customer: party, items: [{ description: 'Item', quantity: 1, unit_price: 100 }], ...overrides });
    expect((await t.command(admin, 'order.create', order({ number }))).status).toBe(200);
    const before = count('select count(*) as n from "order"');
    // The number repeats two unique indexes (number; customer and number): the database says which it found first, as for a single create.
    const cases: [Record<string, unknown>[], RegExp][] = [
      [[order({}), order({ number }), order({ customer: missing })], /^order\.create_many records\[1\](\.number|: order: customer, number) must be unique$/],
      [[order({}), order({ customer: missing }), order({ number })], new RegExp(`^order\\.create_many records\\[1\\]\\.customer: no party with id ${missing}$`)],
    ];
    for (const [records, error] of cases) {
      const res = await t.command(admin, 'order.create_many', { records });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: expect.stringMatching(error) } });
    }
    expect(count('select count(*) as n from "order"')).toBe(before);
  });

  it('creates records with lines: each record with its lines, its computed fields and one history entry', async () => {
    const orders = [1, 2].map((n) => ({ number: `BK-${1000 + tagNumber * 10 + n}`, customer: party, items: [{ description: `Item ${n}a`, quantity: 2, unit_price: 150 }, { description: `Item ${n}b`, quantity: 1, unit_price: 99 }] }));
    tagNumber++;
    const res = await t.command(admin, 'order.create_many', { records: orders });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = res.body.value.ids as string[];
    expect(rows('select number, total from "order" where id in (?, ?) order by id', ...ids)).toEqual(orders.map((order) => ({ number: order.number, total: 399 })));
    expect(rows('select owner, position, description, amount from order__items where owner in (?, ?) order by owner, position', ...ids)).toEqual(
      ids.flatMap((id, n) => [
        { owner: id, position: 0, description: `Item ${n + 1}a`, amount: 300 },
        { owner: id, position: 1, description: `Item ${n + 1}b`, amount: 99 },
      ]),
    );
    const got = await t.command(admin, 'order.get', { id: ids[1] });
    expect(got.body.value.items.map((line: { description: string }) => line.description)).toEqual(['Item 2a', 'Item 2b']);
    expect(rows('select record_id, kind from rms_history where batch_id = ? order by record_id', res.body.value.batch_id)).toEqual(ids.map((id) => ({ record_id: id, kind: 'create' })));
  });

  it('a dry run answers what would be created and writes nothing', async () => {
    const before = { leads: leadCount(), history: historyCount() };
    const res = await t.command(admin, 'lead.create_many', { records: [{ title: 'Maybe' }], dry_run: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ dry_run: true, denied: [], value: { batch_id: null, count: 1, ids: [expect.any(String)] } });
    expect(res.body.value.changes[0].changes.title).toEqual({ from: null, to: 'Maybe' });
    expect({ leads: leadCount(), history: historyCount() }).toEqual(before);
  });
});

describe('update_many', () => {
  let tag: string;
  let ids: string[];
  beforeEach(async () => {
    tag = freshTag();
    ids = await makeLeads(tag, 3);
  });

  it('sets the fields on every record the filter selects, each with its history entry in one batch', async () => {
    const res = await t.command(admin, 'lead.update_many', { filter: byTag(tag), set: { probability: 40, hot: true }, max_affected: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value).toEqual({
      batch_id: expect.any(String),
      count: 3,
      ids,
      changes: ids.map((id) => ({ id, changes: { probability: { from: null, to: 40 }, hot: { from: null, to: true } } })),
    });
    // The inspector shapes PostgreSQL's values as SQLite's: a bool is 1.
    expect(rows(`select probability, hot from lead where lost_reason = ?`, tag)).toEqual(Array(3).fill({ probability: 40, hot: 1 }));
    const entries = rows('select record_id, kind, command from rms_history where batch_id = ? order by record_id', res.body.value.batch_id);
    expect(entries).toEqual(ids.map((id) => ({ record_id: id, kind: 'update', command: 'lead.update_many' })));
  });

  it('selects by ids; a governed field runs its action on each record', async () => {
    const res = await t.command(admin, 'lead.update_many', { ids: [ids[0], ids[2]], set: { stage: 'qualified' }, max_affected: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value.ids).toEqual([ids[0], ids[2]]);
    expect(rows('select id, stage from lead where lost_reason = ? order by id', tag)).toEqual([
      { id: ids[0], stage: 'qualified' },
      { id: ids[1], stage: 'new' },
      { id: ids[2], stage: 'qualified' },
    ]);
  });

  it.each([
    ['no filter and no ids', { set: { probability: 1 }, max_affected: 5 }, 400, 'lead.update_many needs a filter or ids'],
    ['an empty filter', { filter: [], set: { probability: 1 }, max_affected: 5 }, 400, 'lead.update_many needs a filter or ids'],
    ['a filter and ids', { filter: [{ field: 'hot', op: 'eq', value: true }], ids: ['x'], set: { probability: 1 }, max_affected: 5 }, 400, 'lead.update_many takes a filter or ids, not both'],
    ['no max_affected', { ids: ['x'], set: { probability: 1 } }, 400, 'max_affected is required'],
    ['max_affected 0', { ids: ['x'], set: { probability: 1 }, max_affected: 0 }, 400, 'max_affected must be an integer from 1 to 10000'],
    ['max_affected over the limit', { ids: ['x'], set: { probability: 1 }, max_affected: 10001 }, 400, 'max_affected must be an integer from 1 to 10000'],
    ['no set', { ids: ['x'], max_affected: 1 }, 400, 'set must be an object of field values'],
    ['an empty set', { ids: ['x'], set: {}, max_affected: 1 }, 400, 'lead.update_many set must give at least one field'],
    ['an id in set', { ids: ['x'], set: { id: 'y' }, max_affected: 1 }, 400, 'lead.update_many set cannot give id'],
    ['a required field emptied', { ids: ['x'], set: { title: null }, max_affected: 1 }, 400, 'lead.update_many set.title is required'],
    ['an unknown field in set', { ids: ['x'], set: { nope: 1 }, max_affected: 1 }, 400, 'unknown field lead.update_many set.nope'],
    ['an unknown key', { ids: ['x'], set: { probability: 1 }, max_affected: 1, limit: 5 }, 400, 'unknown field lead.limit'],
    ['no ids', { ids: [], set: { probability: 1 }, max_affected: 1 }, 400, 'ids must be an array of 1 to 10000 record ids'],
    ['a filter on an unknown field', { filter: [{ field: 'nope', op: 'eq', value: 1 }], set: { probability: 1 }, max_affected: 1 }, 400, 'unknown field lead.nope'],
  ])('refuses %s', async (_case, input, status, error) => {
    const res = await t.command(admin, 'lead.update_many', input);
    expect({ status: res.status, body: res.body }).toEqual({ status, body: { error } });
  });

  it('refuses more records than max_affected with 409, by filter and by ids, and changes nothing', async () => {
    const before = historyCount();
    const byFilter = await t.command(admin, 'lead.update_many', { filter: byTag(tag), set: { probability: 1 }, max_affected: 2 });
    expect({ status: byFilter.status, body: byFilter.body }).toEqual({ status: 409, body: { error: 'lead.update_many would change 3 records, more than max_affected 2' } });
    const byIds = await t.command(admin, 'lead.update_many', { ids, set: { probability: 1 }, max_affected: 1 });
    expect({ status: byIds.status, body: byIds.body }).toEqual({ status: 409, body: { error: 'lead.update_many would change 3 records, more than max_affected 1' } });
    expect(historyCount()).toBe(before);
    expect(rows('select probability from lead where lost_reason = ?', tag)).toEqual(Array(3).fill({ probability: null }));
  });

  it('two calls naming the same records in opposite orders both succeed, each changing them in id order', async () => {
    // On PostgreSQL each locks the records as it changes them: taken in the order given, the two
    // deadlocked, and the retried one deadlocked again (a 500 in 3 of 10 rounds, found by a probe).
    for (let round = 0; round < 6; round++) {
      const ids = await makeLeads(freshTag(), 10);
      const [up, down] = await Promise.all([
        t.command(admin, 'lead.update_many', { ids, set: { probability: 1 }, max_affected: 10 }),
        t.command(admin, 'lead.update_many', { ids: [...ids].reverse(), set: { probability: 2 }, max_affected: 10 }),
      ]);
      expect([up.status, down.status], JSON.stringify([up.body, down.body])).toEqual([200, 200]);
      expect(down.body.value.ids).toEqual([...ids].sort());
      const values = new Set(rows(`select probability from lead where id in (${ids.map(() => '?').join(', ')})`, ...ids).map((row) => row.probability));
      expect(values.size).toBe(1);
    }
  });

  it('never changes more than max_affected records, though records its filter selects are created meanwhile', async () => {
    for (let round = 0; round < 8; round++) {
      const tag = freshTag();
      await makeLeads(tag, 5);
      const [changed] = await Promise.all([
        t.command(admin, 'lead.update_many', { filter: byTag(tag), set: { probability: 7 }, max_affected: 5 }),
        ...Array.from({ length: 6 }, (_, i) => new Promise((resolve) => setTimeout(resolve, i * 2)).then(() => t.command(admin, 'lead.create', { title: `${tag} late ${i}`, lost_reason: tag }))),
      ]);
      if (changed.status === 200) expect(changed.body.value.count).toBeLessThanOrEqual(5);
      else expect(changed.body.error).toMatch(/^lead\.update_many would change \d+ records, more than max_affected 5$/);
      expect(count('select count(*) as n from lead where lost_reason = ? and probability = 7', tag)).toBeLessThanOrEqual(5);
    }
  });

  it('a record that fails undoes the records before it, and the refusal names it by id', async () => {
    const missing = '01M8452PGTZ3QHM2AWMARJ1NTB';
    const res = await t.command(admin, 'lead.update_many', { ids: [ids[0], missing], set: { probability: 7 }, max_affected: 2 });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: `lead.update_many record ${missing}: lead ${missing} not found` } });
    // A move no action makes from one record's state.
    await t.command(admin, 'lead.lose', { id: ids[1], lost_reason: tag });
    const moved = await t.command(admin, 'lead.update_many', { filter: byTag(tag), set: { stage: 'qualified' }, max_affected: 3 });
    expect({ status: moved.status, body: moved.body }).toEqual({ status: 400, body: { error: `lead.update_many record ${ids[1]}.stage cannot move from lost to qualified` } });
    expect(rows('select stage, probability from lead where lost_reason = ? order by id', tag)).toEqual([
      { stage: 'new', probability: null },
      { stage: 'lost', probability: null },
      { stage: 'new', probability: null },
    ]);
  });

  it('a dry run answers the count, ids and each change, and writes nothing', async () => {
    const before = historyCount();
    const res = await t.command(admin, 'lead.update_many', { filter: byTag(tag), set: { probability: 90 }, max_affected: 3, dry_run: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ dry_run: true, denied: [], value: { batch_id: null, count: 3, ids, changes: ids.map((id) => ({ id, changes: { probability: { from: null, to: 90 } } })) } });
    expect(historyCount()).toBe(before);
    expect(rows('select probability from lead where lost_reason = ?', tag)).toEqual(Array(3).fill({ probability: null }));
    const audit = rows("select outcome, dry_run from rms_audit where command = 'lead.update_many' order by id desc limit 1");
    expect(audit.map((row) => ({ outcome: row.outcome, dry_run: Boolean(row.dry_run) }))).toEqual([{ outcome: 'executed', dry_run: true }]);
  });

  it("keeps to the caller's field rights: a withheld field does not exist, a read-only role has no bulk write", async () => {
    const parties = await t.command(admin, 'party.create_many', { records: [{ name: 'P1' }, { name: 'P2' }] });
    const partyIds = parties.body.value.ids as string[];
    const withheld = await t.command(sales, 'party.update_many', { ids: partyIds, set: { tax_id: 'T' }, max_affected: 2 });
    expect({ status: withheld.status, body: withheld.body }).toEqual({ status: 400, body: { error: 'unknown field party.update_many set.tax_id' } });
    const seen = await t.command(sales, 'party.update_many', { ids: partyIds, set: { kind: 'company' }, max_affected: 2 });
    expect(seen.status).toBe(200);
    expect(seen.body.denied).toEqual(['party.tax_id']);
    for (const name of ['create_many', 'update_many', 'delete_many']) {
      expect((await t.command(accountant, `lead.${name}`, { ids, set: { probability: 1 }, max_affected: 3 })).status, name).toBe(404);
    }
  });
});

describe('delete_many', () => {
  it('deletes the selected records with a history entry each, in one batch', async () => {
    const tag = freshTag();
    const ids = await makeLeads(tag, 3);
    const res = await t.command(admin, 'lead.delete_many', { filter: byTag(tag), max_affected: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value).toMatchObject({ count: 3, ids });
    expect(res.body.value.changes[0].changes.title).toEqual({ from: `${tag} 0`, to: null });
    expect(count('select count(*) as n from lead where lost_reason = ?', tag)).toBe(0);
    expect(rows('select record_id, kind from rms_history where batch_id = ? order by record_id', res.body.value.batch_id)).toEqual(ids.map((id) => ({ record_id: id, kind: 'delete' })));
  });

  it('a record still referred to undoes the whole call, naming the record', async () => {
    const parties = (await t.command(admin, 'party.create_many', { records: [{ name: 'Free' }, { name: 'Taken' }] })).body.value.ids as string[];
    const lead = (await t.command(admin, 'lead.create', { title: 'Refers', party: parties[1] })).body.value.id;
    const res = await t.command(admin, 'party.delete_many', { ids: parties, max_affected: 2 });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: `party.delete_many record ${parties[1]}: party ${parties[1]} is referred to by lead ${lead}` } });
    expect(count('select count(*) as n from party where id in (?, ?)', parties[0], parties[1])).toBe(2);
  });

  it.each([
    ['no selection', { max_affected: 1 }, 400, 'party.delete_many needs a filter or ids'],
    ['more than max_affected', { ids: ['A', 'B'], max_affected: 1 }, 409, 'party.delete_many would change 2 records, more than max_affected 1'],
    ['a set', { ids: ['A'], set: {}, max_affected: 1 }, 400, 'unknown field party.set'],
  ])('refuses %s', async (_case, input, status, error) => {
    const res = await t.command(admin, 'party.delete_many', input);
    expect({ status: res.status, body: res.body }).toEqual({ status, body: { error } });
  });
});

describe('<action>_many', () => {
  let tag: string;
  let ids: string[];
  beforeEach(async () => {
    tag = freshTag();
    ids = await makeLeads(tag, 3);
  });

  it('runs the action on every selected record in one transaction: one action entry per record in one batch, an audit row each', async () => {
    const res = await t.command(admin, 'lead.qualify_many', { filter: byTag(tag), max_affected: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value).toEqual({ batch_id: expect.any(String), count: 3, ids, changes: ids.map((id) => ({ id, changes: { stage: { from: 'new', to: 'qualified' } } })) });
    expect(rows('select stage from lead where lost_reason = ? order by id', tag)).toEqual(Array(3).fill({ stage: 'qualified' }));
    const entries = rows('select id, record_id, kind, command from rms_history where batch_id = ? order by record_id', res.body.value.batch_id);
    expect(entries.map(({ record_id, kind, command }) => ({ record_id, kind, command }))).toEqual(ids.map((id) => ({ record_id: id, kind: 'action', command: 'lead.qualify_many' })));
    const audit = rows("select record_id, change_id, outcome, access from rms_audit where command = 'lead.qualify_many' and change_id is not null order by id desc limit 3");
    expect(audit.sort((a, b) => String(a.record_id).localeCompare(String(b.record_id)))).toEqual(entries.map((entry) => ({ record_id: entry.record_id, change_id: entry.id, outcome: 'executed', access: 'write' })));
    const history = await t.command(admin, 'lead.history', { id: ids[0] });
    expect(history.body.value.rows[0]).toMatchObject({ command: 'lead.qualify_many', batch_id: res.body.value.batch_id, changes: { stage: { from: 'new', to: 'qualified' } } });
  });

  it("takes the action's inputs in input, the same for every record, and checks them as the action does", async () => {
    const res = await t.command(admin, 'lead.lose_many', { ids, max_affected: 3, input: { lost_reason: 'Budget cut' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value.changes[0]).toEqual({ id: ids[0], changes: { stage: { from: 'new', to: 'lost' }, lost_reason: { from: tag, to: 'Budget cut' } } });
    expect(rows('select stage, lost_reason from lead where id in (?, ?, ?)', ...ids)).toEqual(Array(3).fill({ stage: 'lost', lost_reason: 'Budget cut' }));
  });

  it("refuses a record not in a state the action runs from, naming it, and undoes the records before it", async () => {
    await t.command(admin, 'lead.qualify', { id: ids[1] });
    const before = historyCount();
    const res = await t.command(admin, 'lead.qualify_many', { ids, max_affected: 3 });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: `lead.qualify_many record ${ids[1]}.stage is qualified; qualify needs new` } });
    expect(historyCount()).toBe(before);
    expect(rows('select id, stage from lead where lost_reason = ? order by id', tag)).toEqual([
      { id: ids[0], stage: 'new' },
      { id: ids[1], stage: 'qualified' },
      { id: ids[2], stage: 'new' },
    ]);
  });

  it.each([
    ['no selection', 'lead.qualify_many', { max_affected: 3 }, 400, 'lead.qualify_many needs a filter or ids'],
    ['a filter and ids', 'lead.qualify_many', { filter: [{ field: 'hot', op: 'eq', value: true }], ids: ['x'], max_affected: 3 }, 400, 'lead.qualify_many takes a filter or ids, not both'],
    ['no max_affected', 'lead.qualify_many', { ids: ['x'] }, 400, 'max_affected is required'],
    ['a required input missing', 'lead.lose_many', { ids: ['x'], max_affected: 1 }, 400, 'lead.lose_many input.lost_reason is required'],
    ['a field the action does not take', 'lead.qualify_many', { ids: ['x'], max_affected: 1, input: { title: 'x' } }, 400, 'lead.qualify_many does not take input.title'],
    ['an input that is no object', 'lead.lose_many', { ids: ['x'], max_affected: 1, input: 'Budget' }, 400, "input must be an object of the action's inputs"],
    ['an unknown record', 'lead.qualify_many', { ids: ['01M8452PGTZ3QHM2AWMARJ1NTB'], max_affected: 1 }, 400, 'lead.qualify_many record 01M8452PGTZ3QHM2AWMARJ1NTB: lead 01M8452PGTZ3QHM2AWMARJ1NTB not found'],
  ])('refuses %s', async (_case, command, input, status, error) => {
    const res = await t.command(admin, command, input);
    expect({ status: res.status, body: res.body }).toEqual({ status, body: { error } });
  });

  it('refuses more records than max_affected with 409, by filter and by ids, and changes nothing', async () => {
    const before = historyCount();
    const byFilter = await t.command(admin, 'lead.qualify_many', { filter: byTag(tag), max_affected: 2 });
    expect({ status: byFilter.status, body: byFilter.body }).toEqual({ status: 409, body: { error: 'lead.qualify_many would change 3 records, more than max_affected 2' } });
    const byIds = await t.command(admin, 'lead.qualify_many', { ids, max_affected: 1 });
    expect({ status: byIds.status, body: byIds.body }).toEqual({ status: 409, body: { error: 'lead.qualify_many would change 3 records, more than max_affected 1' } });
    expect(historyCount()).toBe(before);
    expect(rows('select stage from lead where lost_reason = ?', tag)).toEqual(Array(3).fill({ stage: 'new' }));
  });

  it.each([
    ['in the input', (input: Record<string, unknown>) => t.command(admin, 'lead.qualify_many', { ...input, dry_run: true })],
    ['as ?dry_run=true', (input: Record<string, unknown>) => t.request('POST', '/api/lead/qualify_many?dry_run=true', input, admin)],
  ])('a dry run (%s) answers the count, ids and each change, and writes nothing', async (_how, call) => {
    const before = historyCount();
    const res = await call({ filter: byTag(tag), max_affected: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ dry_run: true, denied: [], value: { batch_id: null, count: 3, ids, changes: ids.map((id) => ({ id, changes: { stage: { from: 'new', to: 'qualified' } } })) } });
    expect(historyCount()).toBe(before);
    expect(rows('select stage from lead where lost_reason = ?', tag)).toEqual(Array(3).fill({ stage: 'new' }));
  });

  it('is for whoever may run the action: a role that reads leads only has none (404), a role with the action has it', async () => {
    const denied = await t.command(accountant, 'lead.qualify_many', { ids, max_affected: 3 });
    expect({ status: denied.status, body: denied.body }).toEqual({ status: 404, body: { error: 'not found' } });
    const listed = (await t.request('GET', '/api/commands', undefined, accountant)).body.commands.map((command: { id: string }) => command.id);
    expect(listed.filter((id: string) => id.startsWith('lead.') && id.endsWith('_many'))).toEqual([]);
    const allowed = await t.command(sales, 'lead.qualify_many', { ids, max_affected: 3 });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
  });

  it('its batch is not reverted, as an action is not: revert_batch refuses it and changes nothing', async () => {
    const done = await t.command(admin, 'lead.qualify_many', { ids, max_affected: 3 });
    const batch = done.body.value.batch_id as string;
    const res = await t.command(admin, 'lead.revert_batch', { batch_id: batch });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: `batch ${batch} cannot be reverted` } });
    expect(rows('select stage from lead where lost_reason = ?', tag)).toEqual(Array(3).fill({ stage: 'qualified' }));
  });
});

describe('revert_batch', () => {
  it('puts back every record an update_many changed, as one batch of reverts; a second time is a conflict', async () => {
    const tag = freshTag();
    const ids = await makeLeads(tag, 2, { probability: 10 });
    const updated = await t.command(admin, 'lead.update_many', { ids, set: { probability: 80, hot: true }, max_affected: 2 });
    const entries = rows('select id from rms_history where batch_id = ? order by id', updated.body.value.batch_id).map((row) => row.id);
    const res = await t.command(admin, 'lead.revert_batch', { batch_id: updated.body.value.batch_id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value).toEqual({
      batch_id: expect.any(String),
      count: 2,
      ids,
      changes: ids.map((id) => ({ id, changes: { probability: { from: 80, to: 10 }, hot: { from: true, to: null } } })),
    });
    expect(rows('select probability, hot from lead where lost_reason = ? order by id', tag)).toEqual([
      { probability: 10, hot: null },
      { probability: 10, hot: null },
    ]);
    expect(rows('select record_id, command, reverts from rms_history where batch_id = ? order by id', res.body.value.batch_id)).toEqual(
      ids.map((id, i) => ({ record_id: id, command: 'lead.revert_batch', reverts: entries[i] })),
    );
    const again = await t.command(admin, 'lead.revert_batch', { batch_id: updated.body.value.batch_id });
    expect({ status: again.status, body: again.body }).toEqual({ status: 409, body: { error: `lead.revert_batch record ${ids[0]}: lead ${ids[0]} changed since change ${entries[0]}` } });
  });

  it("a batch with an entry the caller may not see is not found, naming no change it cannot see, and nothing is put back", async () => {
    const made = await t.command(admin, 'party.create_many', { records: [{ name: 'Tax one' }, { name: 'Tax two' }] });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const parties = made.body.value.ids as string[];
    // tax_id is unique: a batch of one party.
    const updated = await t.command(admin, 'party.update_many', { ids: parties.slice(0, 1), set: { tax_id: 'GB-9' }, max_affected: 1 });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const batchId = updated.body.value.batch_id as string;
    // sales does not read tax_id: the batch changed nothing it sees.
    const res = await t.command(sales, 'party.revert_batch', { batch_id: batchId });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: `batch ${batchId} not found` } });
    expect(rows('select tax_id from party where id in (?, ?) order by id', ...parties)).toEqual([{ tax_id: 'GB-9' }, { tax_id: null }]);
    expect((await t.command(admin, 'party.revert_batch', { batch_id: batchId })).status).toBe(200);
  });

  it('a dry run answers the reverts and puts nothing back', async () => {
    const tag = freshTag();
    const ids = await makeLeads(tag, 1);
    const updated = await t.command(admin, 'lead.update_many', { ids, set: { probability: 55 }, max_affected: 1 });
    const res = await t.command(admin, 'lead.revert_batch', { batch_id: updated.body.value.batch_id, dry_run: true });
    expect(res.body).toEqual({ dry_run: true, denied: [], value: { batch_id: null, count: 1, ids, changes: [{ id: ids[0], changes: { probability: { from: 55, to: null } } }] } });
    expect(rows('select probability from lead where id = ?', ids[0])).toEqual([{ probability: 55 }]);
  });

  it('a record changed since undoes the reverts before it', async () => {
    const tag = freshTag();
    const ids = await makeLeads(tag, 2);
    const updated = await t.command(admin, 'lead.update_many', { ids, set: { probability: 30 }, max_affected: 2 });
    await t.command(admin, 'lead.update', { id: ids[1], probability: 31 });
    const res = await t.command(admin, 'lead.revert_batch', { batch_id: updated.body.value.batch_id });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(new RegExp(`^lead.revert_batch record ${ids[1]}: lead ${ids[1]} changed since change `));
    expect(rows('select probability from lead where lost_reason = ? order by id', tag)).toEqual([{ probability: 30 }, { probability: 31 }]);
  });

  it.each([
    ['no batch_id', {}, 400, 'batch_id is required'],
    ['an unknown batch', { batch_id: 'NOPE' }, 400, 'batch NOPE not found'],
  ])('refuses %s', async (_case, input, status, error) => {
    const res = await t.command(admin, 'lead.revert_batch', input);
    expect({ status: res.status, body: res.body }).toEqual({ status, body: { error } });
  });

  it("refuses a batch of create_many or delete_many, and another model's batch", async () => {
    const created = await t.command(admin, 'lead.create_many', { records: [{ title: 'Not undone' }] });
    const batch = created.body.value.batch_id as string;
    expect((await t.command(admin, 'lead.revert_batch', { batch_id: batch })).body).toEqual({ error: `batch ${batch} cannot be reverted` });
    const other = await t.command(admin, 'party.revert_batch', { batch_id: batch });
    expect({ status: other.status, body: other.body }).toEqual({ status: 400, body: { error: `batch ${batch} not found` } });
  });
});

describe('agents', () => {
  const plan = async (planId: string, token = admin) => (await t.request('GET', `/api/plans/${planId}`, undefined, token)).body.plan;
  const approve = (planId: string) => t.request('POST', `/api/approve/${planId}`, undefined, admin);

  it('have every bulk command but revert_batch, each needing approval; an action brings its bulk command', async () => {
    const res = await t.command(agent, 'lead.revert_batch', { batch_id: 'x' });
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: 'not found' } });
    const listed = await t.request('GET', '/api/commands', undefined, agent);
    const bulk = (listed.body.commands as { id: string; needs_approval: boolean }[]).filter((command) => /_(many|batch)$/.test(command.id));
    expect(bulk).toEqual(
      ['party.create_many', 'party.update_many', 'party.delete_many', 'lead.create_many', 'lead.update_many', 'lead.delete_many', 'lead.qualify_many', 'lead.win_many', 'lead.lose_many'].map((id) => expect.objectContaining({ id, needs_approval: true })),
    );
    const qualifier = await agentToken(t, admin, ['lead.qualify', 'lead.create'], 'qualifier');
    const own = (await t.request('GET', '/api/commands', undefined, qualifier)).body.commands.map((command: { id: string }) => command.id);
    expect(own).toEqual(['lead.create', 'lead.qualify', 'lead.create_many', 'lead.qualify_many']);
  });

  it("an agent's create_many is one plan listing every record as the agent gave it, personal values as its tokens; approved, it creates them", async () => {
    const known = (await t.command(agent, 'party.get', { id: party })).body.value.name as string;
    const proposed = await t.command(agent, 'party.create_many', { records: [{ name: 'Clear Name', notes: 'clear note' }, { name: known }] });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    const asAgent = await plan(proposed.body.plan_id, agent);
    expect(asAgent.input.records).toEqual([{ name: expect.stringMatching(/^NAME_\d+$/), notes: expect.stringMatching(/^NOTES_\d+$/) }, { name: known }]);
    expect(JSON.stringify(asAgent)).not.toContain('Clear Name');
    const asPerson = await plan(proposed.body.plan_id);
    expect(asPerson.input.records).toEqual([{ name: 'Clear Name', notes: 'clear note' }, { name: 'Acme' }]);
    expect(count("select count(*) as n from party where name = 'Clear Name'")).toBe(0);
    const approved = await approve(proposed.body.plan_id);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const ids = approved.body.value.ids as string[];
    expect(rows('select name, notes from party where id in (?, ?) order by id', ...ids)).toEqual([{ name: 'Clear Name', notes: 'clear note' }, { name: 'Acme', notes: null }]);
    expect(rows('select command, plan_id, agent_label from rms_history where batch_id = ?', approved.body.value.batch_id)).toEqual(
      ids.map(() => ({ command: 'party.create_many', plan_id: proposed.body.plan_id, agent_label: 'bulk-bot' })),
    );
    // The agent reads back the values it wrote by the tokens its plan showed it.
    const read = await t.command(agent, 'party.get', { id: ids[0] });
    expect(read.body.value).toMatchObject({ name: asAgent.input.records[0].name, notes: asAgent.input.records[0].notes });
    expect((await t.command(agent, 'party.get', { id: ids[1] })).body.value.name).toBe(known);
  });

  it.each([
    ['update_many', (ids: string[]) => ({ ids, set: { probability: 70 }, max_affected: 2 }), { probability: 70, stage: 'new' }],
    ['qualify_many', (ids: string[]) => ({ ids, max_affected: 2 }), { probability: null, stage: 'qualified' }],
    ['lose_many', (ids: string[]) => ({ ids, max_affected: 2, input: { lost_reason: 'Gone quiet' } }), { probability: null, stage: 'lost' }],
  ])("an agent's %s is one plan of the ids it selects and the change; approved, it makes it on each in one batch", async (name, input, after) => {
    const tag = freshTag();
    const ids = await makeLeads(tag, 2);
    const proposed = await t.command(agent, `lead.${name}`, input(ids));
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    expect((await plan(proposed.body.plan_id)).input).toEqual(input(ids));
    expect(rows('select probability, stage from lead where id in (?, ?)', ...ids)).toEqual(Array(2).fill({ probability: null, stage: 'new' }));
    const approved = await approve(proposed.body.plan_id);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.value.ids).toEqual(ids);
    expect(rows('select probability, stage from lead where id in (?, ?)', ...ids)).toEqual(Array(2).fill(after));
    expect(rows('select command, plan_id from rms_history where batch_id = ?', approved.body.value.batch_id)).toEqual(ids.map(() => ({ command: `lead.${name}`, plan_id: proposed.body.plan_id })));
  });

  it("a filter becomes the ids it selects when the plan is made; a record no longer in the action's state fails the plan, naming it, and changes nothing", async () => {
    const tag = freshTag();
    const ids = await makeLeads(tag, 2);
    const proposed = await t.command(agent, 'lead.qualify_many', { filter: byTag(tag), max_affected: 5 });
    expect((await plan(proposed.body.plan_id)).input).toEqual({ ids, max_affected: 5 });
    await t.command(admin, 'lead.qualify', { id: ids[1] });
    const approved = await approve(proposed.body.plan_id);
    expect({ status: approved.status, body: approved.body }).toEqual({ status: 400, body: { error: `lead.qualify_many record ${ids[1]}.stage is qualified; qualify needs new` } });
    expect((await plan(proposed.body.plan_id)).status).toBe('failed');
    expect(rows('select id, stage from lead where lost_reason = ? order by id', tag)).toEqual([{ id: ids[0], stage: 'new' }, { id: ids[1], stage: 'qualified' }]);
  });

  it("an agent's dry run answers the change as the agent reads it, without a plan, asked in the input or the query alike", async () => {
    const before = count('select count(*) as n from rms_plans');
    const inInput = await t.command(agent, 'party.create_many', { records: [{ name: 'Dry Name' }], dry_run: true });
    const inQuery = await t.request('POST', '/api/party/create_many?dry_run=true', { records: [{ name: 'Dry Name' }] }, agent);
    const inBoth = await t.request('POST', '/api/party/create_many?dry_run=true', { records: [{ name: 'Dry Name' }], dry_run: true }, agent);
    for (const res of [inInput, inQuery, inBoth]) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ dry_run: true, value: { batch_id: null, count: 1 } });
      // A value sent in clear keeps no token in a dry run: a token shown would later stand for another value.
      expect(res.body.value.changes[0].changes.name).toEqual({ from: null, to: '[personal value not kept]' });
    }
    expect(count('select count(*) as n from rms_plans')).toBe(before);
  });

  it.each([
    ['delete_many', { ids: ['A'], max_affected: 101 }, 'max_affected may be at most 100 for an agent'],
    ['update_many', { ids: ['A'], set: { probability: 1 }, max_affected: 101 }, 'max_affected may be at most 100 for an agent'],
    ['qualify_many', { ids: ['A'], max_affected: 101 }, 'max_affected may be at most 100 for an agent'],
    ['create_many', { records: Array.from({ length: 101 }, (_, i) => ({ title: `T${i}` })) }, 'lead.create_many may create at most 100 records for an agent'],
  ])("an agent's %s is capped at 100 records by default", async (name, input, error) => {
    const res = await t.command(agent, `lead.${name}`, input);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
  });

  it("a token's own max_affected caps its bulk commands: set when it is made, changed later; only an admin goes past 100", async () => {
    const made = await t.request('POST', '/api/auth/agent-token', { scopes: ['lead.*'], label: 'capped', max_affected: 2 }, admin);
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.max_affected).toBe(2);
    const capped = made.body.token as string;
    const tag = freshTag();
    const ids = await makeLeads(tag, 3);
    const over = await t.command(capped, 'lead.update_many', { ids, set: { probability: 5 }, max_affected: 3 });
    expect({ status: over.status, body: over.body }).toEqual({ status: 400, body: { error: 'max_affected may be at most 2 for an agent' } });
    const tooMany = await t.command(capped, 'lead.create_many', { records: [{ title: 'a' }, { title: 'b' }, { title: 'c' }] });
    expect({ status: tooMany.status, body: tooMany.body }).toEqual({ status: 400, body: { error: 'lead.create_many may create at most 2 records for an agent' } });
    // Within the cap: one plan, approved as proposed.
    const within = await t.command(capped, 'lead.update_many', { ids: ids.slice(0, 2), set: { probability: 5 }, max_affected: 2 });
    expect(within.status).toBe(202);
    expect((await approve(within.body.plan_id)).status).toBe(200);
    expect(rows('select probability from lead where lost_reason = ? order by id', tag)).toEqual([{ probability: 5 }, { probability: 5 }, { probability: null }]);

    const raised = await t.request('POST', '/api/auth/agent-token/update', { id: made.body.id, max_affected: 500 }, admin);
    expect({ status: raised.status, body: raised.body }).toEqual({ status: 200, body: { id: made.body.id, max_affected: 500 } });
    expect((await t.command(capped, 'lead.update_many', { ids, set: { probability: 6 }, max_affected: 400 })).status).toBe(202);
    const listed = (await t.request('GET', '/api/auth/agent-tokens', undefined, admin)).body.tokens.find((token: { id: string }) => token.id === made.body.id);
    expect(listed.max_affected).toBe(500);
    const reset = await t.request('POST', '/api/auth/agent-token/update', { id: made.body.id, max_affected: null }, admin);
    expect(reset.body).toEqual({ id: made.body.id, max_affected: 100 });
    const back = await t.command(capped, 'lead.update_many', { ids, set: { probability: 6 }, max_affected: 101 });
    expect(back.body).toEqual({ error: 'max_affected may be at most 100 for an agent' });
  });

  it.each([
    ['a person who is not an admin going past 100', () => sales, { scopes: ['lead.*'], label: 'x', max_affected: 101 }, 'max_affected may be at most 100 (only an admin may give a token more)'],
    ['0', () => admin, { scopes: ['lead.*'], label: 'x', max_affected: 0 }, 'max_affected must be an integer from 1 to 10000'],
    ['a fraction', () => admin, { scopes: ['lead.*'], label: 'x', max_affected: 1.5 }, 'max_affected must be an integer from 1 to 10000'],
    ['over 10,000', () => admin, { scopes: ['lead.*'], label: 'x', max_affected: 10001 }, 'max_affected must be an integer from 1 to 10000'],
    ['a string', () => admin, { scopes: ['lead.*'], label: 'x', max_affected: '5' }, 'max_affected must be an integer from 1 to 10000'],
  ])("a token's max_affected refuses %s", async (_case, who, body, error) => {
    const res = await t.request('POST', '/api/auth/agent-token', body, who());
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
  });

  it("updating a token's max_affected: the owner's own or, for an admin, anyone's; refusals change nothing", async () => {
    const mine = (await t.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'sales own' }, sales)).body.id as string;
    const admins = (await t.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'admin own' }, admin)).body.id as string;
    expect((await t.request('POST', '/api/auth/agent-token/update', { id: mine, max_affected: 50 }, sales)).body).toEqual({ id: mine, max_affected: 50 });
    const cases: [string, unknown, number, unknown][] = [
      ["another person's token", { id: admins, max_affected: 5 }, 404, { error: 'not found' }],
      ['no max_affected', { id: mine }, 400, { error: 'max_affected is required (null for the default)' }],
      ['no id', { max_affected: 5 }, 400, { error: 'id is required' }],
      ['an unknown key', { id: mine, max_affected: 5, label: 'x' }, 400, { error: 'unknown key label' }],
      ['past 100', { id: mine, max_affected: 101 }, 400, { error: 'max_affected may be at most 100 (only an admin may give a token more)' }],
    ];
    for (const [what, body, status, answer] of cases) {
      const res = await t.request('POST', '/api/auth/agent-token/update', body, sales);
      expect({ status: res.status, body: res.body }, what).toEqual({ status, body: answer });
    }
    expect(rows('select max_affected from rms_tokens where id in (?, ?) order by id', mine, admins).map((row) => row.max_affected).sort()).toEqual([50, null].sort());
    const byAgent = await t.request('POST', '/api/auth/agent-token/update', { id: mine, max_affected: 5 }, agent);
    expect(byAgent.status).toBe(404);
  });
});

describe('refusals name the record and the field as the single command would, and change nothing', () => {
  const orderOf = (overrides: Record<string, unknown>) => ({ number: `BK-${7000 + ++tagNumber}`, customer: party, items: [{ description: 'Item', quantity: 1, unit_price: 100 }], ...overrides });

  it("an action's input is named as input.<name>, an input the action does not take by the bulk command", async () => {
    const orders = (await t.command(admin, 'order.create_many', { records: [orderOf({}), orderOf({})] })).body.value.ids as string[];
    const cases: [string, Record<string, unknown>, string][] = [
      ['order.cancel_many', { ids: orders, max_affected: 2 }, 'order.cancel_many input.reason is required'],
      ['order.cancel_many', { ids: orders, max_affected: 2, input: { reason: 5 } }, 'order.cancel_many input.reason must be a string'],
      ['order.cancel_many', { ids: orders, max_affected: 2, input: { reason: 'x', number: 'AB-1234' } }, 'order.cancel_many does not take input.number'],
    ];
    for (const [command, input, error] of cases) {
      const res = await t.command(admin, command, input);
      expect({ status: res.status, body: res.body }, command).toEqual({ status: 400, body: { error } });
    }
    expect(rows(`select status from "order" where id in (?, ?)`, ...orders)).toEqual([{ status: 'draft' }, { status: 'draft' }]);
    const leads = await makeLeads(freshTag(), 2);
    const lose = await t.command(admin, 'lead.lose_many', { ids: leads, max_affected: 2, input: { lost_reason: 'x', title: 'y' } });
    expect(lose.body).toEqual({ error: 'lead.lose_many does not take input.title' });
  });

  it("a rule's refusal keeps the fields it reads, for a record of create_many and for update_many's set", async () => {
    const created = await t.command(admin, 'order.create_many', { records: [orderOf({}), orderOf({ ordered_on: '2026-05-02', deliver_by: '2026-05-01' })] });
    expect({ status: created.status, body: created.body }).toEqual({
      status: 400,
      body: { error: 'order.create_many records[1]: order: deliver by must be on or after the order date', fields: ['deliver_by'] },
    });
    const ids = (await t.command(admin, 'order.create_many', { records: [orderOf({ ordered_on: '2026-05-02' })] })).body.value.ids as string[];
    const updated = await t.command(admin, 'order.update_many', { ids, set: { deliver_by: '2026-05-01' }, max_affected: 1 });
    expect({ status: updated.status, body: updated.body }).toEqual({
      status: 400,
      body: { error: `order.update_many record ${ids[0]}: order: deliver by must be on or after the order date`, fields: ['deliver_by'] },
    });
  });

  it('a __proto__ key in set, in input or in a record is an unknown field, not dropped', async () => {
    const ids = await makeLeads(freshTag(), 1);
    const before = rows('select * from lead where id = ?', ids[0]);
    const cases: [string, string, string][] = [
      ['lead.update_many', `{"ids":["${ids[0]}"],"max_affected":1,"set":{"__proto__":{"title":null},"hot":false}}`, 'unknown field lead.update_many set.__proto__'],
      ['lead.lose_many', `{"ids":["${ids[0]}"],"max_affected":1,"input":{"__proto__":{"title":"x"},"lost_reason":"r"}}`, 'unknown field lead.lose_many input.__proto__'],
      ['lead.create_many', '{"records":[{"title":"ok"},{"__proto__":{"stage":"won"},"title":"t"}]}', 'unknown field lead.create_many records[1].__proto__'],
    ];
    for (const [command, body, error] of cases) {
      const res = await t.request('POST', `/api/${command.replace('.', '/')}`, body, admin);
      expect({ status: res.status, body: res.body }, command).toEqual({ status: 400, body: { error } });
    }
    expect(rows('select * from lead where id = ?', ids[0])).toEqual(before);
  });

  it('each id of ids is named by its place', async () => {
    const ids = await makeLeads(freshTag(), 1);
    const cases: [unknown[], string][] = [
      [[ids[0], 5], 'ids[1] must be a string'],
      [[null], 'ids[0] is required'],
      [[ids[0], ''], 'ids[1] is required'],
    ];
    for (const [given, error] of cases) {
      const res = await t.command(admin, 'lead.update_many', { ids: given, set: { hot: true }, max_affected: 2 });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
    }
  });

  it('a batch that changed no record has no batch id (there is nothing to find or put back)', async () => {
    const tag = freshTag();
    const ids = await makeLeads(tag, 2, { hot: true });
    const none = await t.command(admin, 'lead.update_many', { filter: [{ field: 'lost_reason', op: 'eq', value: `${tag}-none` }], set: { hot: false }, max_affected: 5 });
    expect(none.body.value).toEqual({ batch_id: null, count: 0, ids: [], changes: [] });
    const same = await t.command(admin, 'lead.update_many', { ids, set: { hot: true }, max_affected: 2 });
    expect(same.body.value).toEqual({ batch_id: null, count: 2, ids, changes: ids.map((id) => ({ id, changes: {} })) });
    const deleted = await t.command(admin, 'lead.delete_many', { filter: [{ field: 'lost_reason', op: 'eq', value: `${tag}-none` }], max_affected: 5 });
    expect(deleted.body.value.batch_id).toBeNull();
  });

  it("an agent's token that is not its own names the record it is in", async () => {
    const res = await t.command(agent, 'party.create_many', { records: [{ name: 'Fine' }, { name: 'NAME_999' }] });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'party.create_many records[1]: invalid token' } });
  });

  it('an agent token scoped to revert_batch alone is refused: it would grant nothing', async () => {
    for (const scope of ['lead.revert_batch', '*.revert_batch']) {
      const res = await t.request('POST', '/api/auth/agent-token', { label: 'rb', scopes: [scope] }, admin);
      expect({ status: res.status, body: res.body }, scope).toEqual({ status: 400, body: { error: `scope ${scope} matches only commands no agent may use` } });
    }
  });
});
