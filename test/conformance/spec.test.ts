/**
 * Black-box conformance tests for ../shared/SPEC.md (sections 2–8) and the "Rules to get exactly
 * right" of issues 3 (REST runtime), 4 (agents) and 5 (MCP basics).
 *
 * Written from SPEC and the issue texts only, as an outside client: every call goes over real
 * HTTP to a real server started by `startTestServer()`. Nothing here reads the implementation
 * or the database.
 *
 * Convention: a test that fails because the SERVICE deviates from SPEC/issue text is kept and
 * marked `it.fails(...)`, with a comment quoting the line it violates. Points where SPEC is
 * ambiguous are written tolerant (accepting each reasonable reading) and say so.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/server.ts';

// ---------------------------------------------------------------------------------------------
// helpers

type Rec = Record<string, any>;

function expect200(r: TestResponse): any {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(Object.keys(r.body).sort()).toEqual(['denied', 'value']);
  expect(Array.isArray(r.body.denied)).toBe(true);
  return r.body.value;
}

/** SPEC 7: "For 400 the body is {"error": string} with the reason." */
function expect400(r: TestResponse, text?: string | RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(Object.keys(r.body)).toEqual(['error']);
  expect(typeof r.body.error).toBe('string');
  expect(r.body.error.length).toBeGreaterThan(0);
  noLeak(r);
  if (typeof text === 'string') expect(r.body.error).toBe(text);
  else if (text) expect(r.body.error).toMatch(text);
}

/** Issue 3: "No stack trace, SQL text or internal path ever reaches a client." */
function noLeak(r: TestResponse): void {
  const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? '');
  expect(text).not.toMatch(/\n\s+at |SQLITE|select .* from|insert into|\/work\/|node_modules|\.ts:\d+/i);
}

const TOKEN_FORM = /^[A-Z][A-Z0-9_]*_\d+$/;
const tokenOf = (label: string) => new RegExp(`^${label}_\\d+$`);

async function create(s: TestServer, token: string, model: string, body: Rec): Promise<Rec> {
  return expect200(await s.command(token, `${model}.create`, body));
}

async function agentToken(s: TestServer, person: string, scopes: string[], label = 'agent'): Promise<string> {
  const r = await s.request('POST', '/api/auth/agent-token', { scopes, label }, person);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(typeof r.body.token).toBe('string');
  return r.body.token;
}

/** Finds every object in a JSON tree that satisfies `pred`. */
function findAll(node: unknown, pred: (o: Rec) => boolean, out: Rec[] = []): Rec[] {
  if (Array.isArray(node)) for (const x of node) findAll(x, pred, out);
  else if (node && typeof node === 'object') {
    if (pred(node as Rec)) out.push(node as Rec);
    for (const v of Object.values(node)) findAll(v, pred, out);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// one server for most sections; sections that need a known data set start their own

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.login();
});
afterAll(async () => {
  await s?.close();
});

