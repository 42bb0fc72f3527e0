/**
 * Conformance: filters, order and paging on `list` and `search` (SPEC 4.5 / 8), on a server of its
 * own with a known data set of six leads.
 * Black-box, from SPEC and the issue texts only; see ../helpers/conformance.ts for what this suite is and its
 * conventions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/server.ts';
import { expect200, expect400, create, type Rec } from '../helpers/conformance.ts';

describe('SPEC 4.5 / 8 / issue 3: filters, order and paging', () => {
  let f: TestServer;
  let t: string;
  const L: Record<string, any> = {}; // title → record
  let P1: Rec;
  let P2: Rec;

  // Six leads with known values, created in this order (so their ids ascend in this order).
  beforeAll(async () => {
    f = await startTestServer();
    t = await f.login();
    P1 = await create(f, t, 'party', { name: 'P1' });
    P2 = await create(f, t, 'party', { name: 'P2' });
    const rows: Rec[] = [
      { title: 'Alpha', party: P1.id, expected_revenue: 100, probability: 10, close_date: '2024-01-01', hot: true, notes: 'Straße 5% off' },
      { title: 'beta', party: P2.id, expected_revenue: 200, probability: 20, close_date: '2024-02-29', hot: false, notes: 'under_score' },
      { title: 'GAMMA', probability: 30 },
      { title: 'Ärger', party: P1.id, expected_revenue: 100, close_date: '2024-03-01', hot: true, notes: 'back\\slash' },
      { title: 'ÉCOLE привет', expected_revenue: 300, probability: 0, close_date: '2023-12-31', hot: false, notes: '50 percent' },
      { title: 'x_y%z', expected_revenue: -5, probability: -1, close_date: '2024-02-28', notes: 'ПРИВЕТ мир' },
    ];
    for (const r of rows) L[r.title] = await create(f, t, 'lead', r);
  });
  afterAll(async () => {
    await f?.close();
  });

  const ALL = ['Alpha', 'beta', 'GAMMA', 'Ärger', 'ÉCOLE привет', 'x_y%z'];
  async function list(input: Rec): Promise<TestResponse> {
    return f.command(t, 'lead.list', input);
  }
  /** Titles in the order returned. */
  async function titles(input: Rec): Promise<string[]> {
    return (expect200(await list(input)) as Rec[]).map((r) => r.title);
  }
  /** Titles as a set (sorted in the creation order of the data set). */
  async function matches(field: string, op: string, value?: unknown): Promise<string[]> {
    const cond: Rec = { field, op };
    if (arguments.length >= 3) cond.value = value;
    const got = await titles({ filter: [cond] });
    return ALL.filter((x) => got.includes(x)).concat(got.filter((x) => !ALL.includes(x)));
  }
  const cond = (field: string, op: string, value?: unknown) => ({ filter: [{ field, op, value }] });

  it('no filter: every record, default order by id (creation order)', async () => {
    expect(await titles({})).toEqual(ALL);
    expect(await titles({ filter: [], order: [] })).toEqual(ALL);
  });

  describe('eq', () => {
    it.each([
      ['title', 'Alpha', ['Alpha']],
      ['expected_revenue', 100, ['Alpha', 'Ärger']],
      ['probability', 0, ['ÉCOLE привет']],
      ['close_date', '2024-02-29', ['beta']],
      ['hot', false, ['beta', 'ÉCOLE привет']],
      ['hot', true, ['Alpha', 'Ärger']],
      ['stage', 'new', ALL],
      ['notes', 'under_score', ['beta']],
    ])('%s eq %j', async (field, value, expected) => {
      expect(await matches(field, 'eq', value)).toEqual(expected);
    });
    it('ref eq party id', async () => {
      expect(await matches('party', 'eq', P1.id)).toEqual(['Alpha', 'Ärger']);
    });
    it('id eq', async () => {
      expect(await matches('id', 'eq', L.GAMMA.id)).toEqual(['GAMMA']);
    });
    it('raw -0 equals 0', async () => {
      const r = await f.request('POST', '/api/lead/list', '{"filter":[{"field":"probability","op":"eq","value":-0}]}', t);
      expect((expect200(r) as Rec[]).map((x) => x.title)).toEqual(['ÉCOLE привет']);
    });
  });

  describe('ne: not equal, also matches empty', () => {
    it.each([
      ['probability', 10, ['beta', 'GAMMA', 'Ärger', 'ÉCOLE привет', 'x_y%z']],
      ['expected_revenue', 100, ['beta', 'GAMMA', 'ÉCOLE привет', 'x_y%z']],
      ['hot', true, ['beta', 'GAMMA', 'ÉCOLE привет', 'x_y%z']],
      ['hot', false, ['Alpha', 'GAMMA', 'Ärger', 'x_y%z']],
      ['close_date', '2024-01-01', ['beta', 'GAMMA', 'Ärger', 'ÉCOLE привет', 'x_y%z']],
      ['notes', 'under_score', ['Alpha', 'GAMMA', 'Ärger', 'ÉCOLE привет', 'x_y%z']],
      ['title', 'Alpha', ['beta', 'GAMMA', 'Ärger', 'ÉCOLE привет', 'x_y%z']],
    ])('%s ne %j', async (field, value, expected) => {
      expect(await matches(field, 'ne', value)).toEqual(expected);
    });
    it('ref ne includes records without a party', async () => {
      expect(await matches('party', 'ne', P1.id)).toEqual(['beta', 'GAMMA', 'ÉCOLE привет', 'x_y%z']);
    });
    it('id ne', async () => {
      expect(await matches('id', 'ne', L.Alpha.id)).toEqual(ALL.slice(1));
    });
  });

  describe('contains: case-insensitive substring, text fields only, literal % _ \\', () => {
    it.each([
      ['title', 'alp', ['Alpha']],
      ['title', 'ALPHA', ['Alpha']],
      ['title', 'lph', ['Alpha']],
      ['title', 'ärg', ['Ärger']],
      ['title', 'ÄRGER', ['Ärger']],
      ['title', 'école', ['ÉCOLE привет']],
      ['title', 'ПРИВЕТ', ['ÉCOLE привет']],
      ['notes', 'привет', ['x_y%z']],
      ['notes', 'straße', ['Alpha']],
      ['notes', 'STRAßE', ['Alpha']],
    ])('%s contains %j', async (field, value, expected) => {
      expect(await matches(field, 'contains', value)).toEqual(expected);
    });

    it.each([
      ['title', '%', ['x_y%z']],
      ['title', '_', ['x_y%z']],
      ['title', 'x%z', []], // LIKE would match "x_y%z"
      ['title', 'a_p', []], // LIKE would match "Alpha"
      ['title', 'y%', ['x_y%z']],
      ['notes', '%', ['Alpha']],
      ['notes', '5%', ['Alpha']],
      ['notes', '_', ['beta']],
      ['notes', '\\', ['Ärger']],
      ['notes', 'back\\s', ['Ärger']],
      ['notes', '\\%', []],
      ['notes', '\\_', []],
      ['notes', '%%', []],
    ])('%s contains %j (literal)', async (field, value, expected) => {
      expect(await matches(field, 'contains', value)).toEqual(expected);
    });

    it('contains "" never matches an empty value', async () => {
      const r = await list(cond('notes', 'contains', ''));
      if (r.status === 200) expect((r.body.value as Rec[]).map((x) => x.title)).not.toContain('GAMMA');
      else expect400(r);
    });

    it.each(['probability', 'expected_revenue', 'close_date', 'hot', 'stage', 'party'])('contains on %s (not text) → 400', async (field) => {
      expect400(await list(cond(field, 'contains', '1')));
    });

    it.each([5, null, true, ['a']])('contains with non-string value %j → 400', async (v) => {
      expect400(await list(cond('title', 'contains', v)));
    });
  });

  describe('in: array of up to 1000 values', () => {
    it('number in', async () => {
      expect(await matches('probability', 'in', [10, 30])).toEqual(['Alpha', 'GAMMA']);
    });
    it('text in (exact values)', async () => {
      expect(await matches('title', 'in', ['Alpha', 'beta', 'nope'])).toEqual(['Alpha', 'beta']);
    });
    it('id in', async () => {
      expect(await matches('id', 'in', [L.Alpha.id, L['x_y%z'].id])).toEqual(['Alpha', 'x_y%z']);
    });
    it('ref in', async () => {
      expect(await matches('party', 'in', [P1.id, P2.id])).toEqual(['Alpha', 'beta', 'Ärger']);
    });
    it('bool in', async () => {
      expect(await matches('hot', 'in', [true, false])).toEqual(['Alpha', 'beta', 'Ärger', 'ÉCOLE привет']);
    });
    it('date in', async () => {
      expect(await matches('close_date', 'in', ['2024-02-29', '2024-02-28'])).toEqual(['beta', 'x_y%z']);
    });
    it('1000 values accepted', async () => {
      const values = Array.from({ length: 1000 }, (_, i) => i - 500);
      expect(await matches('probability', 'in', values)).toEqual(['Alpha', 'beta', 'GAMMA', 'ÉCOLE привет', 'x_y%z']);
    });
    it('1001 values → 400', async () => {
      expect400(await list(cond('probability', 'in', Array.from({ length: 1001 }, (_, i) => i))));
    });
    it('duplicate values are fine', async () => {
      expect(await matches('probability', 'in', [10, 10, 10])).toEqual(['Alpha']);
    });
    it('empty array: matches nothing or is refused (ambiguous: "up to 1000")', async () => {
      const r = await list(cond('probability', 'in', []));
      if (r.status === 200) expect(r.body.value).toEqual([]);
      else expect400(r);
    });
    it('in never matches empty: [null, 10] does not return the record without probability', async () => {
      const r = await list(cond('probability', 'in', [null, 10]));
      if (r.status === 200) expect((r.body.value as Rec[]).map((x) => x.title)).toEqual(['Alpha']);
      else expect400(r);
    });
    it.each([10, '10', null, { a: 1 }])('non-array value %j → 400', async (v) => {
      expect400(await list(cond('probability', 'in', v)));
    });
    it('values of the wrong kind → 400', async () => {
      expect400(await list(cond('probability', 'in', ['10'])));
      expect400(await list(cond('close_date', 'in', ['2023-02-29'])));
      expect400(await list(cond('hot', 'in', ['true'])));
      expect400(await list(cond('stage', 'in', ['bogus'])));
    });
  });

  describe('gt, gte, lt, lte', () => {
    it.each([
      ['probability', 'gt', 0, ['Alpha', 'beta', 'GAMMA']],
      ['probability', 'gte', 0, ['Alpha', 'beta', 'GAMMA', 'ÉCOLE привет']],
      ['probability', 'lt', 10, ['ÉCOLE привет', 'x_y%z']],
      ['probability', 'lte', 10, ['Alpha', 'ÉCOLE привет', 'x_y%z']],
      ['probability', 'lt', Number.MAX_SAFE_INTEGER, ['Alpha', 'beta', 'GAMMA', 'ÉCOLE привет', 'x_y%z']],
      ['expected_revenue', 'lt', 150, ['Alpha', 'Ärger', 'x_y%z']],
      ['expected_revenue', 'gte', 200, ['beta', 'ÉCOLE привет']],
      ['close_date', 'gt', '2024-02-28', ['beta', 'Ärger']],
      ['close_date', 'lte', '2024-01-01', ['Alpha', 'ÉCOLE привет']],
      ['close_date', 'gte', '2024-02-29', ['beta', 'Ärger']],
    ])('%s %s %j (never matches empty)', async (field, op, value, expected) => {
      expect(await matches(field, op, value)).toEqual(expected);
    });
    it('numbers compare as numbers, not as text (-5 < 100, 300 > 200)', async () => {
      expect(await matches('expected_revenue', 'lt', 0)).toEqual(['x_y%z']);
      expect(await matches('expected_revenue', 'gt', 250)).toEqual(['ÉCOLE привет']);
    });
    it('id gt / lte (ids are time-ordered)', async () => {
      expect(await matches('id', 'gt', L.GAMMA.id)).toEqual(['Ärger', 'ÉCOLE привет', 'x_y%z']);
      expect(await matches('id', 'lte', L.beta.id)).toEqual(['Alpha', 'beta']);
      expect(await matches('id', 'gte', L.beta.id)).toEqual(ALL.slice(1));
      expect(await matches('id', 'lt', L.Alpha.id)).toEqual([]);
    });
    it.each(['gt', 'gte', 'lt', 'lte'])('%s on a bool field → 400', async (op) => {
      expect400(await list(cond('hot', op, false)));
    });
    it.each(['gt', 'gte', 'lt', 'lte'])('%s on a ref field → 400', async (op) => {
      expect400(await list(cond('party', op, P1.id)));
    });
    it('date compare with an impossible date → 400', async () => {
      expect400(await list(cond('close_date', 'lt', '2023-02-29')));
      expect400(await list(cond('close_date', 'gt', '2024-1-1')));
    });
    it('number compare with a string or float → 400', async () => {
      expect400(await list(cond('probability', 'gt', '5')));
      expect400(await list(cond('probability', 'gt', 5.5)));
      expect400(await list(cond('expected_revenue', 'gt', 1e21)));
    });
  });

  describe('is_null: field is empty', () => {
    it.each([
      ['probability', ['Ärger']],
      ['party', ['GAMMA', 'ÉCOLE привет', 'x_y%z']],
      ['hot', ['GAMMA', 'x_y%z']],
      ['notes', ['GAMMA']],
      ['close_date', ['GAMMA']],
      ['expected_revenue', ['GAMMA']],
      ['lost_reason', ALL],
      ['title', []],
      ['id', []],
    ])('%s is_null with "value": true', async (field, expected) => {
      expect(await matches(field, 'is_null', true)).toEqual(expected);
    });
    it('is_null with no value behaves as "value": true', async () => {
      expect(await titles({ filter: [{ field: 'probability', op: 'is_null' }] })).toEqual(['Ärger']);
    });
    it.each(['true', 1, 'yes', []])('is_null with value %j → 400', async (v) => {
      expect400(await list(cond('probability', 'is_null', v)));
    });
    it('is_null with "value": false — not specified; either the negation or 400', async () => {
      const r = await list(cond('probability', 'is_null', false));
      if (r.status === 200) expect((r.body.value as Rec[]).map((x) => x.title)).not.toContain('Ärger');
      else expect400(r);
    });
  });

  describe('operators other than ne never match empty', () => {
    it('eq with null → 400 (or no match), never the empty records', async () => {
      const r = await list(cond('probability', 'eq', null));
      if (r.status === 200) expect(r.body.value).toEqual([]);
      else expect400(r);
    });
    it('lt on a number does not return records where it is empty', async () => {
      expect(await matches('probability', 'lt', 1000)).not.toContain('Ärger');
    });
    it('ne null → 400 or matches everything with a value, plus empties', async () => {
      const r = await list(cond('probability', 'ne', null));
      if (r.status !== 200) expect400(r);
    });
  });

  describe('combinations, limits and malformed filters', () => {
    it('conditions combine with AND', async () => {
      expect(
        await titles({
          filter: [
            { field: 'hot', op: 'eq', value: true },
            { field: 'expected_revenue', op: 'eq', value: 100 },
            { field: 'party', op: 'eq', value: P1.id },
          ],
        }),
      ).toEqual(['Alpha', 'Ärger']);
      expect(
        await titles({
          filter: [
            { field: 'hot', op: 'eq', value: true },
            { field: 'title', op: 'contains', value: 'alp' },
          ],
        }),
      ).toEqual(['Alpha']);
    });
    it('the same field twice (range)', async () => {
      expect(
        await titles({
          filter: [
            { field: 'probability', op: 'gte', value: 10 },
            { field: 'probability', op: 'lt', value: 30 },
          ],
        }),
      ).toEqual(['Alpha', 'beta']);
    });
    it('50 conditions accepted, 51 → 400', async () => {
      const c = { field: 'probability', op: 'gte', value: -100 };
      expect(await titles({ filter: Array(50).fill(c) })).toEqual(['Alpha', 'beta', 'GAMMA', 'ÉCOLE привет', 'x_y%z']);
      expect400(await list({ filter: Array(51).fill(c) }));
    });
    it('unknown field → 400 "unknown field lead.<field>"', async () => {
      expect400(await list(cond('nope', 'eq', 1)), 'unknown field lead.nope');
      expect400(await list(cond('Title', 'eq', 'Alpha')), 'unknown field lead.Title');
      expect400(await list(cond('party.name', 'eq', 'P1')), 'unknown field lead.party.name');
    });
    it.each(['like', 'EQ', 'neq', 'between', 'starts_with', '', 'constructor', '__proto__'])('unknown operator %j → 400', async (op) => {
      expect400(await list(cond('title', op, 'Alpha')));
    });
    it('unknown key in a condition → 400', async () => {
      expect400(await list({ filter: [{ field: 'title', op: 'eq', value: 'Alpha', extra: 1 }] }));
    });
    it('condition without field or op → 400', async () => {
      expect400(await list({ filter: [{ op: 'eq', value: 'Alpha' }] }));
      expect400(await list({ filter: [{ field: 'title', value: 'Alpha' }] }));
    });
    it('eq without value → 400 (only is_null may omit it)', async () => {
      expect400(await list({ filter: [{ field: 'title', op: 'eq' }] }));
    });
    it.each([{}, 'title', null, 1, [[]], ['x']])('filter %j (not an array of conditions) → 400', async (filter) => {
      expect400(await list({ filter }));
    });
    it('unknown top-level key → 400', async () => {
      expect400(await list({ filters: [] }));
      expect400(await list({ filter: [], sort: [] }));
      expect400(await list({ id: L.Alpha.id }));
    });
    it('eq value of the wrong kind → 400', async () => {
      expect400(await list(cond('probability', 'eq', '10')));
      expect400(await list(cond('probability', 'eq', 10.5)));
      expect400(await list(cond('hot', 'eq', 'true')));
      expect400(await list(cond('close_date', 'eq', '2023-02-29')));
      expect400(await list(cond('title', 'eq', 5)));
      expect400(await list(cond('stage', 'eq', 'bogus')));
    });
    it('filter on id with a non-string value → 400', async () => {
      expect400(await list(cond('id', 'eq', 5)));
    });
  });

  describe('order', () => {
    it('asc on money: empty last, ties broken by id', async () => {
      expect(await titles({ order: [{ field: 'expected_revenue', dir: 'asc' }] })).toEqual([
        'x_y%z',
        'Alpha',
        'Ärger',
        'beta',
        'ÉCOLE привет',
        'GAMMA',
      ]);
    });
    it('dir defaults to asc', async () => {
      expect(await titles({ order: [{ field: 'expected_revenue' }] })).toEqual(
        await titles({ order: [{ field: 'expected_revenue', dir: 'asc' }] }),
      );
    });
    it('desc on money: empty still last', async () => {
      const got = await titles({ order: [{ field: 'expected_revenue', dir: 'desc' }] });
      expect(got[0]).toBe('ÉCOLE привет');
      expect(got[1]).toBe('beta');
      expect(got.slice(2, 4).sort()).toEqual(['Alpha', 'Ärger'].sort());
      expect(got.slice(4)).toEqual(['x_y%z', 'GAMMA']);
    });
    it('desc on number: empty last, 0 and negatives are values', async () => {
      expect(await titles({ order: [{ field: 'probability', dir: 'desc' }] })).toEqual([
        'GAMMA',
        'beta',
        'Alpha',
        'ÉCOLE привет',
        'x_y%z',
        'Ärger',
      ]);
    });
    it('asc and desc on date: empty last both ways', async () => {
      expect(await titles({ order: [{ field: 'close_date', dir: 'asc' }] })).toEqual([
        'ÉCOLE привет',
        'Alpha',
        'x_y%z',
        'beta',
        'Ärger',
        'GAMMA',
      ]);
      expect(await titles({ order: [{ field: 'close_date', dir: 'desc' }] })).toEqual([
        'Ärger',
        'beta',
        'x_y%z',
        'Alpha',
        'ÉCOLE привет',
        'GAMMA',
      ]);
    });
    it('bool: false before true ascending; empty last both ways; ties by id', async () => {
      expect(await titles({ order: [{ field: 'hot', dir: 'asc' }] })).toEqual(['beta', 'ÉCOLE привет', 'Alpha', 'Ärger', 'GAMMA', 'x_y%z']);
      expect(await titles({ order: [{ field: 'hot', dir: 'desc' }] })).toEqual(['Alpha', 'Ärger', 'beta', 'ÉCOLE привет', 'GAMMA', 'x_y%z']);
    });
    it('ref and text ordering put empty last', async () => {
      const byParty = await titles({ order: [{ field: 'party', dir: 'desc' }] });
      expect(byParty.slice(3)).toEqual(['GAMMA', 'ÉCOLE привет', 'x_y%z']);
      const byNotes = await titles({ order: [{ field: 'notes', dir: 'desc' }] });
      expect(byNotes.at(-1)).toBe('GAMMA');
      const byNotesAsc = await titles({ order: [{ field: 'notes', dir: 'asc' }] });
      expect(byNotesAsc.at(-1)).toBe('GAMMA');
    });
    it('ties broken by id: equal keys come in id order', async () => {
      // every lead is at stage new: pure tie on the only key
      expect(await titles({ order: [{ field: 'stage', dir: 'asc' }] })).toEqual(ALL);
      expect(await titles({ order: [{ field: 'lost_reason', dir: 'desc' }] })).toEqual(ALL);
    });
    it('several keys', async () => {
      expect(
        await titles({
          order: [
            { field: 'hot', dir: 'asc' },
            { field: 'expected_revenue', dir: 'desc' },
          ],
        }),
      ).toEqual(['ÉCOLE привет', 'beta', 'Alpha', 'Ärger', 'x_y%z', 'GAMMA']);
    });
    it('order on id, both directions', async () => {
      expect(await titles({ order: [{ field: 'id', dir: 'asc' }] })).toEqual(ALL);
      expect(await titles({ order: [{ field: 'id', dir: 'desc' }] })).toEqual([...ALL].reverse());
    });
    it('5 keys accepted, 6 → 400', async () => {
      const keys = ['hot', 'expected_revenue', 'probability', 'close_date', 'title', 'notes'].map((field) => ({ field, dir: 'asc' }));
      expect((await list({ order: keys.slice(0, 5) })).status).toBe(200);
      expect400(await list({ order: keys }));
    });
    it('unknown order field → 400 "unknown field lead.<field>"', async () => {
      expect400(await list({ order: [{ field: 'nope' }] }), 'unknown field lead.nope');
    });
    it.each(['up', 'ASC', 'Desc', '', null, 1])('dir %j → 400', async (dir) => {
      expect400(await list({ order: [{ field: 'title', dir }] }));
    });
    it('unknown key in an order entry → 400', async () => {
      expect400(await list({ order: [{ field: 'title', dir: 'asc', nulls: 'first' }] }));
    });
    it.each([{}, 'title', null, [{}], ['title']])('order %j (malformed) → 400', async (order) => {
      expect400(await list({ order }));
    });
  });

  describe('limit and offset', () => {
    it('limit cuts the list', async () => {
      expect(await titles({ limit: 2 })).toEqual(ALL.slice(0, 2));
      expect(await titles({ limit: 1 })).toEqual(ALL.slice(0, 1));
      expect(await titles({ limit: 5000 })).toEqual(ALL);
    });
    it('no default limit', async () => {
      expect(await titles({})).toHaveLength(6);
    });
    it('offset skips', async () => {
      expect(await titles({ limit: 2, offset: 2 })).toEqual(ALL.slice(2, 4));
      expect(await titles({ offset: 4 })).toEqual(ALL.slice(4));
      expect(await titles({ offset: 0 })).toEqual(ALL);
      expect(await titles({ offset: 6 })).toEqual([]);
      expect(await titles({ offset: 1000000 })).toEqual([]);
    });
    it.each([0, -1, 5001, 1.5, '2', null, true, 1e21])('limit %j → 400', async (limit) => {
      expect400(await list({ limit }));
    });
    it.each([-1, 1.5, '0', null, true])('offset %j → 400', async (offset) => {
      expect400(await list({ offset }));
    });
    it('paging with ties is stable: pages of 1 put together equal the full ordered list', async () => {
      const order = [{ field: 'expected_revenue', dir: 'desc' }];
      const full = await titles({ order });
      const paged: string[] = [];
      for (let i = 0; i < 6; i++) paged.push(...(await titles({ order, limit: 1, offset: i })));
      expect(paged).toEqual(full);
      const order2 = [{ field: 'hot', dir: 'desc' }];
      const full2 = await titles({ order: order2 });
      const paged2: string[] = [];
      for (let i = 0; i < 6; i += 4) paged2.push(...(await titles({ order: order2, limit: 4, offset: i })));
      expect(paged2).toEqual(full2);
    });
  });

  it('no default limit, and limit 5000 really returns 5000 (5001 records)', async () => {
    const big = await startTestServer();
    try {
      const bt = await big.login();
      // In create_many's batches of at most 1,000 (issue 22): 6 calls instead of 5,001.
      for (let i = 0; i < 5001; i += 1000) {
        const records = Array.from({ length: Math.min(1000, 5001 - i) }, (_, k) => ({ title: `bulk ${i + k}` }));
        expect((await big.command(bt, 'lead.create_many', { records })).status).toBe(200);
      }
      expect(expect200(await big.command(bt, 'lead.list', {}))).toHaveLength(5001);
      expect(expect200(await big.command(bt, 'lead.list', { limit: 5000 }))).toHaveLength(5000);
      const v = expect200(await big.command(bt, 'lead.search', { limit: 5000, offset: 1 }));
      expect(v.total).toBe(5001);
      expect(v.rows).toHaveLength(5000);
    } finally {
      await big.close();
    }
  }, 60_000);

  describe('search: {"rows", "total"}, total before limit and offset', () => {
    it('shape and total', async () => {
      const v = expect200(await f.command(t, 'lead.search', { filter: [{ field: 'hot', op: 'eq', value: true }], limit: 1 }));
      expect(Object.keys(v).sort()).toEqual(['rows', 'total']);
      expect(v.total).toBe(2);
      expect(v.rows.map((r: Rec) => r.title)).toEqual(['Alpha']);
    });
    it('offset past the end: no rows, total unchanged', async () => {
      const v = expect200(await f.command(t, 'lead.search', { filter: [{ field: 'hot', op: 'eq', value: true }], offset: 10 }));
      expect(v).toEqual({ rows: [], total: 2 });
    });
    it('no input: every record', async () => {
      const v = expect200(await f.command(t, 'lead.search', {}));
      expect(v.total).toBe(6);
      expect(v.rows).toHaveLength(6);
    });
    it('no match: total 0', async () => {
      expect(expect200(await f.command(t, 'lead.search', cond('title', 'eq', 'zzz')))).toEqual({ rows: [], total: 0 });
    });
    it('rows equal what list returns for the same input', async () => {
      const input = { filter: [{ field: 'probability', op: 'ne', value: 10 }], order: [{ field: 'probability', dir: 'desc' }], limit: 3, offset: 1 };
      const rows = expect200(await f.command(t, 'lead.search', input)).rows;
      expect(rows).toEqual(expect200(await f.command(t, 'lead.list', input)));
      expect(expect200(await f.command(t, 'lead.search', input)).total).toBe(5);
    });
    it('search refuses what list refuses', async () => {
      expect400(await f.command(t, 'lead.search', { limit: 0 }));
      expect400(await f.command(t, 'lead.search', cond('nope', 'eq', 1)), 'unknown field lead.nope');
      expect400(await f.command(t, 'lead.search', cond('hot', 'gt', true)));
    });
  });
});
