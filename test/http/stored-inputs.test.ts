/**
 * What a database cannot store is refused at validation, on every text input and on SQLite and
 * PostgreSQL alike (set `RMS_TEST_PG_URL` for the second): NUL characters, lone surrogates, text
 * longer than its field takes (an indexed field's fits a PostgreSQL index row), ids longer than
 * their columns, dates outside the years 0001–9999. Each is a 400 with its text, changes nothing,
 * is audited like any refused command, and logs nothing: a database error never happens.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let agent: string;
let lead: string;
let party: string;
let changeId: string;
let planId: string;
const logged: unknown[] = [];

beforeAll(async () => {
  t = await startTestServer({ logError: (error) => logged.push(error) });
  admin = await t.login();
  agent = await agentToken(t, admin, ['lead.*', 'party.*'], 'storage bot');
  party = (await t.command(admin, 'party.create', { name: 'Stored Party' })).body.value.id;
  lead = (await t.command(admin, 'lead.create', { title: 'Stored lead', party })).body.value.id;
  changeId = (await t.command(admin, 'lead.history', { id: lead })).body.value.rows[0].change_id;
  const doomed = (await t.command(admin, 'lead.create', { title: 'To be proposed for deletion' })).body.value.id;
  const proposed = await t.command(agent, 'lead.delete', { id: doomed });
  expect(proposed.status).toBe(202);
  planId = proposed.body.plan_id;
});

afterAll(async () => {
  await t?.close();
});

const NUL = 'abc\u0000def';
const LONG_ID = 'x'.repeat(65);

/**
 * A request on a connection of its own. On PostgreSQL `inspect` blocks this process (the server's
 * too) for a while; fetch's pooled connections then race the server's keep-alive timeout and are
 * sometimes reset, whatever the server does.
 */