// =============================================================================================
describe('SPEC 5 / issue 3: authentication', () => {
  it('login returns {"token": string}', async () => {
    const r = await s.request('POST', '/api/auth/login', { username: 'admin', password: 'admin-test-password' });
    expect(r.status).toBe(200);
    expect(typeof r.body.token).toBe('string');
    expect(r.body.token.length).toBeGreaterThan(10);
  });

  it('each login gives a different token and both work', async () => {
    const a = await s.login();
    const b = await s.login();
    expect(a).not.toBe(b);
    expect((await s.request('GET', '/api/commands', undefined, a)).status).toBe(200);
    expect((await s.request('GET', '/api/commands', undefined, b)).status).toBe(200);
  });

  it('wrong password and unknown username give 401', async () => {
    await s.addPerson('wrongpw', ['sales']);
    expect((await s.request('POST', '/api/auth/login', { username: 'wrongpw', password: 'nope' })).status).toBe(401);
    expect((await s.request('POST', '/api/auth/login', { username: 'nobody-here', password: 'x' })).status).toBe(401);
  });

  it('unknown username and wrong password answer the same body (no user enumeration)', async () => {
    await s.addPerson('enum1', ['sales']);
    const a = await s.request('POST', '/api/auth/login', { username: 'enum1', password: 'bad' });
    const b = await s.request('POST', '/api/auth/login', { username: 'no-such-user-x', password: 'bad' });
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    expect(a.body).toEqual(b.body);
  });

  it('login body must be JSON: text/plain → 415', async () => {
    const r = await s.request('POST', '/api/auth/login', 'username=admin', undefined, { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
  });

  it('login with malformed JSON → 400', async () => {
    expect400(await s.request('POST', '/api/auth/login', '{"username":'));
  });

  it('every other endpoint needs a bearer token: missing → 401', async () => {
    expect((await s.request('GET', '/api/commands')).status).toBe(401);
    expect((await s.request('GET', '/api/meta')).status).toBe(401);
    expect((await s.request('POST', '/api/lead/list', {})).status).toBe(401);
    expect((await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'x' })).status).toBe(401);
    expect((await s.request('POST', '/api/approve/whatever')).status).toBe(401);
  });

  it('unknown token → 401; malformed Authorization → 401', async () => {
    expect((await s.request('GET', '/api/commands', undefined, 'not-a-token')).status).toBe(401);
    expect((await s.request('GET', '/api/commands', undefined, admin + 'x')).status).toBe(401);
    expect((await s.request('GET', '/api/commands', undefined, undefined, { authorization: admin })).status).toBe(401);
    expect((await s.request('GET', '/api/commands', undefined, undefined, { authorization: 'Bearer' })).status).toBe(401);
    expect((await s.request('GET', '/api/commands', undefined, undefined, { authorization: `Basic ${admin}` })).status).toBe(401);
  });

  it('the auth scheme is case-insensitive (RFC 9110): "bearer <token>" works', async () => {
    expect((await s.request('GET', '/api/commands', undefined, undefined, { authorization: `bearer ${admin}` })).status).toBe(200);
  });

  it('an agent token outlives its creator’s session (logout of the person)', async () => {
    const person = await s.login();
    const a = await agentToken(s, person, ['lead.list']);
    await s.request('POST', '/api/auth/logout', undefined, person);
    expect((await s.command(a, 'lead.list', { limit: 1 })).status).toBe(200);
  });

  it('401 wins over 404: unknown command without a token is 401', async () => {
    expect((await s.request('POST', '/api/nosuch/thing', {})).status).toBe(401);
  });

  it('issue 3: POST /api/auth/logout revokes the caller token → 401 afterwards', async () => {
    const t = await s.login();
    expect((await s.request('GET', '/api/commands', undefined, t)).status).toBe(200);
    const r = await s.request('POST', '/api/auth/logout', undefined, t);
    expect(r.status).toBeLessThan(300);
    expect((await s.request('GET', '/api/commands', undefined, t)).status).toBe(401);
    expect((await s.command(t, 'lead.list', {})).status).toBe(401);
    // other sessions of the same person are unaffected
    expect((await s.request('GET', '/api/commands', undefined, admin)).status).toBe(200);
  });

  describe('SPEC 5.5 / 8: sign-in lockout', () => {
    it('five failures → further attempts 429, even with the right password; other usernames unaffected', async () => {
      await s.addPerson('locky', ['sales'], 'locky-pw');
      await s.addPerson('bystander', ['sales'], 'bystander-pw');
      for (let i = 0; i < 5; i++) {
        const r = await s.request('POST', '/api/auth/login', { username: 'locky', password: `wrong-${i}` });
        expect(r.status, `attempt ${i + 1}`).toBe(401);
      }
      expect((await s.request('POST', '/api/auth/login', { username: 'locky', password: 'wrong' })).status).toBe(429);
      expect((await s.request('POST', '/api/auth/login', { username: 'locky', password: 'locky-pw' })).status).toBe(429);
      expect((await s.request('POST', '/api/auth/login', { username: 'bystander', password: 'bystander-pw' })).status).toBe(200);
    });

    it('four failures do not lock; a success is still possible', async () => {
      await s.addPerson('fourfail', ['sales'], 'fourfail-pw');
      for (let i = 0; i < 4; i++) {
        expect((await s.request('POST', '/api/auth/login', { username: 'fourfail', password: 'x' })).status).toBe(401);
      }
      expect((await s.request('POST', '/api/auth/login', { username: 'fourfail', password: 'fourfail-pw' })).status).toBe(200);
    });

    it('the lock lasts one minute (clock moved forward in-process)', async () => {
      await s.addPerson('unlocky', ['sales'], 'unlocky-pw');
      for (let i = 0; i < 5; i++) await s.request('POST', '/api/auth/login', { username: 'unlocky', password: 'x' });
      expect((await s.request('POST', '/api/auth/login', { username: 'unlocky', password: 'unlocky-pw' })).status).toBe(429);
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 30_000);
        expect((await s.request('POST', '/api/auth/login', { username: 'unlocky', password: 'unlocky-pw' })).status).toBe(429);
        vi.setSystemTime(Date.now() + 62_000);
        expect((await s.request('POST', '/api/auth/login', { username: 'unlocky', password: 'unlocky-pw' })).status).toBe(200);
      } finally {
        vi.useRealTimers();
      }
    });

    it('usernames differing only in case share one lock (sign-in is case-insensitive)', async () => {
      await s.addPerson('casey', ['sales'], 'casey-pw1');
      // sign-in accepts another case of the username, so the lock must too
      expect((await s.request('POST', '/api/auth/login', { username: 'CASEY', password: 'casey-pw1' })).status).toBe(200);
      for (const u of ['casey', 'Casey', 'CASEY', 'cAsey', 'caSEY']) {
        expect((await s.request('POST', '/api/auth/login', { username: u, password: 'bad' })).status).toBe(401);
      }
      expect((await s.request('POST', '/api/auth/login', { username: 'casey', password: 'casey-pw1' })).status).toBe(429);
      expect((await s.request('POST', '/api/auth/login', { username: 'Casey', password: 'casey-pw1' })).status).toBe(429);
    });

    it('attempts during the lock do not extend it; after it, a single failure is a plain 401', async () => {
      await s.addPerson('hammer', ['sales'], 'hammer-pw');
      vi.useFakeTimers({ toFake: ['Date'] });
      const t0 = Date.now();
      try {
        for (let i = 0; i < 5; i++) await s.request('POST', '/api/auth/login', { username: 'hammer', password: 'x' });
        for (const ms of [10_000, 30_000, 50_000]) {
          vi.setSystemTime(t0 + ms);
          expect((await s.request('POST', '/api/auth/login', { username: 'hammer', password: 'x' })).status).toBe(429);
        }
        vi.setSystemTime(t0 + 62_000);
        expect((await s.request('POST', '/api/auth/login', { username: 'hammer', password: 'x' })).status).toBe(401);
        expect((await s.request('POST', '/api/auth/login', { username: 'hammer', password: 'hammer-pw' })).status).toBe(200);
      } finally {
        vi.useRealTimers();
      }
    });

    it('failures spread over more than a minute do not lock', async () => {
      await s.addPerson('slowfail', ['sales'], 'slowfail-pw');
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        for (let i = 0; i < 6; i++) {
          vi.setSystemTime(Date.now() + 25_000);
          const r = await s.request('POST', '/api/auth/login', { username: 'slowfail', password: 'x' });
          expect(r.status, `attempt ${i + 1}`).toBe(401);
        }
        // 6 failures 25 s apart: at most 3 of them fall within any one minute
        vi.setSystemTime(Date.now() + 20_000);
        expect((await s.request('POST', '/api/auth/login', { username: 'slowfail', password: 'slowfail-pw' })).status).toBe(200);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  // Issue 4: "An agent token cannot create tokens, approve plans, or sign in: those endpoints are
  // 404 to it." (Found by this suite: the bearer used to be ignored and a session issued.)
  it('issue 4: sign-in with an agent bearer → 404', async () => {
    const a = await agentToken(s, admin, ['lead.get']);
    const r = await s.request('POST', '/api/auth/login', { username: 'admin', password: 'admin-test-password' }, a);
    expect(r.status).toBe(404);
  });

  it('SPEC 5.2 / 8: a session token is valid for 12 hours (clock moved forward in-process)', async () => {
    const t = await s.login();
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    try {
      vi.setSystemTime(start + 11 * 3600_000 + 58 * 60_000);
      expect((await s.request('GET', '/api/commands', undefined, t)).status).toBe(200);
      vi.setSystemTime(start + 12 * 3600_000 + 60_000);
      expect((await s.request('GET', '/api/commands', undefined, t)).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });
});

// =============================================================================================
describe('SPEC 7 / issue 3: transport errors', () => {
  it('body sent as text/plain → 415', async () => {
    const r = await s.request('POST', '/api/lead/list', '{}', admin, { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
  });

  it('body sent as form data → 415', async () => {
    const r = await s.request('POST', '/api/lead/create', 'title=x', admin, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(415);
  });

  it('application/json with charset parameter is accepted', async () => {
    const r = await s.request('POST', '/api/lead/list', '{}', admin, { 'content-type': 'application/json; charset=utf-8' });
    expect(r.status).toBe(200);
  });

  it('malformed JSON → 400 {"error"}', async () => {
    expect400(await s.request('POST', '/api/lead/list', '{"filter": [', admin));
    expect400(await s.request('POST', '/api/lead/create', "{'title': 'x'}", admin));
  });

  it('JSON that is not an object (array, string, number, null) → 400', async () => {
    for (const body of ['[]', '"x"', '42', 'null', 'true']) {
      expect400(await s.request('POST', '/api/lead/create', body, admin));
    }
  });

  it('unknown model, unknown command → 404, indistinguishable', async () => {
    const a = await s.command(admin, 'nosuch.get', { id: 'x' });
    const b = await s.command(admin, 'lead.nosuch', { id: 'x' });
    const c = await s.request('POST', '/api/lead', {}, admin);
    expect(a.status).toBe(404);
    expect(b.status).toBe(404);
    expect(c.status).toBe(404);
    expect(a.body).toEqual(b.body);
  });

  it('forbidden command (role) → 404 with the same body as an unknown one', async () => {
    const acct = await s.addPerson('acct404', ['accountant']);
    const forbidden = await s.command(acct, 'lead.create', { title: 'x' });
    const unknown = await s.command(acct, 'lead.frobnicate', { title: 'x' });
    expect(forbidden.status).toBe(404);
    expect(forbidden.body).toEqual(unknown.body);
    expect(forbidden.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
  });

  it('a 404 is decided before the body is validated (bad body on a forbidden command still 404)', async () => {
    const acct = await s.addPerson('acct404b', ['accountant']);
    expect((await s.command(acct, 'lead.create', { nonsense: 1 })).status).toBe(404);
    expect((await s.request('POST', '/api/lead/create', '{bad json', acct)).status).not.toBe(200);
  });

  it('oversized body is refused (not 200, not 500)', async () => {
    const r = await s.request('POST', '/api/lead/create', JSON.stringify({ title: 'x'.repeat(20 * 1024 * 1024) }), admin);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it('model/command names are not case-folded or prototype-looked-up', async () => {
    expect((await s.command(admin, 'LEAD.list', {})).status).toBe(404);
    expect((await s.command(admin, 'lead.LIST', {})).status).toBe(404);
    expect((await s.command(admin, '__proto__.get', { id: 'x' })).status).toBe(404);
    expect((await s.command(admin, 'lead.constructor', {})).status).toBe(404);
    expect((await s.command(admin, 'lead.toString', {})).status).toBe(404);
  });
});

// =============================================================================================
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

// =============================================================================================
describe('SPEC 2.2 / 3 / 4.3: governed fields and workflow actions', () => {
  let party: Rec;
  beforeAll(async () => {
    party = await create(s, admin, 'party', { name: 'WF Party' });
  });

  it('create sets governed selects to their first option', async () => {
    expect((await create(s, admin, 'lead', { title: 'g' })).stage).toBe('new');
    const inv = await create(s, admin, 'invoice', { number: 'G-1', party: party.id, amount: 1, issue_date: '2024-01-01' });
    expect(inv.state).toBe('draft');
  });

  it.each(['new', 'qualified', 'won', null])('issue 3: a governed value in create input (%j) → 400', async (stage) => {
    expect400(await s.command(admin, 'lead.create', { title: 'g', stage }));
  });

  it('lead.qualify {id} on a new lead → 200, value is the updated record at qualified', async () => {
    const v = await create(s, admin, 'lead', { title: 'q', probability: 3 });
    const q = expect200(await s.command(admin, 'lead.qualify', { id: v.id }));
    expect(q).toEqual({ ...v, stage: 'qualified' });
  });

  it('lead.qualify on a lead not at new → 400, unchanged', async () => {
    const v = await create(s, admin, 'lead', { title: 'q2' });
    expect200(await s.command(admin, 'lead.qualify', { id: v.id }));
    expect400(await s.command(admin, 'lead.qualify', { id: v.id }));
    expect200(await s.command(admin, 'lead.win', { id: v.id }));
    expect400(await s.command(admin, 'lead.qualify', { id: v.id }));
    expect400(await s.command(admin, 'lead.lose', { id: v.id, lost_reason: 'late' }));
    expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).stage).toBe('won');
  });

  it('an action without id → 400', async () => {
    expect400(await s.command(admin, 'lead.qualify', {}));
  });

  it('lead.lose requires lost_reason: 400 "lead.lost_reason is required"', async () => {
    const v = await create(s, admin, 'lead', { title: 'l' });
    expect400(await s.command(admin, 'lead.lose', { id: v.id }), 'lead.lost_reason is required');
    expect400(await s.command(admin, 'lead.lose', { id: v.id, lost_reason: null }), 'lead.lost_reason is required');
    const lost = expect200(await s.command(admin, 'lead.lose', { id: v.id, lost_reason: 'budget' }));
    expect(lost).toMatchObject({ stage: 'lost', lost_reason: 'budget' });
  });

  it('action fields are validated by kind', async () => {
    const v = await create(s, admin, 'lead', { title: 'l' });
    expect400(await s.command(admin, 'lead.lose', { id: v.id, lost_reason: 42 }));
    expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).stage).toBe('new');
  });

  it('update of a governed field runs the matching action (new → qualified)', async () => {
    const v = await create(s, admin, 'lead', { title: 'uq' });
    expect(expect200(await s.command(admin, 'lead.update', { id: v.id, stage: 'qualified' })).stage).toBe('qualified');
  });

  it('update to a stage no action reaches from here → 400, unchanged', async () => {
    const v = await create(s, admin, 'lead', { title: 'uw' });
    expect400(await s.command(admin, 'lead.update', { id: v.id, stage: 'won' }));
    expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).stage).toBe('new');
  });

  it('update to an option that does not exist → 400', async () => {
    const v = await create(s, admin, 'lead', { title: 'ux' });
    expect400(await s.command(admin, 'lead.update', { id: v.id, stage: 'bogus' }));
    expect400(await s.command(admin, 'lead.update', { id: v.id, stage: null }));
  });

  it("update to lost runs lose, including its required input", async () => {
    const v = await create(s, admin, 'lead', { title: 'ul' });
    expect400(await s.command(admin, 'lead.update', { id: v.id, stage: 'lost' }), 'lead.lost_reason is required');
    expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).stage).toBe('new');
    const u = expect200(await s.command(admin, 'lead.update', { id: v.id, stage: 'lost', lost_reason: 'price' }));
    expect(u).toMatchObject({ stage: 'lost', lost_reason: 'price' });
  });

  it('update of a governed field together with other fields applies both', async () => {
    const v = await create(s, admin, 'lead', { title: 'combo' });
    const u = expect200(await s.command(admin, 'lead.update', { id: v.id, stage: 'qualified', probability: 77 }));
    expect(u).toMatchObject({ stage: 'qualified', probability: 77 });
  });

  it('invoice workflow for a person: post, pay; cancel of paid refused', async () => {
    const inv = await create(s, admin, 'invoice', { number: 'W-1', party: party.id, amount: 500, issue_date: '2024-01-31' });
    expect(expect200(await s.command(admin, 'invoice.post', { id: inv.id })).state).toBe('posted');
    expect(expect200(await s.command(admin, 'invoice.pay', { id: inv.id })).state).toBe('paid');
    expect400(await s.command(admin, 'invoice.cancel', { id: inv.id }));
    expect400(await s.command(admin, 'invoice.update', { id: inv.id, state: 'draft' }));
  });
});

// =============================================================================================
describe('SPEC 4.3 rule 4: delete', () => {
  it('delete → 200 {"id"}; the record is gone', async () => {
    const v = await create(s, admin, 'lead', { title: 'del' });
    expect(expect200(await s.command(admin, 'lead.delete', { id: v.id }))).toEqual({ id: v.id });
    expect((await s.command(admin, 'lead.get', { id: v.id })).status).not.toBe(200);
    const listed = expect200(await s.command(admin, 'lead.list', { filter: [{ field: 'id', op: 'eq', value: v.id }] }));
    expect(listed).toEqual([]);
  });

  it('deleting twice: second is not 200', async () => {
    const v = await create(s, admin, 'lead', { title: 'del2' });
    expect200(await s.command(admin, 'lead.delete', { id: v.id }));
    expect((await s.command(admin, 'lead.delete', { id: v.id })).status).not.toBe(200);
  });

  it('delete of a party referenced by a lead → 400, nothing deleted', async () => {
    const p = await create(s, admin, 'party', { name: 'referenced' });
    const l = await create(s, admin, 'lead', { title: 'refers', party: p.id });
    expect400(await s.command(admin, 'party.delete', { id: p.id }));
    expect(expect200(await s.command(admin, 'party.get', { id: p.id })).name).toBe('referenced');
    expect200(await s.command(admin, 'lead.delete', { id: l.id }));
    expect(expect200(await s.command(admin, 'party.delete', { id: p.id }))).toEqual({ id: p.id });
  });

  it('delete of a party referenced by an invoice → 400', async () => {
    const p = await create(s, admin, 'party', { name: 'billed' });
    await create(s, admin, 'invoice', { number: 'D-1', party: p.id, amount: 1, issue_date: '2024-01-01' });
    expect400(await s.command(admin, 'party.delete', { id: p.id }));
    expect200(await s.command(admin, 'party.get', { id: p.id }));
  });

  it('delete of a lead referenced by an invoice → 400', async () => {
    const p = await create(s, admin, 'party', { name: 'billed2' });
    const l = await create(s, admin, 'lead', { title: 'invoiced lead' });
    await create(s, admin, 'invoice', { number: 'D-2', party: p.id, lead: l.id, amount: 1, issue_date: '2024-01-01' });
    expect400(await s.command(admin, 'lead.delete', { id: l.id }));
    expect200(await s.command(admin, 'lead.get', { id: l.id }));
  });

  it('a reference cleared by update no longer blocks delete', async () => {
    const p = await create(s, admin, 'party', { name: 'was referenced' });
    const l = await create(s, admin, 'lead', { title: 'x', party: p.id });
    expect400(await s.command(admin, 'party.delete', { id: p.id }));
    expect200(await s.command(admin, 'lead.update', { id: l.id, party: null }));
    expect200(await s.command(admin, 'party.delete', { id: p.id }));
  });
});

// =============================================================================================
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
      for (let i = 0; i < 5001; i += 100) {
        await Promise.all(Array.from({ length: Math.min(100, 5001 - i) }, (_, k) => big.command(bt, 'lead.create', { title: `bulk ${i + k}` })));
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

// =============================================================================================
describe('issue 3: people’s rights by role', () => {
  let sales: string;
  let acct: string;
  let party: Rec;
  beforeAll(async () => {
    sales = await s.addPerson('sally', ['sales']);
    acct = await s.addPerson('archie', ['accountant']);
    party = await create(s, admin, 'party', { name: 'Rights Co', tax_id: 'TAX-1', kind: 'company' });
  });

  it('admin reads tax_id; accountant reads tax_id', async () => {
    expect(expect200(await s.command(admin, 'party.get', { id: party.id })).tax_id).toBe('TAX-1');
    const r = await s.command(acct, 'party.get', { id: party.id });
    expect(expect200(r).tax_id).toBe('TAX-1');
    expect(r.body.denied).toEqual([]);
  });

  it('sales does not read tax_id: absent and named in denied as party.tax_id', async () => {
    const r = await s.command(sales, 'party.get', { id: party.id });
    const v = expect200(r);
    expect(v).not.toHaveProperty('tax_id');
    expect(r.body.denied).toEqual(['party.tax_id']);
    expect(v.name).toBe('Rights Co');
    const l = await s.command(sales, 'party.list', {});
    expect(l.body.denied).toEqual(['party.tax_id']);
    for (const row of expect200(l)) expect(row).not.toHaveProperty('tax_id');
    const sr = await s.command(sales, 'party.search', {});
    expect(sr.body.denied).toEqual(['party.tax_id']);
  });

  it('create/update/delete results also withhold the field from sales', async () => {
    const r = await s.command(sales, 'party.create', { name: 'by sales' });
    expect(expect200(r)).not.toHaveProperty('tax_id');
    expect(r.body.denied).toEqual(['party.tax_id']);
    const u = await s.command(sales, 'party.update', { id: r.body.value.id, email: 'e@x' });
    expect(expect200(u)).not.toHaveProperty('tax_id');
    expect(u.body.denied).toEqual(['party.tax_id']);
  });

  it('sales cannot filter or order by tax_id: 400 "unknown field party.tax_id"', async () => {
    expect400(await s.command(sales, 'party.list', { filter: [{ field: 'tax_id', op: 'eq', value: 'TAX-1' }] }), 'unknown field party.tax_id');
    expect400(await s.command(sales, 'party.list', { filter: [{ field: 'tax_id', op: 'is_null' }] }), 'unknown field party.tax_id');
    expect400(await s.command(sales, 'party.search', { order: [{ field: 'tax_id' }] }), 'unknown field party.tax_id');
  });

  it('sales cannot write tax_id (400), nothing written', async () => {
    expect((await s.command(sales, 'party.create', { name: 'sneaky', tax_id: 'X' })).status).toBe(400);
    expect((await s.command(sales, 'party.update', { id: party.id, tax_id: 'HACKED' })).status).toBe(400);
    expect(expect200(await s.command(admin, 'party.get', { id: party.id })).tax_id).toBe('TAX-1');
  });

  it('sales may only read invoices; writes → 404', async () => {
    const inv = await create(s, admin, 'invoice', { number: 'R-1', party: party.id, amount: 10, issue_date: '2024-05-05' });
    expect(expect200(await s.command(sales, 'invoice.get', { id: inv.id })).number).toBe('R-1');
    expect200(await s.command(sales, 'invoice.list', {}));
    expect200(await s.command(sales, 'invoice.search', {}));
    for (const cmd of ['invoice.create', 'invoice.update', 'invoice.delete', 'invoice.post', 'invoice.pay', 'invoice.cancel']) {
      expect((await s.command(sales, cmd, { id: inv.id })).status, cmd).toBe(404);
    }
  });

  it('accountant: party get/list/search/create/update, no party.delete; lead read-only', async () => {
    const p = expect200(await s.command(acct, 'party.create', { name: 'acct party' }));
    expect200(await s.command(acct, 'party.update', { id: p.id, kind: 'person' }));
    expect((await s.command(acct, 'party.delete', { id: p.id })).status).toBe(404);
    const l = await create(s, admin, 'lead', { title: 'acct sees' });
    expect200(await s.command(acct, 'lead.get', { id: l.id }));
    for (const cmd of ['lead.create', 'lead.update', 'lead.delete', 'lead.qualify', 'lead.win', 'lead.lose']) {
      expect((await s.command(acct, cmd, { id: l.id, title: 'x' })).status, cmd).toBe(404);
    }
    expect(expect200(await s.command(admin, 'lead.get', { id: l.id })).title).toBe('acct sees');
  });

  it('a forbidden governed transition via update does not run the action (accountant cannot update lead at all)', async () => {
    const l = await create(s, admin, 'lead', { title: 'acct stage' });
    expect((await s.command(acct, 'lead.update', { id: l.id, stage: 'qualified' })).status).toBe(404);
  });

  it('person with no role: every command 404, catalogue empty', async () => {
    const nobody = await s.addPerson('norole', []);
    expect((await s.command(nobody, 'lead.list', {})).status).toBe(404);
    const r = await s.request('GET', '/api/commands', undefined, nobody);
    expect(r.status).toBe(200);
    expect(r.body.commands).toEqual([]);
  });
});

// =============================================================================================
describe('SPEC 2.5 / 4.1: GET /api/commands and GET /api/meta', () => {
  const ADMIN_IDS = [
    ...['party', 'lead', 'invoice'].flatMap((m) => ['get', 'list', 'search', 'create', 'update', 'delete'].map((c) => `${m}.${c}`)),
    'lead.qualify',
    'lead.win',
    'lead.lose',
    'invoice.post',
    'invoice.pay',
    'invoice.cancel',
  ];

  it('admin catalogue: every command, each {id, description, needs_approval}', async () => {
    const r = await s.request('GET', '/api/commands', undefined, admin);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['commands']);
    const cmds = r.body.commands as Rec[];
    expect(cmds.map((c) => c.id).sort()).toEqual([...ADMIN_IDS].sort());
    for (const c of cmds) {
      expect(Object.keys(c).sort()).toEqual(['description', 'id', 'needs_approval']);
      expect(typeof c.description).toBe('string');
      expect(c.description.length).toBeGreaterThan(0);
      expect(typeof c.needs_approval).toBe('boolean');
    }
  });

  it('needs_approval: every delete, invoice.post, invoice.pay; not lead.qualify', async () => {
    const cmds = (await s.request('GET', '/api/commands', undefined, admin)).body.commands as Rec[];
    const byId = Object.fromEntries(cmds.map((c) => [c.id, c.needs_approval]));
    expect(Object.keys(byId).filter((id) => byId[id]).sort()).toEqual(
      ['party.delete', 'lead.delete', 'invoice.delete', 'invoice.post', 'invoice.pay'].sort(),
    );
    expect(byId['lead.qualify']).toBe(false);
  });

  it('sales catalogue: only what sales may use', async () => {
    const sales = await s.addPerson('cat-sales', ['sales']);
    const ids = ((await s.request('GET', '/api/commands', undefined, sales)).body.commands as Rec[]).map((c) => c.id).sort();
    expect(ids).toEqual(ADMIN_IDS.filter((id) => !id.startsWith('invoice.') || ['invoice.get', 'invoice.list', 'invoice.search'].includes(id)).sort());
  });

  it('agent catalogue: scopes lead.* and party.get', async () => {
    const a = await agentToken(s, admin, ['lead.*', 'party.get']);
    const ids = ((await s.request('GET', '/api/commands', undefined, a)).body.commands as Rec[]).map((c) => c.id).sort();
    expect(ids).toEqual(
      ['lead.get', 'lead.list', 'lead.search', 'lead.create', 'lead.update', 'lead.delete', 'lead.qualify', 'lead.win', 'lead.lose', 'party.get'].sort(),
    );
  });

  it('GET /api/meta carries Link: </mcp>; rel="mcp"', async () => {
    const r = await s.request('GET', '/api/meta', undefined, admin);
    expect(r.status).toBe(200);
    expect(r.headers.get('link')).toBe('</mcp>; rel="mcp"');
    const a = await agentToken(s, admin, ['lead.get']);
    expect((await s.request('GET', '/api/meta', undefined, a)).headers.get('link')).toBe('</mcp>; rel="mcp"');
  });

  it('meta for admin names every model and the actions', async () => {
    const body = (await s.request('GET', '/api/meta', undefined, admin)).body;
    const text = JSON.stringify(body);
    for (const name of ['party', 'lead', 'invoice', 'qualify', 'win', 'lose', 'post', 'pay', 'cancel', 'tax_id', 'internal_note']) {
      expect(text).toContain(`"${name}"`);
    }
  });

  it('meta for sales does not show party.tax_id', async () => {
    const sales = await s.addPerson('meta-sales', ['sales']);
    const body = (await s.request('GET', '/api/meta', undefined, sales)).body;
    expect(findAll(body, (o) => o.name === 'tax_id')).toEqual([]);
  });

  it('meta for an agent: no hidden fields, no models outside its scopes', async () => {
    const a = await agentToken(s, admin, ['lead.*', 'party.get']);
    const body = (await s.request('GET', '/api/meta', undefined, a)).body;
    expect(findAll(body, (o) => o.name === 'tax_id')).toEqual([]);
    expect(findAll(body, (o) => o.name === 'invoice' || o.name === 'internal_note')).toEqual([]);
    expect(findAll(body, (o) => o.name === 'lead').length).toBeGreaterThan(0);
  });
});

// =============================================================================================
describe('SPEC 2.3 / 2.4 / 4.4 / issue 4: agents', () => {
  let party: Rec; // name "Ada Lovelace", email, notes, tax_id
  let lead: Rec;
  beforeAll(async () => {
    party = await create(s, admin, 'party', {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: null,
      kind: 'person',
      tax_id: 'SECRET-TAX',
      notes: 'Shared note',
    });
    lead = await create(s, admin, 'lead', { title: 'Agent lead', party: party.id, notes: 'Shared note', probability: 40 });
  });

  describe('agent tokens', () => {
    it('POST /api/auth/agent-token → {"token"}; the token works as a bearer', async () => {
      const a = await agentToken(s, admin, ['lead.get']);
      expect(expect200(await s.command(a, 'lead.get', { id: lead.id })).title).toBe('Agent lead');
    });

    it('the token is shown once: the token list never holds it', async () => {
      const r = await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'shown-once' }, admin);
      const list = await s.request('GET', '/api/auth/agent-tokens', undefined, admin);
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain(r.body.token);
      expect(JSON.stringify(list.body)).toContain('shown-once');
    });

    it.each([
      [{ scopes: 'lead.get', label: 'x' }],
      [{ scopes: ['lead.get'] }],
      [{ label: 'x' }],
      [{ scopes: [1], label: 'x' }],
      [{ scopes: ['lead.get'], label: 5 }],
      [{ scopes: ['lead.get'], label: 'x', extra: true }],
    ])('malformed request %j → 400', async (body) => {
      expect400(await s.request('POST', '/api/auth/agent-token', body, admin));
    });

    it('scope matching no command → 400 naming it', async () => {
      const r = await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.get', 'nosuch.get'], label: 'x' }, admin);
      expect400(r);
      expect(r.body.error).toContain('nosuch.get');
    });

    it('scope the person may not use → 400 naming it', async () => {
      const sales = await s.addPerson('scope-sales', ['sales']);
      const r = await s.request('POST', '/api/auth/agent-token', { scopes: ['invoice.create'], label: 'x' }, sales);
      expect400(r);
      expect(r.body.error).toContain('invoice.create');
    });

    it('wildcard scopes: *.search and *.*', async () => {
      const a = await agentToken(s, admin, ['*.search']);
      const ids = ((await s.request('GET', '/api/commands', undefined, a)).body.commands as Rec[]).map((c) => c.id).sort();
      expect(ids).toEqual(['invoice.search', 'lead.search', 'party.search']);
      expect((await s.command(a, 'lead.list', {})).status).toBe(404);
    });

    it('an agent’s rights are its scopes intersected with its creator’s rights', async () => {
      const sales = await s.addPerson('intersect-sales', ['sales']);
      const a = await agentToken(s, sales, ['*.*']);
      const ids = ((await s.request('GET', '/api/commands', undefined, a)).body.commands as Rec[]).map((c) => c.id);
      expect(ids).not.toContain('invoice.create');
      expect(ids).toContain('invoice.get');
      const p = await create(s, admin, 'party', { name: 'for intersect' });
      expect((await s.command(a, 'invoice.create', { number: 'N', party: p.id, amount: 1, issue_date: '2024-01-01' })).status).toBe(404);
    });

    it('out-of-scope command → 404 with the same body as an unknown command', async () => {
      const a = await agentToken(s, admin, ['lead.get']);
      const out = await s.command(a, 'lead.list', {});
      const unknown = await s.command(a, 'lead.nosuch', {});
      expect(out.status).toBe(404);
      expect(out.body).toEqual(unknown.body);
    });

    it('an agent token cannot create tokens, approve plans or list tokens: 404', async () => {
      const a = await agentToken(s, admin, ['*.*']);
      expect((await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'x' }, a)).status).toBe(404);
      expect((await s.request('POST', '/api/approve/whatever', undefined, a)).status).toBe(404);
      expect((await s.request('GET', '/api/auth/agent-tokens', undefined, a)).status).toBe(404);
    });

    it('revoke → 401 at once', async () => {
      const r = await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'to revoke' }, admin);
      const a = r.body.token as string;
      expect((await s.command(a, 'lead.get', { id: lead.id })).status).toBe(200);
      const list = (await s.request('GET', '/api/auth/agent-tokens', undefined, admin)).body;
      const entry = findAll(list, (o) => o.label === 'to revoke')[0];
      expect(entry).toBeDefined();
      const rv = await s.request('POST', '/api/auth/agent-token/revoke', { id: entry!.id }, admin);
      expect(rv.status).toBe(200);
      expect((await s.command(a, 'lead.get', { id: lead.id })).status).toBe(401);
      expect((await s.request('GET', '/api/commands', undefined, a)).status).toBe(401);
    });

    it('a person cannot revoke another person’s agent token', async () => {
      const other = await s.addPerson('other-revoker', ['sales']);
      const r = await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'admins own' }, admin);
      const list = (await s.request('GET', '/api/auth/agent-tokens', undefined, admin)).body;
      const entry = findAll(list, (o) => o.label === 'admins own')[0]!;
      const rv = await s.request('POST', '/api/auth/agent-token/revoke', { id: entry.id }, other);
      expect(rv.status).not.toBe(200);
      expect((await s.command(r.body.token, 'lead.get', { id: lead.id })).status).toBe(200);
    });

    it('issue 4: optional expires_in_days (default 30): an expired agent token → 401', async () => {
      const a = await agentToken(s, admin, ['lead.get']);
      const b = (await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'short', expires_in_days: 1 }, admin)).body
        .token as string;
      vi.useFakeTimers({ toFake: ['Date'] });
      const start = Date.now();
      try {
        vi.setSystemTime(start + 2 * 86400_000);
        expect((await s.command(b, 'lead.get', { id: lead.id })).status).toBe(401);
        expect((await s.command(a, 'lead.get', { id: lead.id })).status).toBe(200);
        vi.setSystemTime(start + 31 * 86400_000);
        expect((await s.command(a, 'lead.get', { id: lead.id })).status).toBe(401);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('withheld and masked fields', () => {
    it('party.get: personal fields as tokens, tax_id withheld and named in denied', async () => {
      const a = await agentToken(s, admin, ['party.get']);
      const r = await s.command(a, 'party.get', { id: party.id });
      const v = expect200(r);
      expect(r.body.denied).toEqual(['party.tax_id']);
      expect(v).not.toHaveProperty('tax_id');
      expect(v.id).toBe(party.id);
      expect(v.kind).toBe('person');
      expect(v.name).toMatch(tokenOf('NAME'));
      expect(v.email).toMatch(tokenOf('EMAIL'));
      expect(v.notes).toMatch(tokenOf('NOTES'));
      expect(v.phone).toBeNull(); // empty stays empty; there is nothing to mask
      expect(JSON.stringify(r.body)).not.toMatch(/Ada|Lovelace|ada@example|SECRET-TAX|Shared note/);
    });

    it('invoice: internal_note withheld and named in denied', async () => {
      const inv = await create(s, admin, 'invoice', {
        number: 'AG-1',
        party: party.id,
        amount: 99,
        issue_date: '2024-06-01',
        internal_note: 'do not tell',
      });
      const a = await agentToken(s, admin, ['invoice.get', 'invoice.list']);
      const r = await s.command(a, 'invoice.get', { id: inv.id });
      expect(expect200(r)).not.toHaveProperty('internal_note');
      expect(r.body.denied).toEqual(['invoice.internal_note']);
      expect(r.body.value.number).toBe('AG-1');
      const l = await s.command(a, 'invoice.list', {});
      expect(l.body.denied).toEqual(['invoice.internal_note']);
      expect(JSON.stringify(l.body)).not.toContain('do not tell');
    });

    it('tokens are stable: same value → same token across calls, list/search/get', async () => {
      const a = await agentToken(s, admin, ['party.get', 'party.list', 'party.search']);
      const g1 = expect200(await s.command(a, 'party.get', { id: party.id }));
      const g2 = expect200(await s.command(a, 'party.get', { id: party.id }));
      expect(g2).toEqual(g1);
      const listed = (expect200(await s.command(a, 'party.list', {})) as Rec[]).find((x) => x.id === party.id)!;
      expect(listed).toEqual(g1);
      const searched = (expect200(await s.command(a, 'party.search', {})).rows as Rec[]).find((x) => x.id === party.id)!;
      expect(searched).toEqual(g1);
    });

    it('the same clear value gives the same token across models (party.notes and lead.notes)', async () => {
      const a = await agentToken(s, admin, ['party.get', 'lead.get']);
      const pn = expect200(await s.command(a, 'party.get', { id: party.id })).notes;
      const ln = expect200(await s.command(a, 'lead.get', { id: lead.id })).notes;
      expect(pn).toMatch(tokenOf('NOTES'));
      expect(ln).toBe(pn);
    });

    it('different values give different tokens; every masked value has the token form', async () => {
      await create(s, admin, 'party', { name: 'Grace Hopper', email: 'grace@example.com' });
      await create(s, admin, 'party', { name: 'Ada Lovelace ', email: 'ADA@example.com' }); // differs by a space / case
      const a = await agentToken(s, admin, ['party.list']);
      const rows = expect200(await s.command(a, 'party.list', {})) as Rec[];
      const names = rows.map((r) => r.name);
      for (const n of names) expect(n).toMatch(TOKEN_FORM);
      const clear = (expect200(await s.command(admin, 'party.list', {})) as Rec[]).map((r) => r.name);
      // token ↔ clear value is a bijection over this list
      const pairs = new Map<string, string>();
      clear.forEach((c, i) => {
        if (pairs.has(c)) expect(pairs.get(c)).toBe(names[i]);
        pairs.set(c, names[i]);
      });
      expect(new Set(pairs.values()).size).toBe(pairs.size);
    });

    it('different agent tokens: a token issued to one agent is invalid for another', async () => {
      const secret = await create(s, admin, 'party', { name: 'Only agent A saw me' });
      const a = await agentToken(s, admin, ['party.*'], 'A');
      const b = await agentToken(s, admin, ['party.*'], 'B');
      const tokA = expect200(await s.command(a, 'party.get', { id: secret.id })).name;
      expect(tokA).toMatch(tokenOf('NAME'));
      const r = await s.command(b, 'party.create', { name: tokA });
      if (r.status === 200) {
        // only acceptable if B was itself issued the same token string for some value; then it must not be A's value
        expect(expect200(await s.command(admin, 'party.get', { id: r.body.value.id })).name).not.toBe('Only agent A saw me');
      } else expect400(r, 'invalid token');
    });

    it('masked values cannot be filtered or ordered: 400 "unknown field <model>.<field>"', async () => {
      const a = await agentToken(s, admin, ['party.list', 'lead.list', 'invoice.search', 'party.search']);
      expect400(await s.command(a, 'party.list', { filter: [{ field: 'name', op: 'eq', value: 'Ada Lovelace' }] }), 'unknown field party.name');
      expect400(await s.command(a, 'party.list', { filter: [{ field: 'email', op: 'contains', value: 'ada' }] }), 'unknown field party.email');
      expect400(await s.command(a, 'party.list', { filter: [{ field: 'notes', op: 'is_null' }] }), 'unknown field party.notes');
      expect400(await s.command(a, 'party.search', { order: [{ field: 'name' }] }), 'unknown field party.name');
      expect400(await s.command(a, 'lead.list', { order: [{ field: 'notes', dir: 'desc' }] }), 'unknown field lead.notes');
      expect400(await s.command(a, 'party.list', { filter: [{ field: 'tax_id', op: 'eq', value: 'SECRET-TAX' }] }), 'unknown field party.tax_id');
      expect400(
        await s.command(a, 'invoice.search', { filter: [{ field: 'internal_note', op: 'is_null' }] }),
        'unknown field invoice.internal_note',
      );
    });

    it('filtering by a masked field with its own token is refused too', async () => {
      const a = await agentToken(s, admin, ['party.get', 'party.list']);
      const tok = expect200(await s.command(a, 'party.get', { id: party.id })).name;
      expect400(await s.command(a, 'party.list', { filter: [{ field: 'name', op: 'eq', value: tok }] }), 'unknown field party.name');
    });

    it('unmasked fields filter and order normally', async () => {
      const a = await agentToken(s, admin, ['lead.list', 'party.list']);
      const rows = expect200(await s.command(a, 'lead.list', { filter: [{ field: 'id', op: 'eq', value: lead.id }], order: [{ field: 'probability', dir: 'desc' }] }));
      expect(rows).toHaveLength(1);
      expect(rows[0].notes).toMatch(tokenOf('NOTES'));
      expect(expect200(await s.command(a, 'party.list', { filter: [{ field: 'kind', op: 'eq', value: 'person' }] })).length).toBeGreaterThan(0);
    });
  });

  describe('agent writes with tokens', () => {
    it('a token the agent was issued is written back as the clear value', async () => {
      const a = await agentToken(s, admin, ['party.get', 'lead.*']);
      const noteTok = expect200(await s.command(a, 'party.get', { id: party.id })).notes;
      const created = expect200(await s.command(a, 'lead.create', { title: 'agent wrote', notes: noteTok }));
      expect(created.notes).toBe(noteTok); // agent sees the token back
      expect(expect200(await s.command(admin, 'lead.get', { id: created.id })).notes).toBe('Shared note');
    });

    it('token in update of another model with the same label', async () => {
      const a = await agentToken(s, admin, ['lead.get', 'party.update', 'party.get']);
      const tok = expect200(await s.command(a, 'lead.get', { id: lead.id })).notes; // NOTES_n for "Shared note"
      const p = await create(s, admin, 'party', { name: 'to be updated', notes: 'old' });
      expect200(await s.command(a, 'party.update', { id: p.id, notes: tok }));
      expect(expect200(await s.command(admin, 'party.get', { id: p.id })).notes).toBe('Shared note');
    });

    it('an agent may write new clear values and then sees them masked', async () => {
      const a = await agentToken(s, admin, ['party.create', 'party.get']);
      const v = expect200(await s.command(a, 'party.create', { name: 'Brand New Person', email: 'new@example.com' }));
      expect(v.name).toMatch(tokenOf('NAME'));
      expect(v.email).toMatch(tokenOf('EMAIL'));
      expect(expect200(await s.command(admin, 'party.get', { id: v.id })).name).toBe('Brand New Person');
      expect(expect200(await s.command(a, 'party.get', { id: v.id })).name).toBe(v.name);
    });

    it('a token of another label → 400 "invalid token", nothing written', async () => {
      const a = await agentToken(s, admin, ['party.get', 'party.create', 'party.update', 'party.list']);
      const g = expect200(await s.command(a, 'party.get', { id: party.id }));
      const before = expect200(await s.command(admin, 'party.search', { limit: 1 })).total;
      expect400(await s.command(a, 'party.create', { name: g.email }), 'invalid token'); // EMAIL_n in name
      expect400(await s.command(a, 'party.create', { name: 'ok', notes: g.name }), 'invalid token'); // NAME_n in notes
      expect(expect200(await s.command(admin, 'party.search', { limit: 1 })).total).toBe(before);
    });

    it('a token never issued → 400 "invalid token", nothing written', async () => {
      const a = await agentToken(s, admin, ['party.create', 'party.update', 'lead.update']);
      const p = await create(s, admin, 'party', { name: 'untouched', email: 'u@x' });
      expect400(await s.command(a, 'party.create', { name: 'NAME_999999' }), 'invalid token');
      expect400(await s.command(a, 'party.update', { id: p.id, email: 'EMAIL_424242' }), 'invalid token');
      expect400(await s.command(a, 'party.update', { id: p.id, kind: 'company', email: 'EMAIL_424242' }), 'invalid token');
      expect400(await s.command(a, 'lead.update', { id: lead.id, notes: 'NOTES_777777' }), 'invalid token');
      expect(expect200(await s.command(admin, 'party.get', { id: p.id }))).toMatchObject({ email: 'u@x', kind: null });
      expect(expect200(await s.command(admin, 'lead.get', { id: lead.id })).notes).toBe('Shared note');
    });

    // Issue 4: "any other token-form value → 400 `invalid token`, nothing written"; SPEC 2.4:
    // tokens are "`<FIELD_LABEL>_<n>`, upper case label, underscore, integer". NAME_0, NAME_00 and
    // NAME_01 have that form (found by this suite: they used to be stored as clear text).
    it('a token-form value with n = 0 or leading zeros is refused as "invalid token"', async () => {
      const a = await agentToken(s, admin, ['party.create', 'party.get']);
      for (const name of ['NAME_0', 'NAME_00', 'NAME_01']) expect400(await s.command(a, 'party.create', { name }), 'invalid token');
      // NAME_01 is not NAME_1 even when NAME_1 was issued.
      const p = await create(s, admin, 'party', { name: 'Issued Once' });
      const seen = expect200(await s.command(a, 'party.get', { id: p.id })).name as string;
      const padded = seen.replace(/_(\d+)$/, '_0$1');
      expect400(await s.command(a, 'party.create', { name: padded }), 'invalid token');
    });

    it('values that are not of the token form are clear text (lower case, spaces, other digits)', async () => {
      const a = await agentToken(s, admin, ['party.create']);
      for (const v of ['name_1', 'Name_1', 'NAME_1 ', ' NAME_1', 'NAME_1.0', 'NAME_+1', 'NAME_']) {
        const r = await s.command(a, 'party.create', { name: v });
        const id = expect200(r).id;
        expect(expect200(await s.command(admin, 'party.get', { id })).name).toBe(v);
      }
    });

    it('a valid token in a non-personal field is just text (nothing to replace)', async () => {
      const a = await agentToken(s, admin, ['party.get', 'lead.create', 'lead.get']);
      const tok = expect200(await s.command(a, 'party.get', { id: party.id })).name;
      const v = expect200(await s.command(a, 'lead.create', { title: tok }));
      expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).title).toBe(tok);
    });

    it('an agent cannot write a field hidden from it (party.tax_id) → 400', async () => {
      const a = await agentToken(s, admin, ['party.create', 'party.update']);
      expect((await s.command(a, 'party.create', { name: 'x', tax_id: 'T' })).status).toBe(400);
      expect((await s.command(a, 'party.update', { id: party.id, tax_id: 'T' })).status).toBe(400);
      expect(expect200(await s.command(admin, 'party.get', { id: party.id })).tax_id).toBe('SECRET-TAX');
    });

    it('a person (not an agent) writing a token-form value stores it literally', async () => {
      const v = await create(s, admin, 'party', { name: 'NAME_1' });
      expect(expect200(await s.command(admin, 'party.get', { id: v.id })).name).toBe('NAME_1');
    });
  });

  describe('actions and approval', () => {
    it('lead.qualify by an agent runs directly (needs_approval false)', async () => {
      const a = await agentToken(s, admin, ['lead.*']);
      const l = await create(s, admin, 'lead', { title: 'agent qualifies' });
      const r = await s.command(a, 'lead.qualify', { id: l.id });
      expect(r.status).toBe(200);
      expect(r.body.value.stage).toBe('qualified');
    });

    it('lead.update of stage by an agent runs qualify directly', async () => {
      const a = await agentToken(s, admin, ['lead.*']);
      const l = await create(s, admin, 'lead', { title: 'agent updates stage' });
      expect(expect200(await s.command(a, 'lead.update', { id: l.id, stage: 'qualified' })).stage).toBe('qualified');
    });

    it('delete by an agent → 202 {"approval_required": true, "plan_id"}, nothing changed', async () => {
      const a = await agentToken(s, admin, ['lead.*']);
      const l = await create(s, admin, 'lead', { title: 'propose delete' });
      const r = await s.command(a, 'lead.delete', { id: l.id });
      expect(r.status).toBe(202);
      expect(Object.keys(r.body).sort()).toEqual(['approval_required', 'plan_id']);
      expect(r.body.approval_required).toBe(true);
      expect(typeof r.body.plan_id).toBe('string');
      expect(expect200(await s.command(admin, 'lead.get', { id: l.id })).title).toBe('propose delete');
    });

    it('proposal → person approves → 200 envelope; the record is deleted; second approve → 409 {"error"}', async () => {
      const a = await agentToken(s, admin, ['lead.*']);
      const l = await create(s, admin, 'lead', { title: 'approve me' });
      const plan = (await s.command(a, 'lead.delete', { id: l.id })).body.plan_id as string;
      const ap = await s.request('POST', `/api/approve/${plan}`, undefined, admin);
      expect(ap.status).toBe(200);
      expect(ap.body).toEqual({ denied: [], value: { id: l.id } });
      expect((await s.command(admin, 'lead.get', { id: l.id })).status).not.toBe(200);
      const again = await s.request('POST', `/api/approve/${plan}`, undefined, admin);
      expect(again.status).toBe(409);
      expect(Object.keys(again.body)).toEqual(['error']);
      expect(typeof again.body.error).toBe('string');
    });

    it('approve with an empty JSON body works too', async () => {
      const a = await agentToken(s, admin, ['lead.*']);
      const l = await create(s, admin, 'lead', { title: 'approve with {}' });
      const plan = (await s.command(a, 'lead.delete', { id: l.id })).body.plan_id as string;
      expect((await s.request('POST', `/api/approve/${plan}`, {}, admin)).status).toBe(200);
    });

    it('unknown plan → 404; an agent approving → 404', async () => {
      expect((await s.request('POST', '/api/approve/no-such-plan', undefined, admin)).status).toBe(404);
      const a = await agentToken(s, admin, ['*.*']);
      const l = await create(s, admin, 'lead', { title: 'agent approves itself' });
      const plan = (await s.command(a, 'lead.delete', { id: l.id })).body.plan_id as string;
      const r = await s.request('POST', `/api/approve/${plan}`, undefined, a);
      expect(r.status).toBe(404);
      expect(expect200(await s.command(admin, 'lead.get', { id: l.id })).title).toBe('agent approves itself');
    });

    it('unknown plan and agent-approval 404s look alike', async () => {
      const a = await agentToken(s, admin, ['*.*']);
      const x = await s.request('POST', '/api/approve/no-such-plan', undefined, admin);
      const y = await s.request('POST', '/api/approve/no-such-plan', undefined, a);
      expect(x.body).toEqual(y.body);
    });

    it('invoice.post by an agent → 202, invoice stays draft; approve → posted', async () => {
      const acctAgent = await agentToken(s, admin, ['invoice.*']);
      const inv = await create(s, admin, 'invoice', { number: 'AP-1', party: party.id, amount: 10, issue_date: '2024-07-01' });
      const r = await s.command(acctAgent, 'invoice.post', { id: inv.id });
      expect(r.status).toBe(202);
      expect(r.body.approval_required).toBe(true);
      expect(expect200(await s.command(admin, 'invoice.get', { id: inv.id })).state).toBe('draft');
      const ap = await s.request('POST', `/api/approve/${r.body.plan_id}`, undefined, admin);
      expect(ap.status).toBe(200);
      expect(ap.body.value.state).toBe('posted');
      expect(ap.body.denied).toEqual(expect.any(Array));
    });

    it('issue 3: update of a governed field follows the action’s approval rule (agent update state→posted is proposed)', async () => {
      const ag = await agentToken(s, admin, ['invoice.*']);
      const inv = await create(s, admin, 'invoice', { number: 'AP-2', party: party.id, amount: 10, issue_date: '2024-07-01' });
      const r = await s.command(ag, 'invoice.update', { id: inv.id, state: 'posted' });
      expect(r.status).toBe(202);
      expect(r.body.approval_required).toBe(true);
      expect(expect200(await s.command(admin, 'invoice.get', { id: inv.id })).state).toBe('draft');
    });

    it('invoice.cancel (no approval) runs directly for an agent', async () => {
      const ag = await agentToken(s, admin, ['invoice.*']);
      const inv = await create(s, admin, 'invoice', { number: 'AP-3', party: party.id, amount: 10, issue_date: '2024-07-01' });
      expect(expect200(await s.command(ag, 'invoice.cancel', { id: inv.id })).state).toBe('cancelled');
    });

    it('a proposal is validated first: bad input → 400, no plan', async () => {
      const a = await agentToken(s, admin, ['lead.*']);
      expect400(await s.command(a, 'lead.delete', {}));
      expect400(await s.command(a, 'lead.delete', { id: 'x', extra: 1 }));
      const ag = await agentToken(s, admin, ['invoice.*']);
      const inv = await create(s, admin, 'invoice', { number: 'AP-4', party: party.id, amount: 10, issue_date: '2024-07-01' });
      expect400(await s.command(ag, 'invoice.update', { id: inv.id, state: 'paid' })); // no action draft→paid
    });

    it('approving a plan whose record is gone carries the error; deciding it again → 409', async () => {
      const a = await agentToken(s, admin, ['lead.*']);
      const l = await create(s, admin, 'lead', { title: 'vanishes' });
      const plan = (await s.command(a, 'lead.delete', { id: l.id })).body.plan_id as string;
      expect200(await s.command(admin, 'lead.delete', { id: l.id }));
      const ap = await s.request('POST', `/api/approve/${plan}`, undefined, admin);
      expect(ap.status).toBeGreaterThanOrEqual(400);
      expect(ap.status).toBeLessThan(500);
      expect(typeof ap.body.error).toBe('string');
      expect((await s.request('POST', `/api/approve/${plan}`, undefined, admin)).status).toBe(409);
    });

    it('approving a delete of a record that became referenced → refused, nothing deleted', async () => {
      const a = await agentToken(s, admin, ['party.*']);
      const p = await create(s, admin, 'party', { name: 'later referenced' });
      const plan = (await s.command(a, 'party.delete', { id: p.id })).body.plan_id as string;
      await create(s, admin, 'lead', { title: 'now refers', party: p.id });
      const ap = await s.request('POST', `/api/approve/${plan}`, undefined, admin);
      expect(ap.status).toBe(400);
      expect200(await s.command(admin, 'party.get', { id: p.id }));
    });

    it('reject, then approve → 409', async () => {
      const a = await agentToken(s, admin, ['lead.*']);
      const l = await create(s, admin, 'lead', { title: 'rejected' });
      const plan = (await s.command(a, 'lead.delete', { id: l.id })).body.plan_id as string;
      expect((await s.request('POST', `/api/reject/${plan}`, undefined, admin)).status).toBe(200);
      expect((await s.request('POST', `/api/approve/${plan}`, undefined, admin)).status).toBe(409);
      expect200(await s.command(admin, 'lead.get', { id: l.id }));
    });

    it('agent update of a governed field with approval plus other fields: 202 and nothing changed; approval applies all', async () => {
      const ag = await agentToken(s, admin, ['invoice.*']);
      const inv = await create(s, admin, 'invoice', { number: 'AP-5', party: party.id, amount: 10, issue_date: '2024-07-01' });
      const r = await s.command(ag, 'invoice.update', { id: inv.id, state: 'posted', amount: 55 });
      expect(r.status).toBe(202);
      expect(expect200(await s.command(admin, 'invoice.get', { id: inv.id }))).toMatchObject({ state: 'draft', amount: 10 });
      const ap = await s.request('POST', `/api/approve/${r.body.plan_id}`, undefined, admin);
      expect(ap.status).toBe(200);
      expect(ap.body.value).toMatchObject({ state: 'posted', amount: 55 });
    });

    it('a proposal whose transition is impossible now is refused at once (400, no plan)', async () => {
      const ag = await agentToken(s, admin, ['invoice.*']);
      const inv = await create(s, admin, 'invoice', { number: 'AP-6', party: party.id, amount: 10, issue_date: '2024-07-01' });
      expect400(await s.command(ag, 'invoice.pay', { id: inv.id })); // draft → paid: no action
    });

    it('the approver must be a person who may run the command: sales cannot approve invoice.post (404), can approve lead.delete', async () => {
      const sales = await s.addPerson('approver-sales', ['sales']);
      const ag = await agentToken(s, admin, ['invoice.*', 'lead.*']);
      const inv = await create(s, admin, 'invoice', { number: 'AP-7', party: party.id, amount: 10, issue_date: '2024-07-01' });
      const plan = (await s.command(ag, 'invoice.post', { id: inv.id })).body.plan_id as string;
      expect((await s.request('POST', `/api/approve/${plan}`, undefined, sales)).status).toBe(404);
      expect(expect200(await s.command(admin, 'invoice.get', { id: inv.id })).state).toBe('draft');
      expect((await s.request('POST', `/api/approve/${plan}`, undefined, admin)).status).toBe(200);
      const l = await create(s, admin, 'lead', { title: 'sales approves' });
      const plan2 = (await s.command(ag, 'lead.delete', { id: l.id })).body.plan_id as string;
      expect((await s.request('POST', `/api/approve/${plan2}`, undefined, sales)).status).toBe(200);
    });

    it('approve with a body not sent as JSON → 415, plan still pending', async () => {
      const a = await agentToken(s, admin, ['lead.*']);
      const l = await create(s, admin, 'lead', { title: 'approve 415' });
      const plan = (await s.command(a, 'lead.delete', { id: l.id })).body.plan_id as string;
      expect((await s.request('POST', `/api/approve/${plan}`, 'yes', admin, { 'content-type': 'text/plain' })).status).toBe(415);
      expect((await s.request('POST', `/api/approve/${plan}`, undefined, admin)).status).toBe(200);
    });

    it('issue 4: the audit trail holds no clear personal values for agent calls', async () => {
      const a = await agentToken(s, admin, ['party.*', 'lead.*']);
      const tok = expect200(await s.command(a, 'party.get', { id: party.id }));
      const c = expect200(await s.command(a, 'party.create', { name: 'Audit Zed Clear', email: tok.email, notes: 'audit-private-note' }));
      await s.command(a, 'party.update', { id: c.id, phone: '+1 555 0199', name: tok.name });
      await s.command(a, 'lead.create', { title: 'audited', notes: tok.notes });
      await s.command(a, 'party.create', { name: 'Audit Refused Name', kind: 'bogus' });
      await s.command(a, 'party.create', { name: tok.email });
      const audit = await s.request('GET', '/api/audit', undefined, admin);
      expect(audit.status).toBe(200);
      const agentRows = findAll(audit.body, (o) => o.actor === 'agent' || (typeof o.agent_token_id === 'string' && o.agent_token_id !== ''));
      expect(agentRows.length).toBeGreaterThan(0);
      const text = JSON.stringify(agentRows);
      for (const clear of ['Audit Zed Clear', 'audit-private-note', '555 0199', 'Audit Refused Name', 'Ada Lovelace', 'ada@example.com', 'Shared note']) {
        expect(text).not.toContain(clear);
      }
      // people other than admin do not read the audit
      const sales = await s.addPerson('audit-sales', ['sales']);
      expect((await s.request('GET', '/api/audit', undefined, sales)).status).toBe(404);
      expect((await s.request('GET', '/api/audit', undefined, a)).status).toBe(404);
    });

    it('a revoked agent’s pending plan can still be decided by the person; the agent gets 401', async () => {
      const r = await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.*'], label: 'revoked proposer' }, admin);
      const l = await create(s, admin, 'lead', { title: 'revoked proposer lead' });
      const plan = (await s.command(r.body.token, 'lead.delete', { id: l.id })).body.plan_id as string;
      await s.request('POST', '/api/auth/agent-token/revoke', { id: r.body.id }, admin);
      expect((await s.command(r.body.token, 'lead.get', { id: l.id })).status).toBe(401);
      const ap = await s.request('POST', `/api/approve/${plan}`, undefined, admin);
      expect([200, 400, 409]).toContain(ap.status);
    });
  });
});

