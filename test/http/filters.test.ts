/**
 * `list` and `search` (SPEC 4.5): every operator and its empty-value rule, `contains` with
 * wildcards and Unicode case, ordering with empty values last, id tie-breaks, paging and limits.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let admin: string;
const ids: Record<string, string> = {};

/** Seeds with empty values on purpose: every rule about empties needs them. */
const SEED: [string, Record<string, unknown>][] = [
  ['L1', { title: 'Alpha', probability: 10, expected_revenue: 1000, close_date: '2025-01-10', hot: true, notes: 'ÉCOLE du Nord', party: 'P1' }],
  ['L2', { title: 'beta 100%', probability: 20, expected_revenue: 2000, close_date: '2025-02-01', hot: false, notes: 'petite école', party: 'P1' }],
  ['L3', { title: 'Gamma_x' }],
  ['L4', { title: 'back\\slash', probability: 30, hot: true, notes: 'STRASSE 5', party: 'P2' }],
  ['L5', { title: 'delta', probability: 20, expected_revenue: 500, close_date: '2024-12-31', hot: false, notes: 'Hauptstraße' }],
];

beforeAll(async () => {
  srv = await startTestServer();
  admin = await srv.login();
  for (const name of ['P1', 'P2']) {
    const res = await srv.command(admin, 'party.create', { name });
    ids[name] = res.body.value.id;
  }
  for (const [name, fields] of SEED) {
    const input = { ...fields };
    if (input.party) input.party = ids[input.party as string];
    const res = await srv.command(admin, 'lead.create', input);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids[name] = res.body.value.id;
  }
  await srv.command(admin, 'lead.qualify', { id: ids.L4 });
});
afterAll(() => srv?.close());

const nameOf = (id: string) => Object.keys(ids).find((name) => ids[name] === id);

/** Names of the leads `lead.list` returns, in order. */
async function list(input: Record<string, unknown>): Promise<string[]> {
  const res = await srv.command(admin, 'lead.list', input);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value.map((row: { id: string }) => nameOf(row.id));
}

async function where(field: string, op: string, value?: unknown): Promise<string[]> {
  const condition = value === undefined ? { field, op } : { field, op, value };
  return (await list({ filter: [condition] })).sort();
}

async function refused(input: unknown, error: string, commandId = 'lead.list') {
  const res = await srv.command(admin, commandId, input);
  expect(res.body).toEqual({ error });
  expect(res.status).toBe(400);
}