function request(method: string, path: string, body?: unknown, token?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const url = new URL(path, t.url);
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        agent: false,
        headers: { ...(text !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const command = (token: string, id: string, input: unknown) => request('POST', `/api/${id.replace('.', '/')}`, input, token);

/** How many leads, parties and plans there are (one query: on PostgreSQL each costs a process). */
function counts(): { lead: number; party: number; plans: number } {
  return t.inspect((db) => {
    const row = db.prepare('select (select count(*) from lead) as lead, (select count(*) from party) as party, (select count(*) from rms_plans) as plans').get() as Record<string, number>;
    return { lead: Number(row.lead), party: Number(row.party), plans: Number(row.plans) };
  });
}

/** The newest audit entry of a command. */
function lastAudit(id: string): { outcome: string; status: number; error: string; record_id: string | null; agent_token_id: string | null } | undefined {
  return t.inspect(
    (db) =>
      db.prepare('select outcome, status, error, record_id, agent_token_id from rms_audit where command = ? order by id desc limit 1').get(id) as
        | { outcome: string; status: number; error: string; record_id: string | null; agent_token_id: string | null }
        | undefined,
  );
}

/** A cursor (`after`) as the server makes them, holding whatever values a forger chose. */
function forgedCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify({ o: 'title:a,id:a', v: values })).toString('base64url');
}

/** A command refused with 400 and this text, audited as refused with it, nothing stored. */
async function expectRefusedCommand(token: string, id: string, input: unknown, error: string): Promise<void> {
  const before = counts();
  const res = await command(token, id, input);
  expect(res, id).toEqual({ status: 400, body: { error } });
  expect(lastAudit(id), id).toMatchObject({ outcome: 'refused', status: 400, error });
  expect(counts(), id).toEqual(before);
}

describe('NUL characters are refused in every text a command takes', () => {
  const cases: [string, string, () => Record<string, unknown>][] = [
    ['lead.create', 'lead.title must not contain NUL characters', () => ({ title: NUL })],
    ['lead.create', 'lead.notes must not contain NUL characters', () => ({ title: 'x', notes: NUL })],
    ['lead.create', 'lead.party must not contain NUL characters', () => ({ title: 'x', party: `${party}\u0000` })],
    ['lead.update', 'lead.lost_reason must not contain NUL characters', () => ({ id: lead, lost_reason: NUL })],
    ['lead.lose', 'lead.lost_reason must not contain NUL characters', () => ({ id: lead, lost_reason: '\u0000' })],
    ['party.create', 'party.name must not contain NUL characters', () => ({ name: NUL })],
    ['party.create', 'party.tax_id must not contain NUL characters', () => ({ name: 'x', tax_id: NUL })],
    ['party.update', 'party.email must not contain NUL characters', () => ({ id: party, email: NUL })],
    ['lead.get', 'id must not contain NUL characters', () => ({ id: `${lead}\u0000` })],
    ['lead.history', 'id must not contain NUL characters', () => ({ id: '\u0000' })],
    ['lead.revert', 'change_id must not contain NUL characters', () => ({ id: lead, change_id: `${changeId}\u0000` })],
    // The probe's: an FTS5 query on SQLite ends at a NUL (`unterminated string`); PostgreSQL's text holds none.
    ['lead.search', 'lead.title must not contain NUL characters', () => ({ filter: [{ field: 'title', op: 'contains', value: 'abc\u0000' }] })],
    ['lead.search', 'lead.lost_reason must not contain NUL characters', () => ({ filter: [{ field: 'lost_reason', op: 'contains', value: NUL }] })],
    ['party.search', 'party.name must not contain NUL characters', () => ({ filter: [{ field: 'name', op: 'contains', value: '\u0000' }] })],
    ['lead.list', 'lead.title must not contain NUL characters', () => ({ filter: [{ field: 'title', op: 'eq', value: NUL }] })],
    ['lead.list', 'lead.title must not contain NUL characters', () => ({ filter: [{ field: 'title', op: 'ne', value: NUL }] })],
    ['lead.list', 'lead.title must not contain NUL characters', () => ({ filter: [{ field: 'title', op: 'gte', value: NUL }] })],
    ['lead.list', 'lead.title must not contain NUL characters', () => ({ filter: [{ field: 'title', op: 'in', value: ['a', NUL] }] })],
    ['lead.list', 'lead.id must not contain NUL characters', () => ({ filter: [{ field: 'id', op: 'eq', value: NUL }] })],
    ['lead.list', 'lead.party must not contain NUL characters', () => ({ filter: [{ field: 'party', op: 'eq', value: NUL }] })],
    ['lead.list', 'after must be "" or the next of the page before', () => ({ order: [{ field: 'title' }], limit: 1, after: forgedCursor([NUL, lead]) })],
    ['lead.list', 'after must be "" or the next of the page before', () => ({ order: [{ field: 'title' }], limit: 1, after: forgedCursor(['a', `${lead}\u0000`]) })],
    // A key is echoed in the error, which the audit trail stores: written as an escape.
    ['lead.create', 'unknown field lead.no\\u0000pe', () => ({ title: 'x', 'no\u0000pe': 1 })],
  ];
  it.each(cases)('%s: %s', async (command, error, input) => {
    await expectRefusedCommand(admin, command, input(), error);
  });

  // party.tax_id is hidden from agents, and they may not filter on personal fields (party.name):
  // to them those are unknown fields, whatever the value.
  it.each(cases.filter(([command, error]) => !error.startsWith('party.tax_id') && command !== 'party.search'))('an agent: %s: %s', async (command, error, input) => {
    await expectRefusedCommand(agent, command, input(), error);
    expect(lastAudit(command)!.agent_token_id).not.toBeNull();
  });

  it('over MCP: a tool error with the same text, audited', async () => {
    const res = await request('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'lead__create', arguments: { title: NUL } } }, agent, {
      accept: 'application/json, text/event-stream',
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ content: [{ type: 'text', text: 'lead.title must not contain NUL characters' }], isError: true });
    expect(lastAudit('lead.create')).toMatchObject({ outcome: 'refused', status: 400, error: 'lead.title must not contain NUL characters' });
  });
});

describe('NUL characters are refused in sign-in, agent tokens, plan paths and audit filters', () => {
  const auth: [string, string | undefined, () => unknown, string][] = [
    // Unauthenticated: the probe's 500 on PostgreSQL came from the sign-in's failure row.
    ['/api/auth/login', undefined, () => ({ username: 'adm\u0000in', password: 'wrong-password' }), 'username must not contain NUL characters'],
    ['/api/auth/login', undefined, () => ({ username: 'admin', password: 'pass\u0000word' }), 'password must not contain NUL characters'],
    ['/api/auth/agent-token', 'admin', () => ({ scopes: ['lead.get'], label: NUL }), 'label must not contain NUL characters'],
    ['/api/auth/agent-token/revoke', 'admin', () => ({ id: '\u0000' }), 'id must not contain NUL characters'],
  ];
  it.each(auth)('POST %s', async (path, who, body, error) => {
    const rows = () => t.inspect((db) => db.prepare('select (select count(*) from rms_tokens) as tokens, (select count(*) from rms_login_failures) as failures').get());
    const before = rows();
    const res = await request('POST', path, body(), who === 'admin' ? admin : undefined);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
    expect(rows()).toEqual(before);
  });

  it.each([
    ['GET', '/api/plans/'],
    ['POST', '/api/approve/'],
    ['POST', '/api/reject/'],
  ])('%s %s<plan id with NUL>', async (method, path) => {
    for (const token of [admin, agent]) {
      if (method === 'POST' && token === agent) continue; // deciding is a person's: 404 to agents before any id
      const res = await request(method, `${path}${planId}%00`, undefined, token);
      // An id that cannot be a plan's names no plan: 404, as an unknown plan (SPEC 7).
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: 'not found' } });
    }
    expect(t.inspect((db) => (db.prepare('select status from rms_plans where id = ?').get(planId) as { status: string }).status)).toBe('pending');
  });

  it('GET /api/audit with a NUL in a filter value', async () => {
    const filter = encodeURIComponent(JSON.stringify([{ field: 'error', op: 'contains', value: NUL }]));
    const res = await request('GET', `/api/audit?filter=${filter}`, undefined, admin);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'audit.error must not contain NUL characters' } });
  });
});

