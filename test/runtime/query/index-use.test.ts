/**
 * Index use on a real database (SQLite here, PostgreSQL under RMS_TEST_PG_URL): declared indexes
 * serve the orders and filters they are declared for (proved with the query plan), `contains` on a
 * search field goes through its trigram index with exactly the semantics of a scan, unique fields
 * are enforced by the database, and keyset paging walks a list as offset paging does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledList } from '../../../runtime/query/list-query.ts';
import { compileList, compileModelQuery, listStatement } from '../../../runtime/query/list-query.ts';
import type { ListInput } from '../../../runtime/kinds.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const LEADS = 4000;

let t: TestServer;
let admin: string;

const STAGES = ['new', 'qualified', 'won', 'lost'] as const;
const TITLES = ['Ärger im Büro', 'x_y%z\\w', 'İstanbul deal', 'straße project', 'Plain lead', 'ÉCOLE привет'];

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  const { db, service } = t.server;
  const lead = service.models.get('lead')!;
  await db.transaction(async (trx) => {
    for (let i = 0; i < LEADS; i++) {
      await lead.queries.insert(trx, {
        id: `L${String(i).padStart(6, '0')}`,
        title: `${TITLES[i % TITLES.length]} ${i}`,
        party: null,
        stage: STAGES[i % 4],
        expected_revenue: i % 7 === 0 ? null : (i * 7919) % 10_000,
        probability: i % 100,
        close_date: i % 5 === 0 ? null : `202${i % 6}-0${1 + (i % 9)}-1${i % 9}`,
        hot: i % 3 === 0 ? null : i % 2 === 0,
        notes: i % 11 === 0 ? `note ${i} with 50% off` : null,
        lost_reason: null,
      } as never);
    }
  });
  await db.raw(t.dialect === 'postgres' ? 'analyze' : 'analyze');
});

afterAll(async () => {
  await t?.close();
});

function compiled(input: ListInput, name = 'lead'): CompiledList {
  const model = t.server.service.registry.models[name]!;
  const query = compileModelQuery(model, t.dialect);
  const lineNames = new Map(model.lines.map((list) => [list.name, new Set(list.fields.map((field) => field.name))]));
  return compileList(query, new Set(model.fields.map((field) => field.name)), input, undefined, lineNames);
}

/** The database's plan of the list statement the runtime would run, as text. */
async function plan(input: ListInput, model = 'lead'): Promise<string> {
  const { sql, bindings } = listStatement(`select * from "${model}"`, compiled(input, model), t.dialect);
  const { db } = t.server;
  if (t.dialect === 'sqlite') {
    const rows = (await db.raw(`explain query plan ${sql}`, bindings as never)) as { detail: string }[];
    return rows.map((row) => row.detail).join('\n');
  }
  // On a table this small PostgreSQL may prefer a scan and a sort; with those priced out it shows
  // whether an index can give the rows in order at all.
  return db.transaction(async (trx) => {
    await trx.raw('set local enable_seqscan = off');
    await trx.raw('set local enable_sort = off');
    const result = (await trx.raw(`explain ${sql}`, bindings as never)) as { rows: { 'QUERY PLAN': string }[] };
    return result.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** PostgreSQL: what each Sort node of a plan sorts: `page` for a part's page (`Subquery Scan on partN`), else the node it sorts. */
function sortedInputs(text: string): string[] {
  const lines = text.split('\n').map((line) => line.trim().replace(/^->\s*/, ''));
  const sorted: string[] = [];
  lines.forEach((line, i) => {
    if (!/^Sort\s+\(/.test(line)) return;
    const input = lines.slice(i + 1).find((next) => !/^Sort (Key|Method):/.test(next)) ?? '';
    sorted.push(/^Subquery Scan on part\d/.test(input) ? 'page' : input);
  });
  return sorted;
}

/**
 * SQLite's plan of a page whose ids come from an index first (an order whose keys go different
 * ways, runtime/query/list-query.ts): the rows by id, the ids' query, and last the sort of the
 * page's own rows.
 */
const IDS_FIRST = /^SEARCH \w+ USING INDEX sqlite_autoindex_\w+_1 \(id=\?\)\nLIST SUBQUERY \d+\n([^]*?)(\nUSE TEMP B-TREE FOR ORDER BY)?$/;

/** Whether the plan sorts whole results (a sort only of ties, the id tie-break, or of a page's rows read by id, is fine). */
function sortsEverything(text: string): boolean {
  if (t.dialect === 'sqlite') return /USE TEMP B-TREE FOR ORDER BY/.test(IDS_FIRST.exec(text)?.[1] ?? text);
  return /^\s*(->\s*)?Sort\b/m.test(text) && !/Incremental Sort/.test(text);
}

describe('the query plan uses the declared indexes', () => {
  it.each([
    ['stage = won, by expected revenue descending', { filter: [{ field: 'stage', op: 'eq', value: 'won' }], order: [{ field: 'expected_revenue', dir: 'desc' }], limit: 50 }, 'rms_ix_lead_stage_expected_revenue'],
    ['stage = won, by expected revenue ascending', { filter: [{ field: 'stage', op: 'eq', value: 'won' }], order: [{ field: 'expected_revenue' }], limit: 50 }, 'rms_ix_lead_stage_expected_revenue'],
    ['hot and closing from a date, by close date', { filter: [{ field: 'hot', op: 'eq', value: true }, { field: 'close_date', op: 'gte', value: '2022-01-01' }], order: [{ field: 'close_date' }], limit: 50 }, 'rms_ix_lead_hot_close_date'],
    ['everything by close date descending', { order: [{ field: 'close_date', dir: 'desc' }], limit: 50 }, 'rms_ix_lead_close_date'],
    ['everything by close date ascending, deep', { order: [{ field: 'close_date' }], limit: 50, offset: 3000 }, 'rms_ix_lead_close_date'],
  ] as [string, ListInput, string][])('%s', async (_name, input, index) => {
    const text = await plan(input);
    expect(text).toContain(index);
    expect(sortsEverything(text), text).toBe(false);
  });

  it('a page whose order goes two ways (a key descending, ties by ascending id) reads its ids from the index alone, even past a deep offset', async () => {
    for (const input of [
      { order: [{ field: 'close_date', dir: 'desc' }], limit: 50 },
      { order: [{ field: 'close_date', dir: 'desc' }], limit: 50, offset: 3000 },
      { filter: [{ field: 'stage', op: 'eq', value: 'won' }], order: [{ field: 'expected_revenue', dir: 'desc' }], limit: 50, offset: 100 },
    ] as ListInput[]) {
      const text = await plan(input);
      if (t.dialect === 'sqlite') {
        // Sorting the rows of each run of equal values read them whole, and every row an offset
        // skips: 7.6 s for a page at 90 % of a million leads, against 0.36 s this way.
        expect(text, text).toMatch(IDS_FIRST);
        expect(text, text).toMatch(/USING COVERING INDEX rms_ix_lead_/);
      } else {
        expect(sortsEverything(text), text).toBe(false);
      }
      const all = (await t.command(admin, 'lead.list', { ...input, limit: 5000, offset: undefined })).body.value as { id: string }[];
      const page = (await t.command(admin, 'lead.list', input)).body.value as { id: string }[];
      expect(page.map((lead) => lead.id)).toEqual(all.slice(input.offset ?? 0, (input.offset ?? 0) + 50).map((lead) => lead.id));
    }
  });

  it('a keyset page starts inside the index, for either direction: every part is a range of it, only a page is sorted', async () => {
    for (const dir of ['asc', 'desc'] as const) {
      const first = await t.command(admin, 'lead.list', { order: [{ field: 'close_date', dir }], limit: 20, after: '' });
      const text = await plan({ order: [{ field: 'close_date', dir }], limit: 20, after: first.body.next });
      // The lead table is only ever read through the index, from where the page starts; what is
      // sorted are the parts' pages (SQLite: `SCAN (subquery…)`), never the table.
      expect(text, text).toContain('rms_ix_lead_close_date');
      if (t.dialect === 'sqlite') {
        expect(text, text).not.toMatch(/SCAN lead\b/);
        expect(text.match(/SEARCH lead USING (COVERING )?INDEX rms_ix_lead_close_date \(close_date[<>=]/g)?.length, text).toBe(3);
        if (dir === 'desc') {
          // Past the last close date, by close date descending and id ascending: the index gives
          // each date's ids the other way, so they are sorted from the index alone, and only the
          // page's rows are read, by id (not every row of a date to sort them).
          expect(text, text).toMatch(/SEARCH lead USING COVERING INDEX rms_ix_lead_close_date \(close_date<\?\)/);
          expect(text, text).toMatch(/SEARCH lead USING INDEX sqlite_autoindex_lead_1 \(id=\?\)/);
        }
      } else {
        expect(text, text).not.toMatch(/Seq Scan on lead/);
        // A sort there is of a part's page (a subquery with a limit), never of the rows of the table.
        expect(sortedInputs(text), text).toEqual(sortedInputs(text).map(() => 'page'));
      }
    }
  });

  it('a page in the default order reads the ids in order, of a model with search fields or without', async () => {
    // On PostgreSQL the primary key keeps the database's collation, and lists order ids byte by
    // byte: a model without search fields had no index of that order, and each page sorted the
    // whole table (200,000 orders: 155-215 ms a page, found by a probe).
    for (const model of ['lead', 'order']) {
      for (const input of [{ limit: 50 }, { limit: 50, offset: 100 }] as ListInput[]) {
        const text = await plan(input, model);
        expect(sortsEverything(text), text).toBe(false);
        if (t.dialect === 'postgres') expect(text, text).toContain(`rms_ix_${model}_id`);
      }
    }
  });

  it("a line field's own index serves eq and in on it (PostgreSQL: compared byte by byte, as the index is built)", async () => {
    for (const condition of [
      { field: 'items.description', op: 'eq', value: 'Widget' },
      { field: 'items.description', op: 'in', value: ['Widget', 'Gadget'] },
    ] as NonNullable<ListInput['filter']>) {
      if (t.dialect === 'sqlite') {
        expect(await plan({ filter: [condition], limit: 50 }, 'order')).toMatch(/SEARCH order__items USING (COVERING )?INDEX rms_ix_order__items_description \(description=/);
        continue;
      }
      // The lines the condition selects, as the list statement asks for them (no orders here: how
      // the planner joins them to their orders is its choice on an empty table).
      const { sql, bindings } = listStatement('select * from "order"', compiled({ filter: [condition], limit: 50 }, 'order'), t.dialect);
      const lines = /IN \((SELECT "owner" FROM "order__items" WHERE .*?)\) order by/.exec(sql)![1]!;
      const text = await t.server.db.transaction(async (trx) => {
        await trx.raw('set local enable_seqscan = off');
        const result = (await trx.raw(`explain ${lines}`, bindings.slice(0, -1) as never)) as { rows: { 'QUERY PLAN': string }[] };
        return result.rows.map((row) => row['QUERY PLAN']).join('\n');
      });
      expect(text, text).toMatch(/Index (Only )?Scan using rms_ix_order__items_description on order__items[^\n]*\n\s*Index Cond: \(\(?description\)?/);
    }
  });

  // Which index `contains` on a search field uses depends on how many rows hold the needle: see contains-plan.test.ts.
});

describe('contains through the search index means what a scan means', () => {
  const titles = async (value: string) => {
    const res = await t.command(admin, 'lead.search', { filter: [{ field: 'title', op: 'contains', value }], order: [{ field: 'id' }] });
    expect(res.status).toBe(200);
    return res.body.value.rows.map((row: { title: string }) => row.title) as string[];
  };
  /** What a scan in JavaScript finds: the folding of JavaScript's toLowerCase. */
  const expected = (value: string) =>
    Array.from({ length: LEADS }, (_, i) => `${TITLES[i % TITLES.length]} ${i}`).filter((title) => title.toLowerCase().includes(value.toLowerCase()));

  it.each(['lead 39', 'ÄRGER', 'ärger im', 'x_y%z', '%z\\w', '_y', 'straße', 'STRASSE', 'i̇stanbul', 'école', 'привет 4', 'ab', 'w', 'project 3999', 'no such thing'])(
    '%j',
    async (value) => {
      expect(await titles(value)).toEqual(expected(value));
    },
  );

  it('sees writes at once: created, changed and deleted in the same call', async () => {
    const made = await t.command(admin, 'lead.create', { title: 'Freshly indexed zebra' });
    expect(await titles('ly indexed zeb')).toEqual(['Freshly indexed zebra']);
    await t.command(admin, 'lead.update', { id: made.body.value.id, title: 'Renamed quagga' });
    expect(await titles('indexed zeb')).toEqual([]);
    expect(await titles('QUAGGA')).toEqual(['Renamed quagga']);
    await t.command(admin, 'lead.delete', { id: made.body.value.id });
    expect(await titles('quagga')).toEqual([]);
  });
});

describe('keyset paging walks a list as offset paging does', () => {
  async function walk(input: Omit<ListInput, 'after' | 'offset'>, command = 'lead.list'): Promise<string[]> {
    const ids: string[] = [];
    let after = '';
    for (let pages = 0; pages < 1000; pages++) {
      const res = await t.command(admin, command, { ...input, after });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const rows = (command === 'lead.search' ? res.body.value.rows : res.body.value) as { id: string }[];
      ids.push(...rows.map((row) => row.id));
      if (res.body.next === undefined) return ids;
      after = res.body.next;
    }
    throw new Error('did not end');
  }
  async function all(input: Omit<ListInput, 'after' | 'offset'>): Promise<string[]> {
    const res = await t.command(admin, 'lead.list', { ...input, limit: undefined });
    return (res.body.value as { id: string }[]).map((row) => row.id);
  }

  it.each([
    ['by id', {}],
    ['by close date descending (empty ones last)', { order: [{ field: 'close_date', dir: 'desc' }] }],
    ['by close date ascending', { order: [{ field: 'close_date' }] }],
    ['by expected revenue, filtered on stage', { filter: [{ field: 'stage', op: 'eq', value: 'won' }], order: [{ field: 'expected_revenue', dir: 'desc' }] }],
    ['by two keys', { order: [{ field: 'hot', dir: 'desc' }, { field: 'probability' }] }],
    ['by text', { order: [{ field: 'title', dir: 'desc' }] }],
    ['by id descending', { order: [{ field: 'id', dir: 'desc' }] }],
  ] as [string, Omit<ListInput, 'after' | 'offset'>][])('%s', async (_name, input) => {
    const walked = await walk({ ...input, limit: 97 });
    expect(walked).toEqual(await all(input));
    expect(new Set(walked).size).toBe(walked.length);
  });

  it('search pages carry next too, and total counts every match', async () => {
    const input: Omit<ListInput, 'after' | 'offset'> = { filter: [{ field: 'stage', op: 'eq', value: 'lost' }], order: [{ field: 'expected_revenue' }], limit: 250 };
    const first = await t.command(admin, 'lead.search', { ...input, after: '' });
    const second = await t.command(admin, 'lead.search', { ...input, after: first.body.next });
    expect(second.body.value.total).toBe(first.body.value.total);
    expect(second.body.value.total).toBe(LEADS / 4);
    expect(await walk(input, 'lead.search')).toEqual(await all({ filter: input.filter, order: input.order }));
  });

  it('has no next on the last page, and none without after', async () => {
    const everything = await t.command(admin, 'lead.list', { limit: 5000, after: '' });
    expect(everything.body.next).toBeUndefined();
    expect(Object.keys(everything.body)).toEqual(['denied', 'value']);
    const plain = await t.command(admin, 'lead.list', { limit: 5 });
    expect(Object.keys(plain.body)).toEqual(['denied', 'value']);
  });

  it.each([
    [{ after: 'nonsense', limit: 5 }, 'after must be "" or the next of the page before'],
    [{ after: Buffer.from('{"o":"id:a","v":[5]}').toString('base64url'), limit: 5 }, 'after must be "" or the next of the page before'],
    [{ after: '', offset: 5, limit: 5 }, 'after and offset cannot be used together: after continues where the last page ended'],
    [{ after: 5, limit: 5 }, 'after must be a string'],
  ])('%j → 400', async (input, error) => {
    const res = await t.command(admin, 'lead.list', input);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });

  it('refuses a cursor of another order', async () => {
    const first = await t.command(admin, 'lead.list', { order: [{ field: 'close_date' }], limit: 5, after: '' });
    const res = await t.command(admin, 'lead.list', { order: [{ field: 'close_date', dir: 'desc' }], limit: 5, after: first.body.next });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'after belongs to another order: keep the order of the page it came from' });
  });
});

describe('unique fields', () => {
  let party: string;
  beforeAll(async () => {
    party = (await t.command(admin, 'party.create', { name: 'Billed' })).body.value.id;
  });
  const invoice = (number: string) => t.command(admin, 'invoice.create', { number, party, amount: 100, issue_date: '2026-11-01' });

  it('refuses a repeated value on create and on update, naming the field, and stores nothing', async () => {
    expect((await invoice('INV-U1')).status).toBe(200);
    const again = await invoice('INV-U1');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: 'invoice.number must be unique' });
    const other = await invoice('INV-U2');
    const update = await t.command(admin, 'invoice.update', { id: other.body.value.id, number: 'INV-U1' });
    expect(update).toMatchObject({ status: 400, body: { error: 'invoice.number must be unique' } });
    expect(t.inspect((db) => db.prepare("select count(*) as n from invoice where number like 'INV-U%'").get())).toEqual({ n: 2 });
  });

  it('lets empty values repeat', async () => {
    for (const name of ['No tax id 1', 'No tax id 2', 'No tax id 3']) expect((await t.command(admin, 'party.create', { name })).status).toBe(200);
    const first = await t.command(admin, 'party.create', { name: 'Taxed', tax_id: 'DE123' });
    expect(first.status).toBe(200);
    expect((await t.command(admin, 'party.create', { name: 'Taxed twice', tax_id: 'DE123' })).body).toEqual({ error: 'party.tax_id must be unique' });
    expect((await t.command(admin, 'party.update', { id: first.body.value.id, tax_id: null })).status).toBe(200);
    expect((await t.command(admin, 'party.create', { name: 'Taxed twice', tax_id: 'DE123' })).status).toBe(200);
  });

  it('lets exactly one of many simultaneous creates of a value through', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => invoice('INV-RACE')));
    expect(results.filter((res) => res.status === 200)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) expect(res.body).toEqual({ error: 'invoice.number must be unique' });
  });
});