describe('operators', () => {
  it('eq matches equal values and never an empty one', async () => {
    expect(await where('probability', 'eq', 20)).toEqual(['L2', 'L5']);
    expect(await where('hot', 'eq', false)).toEqual(['L2', 'L5']);
    expect(await where('stage', 'eq', 'qualified')).toEqual(['L4']);
    expect(await where('close_date', 'eq', '2025-01-10')).toEqual(['L1']);
    expect(await where('party', 'eq', ids.P1)).toEqual(['L1', 'L2']);
    expect(await where('title', 'eq', 'alpha')).toEqual([]);
  });

  it('ne also matches empty values', async () => {
    expect(await where('probability', 'ne', 20)).toEqual(['L1', 'L3', 'L4']);
    expect(await where('hot', 'ne', true)).toEqual(['L2', 'L3', 'L5']);
    expect(await where('party', 'ne', ids.P1)).toEqual(['L3', 'L4', 'L5']);
    expect(await where('notes', 'ne', 'STRASSE 5')).toEqual(['L1', 'L2', 'L3', 'L5']);
  });

  it('gt, gte, lt, lte compare and never match empty values', async () => {
    expect(await where('probability', 'gt', 20)).toEqual(['L4']);
    expect(await where('probability', 'gte', 20)).toEqual(['L2', 'L4', 'L5']);
    expect(await where('probability', 'lt', 20)).toEqual(['L1']);
    expect(await where('probability', 'lte', 20)).toEqual(['L1', 'L2', 'L5']);
    expect(await where('expected_revenue', 'lt', 1500)).toEqual(['L1', 'L5']);
    expect(await where('close_date', 'lt', '2025-01-01')).toEqual(['L5']);
    expect(await where('close_date', 'gte', '2025-01-10')).toEqual(['L1', 'L2']);
    expect(await where('title', 'gt', 'beta')).toEqual(['L2', 'L5']);
    expect(await where('notes', 'lt', 'Z')).toEqual(['L4', 'L5']);
  });

  it('gt, gte, lt, lte are refused on bool and ref fields', async () => {
    for (const op of ['gt', 'gte', 'lt', 'lte']) {
      await refused({ filter: [{ field: 'hot', op, value: true }] }, `lead.hot: ${op} is not allowed on bool fields`);
      await refused({ filter: [{ field: 'party', op, value: ids.P1 }] }, `lead.party: ${op} is not allowed on ref fields`);
    }
  });

  it('in matches any of its values and never an empty one', async () => {
    expect(await where('probability', 'in', [10, 30])).toEqual(['L1', 'L4']);
    expect(await where('stage', 'in', ['new'])).toEqual(['L1', 'L2', 'L3', 'L5']);
    expect(await where('hot', 'in', [true, false])).toEqual(['L1', 'L2', 'L4', 'L5']);
    expect(await where('close_date', 'in', ['2025-01-10', '2024-12-31'])).toEqual(['L1', 'L5']);
    expect(await where('party', 'in', [ids.P2])).toEqual(['L4']);
  });

  it('in takes 1 to 1000 valid values', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => i);
    expect(await where('probability', 'in', many)).toEqual(['L1', 'L2', 'L4', 'L5']);
    const message = 'lead.probability: in needs an array of 1 to 1000 values';
    await refused({ filter: [{ field: 'probability', op: 'in', value: [...many, 1000] }] }, message);
    await refused({ filter: [{ field: 'probability', op: 'in', value: [] }] }, message);
    await refused({ filter: [{ field: 'probability', op: 'in', value: 10 }] }, message);
    await refused({ filter: [{ field: 'probability', op: 'in', value: [10, 'x'] }] }, 'lead.probability must be an integer');
    await refused({ filter: [{ field: 'stage', op: 'in', value: ['new', 'old'] }] }, 'lead.stage must be one of: new, qualified, won, lost');
    await refused({ filter: [{ field: 'probability', op: 'in', value: [10, null] }] }, 'lead.probability: in values cannot be empty (use is_null)');
  });

  it('is_null matches empty values; false matches values that are not empty', async () => {
    expect(await where('probability', 'is_null')).toEqual(['L3']);
    expect(await where('probability', 'is_null', true)).toEqual(['L3']);
    expect(await where('party', 'is_null', true)).toEqual(['L3', 'L5']);
    expect(await where('notes', 'is_null', false)).toEqual(['L1', 'L2', 'L4', 'L5']);
    await refused({ filter: [{ field: 'notes', op: 'is_null', value: 'yes' }] }, 'lead.notes: is_null takes true or false');
    await refused({ filter: [{ field: 'notes', op: 'is_null', value: null }] }, 'lead.notes: is_null takes true or false');
  });

  it('contains is a case-insensitive substring match on text fields', async () => {
    expect(await where('title', 'contains', 'ALP')).toEqual(['L1']);
    expect(await where('title', 'contains', 'ta')).toEqual(['L2', 'L5']);
    expect(await where('notes', 'contains', 'du')).toEqual(['L1']);
  });

  it('contains takes %, _ and \\ literally', async () => {
    expect(await where('title', 'contains', '%')).toEqual(['L2']);
    expect(await where('title', 'contains', '_')).toEqual(['L3']);
    expect(await where('title', 'contains', '\\')).toEqual(['L4']);
    expect(await where('title', 'contains', 'a%')).toEqual([]);
    expect(await where('title', 'contains', '0%')).toEqual(['L2']);
  });

  it('contains folds case beyond ASCII', async () => {
    expect(await where('notes', 'contains', 'école')).toEqual(['L1', 'L2']);
    expect(await where('notes', 'contains', 'ÉCOLE')).toEqual(['L1', 'L2']);
    expect(await where('notes', 'contains', 'Strasse')).toEqual(['L4']);
    expect(await where('notes', 'contains', 'STRASSE')).toEqual(['L4']);
    expect(await where('notes', 'contains', 'STRAßE')).toEqual(['L5']);
    expect(await where('notes', 'contains', 'straße')).toEqual(['L5']);
  });

  it('contains works on text and longtext only, with a string', async () => {
    await refused({ filter: [{ field: 'probability', op: 'contains', value: '1' }] }, 'lead.probability: contains works on text fields only');
    await refused({ filter: [{ field: 'stage', op: 'contains', value: 'new' }] }, 'lead.stage: contains works on text fields only');
    await refused({ filter: [{ field: 'id', op: 'contains', value: 'A' }] }, 'lead.id: contains works on text fields only');
    await refused({ filter: [{ field: 'title', op: 'contains', value: 5 }] }, 'lead.title: contains needs a string');
  });

  it('combines conditions with AND', async () => {
    expect(
      await list({
        filter: [
          { field: 'hot', op: 'eq', value: false },
          { field: 'probability', op: 'eq', value: 20 },
          { field: 'title', op: 'contains', value: 'del' },
        ],
      }),
    ).toEqual(['L5']);
  });

  it('id works as a field', async () => {
    expect(await where('id', 'eq', ids.L3)).toEqual(['L3']);
    expect(await where('id', 'in', [ids.L1, ids.L5])).toEqual(['L1', 'L5']);
    expect(await where('id', 'gt', ids.L3)).toEqual(['L4', 'L5']);
    expect(await where('id', 'ne', ids.L3)).toEqual(['L1', 'L2', 'L4', 'L5']);
    expect(await list({ order: [{ field: 'id', dir: 'desc' }] })).toEqual(['L5', 'L4', 'L3', 'L2', 'L1']);
  });
});