describe('lone surrogates are refused in filter values, as in field values', () => {
  it.each<[string, unknown, string]>([
    ['title', { op: 'eq', value: 'a\ud800' }, 'lead.title must be valid Unicode text'],
    ['title', { op: 'contains', value: '\udfffb' }, 'lead.title must be valid Unicode text'],
    ['title', { op: 'in', value: ['ok', '\ud800'] }, 'lead.title must be valid Unicode text'],
    ['title', { op: 'lt', value: '\ud800' }, 'lead.title must be valid Unicode text'],
    ['notes', { op: 'ne', value: '\ud83d' }, 'lead.notes must be valid Unicode text'],
    ['id', { op: 'eq', value: '\ud800' }, 'lead.id must be valid Unicode text'],
    ['party', { op: 'in', value: ['\udc00'] }, 'lead.party must be valid Unicode text'],
  ])('%s %j', async (field, condition, error) => {
    await expectRefusedCommand(admin, 'lead.search', { filter: [{ field, ...(condition as object) }] }, error);
  });

  it('a well-formed pair is text like any', async () => {
    const created = await command(admin, 'lead.create', { title: 'Rocket 🚀 launch' });
    expect(created.status).toBe(200);
    const found = await command(admin, 'lead.search', { filter: [{ field: 'title', op: 'contains', value: '🚀' }] });
    expect(found.body.value.rows.map((row: { id: string }) => row.id)).toEqual([created.body.value.id]);
  });
});

describe('ids longer than their columns are refused first, and audited', () => {
  const cases: [string, string, () => Record<string, unknown>][] = [
    ['lead.get', 'id must be at most 64 characters', () => ({ id: LONG_ID })],
    ['lead.update', 'id must be at most 64 characters', () => ({ id: LONG_ID, title: 'x' })],
    ['lead.delete', 'id must be at most 64 characters', () => ({ id: LONG_ID })],
    ['lead.qualify', 'id must be at most 64 characters', () => ({ id: LONG_ID })],
    ['lead.history', 'id must be at most 64 characters', () => ({ id: 'y'.repeat(500) })],
    ['lead.revert', 'change_id must be at most 64 characters', () => ({ id: lead, change_id: LONG_ID })],
    ['lead.create', 'lead.party must be at most 64 characters', () => ({ title: 'x', party: LONG_ID })],
    ['lead.update', 'lead.party must be at most 64 characters', () => ({ id: lead, party: LONG_ID })],
    ['lead.search', 'lead.id must be at most 64 characters', () => ({ filter: [{ field: 'id', op: 'eq', value: LONG_ID }] })],
    ['lead.search', 'lead.party must be at most 64 characters', () => ({ filter: [{ field: 'party', op: 'in', value: [party, LONG_ID] }] })],
  ];
  // The row keeps the record a well-formed `id` names (the lead's), never an id too long to be one.
  const namedRecord = (input: Record<string, unknown>) => (input.id === lead ? lead : null);
  it.each(cases)('a person: %s: %s', async (command, error, input) => {
    const given = input();
    await expectRefusedCommand(admin, command, given, error);
    expect(lastAudit(command)!.record_id).toBe(namedRecord(given));
  });

  // The probe's case: an agent's refused call with a long id was never audited on PostgreSQL.
  it.each(cases.filter(([command]) => !command.endsWith('revert')))('an agent: %s: %s', async (command, error, input) => {
    const given = input();
    await expectRefusedCommand(agent, command, given, error);
    expect(lastAudit(command)).toMatchObject({ record_id: namedRecord(given), agent_token_id: expect.any(String) });
  });

  it('an id as long as its column is looked up (and audited with the record id) like any', async () => {
    const longest = 'z'.repeat(64);
    for (const token of [admin, agent]) {
      const res = await command(token, 'lead.get', { id: longest });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: `lead ${longest} not found` } });
      expect(lastAudit('lead.get')).toMatchObject({ outcome: 'refused', record_id: longest });
    }
  });

  it.each([
    ['GET', '/api/plans/'],
    ['POST', '/api/approve/'],
    ['POST', '/api/reject/'],
  ])('%s %s<plan id over 64 characters>', async (method, path) => {
    const res = await request(method, `${path}${LONG_ID}`, undefined, admin);
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: 'not found' } });
  });

  it('an agent token id over its 26 characters, to revoke', async () => {
    const res = await request('POST', '/api/auth/agent-token/revoke', { id: 'A'.repeat(27) }, admin);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'id must be at most 26 characters' } });
  });
});