// =============================================================================================
describe('issue 3 / issue 4: concurrency and persistence', () => {
  it('ten concurrent lead.qualify on one lead: exactly one 200, the rest 400', async () => {
    const l = await create(s, admin, 'lead', { title: 'race qualify' });
    const rs = await Promise.all(Array.from({ length: 10 }, () => s.command(admin, 'lead.qualify', { id: l.id })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 400)).toHaveLength(9);
  });

  it('six concurrent approvals of one plan: exactly one 200, the rest 409', async () => {
    const a = await agentToken(s, admin, ['lead.*']);
    const l = await create(s, admin, 'lead', { title: 'race approve' });
    const plan = (await s.command(a, 'lead.delete', { id: l.id })).body.plan_id as string;
    const rs = await Promise.all(Array.from({ length: 6 }, () => s.request('POST', `/api/approve/${plan}`, undefined, admin)));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
  });

  it('concurrent updates of different fields of one record lose nothing', async () => {
    const l = await create(s, admin, 'lead', { title: 'race update' });
    const parts: Rec[] = [{ probability: 1 }, { expected_revenue: 2 }, { hot: true }, { close_date: '2024-01-01' }, { notes: 'n' }, { lost_reason: 'lr' }, { title: 'T' }];
    const rs = await Promise.all(parts.map((p) => s.command(admin, 'lead.update', { id: l.id, ...p })));
    for (const r of rs) expect(r.status).toBe(200);
    expect(expect200(await s.command(admin, 'lead.get', { id: l.id }))).toEqual({ ...l, ...Object.assign({}, ...parts) });
  });

  it('delete racing creates that refer to the record never leaves a dangling reference', async () => {
    for (let k = 0; k < 3; k++) {
      const p = await create(s, admin, 'party', { name: `race ${k}` });
      await Promise.all([
        s.command(admin, 'party.delete', { id: p.id }),
        ...Array.from({ length: 4 }, () => s.command(admin, 'lead.create', { title: 'racer', party: p.id })),
      ]);
      const gone = (await s.command(admin, 'party.get', { id: p.id })).status !== 200;
      const refs = expect200(await s.command(admin, 'lead.list', { filter: [{ field: 'party', op: 'eq', value: p.id }] })) as Rec[];
      if (gone) expect(refs).toEqual([]);
    }
  });

  it('masking tokens live in the database: a second instance on the same database gives the same token and resolves it', async () => {
    const s2 = await startTestServer({ dbUrl: s.dbUrl });
    try {
      const p = await create(s, admin, 'party', { name: 'Persistent Person' });
      const a = await agentToken(s, admin, ['party.*']);
      const tok = expect200(await s.command(a, 'party.get', { id: p.id })).name;
      expect(expect200(await s2.command(a, 'party.get', { id: p.id })).name).toBe(tok);
      const c = expect200(await s2.command(a, 'party.create', { name: tok }));
      expect(expect200(await s.command(admin, 'party.get', { id: c.id })).name).toBe('Persistent Person');
    } finally {
      await s2.close();
    }
  });
});