describe('malformed filters', () => {
  it('validates every value against the field kind', async () => {
    await refused({ filter: [{ field: 'probability', op: 'eq', value: 'x' }] }, 'lead.probability must be an integer');
    await refused({ filter: [{ field: 'probability', op: 'gt', value: 1.5 }] }, 'lead.probability must be an integer');
    await refused({ filter: [{ field: 'expected_revenue', op: 'eq', value: 1.5 }] }, 'lead.expected_revenue must be an integer amount in minor units (12.34 is 1234)');
    await refused({ filter: [{ field: 'close_date', op: 'eq', value: '2025-02-30' }] }, 'lead.close_date must be a real calendar date YYYY-MM-DD');
    await refused({ filter: [{ field: 'hot', op: 'eq', value: 'true' }] }, 'lead.hot must be true or false');
    await refused({ filter: [{ field: 'stage', op: 'eq', value: 'open' }] }, 'lead.stage must be one of: new, qualified, won, lost');
    await refused({ filter: [{ field: 'party', op: 'eq', value: 5 }] }, 'lead.party must be the id of a party');
    await refused({ filter: [{ field: 'title', op: 'eq', value: 5 }] }, 'lead.title must be a string');
  });

  it('needs a value for every operator but is_null', async () => {
    await refused({ filter: [{ field: 'probability', op: 'eq' }] }, 'lead.probability: eq needs a value (use is_null for empty values)');
    await refused({ filter: [{ field: 'probability', op: 'ne', value: null }] }, 'lead.probability: ne needs a value (use is_null for empty values)');
    await refused({ filter: [{ field: 'title', op: 'contains' }] }, 'lead.title: contains needs a string');
  });

  it('refuses unknown fields, operators and keys', async () => {
    await refused({ filter: [{ field: 'colour', op: 'eq', value: 'x' }] }, 'unknown field lead.colour');
    await refused({ order: [{ field: 'colour' }] }, 'unknown field lead.colour');
    await refused({ filter: [{ field: 'title', op: 'like', value: 'x' }] }, 'unknown operator like');
    await refused({ filter: [{ field: 'title', op: 'eq', value: 'x', case: 'i' }] }, 'unknown key case in filter condition');
    await refused({ order: [{ field: 'title', direction: 'asc' }] }, 'unknown key direction in order key');
    await refused({ order: [{ field: 'title', dir: 'up' }] }, 'order dir must be asc or desc');
    await refused({ filter: { field: 'title', op: 'eq', value: 'x' } }, 'filter must be an array');
    await refused({ order: 'title' }, 'order must be an array');
    await refused({ filter: ['title'] }, 'filter condition must be an object');
    await refused({ page: 2 }, 'unknown key page');
  });
});