describe('text lengths: a default for each kind, and what an index row holds for indexed fields', () => {
  it.each<[string, string, Record<string, unknown>, string]>([
    ['a title over 10000 characters', 'lead.create', { title: 'x'.repeat(10_001) }, 'lead.title must be at most 10000 characters'],
    ['a title of 10001 emoji', 'lead.create', { title: '😀'.repeat(10_001) }, 'lead.title must be at most 10000 characters'],
    ['a unique field over 500 characters', 'party.create', { name: 'x', tax_id: 't'.repeat(501) }, 'party.tax_id must be at most 500 characters'],
    // The probe's: a 900 kB value in a unique field was an index row too big for PostgreSQL (500).
    ['900 kB in a unique field', 'party.create', { name: 'x', tax_id: 't'.repeat(900_000) }, 'party.tax_id must be at most 500 characters'],
    ['a unique, searched field over 500 characters', 'invoice.create', { number: 'n'.repeat(501) }, 'invoice.number must be at most 500 characters'],
  ])('%s', async (_name, command, input, error) => {
    await expectRefusedCommand(admin, command, input, error);
  });

  it('an update is held to the same lengths', async () => {
    await expectRefusedCommand(admin, 'party.update', { id: party, tax_id: '東'.repeat(501) }, 'party.tax_id must be at most 500 characters');
  });

  it('takes the longest values, in characters of up to 4 bytes, and a unique index still tells them apart', async () => {
    const title = '😀'.repeat(10_000);
    const created = await command(admin, 'lead.create', { title, notes: 'n'.repeat(200_000) });
    expect(created.status).toBe(200);
    expect((await command(admin, 'lead.get', { id: created.body.value.id })).body.value.title).toBe(title);
    for (const taxId of ['😀'.repeat(500), '東'.repeat(500), `${'😀'.repeat(499)}😁`]) {
      const res = await command(admin, 'party.create', { name: 'Long tax id', tax_id: taxId });
      expect(res.status, JSON.stringify(res.body).slice(0, 200)).toBe(200);
      expect(res.body.value.tax_id).toBe(taxId);
    }
    const again = await command(admin, 'party.create', { name: 'Copy', tax_id: '😀'.repeat(500) });
    expect({ status: again.status, body: again.body }).toEqual({ status: 400, body: { error: 'party.tax_id must be unique' } });
    const found = await command(admin, 'party.search', { filter: [{ field: 'tax_id', op: 'eq', value: '東'.repeat(500) }] });
    expect(found.body.value.total).toBe(1);
  });
});

describe('dates: the years 0001 to 9999', () => {
  it.each<[string, () => Record<string, unknown>, string]>([
    ['lead.create', () => ({ title: 'x', close_date: '0000-01-01' }), 'lead.close_date must be a real calendar date YYYY-MM-DD'],
    ['lead.create', () => ({ title: 'x', close_date: '0000-02-29' }), 'lead.close_date must be a real calendar date YYYY-MM-DD'],
    ['lead.update', () => ({ id: lead, close_date: '0000-12-31' }), 'lead.close_date must be a real calendar date YYYY-MM-DD'],
    ['lead.create', () => ({ title: 'x', close_date: '10000-01-01' }), 'lead.close_date must be a real calendar date YYYY-MM-DD'],
    ['lead.search', () => ({ filter: [{ field: 'close_date', op: 'lte', value: '0000-06-01' }] }), 'lead.close_date must be a real calendar date YYYY-MM-DD'],
  ])('%s: %s', async (command, input, error) => {
    await expectRefusedCommand(admin, command, input(), error);
  });

  it('stores and finds the first and the last day', async () => {
    for (const day of ['0001-01-01', '9999-12-31']) {
      const created = await command(admin, 'lead.create', { title: `Day ${day}`, close_date: day });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect((await command(admin, 'lead.get', { id: created.body.value.id })).body.value.close_date).toBe(day);
      const found = await command(admin, 'lead.search', { filter: [{ field: 'close_date', op: 'eq', value: day }] });
      expect(found.body.value.rows.map((row: { title: string }) => row.title)).toEqual([`Day ${day}`]);
    }
  });
});

describe('nothing of it reached the database as an error', () => {
  it('logged nothing', () => {
    expect(logged).toEqual([]);
  });
});
