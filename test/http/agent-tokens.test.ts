/**
 * Agent tokens over real HTTP: create, list, revoke, every 400, the 404 of person-only endpoints
 * for agents, expiry, and rights that follow the creator's current roles (changed with the real CLI).
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson, disablePerson, enablePerson, setRoles } from '../../runtime/auth/index.ts';
import { openDatabase } from '../../runtime/db/connect.ts';
import { TestClock } from '../helpers/clock.ts';
import { runFixtureCli } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let db: Knex;
let admin: string;
let sales: string;
let accountant: string;

beforeAll(async () => {
  server = await startTestServer();
  db = openDatabase(server.dbUrl);
  await createPerson(db, { username: 'sara', password: 'sara-password', roles: ['sales'] });
  await createPerson(db, { username: 'alex', password: 'alex-password', roles: ['accountant'] });
  admin = await server.login('admin');
  sales = await server.login('sara', 'sara-password');
  accountant = await server.login('alex', 'alex-password');
});

afterAll(async () => {
  await db?.destroy();
  await server?.close();
});

const create = (token: string, body: unknown) => server.request('POST', '/api/auth/agent-token', body, token);
const list = (token: string) => server.request('GET', '/api/auth/agent-tokens', undefined, token);
const revoke = (token: string, body: unknown) => server.request('POST', '/api/auth/agent-token/revoke', body, token);

describe('POST /api/auth/agent-token', () => {
  it('issues a token once, stored as a hash, valid 30 days by default', async () => {
    const res = await create(sales, { scopes: ['lead.*', 'party.get'], label: 'crm bot' });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^rms_a_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({ id: expect.any(String), label: 'crm bot', scopes: ['lead.*', 'party.get'] });
    expect(Date.parse(res.body.expires) - Date.parse(res.body.created)).toBe(30 * 24 * 3600 * 1000);
    const row = await db('rms_tokens').where('id', res.body.id).first();
    expect(row.token_hash).toBe(sha256(res.body.token));
    expect(row.kind).toBe('agent');
    expect((await server.command(res.body.token, 'lead.list', {})).status).toBe(200);
  });

  it('takes expires_in_days', async () => {
    const res = await create(sales, { scopes: ['lead.get'], label: 'short', expires_in_days: 1 });
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.expires) - Date.parse(res.body.created)).toBe(24 * 3600 * 1000);
  });

  it.each([
    ['no body', undefined, 'scopes is required'],
    ['no scopes', { label: 'x' }, 'scopes is required'],
    ['scopes not an array', { scopes: 'lead.*', label: 'x' }, 'scopes must be an array of strings'],
    ['a scope not a string', { scopes: [1], label: 'x' }, 'scopes must be an array of strings'],
    ['empty scopes', { scopes: [], label: 'x' }, 'scopes must not be empty'],
    ['a model without command', { scopes: ['lead'], label: 'x' }, 'malformed scope "lead": use <model>.<command>, with * for a whole segment (lead.*, *.search)'],
    ['a partial wildcard', { scopes: ['lead.get', 'le*.get'], label: 'x' }, 'malformed scope "le*.get": use <model>.<command>, with * for a whole segment (lead.*, *.search)'],
    ['an unknown command', { scopes: ['lead.get', 'lead.frobnicate'], label: 'x' }, 'scope lead.frobnicate matches no command you may use'],
    ['an unknown model', { scopes: ['ghost.*'], label: 'x' }, 'scope ghost.* matches no command you may use'],
    ['no label', { scopes: ['lead.get'] }, 'label is required'],
    ['an empty label', { scopes: ['lead.get'], label: '' }, 'label must not be empty'],
    ['a blank label', { scopes: ['lead.get'], label: '   ' }, 'label must not be empty'],
    ['a label not a string', { scopes: ['lead.get'], label: 7 }, 'label must be a string'],
    ['zero days', { scopes: ['lead.get'], label: 'x', expires_in_days: 0 }, 'expires_in_days must be an integer from 1 to 365'],
    ['too many days', { scopes: ['lead.get'], label: 'x', expires_in_days: 366 }, 'expires_in_days must be an integer from 1 to 365'],
    ['fractional days', { scopes: ['lead.get'], label: 'x', expires_in_days: 1.5 }, 'expires_in_days must be an integer from 1 to 365'],
    ['days as a string', { scopes: ['lead.get'], label: 'x', expires_in_days: '30' }, 'expires_in_days must be an integer from 1 to 365'],
    ['an unknown key', { scopes: ['lead.get'], label: 'x', owner: 'sara' }, 'unknown key owner'],
  ])('400 for %s', async (_, body, error) => {
    const res = await create(sales, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });

  it('refuses a scope that matches only commands the person may not use', async () => {
    // accountants may only read leads
    const res = await create(accountant, { scopes: ['lead.search', 'lead.delete'], label: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'scope lead.delete matches no command you may use' });
    // a pattern is fine when it matches at least one command the person may use
    expect((await create(accountant, { scopes: ['lead.*', '*.search'], label: 'reader' })).status).toBe(200);
    // admin may use everything
    expect((await create(admin, { scopes: ['*.*'], label: 'all' })).status).toBe(200);
  });

  it.each([
    ['a right-to-left override', '\u202Eevil bot'],
    ['a first-strong isolate', 'bot \u2068x\u2069'],
    ['a line break', 'bot\nadmin'],
    ['a tab', 'bot\there'],
    ['an escape', 'bot\u001b[31m'],
  ])('400 for a label with %s, made no token', async (_, label) => {
    const before = await db('rms_tokens').where('kind', 'agent').count({ n: '*' });
    const res = await create(sales, { scopes: ['lead.get'], label });
    expect([res.status, res.body]).toEqual([400, { error: 'label must not contain control characters or bidirectional overrides' }]);
    expect(await db('rms_tokens').where('kind', 'agent').count({ n: '*' })).toEqual(before);
  });

  it('needs a token', async () => {
    const res = await server.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'x' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'missing bearer token' });
  });
});

describe('agents and person-only endpoints', () => {
  it('answer 404 to an agent, as if they did not exist', async () => {
    const agent = (await create(sales, { scopes: ['lead.*'], label: 'probe' })).body.token as string;
    const own = (await list(sales)).body.tokens[0].id as string;
    for (const res of [
      await create(agent, { scopes: ['lead.get'], label: 'child' }),
      await list(agent),
      await revoke(agent, { id: own }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not found' });
    }
    // nothing was revoked or created
    expect((await server.command(agent, 'lead.list', {})).status).toBe(200);
  });
});

describe('GET /api/auth/agent-tokens', () => {
  it("lists the person's own tokens without the token or its hash", async () => {
    const made = await create(accountant, { scopes: ['party.get'], label: 'listed' });
    const res = await list(accountant);
    expect(res.status).toBe(200);
    const mine = res.body.tokens as Record<string, unknown>[];
    expect(mine.every((t) => t.id !== undefined && !('token' in t) && !('token_hash' in t))).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(made.body.token.slice(6));
    expect(JSON.stringify(res.body)).not.toContain(sha256(made.body.token));
    expect(mine[0]).toEqual({
      id: made.body.id,
      label: 'listed',
      scopes: ['party.get'],
      created: made.body.created,
      expires: made.body.expires,
      last_used: null,
      revoked: null,
      status: 'active',
      limits: { requests_per_minute: 600, writes_per_minute: 120 },
      max_affected: 100,
    });
    // only their own
    const others = (await list(sales)).body.tokens as { id: string }[];
    expect(others.some((t) => t.id === made.body.id)).toBe(false);
  });

  it('shows when a token was last used', async () => {
    const made = await create(accountant, { scopes: ['lead.list'], label: 'used' });
    expect((await server.command(made.body.token, 'lead.list', {})).status).toBe(200);
    const entry = ((await list(accountant)).body.tokens as { id: string; last_used: string | null }[]).find((t) => t.id === made.body.id)!;
    expect(entry.last_used).not.toBeNull();
    expect(Date.now() - Date.parse(entry.last_used!)).toBeLessThan(60_000);
  });
});

describe('POST /api/auth/agent-token/revoke', () => {
  it('revokes at once; another person cannot revoke it; unknown ids are 404', async () => {
    const made = await create(sales, { scopes: ['lead.list'], label: 'to revoke' });
    const agent = made.body.token as string;
    expect((await server.command(agent, 'lead.list', {})).status).toBe(200);

    for (const [token, body] of [
      [accountant, { id: made.body.id }],
      [sales, { id: 'no-such-token' }],
    ] as const) {
      const res = await revoke(token, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not found' });
    }
    expect((await server.command(agent, 'lead.list', {})).status).toBe(200);

    // a session id is not an agent token id
    const sessionRow = await db('rms_tokens').where('token_hash', sha256(sales)).first();
    expect((await revoke(sales, { id: sessionRow.id })).status).toBe(404);

    const res = await revoke(sales, { id: made.body.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    const after = await server.command(agent, 'lead.list', {});
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'invalid or expired token' });
    const entry = ((await list(sales)).body.tokens as { id: string; status: string; revoked: string | null }[]).find((t) => t.id === made.body.id)!;
    expect(entry.status).toBe('revoked');
    expect(entry.revoked).not.toBeNull();
  });

  it.each([
    ['no id', {}, 'id is required'],
    ['a number id', { id: 5 }, 'id must be a string'],
    ['an unknown key', { id: 'x', all: true }, 'unknown key all'],
  ])('400 for %s', async (_, body, error) => {
    const res = await revoke(sales, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });

  it('an expired agent token gets 401', async () => {
    const made = await create(sales, { scopes: ['lead.list'], label: 'expiring' });
    await db('rms_tokens').where('id', made.body.id).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const res = await server.command(made.body.token, 'lead.list', {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid or expired token' });
  });

  it('expires when its days are over: the clock moved to the last millisecond still serves, to the end refuses, and the list says expired', async () => {
    const clock = new TestClock();
    const timed = await startTestServer({ clock });
    try {
      const person = await timed.login();
      const made = await timed.request('POST', '/api/auth/agent-token', { scopes: ['lead.list'], label: 'one day', expires_in_days: 1 }, person);
      expect(made.status).toBe(200);
      expect(made.body.created).toBe(new Date(clock.now()).toISOString());
      const status = async (session: string) =>
        (await timed.request('GET', '/api/auth/agent-tokens', undefined, session)).body.tokens.find((entry: { id: string }) => entry.id === made.body.id).status;
      // The session was signed in at the same moment and lives 12 hours: sign in again as the day goes on.
      clock.advance(24 * 3600 * 1000 - 1);
      const later = await timed.login();
      expect((await timed.command(made.body.token, 'lead.list', {})).status).toBe(200);
      expect(await status(later)).toBe('active');
      // The first session's 12 hours are over.
      expect((await timed.request('GET', '/api/auth/agent-tokens', undefined, person)).status).toBe(401);
      clock.advance(1);
      const expired = await timed.command(made.body.token, 'lead.list', {});
      expect([expired.status, expired.body]).toEqual([401, { error: 'invalid or expired token' }]);
      expect(await status(later)).toBe('expired');
    } finally {
      await timed.close();
    }
  });
});

describe("an agent's rights follow its creator", () => {
  it('a person who loses a role takes their agent rights with them', async () => {
    await createPerson(db, { username: 'rita', password: 'rita-password', roles: ['sales'] });
    const rita = await server.login('rita', 'rita-password');
    const agent = (await create(rita, { scopes: ['lead.*'], label: 'rita bot' })).body.token as string;
    const made = await server.command(agent, 'lead.create', { title: 'From the agent' });
    expect(made.status).toBe(200);

    const cli = await runFixtureCli(['user', 'roles', 'rita', '--role', 'accountant', '--db', server.dbUrl]);
    expect(cli.code).toBe(0);

    const refused = await server.command(agent, 'lead.create', { title: 'Not any more' });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: 'not found' });
    // what the person still may do, the agent still may do
    expect((await server.command(agent, 'lead.list', {})).status).toBe(200);

    // a disabled creator stops the agent altogether
    expect((await runFixtureCli(['user', 'disable', 'rita', '--db', server.dbUrl])).code).toBe(0);
    expect((await server.command(agent, 'lead.list', {})).status).toBe(401);
    expect((await server.command(rita, 'lead.list', {})).status).toBe(401);
  });
});

describe('what a token may no longer do, the plans it proposed may not do either', () => {
  const plans = (token: string) => server.request('GET', '/api/plans', undefined, token);
  const planOf = async (token: string, id: string) => ((await plans(token)).body.plans as { plan_id: string; status: string; error: string | null; decided_by: string | null }[]).find((plan) => plan.plan_id === id);
  const lead = async () => (await server.command(admin, 'lead.create', { title: 'Planned for' })).body.value.id as string;

  it('revoking a token rejects its pending plans, each with an audit row; plans already decided stay as they were', async () => {
    const made = await create(sales, { scopes: ['lead.*'], label: 'leaked bot' });
    const agent = made.body.token as string;
    const [first, second, third] = [await lead(), await lead(), await lead()];
    const proposed = [];
    for (const id of [first, second, third]) {
      const res = await server.command(agent, 'lead.delete', { id });
      expect(res.status).toBe(202);
      proposed.push(res.body.plan_id as string);
    }
    expect((await server.request('POST', `/api/approve/${proposed[0]}`, undefined, admin)).status).toBe(200);
    // Revoked by an admin, not its maker: the plans are rejected by the admin.
    expect((await revoke(admin, { id: made.body.id })).body).toEqual({ ok: true });
    expect(await planOf(admin, proposed[0]!)).toMatchObject({ status: 'approved', error: null });
    for (const id of proposed.slice(1)) expect(await planOf(admin, id)).toMatchObject({ status: 'rejected', error: 'its agent token was revoked', decided_by: 'admin' });
    for (const id of proposed.slice(1)) {
      const res = await server.request('POST', `/api/approve/${id}`, undefined, admin);
      expect([res.status, res.body]).toEqual([409, { error: `plan ${id} is already rejected` }]);
    }
    expect((await server.command(admin, 'lead.get', { id: second })).status).toBe(200);
    const rows = await db('rms_audit').whereIn('plan_id', proposed.slice(1)).where('outcome', 'rejected').select('command', 'record_id', 'error', 'username');
    expect(rows.sort((a, b) => a.record_id.localeCompare(b.record_id))).toEqual(
      [second, third].sort().map((record_id) => ({ command: 'lead.delete', record_id, error: 'its agent token was revoked', username: 'admin' })),
    );
    // Revoking it again finds nothing more to reject.
    expect((await revoke(admin, { id: made.body.id })).body).toEqual({ ok: true });
    expect(Number(((await db('rms_audit').whereIn('plan_id', proposed).where('outcome', 'rejected').count({ n: '*' })) as { n: number | string }[])[0]!.n)).toBe(2);
  });

  it("a plan cannot be approved while its token's maker is disabled, and can be once they are enabled again", async () => {
    await createPerson(db, { username: 'dana', password: 'dana-password', roles: ['sales'] });
    const dana = await server.login('dana', 'dana-password');
    const agent = (await create(dana, { scopes: ['lead.*'], label: 'dana bot' })).body.token as string;
    const id = await lead();
    const planId = (await server.command(agent, 'lead.delete', { id })).body.plan_id as string;
    await disablePerson(db, 'dana');
    const refused = await server.request('POST', `/api/approve/${planId}`, undefined, admin);
    expect([refused.status, refused.body]).toEqual([409, { error: `plan ${planId} cannot be approved while dana, who made its agent token, is disabled` }]);
    expect(await planOf(admin, planId)).toMatchObject({ status: 'pending' });
    expect((await server.command(admin, 'lead.get', { id })).status).toBe(200);
    await enablePerson(db, 'dana');
    expect((await server.request('POST', `/api/approve/${planId}`, undefined, admin)).status).toBe(200);
    expect((await server.command(admin, 'lead.get', { id })).body).toEqual({ error: `lead ${id} not found` });
  });

  it("a plan is not approved once its token has expired, or its maker's roles no longer give it the command; it stays pending, for a person to reject", async () => {
    await createPerson(db, { username: 'remy', password: 'remy-password', roles: ['sales'] });
    const remy = await server.login('remy', 'remy-password');
    const made = await create(remy, { scopes: ['lead.*'], label: 'remy bot' });
    const [first, second] = [await lead(), await lead()];
    const expiring = (await server.command(made.body.token, 'lead.delete', { id: first })).body.plan_id as string;
    const demoted = (await server.command(made.body.token, 'lead.delete', { id: second })).body.plan_id as string;

    // Its maker now an accountant, who reads leads but may not delete them: nor may the agent.
    await setRoles(db, 'remy', ['accountant']);
    expect((await server.command(made.body.token, 'lead.delete', { id: second })).status).toBe(404);
    const refused = await server.request('POST', `/api/approve/${demoted}`, undefined, admin);
    expect([refused.status, refused.body]).toEqual([409, { error: `plan ${demoted} cannot be approved: its agent may no longer run lead.delete` }]);
    expect(await planOf(admin, demoted)).toMatchObject({ status: 'pending' });
    expect((await server.command(admin, 'lead.get', { id: second })).status).toBe(200);
    // Given the role back, the plan may be approved.
    await setRoles(db, 'remy', ['sales']);
    expect((await server.request('POST', `/api/approve/${demoted}`, undefined, admin)).status).toBe(200);

    // Expired: its token no longer answers, and its plan is not approved.
    await db('rms_tokens').where('id', made.body.id).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    expect((await server.command(made.body.token, 'lead.get', { id: first })).status).toBe(401);
    const expired = await server.request('POST', `/api/approve/${expiring}`, undefined, admin);
    expect([expired.status, expired.body]).toEqual([409, { error: `plan ${expiring} cannot be approved: its agent token has expired` }]);
    expect((await server.command(admin, 'lead.get', { id: first })).status).toBe(200);
    expect((await server.request('POST', `/api/reject/${expiring}`, undefined, admin)).status).toBe(200);
  });

  it('a plan of a token revoked before revoking rejected plans (its row says revoked, the plan pending) is refused, and stays for a person to reject', async () => {
    const made = await create(sales, { scopes: ['lead.*'], label: 'old bot' });
    const id = await lead();
    const planId = (await server.command(made.body.token, 'lead.delete', { id })).body.plan_id as string;
    await db('rms_tokens').where('id', made.body.id).update({ revoked_at: new Date().toISOString() });
    const refused = await server.request('POST', `/api/approve/${planId}`, undefined, admin);
    expect([refused.status, refused.body]).toEqual([409, { error: `plan ${planId} cannot be approved: its agent token was revoked` }]);
    expect((await server.command(admin, 'lead.get', { id })).status).toBe(200);
    expect((await server.request('POST', `/api/reject/${planId}`, undefined, admin)).status).toBe(200);
  });

  it('an admin who stops being one takes their tokens back to the default bulk cap; a cap an admin gave a non-admin stays', async () => {
    await createPerson(db, { username: 'root2', password: 'root2-password', roles: ['admin'] });
    const root2 = await server.login('root2', 'root2-password');
    const own = await create(root2, { scopes: ['lead.*'], label: 'big bot', max_affected: 5000 });
    await create(root2, { scopes: ['lead.*'], label: 'small bot', max_affected: 50 });
    const given = await create(sales, { scopes: ['lead.*'], label: 'granted bot' });
    expect((await server.request('POST', '/api/auth/agent-token/update', { id: given.body.id, max_affected: 3000 }, admin)).body).toEqual({ id: given.body.id, max_affected: 3000 });
    await setRoles(db, 'root2', ['sales']);
    const caps = async (token: string) => Object.fromEntries(((await list(token)).body.tokens as { label: string; max_affected: number }[]).map((entry) => [entry.label, entry.max_affected]));
    expect(await caps(await server.login('root2', 'root2-password'))).toMatchObject({ 'big bot': 100, 'small bot': 50 });
    expect((await caps(sales))['granted bot']).toBe(3000);
    const refused = await server.command(own.body.token, 'lead.update_many', { filter: [{ field: 'title', op: 'contains', value: 'Planned' }], set: { hot: true }, max_affected: 3000 });
    expect([refused.status, refused.body]).toEqual([400, { error: 'max_affected may be at most 100 for an agent' }]);
  });

  it('making, changing and revoking a token are in the audit trail, with what was asked for but never the token', async () => {
    const made = await create(sales, { scopes: ['lead.get'], label: 'audited bot', expires_in_days: 2, limits: { requests_per_minute: 7 } });
    await server.request('POST', '/api/auth/agent-token/update', { id: made.body.id, max_affected: 20 }, sales);
    await revoke(sales, { id: made.body.id });
    const rows = await db('rms_audit').where('record_id', made.body.id).orderBy('id').select('command', 'access', 'outcome', 'username', 'actor', 'input');
    expect(rows.map((row) => ({ ...row, input: JSON.parse(row.input) }))).toEqual([
      { command: 'agent_token.create', access: 'write', outcome: 'executed', username: 'sara', actor: 'person', input: { scopes: ['lead.get'], label: 'audited bot', expires_in_days: 2, limits: { requests_per_minute: 7 }, max_affected: null } },
      { command: 'agent_token.update', access: 'write', outcome: 'executed', username: 'sara', actor: 'person', input: { id: made.body.id, max_affected: 20 } },
      { command: 'agent_token.revoke', access: 'write', outcome: 'executed', username: 'sara', actor: 'person', input: { id: made.body.id } },
    ]);
    expect(JSON.stringify(await db('rms_audit').select('*'))).not.toContain(made.body.token);
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