// =============================================================================================
describe('SPEC 4.6 / issue 5: MCP basics over raw JSON-RPC', () => {
  const ACCEPT = 'application/json, text/event-stream';

  async function mcpRaw(body: unknown, token?: string, headers: Record<string, string> = {}): Promise<Response> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT, ...headers };
    if (token) h.authorization = `Bearer ${token}`;
    return fetch(`${s.url}/mcp`, { method: 'POST', headers: h, body: typeof body === 'string' ? body : JSON.stringify(body) });
  }
  /** Reads a JSON-RPC response from plain JSON or from an SSE stream. */
  async function rpcBody(res: Response): Promise<any> {
    const text = await res.text();
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const data = text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .filter(Boolean);
      return JSON.parse(data.at(-1)!);
    }
    return JSON.parse(text);
  }
  let id = 1;
  async function rpc(token: string, method: string, params?: unknown, headers: Record<string, string> = { 'mcp-protocol-version': '2025-06-18' }) {
    const res = await mcpRaw({ jsonrpc: '2.0', id: id++, method, ...(params === undefined ? {} : { params }) }, token, headers);
    return { status: res.status, body: await rpcBody(res) };
  }
  const init = (protocolVersion: string) => ({ protocolVersion, capabilities: {}, clientInfo: { name: 'conformance', version: '0' } });
  /** The JSON the tool result carries (structuredContent, or the first text content). */
  function toolJson(result: Rec): Rec {
    if (result.structuredContent) return result.structuredContent;
    return JSON.parse(result.content.find((c: Rec) => c.type === 'text').text);
  }

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])('initialize at %s echoes the revision', async (v) => {
    const r = await rpc(admin, 'initialize', init(v), {});
    expect(r.status).toBe(200);
    expect(r.body.result.protocolVersion).toBe(v);
    expect(r.body.result.capabilities.tools).toBeDefined();
  });

  it('initialize with an unsupported revision answers 2025-11-25', async () => {
    const r = await rpc(admin, 'initialize', init('2024-11-05'), {});
    expect(r.body.result.protocolVersion).toBe('2025-11-25');
  });

  it('no token → 401 with WWW-Authenticate Bearer; bad token → 401', async () => {
    const a = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-06-18') });
    expect(a.status).toBe(401);
    expect(a.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
    const b = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'bad-token');
    expect(b.status).toBe(401);
  });

  it('tools/list for an agent: exactly its commands, named <model>__<command>, with JSON Schema input', async () => {
    const a = await agentToken(s, admin, ['lead.*', 'party.get']);
    const r = await rpc(a, 'tools/list');
    const tools = r.body.result.tools as Rec[];
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['lead__get', 'lead__list', 'lead__search', 'lead__create', 'lead__update', 'lead__delete', 'lead__qualify', 'lead__win', 'lead__lose', 'party__get'].sort(),
    );
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(typeof t.description).toBe('string');
    }
    const create = tools.find((t) => t.name === 'lead__create')!;
    expect(create.inputSchema.required).toContain('title');
  });

  it('tools/list for admin matches the REST catalogue', async () => {
    const tools = (await rpc(admin, 'tools/list')).body.result.tools as Rec[];
    const cmds = ((await s.request('GET', '/api/commands', undefined, admin)).body.commands as Rec[]).map((c) => c.id.replace('.', '__'));
    expect(tools.map((t) => t.name).sort()).toEqual(cmds.sort());
  });

  it('tools/call read: {denied, value} masked like REST', async () => {
    const p = await create(s, admin, 'party', { name: 'MCP Person', tax_id: 'MCP-TAX' });
    const a = await agentToken(s, admin, ['party.get']);
    const r = await rpc(a, 'tools/call', { name: 'party__get', arguments: { id: p.id } });
    expect(r.body.result.isError ?? false).toBe(false);
    const j = toolJson(r.body.result);
    expect(j.denied).toEqual(['party.tax_id']);
    expect(j.value.name).toMatch(tokenOf('NAME'));
    expect(j.value).not.toHaveProperty('tax_id');
    const rest = expect200(await s.command(a, 'party.get', { id: p.id }));
    expect(j.value).toEqual(rest);
  });

  it('tools/call of a command needing approval: normal result with "status": "approval_required" and plan_id', async () => {
    const l = await create(s, admin, 'lead', { title: 'mcp delete' });
    const a = await agentToken(s, admin, ['lead.*']);
    const r = await rpc(a, 'tools/call', { name: 'lead__delete', arguments: { id: l.id } });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.isError ?? false).toBe(false);
    const j = toolJson(r.body.result);
    expect(j.status).toBe('approval_required');
    expect(typeof j.plan_id).toBe('string');
    expect(expect200(await s.command(admin, 'lead.get', { id: l.id })).title).toBe('mcp delete');
    expect((await s.request('POST', `/api/approve/${j.plan_id}`, undefined, admin)).status).toBe(200);
  });

  it('tools/call with what REST refuses with 400 → isError: true with the error text', async () => {
    const a = await agentToken(s, admin, ['lead.*']);
    const r = await rpc(a, 'tools/call', { name: 'lead__create', arguments: {} });
    expect(r.body.result.isError).toBe(true);
    expect(JSON.stringify(r.body.result.content)).toContain('lead.title is required');
  });

  it('unknown tool and forbidden tool → JSON-RPC error, indistinguishable', async () => {
    const a = await agentToken(s, admin, ['lead.get']);
    const unknown = await rpc(a, 'tools/call', { name: 'nosuch__tool', arguments: {} });
    const forbidden = await rpc(a, 'tools/call', { name: 'lead__create', arguments: { title: 'x' } });
    expect(unknown.body.error).toBeDefined();
    expect(forbidden.body.error).toBeDefined();
    expect(unknown.body.error.code).toBe(forbidden.body.error.code);
    expect(forbidden.body.error.message.replace('lead__create', 'X')).toBe(unknown.body.error.message.replace('nosuch__tool', 'X'));
  });

  it('issue 5: no token → WWW-Authenticate: Bearer error="invalid_token"', async () => {
    const a = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(a.status).toBe(401);
    expect(a.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('stateless: no Mcp-Session-Id is handed out', async () => {
    const res = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-11-25') }, admin);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    await res.text();
  });

  it('unknown tool → JSON-RPC error -32602', async () => {
    const r = await rpc(admin, 'tools/call', { name: 'nosuch__tool', arguments: {} });
    expect(r.body.error.code).toBe(-32602);
  });

  it('tools carry title, readOnlyHint for get/list/search and destructiveHint for delete', async () => {
    const tools = (await rpc(admin, 'tools/list')).body.result.tools as Rec[];
    for (const t of tools) {
      expect(typeof t.title === 'string' || typeof t.annotations?.title === 'string').toBe(true);
      const cmd = t.name.split('__')[1];
      if (['get', 'list', 'search'].includes(cmd)) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      else expect(t.annotations?.readOnlyHint ?? false, t.name).toBe(false);
      if (cmd === 'delete') expect(t.annotations?.destructiveHint, t.name).toBe(true);
    }
  });

  it('input schemas: select options as enums, list limits, masked fields not offered to agents as filter fields', async () => {
    const a = await agentToken(s, admin, ['party.*', 'lead.list']);
    const agentTools = (await rpc(a, 'tools/list')).body.result.tools as Rec[];
    const adminTools = (await rpc(admin, 'tools/list')).body.result.tools as Rec[];
    const schema = (tools: Rec[], n: string) => tools.find((t) => t.name === n)!.inputSchema;
    expect(JSON.stringify(schema(agentTools, 'party__create').properties.kind)).toContain('"enum":["person","company"]');
    const list = schema(adminTools, 'lead__list').properties;
    expect(list.filter.maxItems).toBe(50);
    expect(list.order.maxItems).toBe(5);
    expect(list.limit).toMatchObject({ minimum: 1, maximum: 5000 });
    expect(list.offset.minimum).toBe(0);
    const fieldsFor = (tools: Rec[], n: string) => schema(tools, n).properties.filter.items.properties.field.enum as string[];
    expect(fieldsFor(adminTools, 'lead__list')).toContain('notes');
    expect(fieldsFor(agentTools, 'lead__list')).not.toContain('notes');
    expect(fieldsFor(agentTools, 'party__list')).not.toContain('name');
    expect(fieldsFor(agentTools, 'party__list')).not.toContain('tax_id');
    expect(Object.keys(schema(agentTools, 'party__create').properties)).not.toContain('tax_id');
  });

  it('tools/call success: structuredContent and the text content carry the same JSON', async () => {
    const l = await create(s, admin, 'lead', { title: 'mcp same json', notes: 'mcp secret note' });
    const a = await agentToken(s, admin, ['lead.get']);
    const r = await rpc(a, 'tools/call', { name: 'lead__get', arguments: { id: l.id } });
    const text = JSON.parse(r.body.result.content.find((c: Rec) => c.type === 'text').text);
    expect(text).toEqual(r.body.result.structuredContent);
    expect(JSON.stringify(r.body)).not.toContain('mcp secret note');
  });

  it('tools/call with a token never issued → isError with "invalid token"', async () => {
    const a = await agentToken(s, admin, ['party.create']);
    const r = await rpc(a, 'tools/call', { name: 'party__create', arguments: { name: 'NAME_987654' } });
    expect(r.body.result.isError).toBe(true);
    expect(JSON.stringify(r.body.result.content)).toContain('invalid token');
  });

  it('tools/call filtering on a masked field → isError "unknown field lead.notes"', async () => {
    const a = await agentToken(s, admin, ['lead.list']);
    const r = await rpc(a, 'tools/call', { name: 'lead__list', arguments: { filter: [{ field: 'notes', op: 'is_null' }] } });
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.content[0].text).toBe('unknown field lead.notes');
  });

  it('a revoked agent token → 401 on /mcp too', async () => {
    const r = await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'mcp revoke' }, admin);
    await s.request('POST', '/api/auth/agent-token/revoke', { id: r.body.id }, admin);
    const res = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, r.body.token, { 'mcp-protocol-version': '2025-06-18' });
    expect(res.status).toBe(401);
    await res.text();
  });

  it('issue 5: an Origin that is not allowed → 403; same origin is fine', async () => {
    const bad = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-06-18') }, admin, { origin: 'http://evil.example' });
    expect(bad.status).toBe(403);
    await bad.text();
    const ok = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-06-18') }, admin, { origin: s.url });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('issue 5: no MCP-Protocol-Version header means 2025-03-26, where batches are allowed', async () => {
    const res = await mcpRaw(
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ],
      admin,
    );
    expect(res.status).toBe(200);
    const body = await rpcBody(res);
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(2);
  });

  it('Accept without both JSON and event-stream → 406', async () => {
    const res = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-06-18') }, admin, { accept: 'text/html' });
    expect(res.status).toBe(406);
  });

  it('GET and DELETE /mcp → 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${s.url}/mcp`, { method, headers: { authorization: `Bearer ${admin}`, accept: ACCEPT } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      await res.text();
    }
  });

  it('body not JSON → 415', async () => {
    const res = await mcpRaw('x', admin, { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
  });

  it('unsupported MCP-Protocol-Version header → 400', async () => {
    const res = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, admin, { 'mcp-protocol-version': '1999-01-01' });
    expect(res.status).toBe(400);
  });

  it('notification → 202', async () => {
    const res = await mcpRaw({ jsonrpc: '2.0', method: 'notifications/initialized' }, admin, { 'mcp-protocol-version': '2025-06-18' });
    expect(res.status).toBe(202);
  });

  it('JSON-RPC batch refused at 2025-06-18', async () => {
    const res = await mcpRaw(
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ],
      admin,
      { 'mcp-protocol-version': '2025-06-18' },
    );
    const text = await res.text();
    expect(res.status === 400 || /"error"/.test(text)).toBe(true);
    expect(text).not.toMatch(/"tools"\s*:/);
  });
});
