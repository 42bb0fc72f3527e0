/**
 * Conformance: field kinds on create and update (SPEC 2.2): what each kind accepts and refuses,
 * required fields, unknown keys, update, ids that do not exist.
 * Black-box, from SPEC and the issue texts only; see ../helpers/conformance.ts for what this suite is and its
 * conventions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expect200, expect400, noLeak, create, type Rec } from '../helpers/conformance.ts';

// one server for this file, signed in as admin
let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.login();
});
afterAll(async () => {
  await s?.close();
});

describe('SPEC 2.2 / issue 3: field kinds on create and update', () => {
  let party: Rec;
  beforeAll(async () => {
    party = await create(s, admin, 'party', { name: 'Kinds Party' });
  });

  it('create returns the new record with an id (string) and all fields', async () => {
    const v = await create(s, admin, 'lead', {
      title: 'Full',
      party: party.id,
      expected_revenue: 1234,
      probability: 50,
      close_date: '2024-02-29',
      hot: true,
      notes: 'n',
      lost_reason: 'r',
    });
    expect(typeof v.id).toBe('string');
    expect(v).toMatchObject({
      title: 'Full',
      party: party.id,
      stage: 'new',
      expected_revenue: 1234,
      probability: 50,
      close_date: '2024-02-29',
      hot: true,
      notes: 'n',
      lost_reason: 'r',
    });
    expect(expect200(await s.command(admin, 'lead.get', { id: v.id }))).toEqual(v);
  });

  it('ids are unique and new records sort last by id', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(s, admin, 'lead', { title: `order-${i}` })).id);
    expect(new Set(ids).size).toBe(5);
    const listed = expect200(await s.command(admin, 'lead.list', { order: [{ field: 'id', dir: 'asc' }] })) as Rec[];
    expect(listed.slice(-5).map((r) => r.id)).toEqual(ids);
  });

  describe('number and money: integers only, in the safe range', () => {
    it.each([
      ['probability', 0],
      ['probability', -7],
      ['probability', Number.MAX_SAFE_INTEGER],
      ['probability', Number.MIN_SAFE_INTEGER],
      ['expected_revenue', 1234],
      ['expected_revenue', -1],
      ['expected_revenue', Number.MAX_SAFE_INTEGER],
    ])('%s = %s accepted and returned as is', async (field, value) => {
      const v = await create(s, admin, 'lead', { title: 'n', [field]: value });
      expect(v[field]).toBe(value);
    });

    it.each([
      ['probability', 1.5],
      ['probability', '5'],
      ['probability', true],
      ['probability', 2 ** 53],
      ['probability', -(2 ** 53)],
      ['probability', 1e21],
      ['probability', [1]],
      ['probability', { v: 1 }],
      ['expected_revenue', 12.34],
      ['expected_revenue', '1234'],
      ['expected_revenue', 0.1],
    ])('%s = %j → 400', async (field, value) => {
      expect400(await s.command(admin, 'lead.create', { title: 'n', [field]: value }));
    });

    it('raw JSON 1e3 is the integer 1000', async () => {
      const v = expect200(await s.request('POST', '/api/lead/create', '{"title":"exp","probability":1e3}', admin));
      expect(v.probability).toBe(1000);
    });

    it('raw JSON -0 is stored and returned as 0', async () => {
      const v = expect200(await s.request('POST', '/api/lead/create', '{"title":"negzero","expected_revenue":-0}', admin));
      expect(Object.is(v.expected_revenue, 0) || v.expected_revenue === 0).toBe(true);
      const r = await s.request('POST', '/api/lead/get', { id: v.id }, admin);
      expect(JSON.stringify(r.body.value.expected_revenue)).toBe('0');
    });

    it('raw JSON 1e400 (Infinity) and 9007199254740993 → 400', async () => {
      expect400(await s.request('POST', '/api/lead/create', '{"title":"inf","probability":1e400}', admin));
      expect400(await s.request('POST', '/api/lead/create', '{"title":"big","probability":9007199254740993}', admin));
    });
  });

  describe('date: YYYY-MM-DD, a real calendar date', () => {
    it.each(['2024-02-29', '2000-02-29', '1999-12-31', '2025-01-01'])('%s accepted', async (d) => {
      expect((await create(s, admin, 'lead', { title: 'd', close_date: d })).close_date).toBe(d);
    });

    it.each([
      '2023-02-29',
      '2025-02-30',
      '1900-02-29',
      '2024-04-31',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '2024-1-5',
      '24-01-05',
      '2024/01/05',
      '2024-01-05T00:00:00Z',
      '2024-01-05 ',
      ' 2024-01-05',
      '',
      'today',
      20240105,
      true,
    ])('%j → 400', async (d) => {
      expect400(await s.command(admin, 'lead.create', { title: 'd', close_date: d }));
    });
  });

  describe('bool: only true or false', () => {
    it.each([true, false])('%s accepted', async (b) => {
      expect((await create(s, admin, 'lead', { title: 'b', hot: b })).hot).toBe(b);
    });
    it.each(['true', 1, 0, 'false', [], {}])('%j → 400', async (b) => {
      expect400(await s.command(admin, 'lead.create', { title: 'b', hot: b }));
    });
  });

  describe('select: one of the declared options', () => {
    it('declared option accepted', async () => {
      expect((await create(s, admin, 'party', { name: 'sel', kind: 'company' })).kind).toBe('company');
    });
    it.each(['Company', 'COMPANY', ' company', '', 'other', 1, true])('%j → 400', async (k) => {
      expect400(await s.command(admin, 'party.create', { name: 'sel', kind: k }));
    });
  });

  describe('ref: the id of an existing record of the target model', () => {
    it('existing party accepted', async () => {
      expect((await create(s, admin, 'lead', { title: 'r', party: party.id })).party).toBe(party.id);
    });
    it('unknown id → 400', async () => {
      expect400(await s.command(admin, 'lead.create', { title: 'r', party: 'does-not-exist' }));
    });
    it('id of a record of another model → 400', async () => {
      const lead = await create(s, admin, 'lead', { title: 'not a party' });
      expect400(await s.command(admin, 'lead.create', { title: 'r', party: lead.id }));
    });
    it.each([1, true, '', [], {}])('%j → 400', async (v) => {
      expect400(await s.command(admin, 'lead.create', { title: 'r', party: v }));
    });
    it('a deleted record can no longer be referenced', async () => {
      const p = await create(s, admin, 'party', { name: 'short-lived' });
      expect200(await s.command(admin, 'party.delete', { id: p.id }));
      expect400(await s.command(admin, 'lead.create', { title: 'r', party: p.id }));
    });
  });

  describe('text and longtext: strings', () => {
    it.each([1, true, ['x'], { a: 1 }])('text %j → 400', async (v) => {
      expect400(await s.command(admin, 'lead.create', { title: v }));
    });
    it('unicode round-trips exactly', async () => {
      const weird = 'Zoë 😀 שלום 𝔘𝔫𝔦 e\u0301 \u200d tab\tnewline\n "quote" \\ back';
      const v = await create(s, admin, 'lead', { title: weird, notes: weird });
      expect(v.title).toBe(weird);
      expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).notes).toBe(weird);
    });
    // SPEC 4.3: create's value is "the new record including its id". A lone UTF-16 surrogate
    // (legal JSON escape "\ud800") cannot be stored as UTF-8; it used to be answered verbatim by
    // create but stored altered (found by this suite). Now refused, so create and get agree.
    it('a lone surrogate in text is refused with 400', async () => {
      const r = await s.request('POST', '/api/lead/create', '{"title":"x\\ud800y"}', admin);
      expect400(r, 'lead.title must be valid Unicode text');
    });

    it('"" in an optional text field: stored as empty or as "", consistently with is_null', async () => {
      const v = await create(s, admin, 'lead', { title: 'empty reason', lost_reason: '' });
      const stored = expect200(await s.command(admin, 'lead.get', { id: v.id })).lost_reason;
      expect([null, '']).toContain(stored);
      const nulls = expect200(
        await s.command(admin, 'lead.list', {
          filter: [
            { field: 'id', op: 'eq', value: v.id },
            { field: 'lost_reason', op: 'is_null' },
          ],
        }),
      );
      expect(nulls.length).toBe(stored === null ? 1 : 0);
    });

    it('contains folds case beyond the BMP and for title-case letters', async () => {
      const v = await create(s, admin, 'party', { name: 'Deseret 𐐀𐐁 ǅ zz-astral' });
      const hit = async (value: string) =>
        (expect200(await s.command(admin, 'party.list', { filter: [{ field: 'name', op: 'contains', value }] })) as Rec[]).map((r) => r.id);
      expect(await hit('𐐨𐐩')).toEqual([v.id]);
      expect(await hit('ǆ')).toEqual([v.id]);
      expect(await hit('ZZ-ASTRAL')).toEqual([v.id]);
    });

    it('values that look like SQL are just text', async () => {
      const t = "x'); DROP TABLE lead; --";
      const v = await create(s, admin, 'lead', { title: t });
      expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).title).toBe(t);
    });
  });

  describe('required fields: 400 "<model>.<field> is required"', () => {
    it('lead without title', async () => {
      expect400(await s.command(admin, 'lead.create', {}), 'lead.title is required');
      expect400(await s.command(admin, 'lead.create', { hot: true }), 'lead.title is required');
    });
    it('party without name', async () => {
      expect400(await s.command(admin, 'party.create', { email: 'x@y' }), 'party.name is required');
    });
    it('required field sent as null', async () => {
      expect400(await s.command(admin, 'lead.create', { title: null }), 'lead.title is required');
    });
    it('invoice missing each required field names that field', async () => {
      const full = { number: 'INV-R', party: party.id, amount: 100, issue_date: '2024-01-01' };
      for (const f of ['number', 'party', 'amount', 'issue_date'] as const) {
        const body: Rec = { ...full };
        delete body[f];
        expect400(await s.command(admin, 'invoice.create', body), `invoice.${f} is required`);
      }
    });
    it('invoice with no fields names one of its required fields', async () => {
      expect400(await s.command(admin, 'invoice.create', {}), /^invoice\.(number|party|amount|issue_date) is required$/);
    });
    it('update setting a required field to null → 400 "<model>.<field> is required"', async () => {
      const v = await create(s, admin, 'lead', { title: 'keep me' });
      expect400(await s.command(admin, 'lead.update', { id: v.id, title: null }), 'lead.title is required');
      expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).title).toBe('keep me');
    });
  });

  describe('unknown keys → 400', () => {
    it('on create', async () => {
      expect400(await s.command(admin, 'lead.create', { title: 'x', colour: 'red' }));
      expect400(await s.command(admin, 'lead.create', { title: 'x', Title: 'y' }));
      expect400(await s.command(admin, 'lead.create', { title: 'x', __proto__x: 1 }));
    });
    it('raw "__proto__" and "constructor" keys → 400, nothing created', async () => {
      expect400(await s.request('POST', '/api/lead/create', '{"title":"proto","__proto__":{"hot":true}}', admin));
      expect400(await s.request('POST', '/api/lead/create', '{"title":"ctor","constructor":1}', admin));
    });
    it('on update', async () => {
      const v = await create(s, admin, 'lead', { title: 'u' });
      expect400(await s.command(admin, 'lead.update', { id: v.id, colour: 'red' }));
    });
    it('on get and delete', async () => {
      const v = await create(s, admin, 'lead', { title: 'u' });
      expect400(await s.command(admin, 'lead.get', { id: v.id, extra: 1 }));
      expect400(await s.command(admin, 'lead.delete', { id: v.id, extra: 1 }));
      expect200(await s.command(admin, 'lead.get', { id: v.id }));
    });
    it('on an action', async () => {
      const v = await create(s, admin, 'lead', { title: 'u' });
      expect400(await s.command(admin, 'lead.qualify', { id: v.id, extra: 1 }));
      expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).stage).toBe('new');
    });
  });

  it('a 400 on create writes nothing', async () => {
    const before = expect200(await s.command(admin, 'lead.search', { limit: 1 })).total;
    expect400(await s.command(admin, 'lead.create', { title: 'x', close_date: '2023-02-29' }));
    expect400(await s.command(admin, 'lead.create', { title: 'x', party: 'ghost' }));
    expect(expect200(await s.command(admin, 'lead.search', { limit: 1 })).total).toBe(before);
  });

  describe('update', () => {
    it('changes only the fields sent and returns the updated record', async () => {
      const v = await create(s, admin, 'lead', { title: 'before', probability: 5, hot: true });
      const u = expect200(await s.command(admin, 'lead.update', { id: v.id, probability: 6 }));
      expect(u).toEqual({ ...v, probability: 6 });
      expect(expect200(await s.command(admin, 'lead.get', { id: v.id }))).toEqual(u);
    });
    it('null clears an optional field', async () => {
      const v = await create(s, admin, 'lead', { title: 'clear', probability: 5 });
      expect(expect200(await s.command(admin, 'lead.update', { id: v.id, probability: null })).probability).toBeNull();
    });
    it('applies the same kind rules as create', async () => {
      const v = await create(s, admin, 'lead', { title: 'k' });
      expect400(await s.command(admin, 'lead.update', { id: v.id, close_date: '2023-02-29' }));
      expect400(await s.command(admin, 'lead.update', { id: v.id, probability: 1.5 }));
      expect400(await s.command(admin, 'lead.update', { id: v.id, hot: 'yes' }));
      expect400(await s.command(admin, 'lead.update', { id: v.id, party: 'ghost' }));
      expect(expect200(await s.command(admin, 'lead.get', { id: v.id }))).toEqual(v);
    });
    it('a failing update writes nothing (one bad field among good ones)', async () => {
      const v = await create(s, admin, 'lead', { title: 'atomic', probability: 1 });
      expect400(await s.command(admin, 'lead.update', { id: v.id, probability: 2, close_date: '2023-02-29' }));
      expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).probability).toBe(1);
    });
    it('update without id → 400', async () => {
      expect400(await s.command(admin, 'lead.update', { title: 'x' }));
    });
    it('id cannot be changed', async () => {
      const v = await create(s, admin, 'lead', { title: 'fixed id' });
      // the body's id selects the record; there is no second id field to change it
      const r = await s.request('POST', '/api/lead/update', `{"id":"${v.id}","id":"other"}`, admin);
      expect(r.status).not.toBe(200);
      expect200(await s.command(admin, 'lead.get', { id: v.id }));
    });
  });

  describe('get / update / delete of an id that does not exist', () => {
    // SPEC 7 does not list "record not found"; 404 is reserved for commands and plans. Either
    // a 400 or a 404 is a reasonable answer; what must not happen is 200 or 5xx.
    it.each(['lead.get', 'lead.update', 'lead.delete', 'lead.qualify'])('%s', async (cmd) => {
      const r = await s.command(admin, cmd, { id: 'no-such-id' });
      expect([400, 404]).toContain(r.status);
      noLeak(r);
    });
    it.each([1, null, true, '', ['x']])('get with id %j → 400', async (id) => {
      expect400(await s.command(admin, 'lead.get', { id }));
    });
    it('get without id → 400', async () => {
      expect400(await s.command(admin, 'lead.get', {}));
    });
  });
});