describe('order and paging', () => {
  it('orders ascending and descending with empty values last both ways, ties broken by id', async () => {
    expect(await list({ order: [{ field: 'probability' }] })).toEqual(['L1', 'L2', 'L5', 'L4', 'L3']);
    expect(await list({ order: [{ field: 'probability', dir: 'desc' }] })).toEqual(['L4', 'L2', 'L5', 'L1', 'L3']);
    expect(await list({ order: [{ field: 'close_date', dir: 'asc' }] })).toEqual(['L5', 'L1', 'L2', 'L3', 'L4']);
    expect(await list({ order: [{ field: 'close_date', dir: 'desc' }] })).toEqual(['L2', 'L1', 'L5', 'L3', 'L4']);
    expect(await list({ order: [{ field: 'hot', dir: 'desc' }] })).toEqual(['L1', 'L4', 'L2', 'L5', 'L3']);
  });

  it('orders by several keys', async () => {
    expect(await list({ order: [{ field: 'hot' }, { field: 'probability', dir: 'desc' }] })).toEqual(['L2', 'L5', 'L4', 'L1', 'L3']);
  });

  it('orders text by code point, as on every database', async () => {
    expect(await list({ order: [{ field: 'title' }] })).toEqual(['L1', 'L3', 'L4', 'L2', 'L5']);
  });

  it('defaults to id order (creation order)', async () => {
    expect(await list({})).toEqual(['L1', 'L2', 'L3', 'L4', 'L5']);
  });

  it('pages stably: the pages together are the whole ordered list', async () => {
    const order = [{ field: 'probability' as const, dir: 'desc' as const }];
    const all = await list({ order });
    const pages: string[] = [];
    for (let offset = 0; offset < 5; offset += 2) pages.push(...(await list({ order, limit: 2, offset })));
    expect(pages).toEqual(all);
    expect(await list({ order, offset: 3 })).toEqual(all.slice(3));
    expect(await list({ order, offset: 50 })).toEqual([]);
    expect(await list({ order, limit: 1 })).toEqual(all.slice(0, 1));
  });

  it('keyset pages are the whole ordered list, each row once, for every order: each key either way, the id either way, several keys', async () => {
    // Twelve leads of their own, with ties and empty values on every key.
    const tag = 'keyset-matrix';
    const made = await srv.command(admin, 'lead.create_many', {
      records: Array.from({ length: 12 }, (_, i) => ({
        title: `Keyset ${['b', 'a', 'c'][i % 3]}`,
        lost_reason: tag,
        probability: i % 4 === 0 ? null : (i % 3) * 10,
        hot: i % 5 === 0 ? null : i % 2 === 0,
        close_date: i % 3 === 0 ? null : `2027-0${(i % 2) + 1}-01`,
      })),
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    await srv.command(admin, 'lead.qualify_many', { ids: made.body.value.ids.slice(0, 5), max_affected: 5 });
    const filter = [{ field: 'lost_reason', op: 'eq', value: tag }];
    const ids = async (input: Record<string, unknown>) => {
      const res = await srv.command(admin, 'lead.list', { filter, ...input });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { value: { id: string }[]; next?: string };
    };
    const orders: { field: string; dir?: 'asc' | 'desc' }[][] = [[{ field: 'id', dir: 'desc' }], [{ field: 'id' }]];
    for (const field of ['stage', 'probability', 'hot', 'close_date', 'title']) {
      for (const dir of ['asc', 'desc'] as const) {
        orders.push([{ field, dir }], [{ field, dir }, { field: 'id', dir: 'desc' }], [{ field, dir }, { field: 'id', dir: 'asc' }]);
      }
    }
    orders.push([{ field: 'stage' }, { field: 'probability', dir: 'desc' }, { field: 'id', dir: 'desc' }], [{ field: 'hot', dir: 'desc' }, { field: 'close_date' }]);
    // The other tests here count the file's own leads: these go once checked.
    onTestFinished(async () => {
      expect((await srv.command(admin, 'lead.delete_many', { ids: made.body.value.ids, max_affected: 12 })).status).toBe(200);
    });
    for (const order of orders) {
      const whole = (await ids({ order })).value.map((row) => row.id);
      expect(whole).toHaveLength(12);
      for (const limit of [1, 5]) {
        const walked: string[] = [];
        let after = '';
        for (let page = 0; page < 20; page++) {
          const answer = await ids({ order, limit, after });
          walked.push(...answer.value.map((row) => row.id));
          if (!answer.next) break;
          after = answer.next;
        }
        expect(walked, `${JSON.stringify(order)} by ${limit}`).toEqual(whole);
      }
    }
  });

  it('search returns rows and the total before limit and offset', async () => {
    const res = await srv.command(admin, 'lead.search', { filter: [{ field: 'probability', op: 'gte', value: 20 }], limit: 1, offset: 1, order: [{ field: 'probability' }] });
    expect(res.status).toBe(200);
    expect(res.body.denied).toEqual([]);
    expect(res.body.value.total).toBe(3);
    expect(res.body.value.rows.map((row: { id: string }) => nameOf(row.id))).toEqual(['L5']);
    expect(res.body.value.rows[0]).toMatchObject({ title: 'delta', probability: 20, hot: false, notes: 'Hauptstraße' });
    const none = await srv.command(admin, 'lead.search', { filter: [{ field: 'title', op: 'eq', value: 'zzz' }] });
    expect(none.body.value).toEqual({ rows: [], total: 0 });
  });
});

describe('limits', () => {
  const condition = { field: 'probability', op: 'gte', value: 0 };
  const orderKey = { field: 'probability' };

  it('takes up to 50 conditions', async () => {
    expect(await list({ filter: Array(50).fill(condition) })).toHaveLength(4);
    await refused({ filter: Array(51).fill(condition) }, 'filter may have at most 50 conditions');
  });

  it('takes up to 5 order keys', async () => {
    expect(await list({ order: Array(5).fill(orderKey) })).toHaveLength(5);
    await refused({ order: Array(6).fill(orderKey) }, 'order may have at most 5 keys');
  });

  it('takes a limit from 1 to 5000', async () => {
    const message = 'limit must be an integer from 1 to 5000';
    expect(await list({ limit: 1 })).toHaveLength(1);
    expect(await list({ limit: 5000 })).toHaveLength(5);
    await refused({ limit: 0 }, message);
    await refused({ limit: 5001 }, message);
    await refused({ limit: 2.5 }, message);
    await refused({ limit: '10' }, message);
    await refused({ limit: null }, message);
  });

  it('takes an offset of 0 or more', async () => {
    expect(await list({ offset: 0 })).toHaveLength(5);
    await refused({ offset: -1 }, 'offset must be an integer of 0 or more');
    await refused({ offset: 1.5 }, 'offset must be an integer of 0 or more');
  });

  it('applies to search too', async () => {
    await refused({ limit: 0 }, 'limit must be an integer from 1 to 5000', 'lead.search');
    await refused({ filter: Array(51).fill(condition) }, 'filter may have at most 50 conditions', 'lead.search');
  });

  it('takes 50 conditions of 1000 values each', async () => {
    const values = Array.from({ length: 1000 }, (_, i) => i);
    expect(await list({ filter: Array(50).fill({ field: 'probability', op: 'in', value: values }) })).toHaveLength(4);
  });
});

describe('a select orders by its declared options, not by their names', () => {
  // party.kind is [person, company]; lead.stage is [new, qualified, won, lost] (L4 is qualified).
  const kinds: Record<string, string | null> = { K1: 'company', K2: 'person', K3: null, K4: 'company', K5: 'person' };
  const kindIds: Record<string, string> = {};
  beforeAll(async () => {
    for (const [name, kind] of Object.entries(kinds)) {
      const res = await srv.command(admin, 'party.create', { name: `Kind ${name}`, ...(kind ? { kind } : {}) });
      kindIds[name] = res.body.value.id;
    }
  });
  const kindName = (id: string) => Object.keys(kindIds).find((name) => kindIds[name] === id);
  async function parties(input: Record<string, unknown>): Promise<string[]> {
    const res = await srv.command(admin, 'party.list', { filter: [{ field: 'name', op: 'contains', value: 'Kind K' }], ...input });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.value.map((row: { id: string }) => kindName(row.id)!);
  }

  it.each([
    ['asc', ['K2', 'K5', 'K1', 'K4', 'K3']],
    ['desc', ['K1', 'K4', 'K2', 'K5', 'K3']],
  ] as const)('order %s: person before company (declared), empty last, ties by id', async (dir, expected) => {
    expect(await parties({ order: [{ field: 'kind', dir }] })).toEqual(expected);
  });

  it('gt, lt and their kin compare by the declared order', async () => {
    expect(await parties({ filter: [{ field: 'name', op: 'contains', value: 'Kind K' }, { field: 'kind', op: 'gt', value: 'person' }] })).toEqual(['K1', 'K4']);
    expect(await parties({ filter: [{ field: 'name', op: 'contains', value: 'Kind K' }, { field: 'kind', op: 'lt', value: 'company' }] })).toEqual(['K2', 'K5']);
    expect(await parties({ filter: [{ field: 'name', op: 'contains', value: 'Kind K' }, { field: 'kind', op: 'lte', value: 'company' }] })).toEqual(['K1', 'K2', 'K4', 'K5']);
    expect((await srv.command(admin, 'lead.list', { filter: [{ field: 'stage', op: 'gte', value: 'qualified' }] })).body.value.map((row: { id: string }) => nameOf(row.id))).toEqual(['L4']);
  });

  it('keyset pages follow the declared order in both directions', async () => {
    for (const [dir, expected] of [['asc', ['K2', 'K5', 'K1', 'K4', 'K3']], ['desc', ['K1', 'K4', 'K2', 'K5', 'K3']]] as const) {
      const seen: string[] = [];
      let after = '';
      for (let page = 0; page < 10; page++) {
        const res = await srv.command(admin, 'party.list', { filter: [{ field: 'name', op: 'contains', value: 'Kind K' }], order: [{ field: 'kind', dir }], limit: 2, after });
        seen.push(...res.body.value.map((row: { id: string }) => kindName(row.id)!));
        if (!res.body.next) break;
        after = res.body.next;
      }
      expect(seen).toEqual(expected);
    }
  });
});
