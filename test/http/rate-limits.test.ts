/**
 * Agents' rate limits and the per-address sign-in throttle (beyond SPEC 8).
 *
 * Windows are fixed clock minutes. The servers here run on a `TestClock`: each sequence that must
 * stay in one window starts a fresh one (`clock.nextMinute()`), and the tests of what happens when
 * a window ends move the clock past it, so nothing waits for the wall clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connectClient } from '../helpers/mcp-client.ts';

const clock = new TestClock();

let t: TestServer;
let admin: string;
let sales: string;

beforeAll(async () => {
  // The server's limits for tokens without their own: 20 requests and 4 writes a minute.
  t = await startTestServer({ agentLimits: { requestsPerMinute: 20, writesPerMinute: 4 }, clock });
  admin = await t.login();
  sales = await t.addPerson('sally', ['sales']);
});

afterAll(async () => {
  await t?.close();
});

async function token(person: string, body: Record<string, unknown>): Promise<{ token: string; id: string; limits: unknown }> {
  const res = await t.request('POST', '/api/auth/agent-token', { scopes: ['lead.*', 'party.*'], label: 'limited', ...body }, person);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const leadCount = () => t.inspect((db) => Number((db.prepare('select count(*) as n from lead').get() as { n: number }).n));

function auditRefusals(tokenId: string): { command: string; status: number; error: string }[] {
  return t.inspect(
    (db) =>
      db.prepare("select command, status, error from rms_audit where agent_token_id = ? and outcome = 'refused' and status = 429").all(tokenId) as {
        command: string;
        status: number;
        error: string;
      }[],
  );
}

describe('requests per minute', () => {
  it('answers 429 with Retry-After and RateLimit headers past the limit, runs nothing, and audits once', async () => {
    clock.nextMinute();
    const agent = await token(admin, { limits: { requests_per_minute: 5, writes_per_minute: 0 } });
    for (let i = 1; i <= 5; i++) {
      const res = await t.command(agent.token, 'lead.list', { limit: 1 });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(5 - i));
      // A second into the window: 59 seconds to its end.
      expect(res.headers.get('ratelimit-reset')).toBe('59');
    }
    const before = leadCount();
    for (let i = 0; i < 4; i++) {
      const refused = await t.command(agent.token, 'lead.create', { title: 'over the limit' });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: 'rate limit exceeded' });
      expect(refused.headers.get('retry-after')).toBe('59');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    }
    // Other endpoints are refused too: every authenticated request counts.
    for (const path of ['/api/meta', '/api/commands', '/api/plans']) {
      expect((await t.request('GET', path, undefined, agent.token)).status, path).toBe(429);
    }
    expect(leadCount()).toBe(before);
    expect(auditRefusals(agent.id)).toEqual([{ command: 'lead.create', status: 429, error: 'rate limit exceeded' }]);
    // People are never limited.
    expect((await t.command(admin, 'lead.list', { limit: 1 })).status).toBe(200);
  });

  it('counts afresh in the next window: the clock moved past the minute, the token is admitted again, and its next refusal is audited again', async () => {
    clock.nextMinute();
    const agent = await token(admin, { limits: { requests_per_minute: 2, writes_per_minute: 0 } });
    expect((await t.command(agent.token, 'lead.list', { limit: 1 })).status).toBe(200);
    clock.advance(58_000);
    const last = await t.command(agent.token, 'lead.list', { limit: 1 });
    expect([last.status, last.headers.get('ratelimit-remaining'), last.headers.get('ratelimit-reset')]).toEqual([200, '0', '1']);
    expect((await t.command(agent.token, 'lead.list', { limit: 1 })).status).toBe(429);
    clock.advance(1_000); // the next minute
    const fresh = await t.command(agent.token, 'lead.list', { limit: 1 });
    expect([fresh.status, fresh.headers.get('ratelimit-remaining'), fresh.headers.get('ratelimit-reset')]).toEqual([200, '1', '60']);
    expect((await t.command(agent.token, 'lead.list', { limit: 1 })).status).toBe(200);
    expect((await t.command(agent.token, 'lead.list', { limit: 1 })).status).toBe(429);
    expect(auditRefusals(agent.id)).toEqual([
      { command: 'lead.list', status: 429, error: 'rate limit exceeded' },
      { command: 'lead.list', status: 429, error: 'rate limit exceeded' },
    ]);
  });

  it('MCP answers the POST with HTTP 429 and the same headers; each message of a POST counts', async () => {
    clock.nextMinute();
    const agent = await token(admin, { limits: { requests_per_minute: 4, writes_per_minute: 0 } });
    const mcp = await connectClient(t, agent.token); // initialize + notifications/initialized: two requests
    try {
      await mcp.client.listTools(); // three
      await mcp.client.callTool({ name: 'lead__list', arguments: { limit: 1 } }); // four
      const res = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'lead__list', arguments: {} } }),
      });
      expect(res.status).toBe(429);
      expect(res.headers.get('ratelimit-limit')).toBe('4');
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The refused request's id, as JSON-RPC 2.0 asks of an error to a request whose id could be read.
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'rate limit exceeded' }, id: 9 });
      const refusedWith = async (body: string) => {
        const answer = await fetch(`${t.url}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
          body,
        });
        expect(answer.status).toBe(429);
        return ((await answer.json()) as { id: unknown }).id;
      };
      await expect(refusedWith(JSON.stringify({ jsonrpc: '2.0', id: 'call-7', method: 'tools/list' }))).resolves.toBe('call-7');
      // No one id to give: a notification, a batch, a body that is not JSON, an id JSON-RPC does not allow.
      await expect(refusedWith(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))).resolves.toBeNull();
      await expect(refusedWith(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]))).resolves.toBeNull();
      await expect(refusedWith('{"jsonrpc":"2.0","id":3,')).resolves.toBeNull();
      await expect(refusedWith(JSON.stringify({ jsonrpc: '2.0', id: { x: 1 }, method: 'tools/list' }))).resolves.toBeNull();
    } finally {
      await mcp.close().catch(() => {});
    }
  });
});

describe('calls that arrive together', () => {
  it('are counted one by one for each token, when several tokens call at once', async () => {
    clock.nextMinute();
    const agents = await Promise.all([7, 4, 9].map((limit) => token(admin, { limits: { requests_per_minute: limit, writes_per_minute: 0 } })));
    // Each token sends three more calls than its limit, all three tokens at once.
    const answers = await Promise.all(
      agents.flatMap((agent, index) => Array.from({ length: [7, 4, 9][index]! + 3 }, () => t.command(agent.token, 'lead.list', { limit: 1 }).then((res) => ({ index, res })))),
    );
    for (const [index, limit] of [7, 4, 9].entries()) {
      const own = answers.filter((answer) => answer.index === index).map((answer) => answer.res);
      expect(own.map((res) => res.status).sort()).toEqual([...Array<number>(limit).fill(200), 429, 429, 429]);
      // Every admitted call saw its own place in the count: remaining limit-1 … 0, each once.
      expect(
        own
          .filter((res) => res.status === 200)
          .map((res) => Number(res.headers.get('ratelimit-remaining')))
          .sort((a, b) => a - b),
      ).toEqual(Array.from({ length: limit }, (_, i) => i));
    }
    const stored = t.inspect((db) =>
      agents.map((agent) => Number((db.prepare('select sum(requests) as n from rms_rate_windows where agent_token_id = ?').get(agent.id) as { n: number }).n)),
    );
    expect(stored).toEqual([10, 7, 12]);
  });
});

describe('writes per minute', () => {
  it('counts creates, updates, actions and proposals; reads go on when writes are spent', async () => {
    clock.nextMinute();
    const agent = await token(admin, { limits: { requests_per_minute: 100, writes_per_minute: 4 } });
    const created = await t.command(agent.token, 'lead.create', { title: 'first' });
    expect(created.status).toBe(200);
    expect(created.headers.get('ratelimit-limit')).toBe('100');
    const id = created.body.value.id;
    expect((await t.command(agent.token, 'lead.update', { id, probability: 10 })).status).toBe(200);
    expect((await t.command(agent.token, 'lead.qualify', { id })).status).toBe(200);
    expect((await t.command(agent.token, 'lead.delete', { id })).status).toBe(202); // a proposal
    const before = leadCount();
    const plansBefore = t.inspect((db) => Number((db.prepare('select count(*) as n from rms_plans').get() as { n: number }).n));
    const refused = await t.command(agent.token, 'lead.create', { title: 'fifth write' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-limit')).toBe('4');
    expect((await t.command(agent.token, 'lead.delete', { id })).status).toBe(429);
    expect(leadCount()).toBe(before);
    expect(t.inspect((db) => Number((db.prepare('select count(*) as n from rms_plans').get() as { n: number }).n))).toBe(plansBefore);
    const read = await t.command(agent.token, 'lead.get', { id });
    expect(read.status).toBe(200);
    expect(read.body.value.stage).toBe('qualified');
  });

  it('counts MCP tool calls of writing commands as writes', async () => {
    clock.nextMinute();
    const agent = await token(admin, { limits: { requests_per_minute: 100, writes_per_minute: 1 } });
    const mcp = await connectClient(t, agent.token);
    try {
      const first = await mcp.client.callTool({ name: 'lead__create', arguments: { title: 'by mcp' } });
      expect(first.isError).toBeFalsy();
      await expect(mcp.client.callTool({ name: 'lead__create', arguments: { title: 'again' } })).rejects.toThrow(/429|rate limit/);
      const read = await mcp.client.callTool({ name: 'lead__list', arguments: { limit: 1 } });
      expect(read.isError).toBeFalsy();
    } finally {
      await mcp.close().catch(() => {});
    }
  });
});

describe('a token\'s own limits', () => {
  it.each([
    [{ requests_per_minute: 10, extra: 1 }, 'unknown key limits.extra (use requests_per_minute, writes_per_minute)'],
    [{ requests_per_minute: -1 }, 'limits.requests_per_minute must be a whole number from 0 (unlimited) to 1000000'],
    [{ writes_per_minute: 1.5 }, 'limits.writes_per_minute must be a whole number from 0 (unlimited) to 1000000'],
    [{ writes_per_minute: '5' }, 'limits.writes_per_minute must be a whole number from 0 (unlimited) to 1000000'],
    [{ requests_per_minute: true }, 'limits.requests_per_minute must be a whole number from 0 (unlimited) to 1000000'],
    [{ requests_per_minute: { n: 1 } }, 'limits.requests_per_minute must be a whole number from 0 (unlimited) to 1000000'],
    [[5], 'limits must be an object with requests_per_minute and/or writes_per_minute'],
    ['fast', 'limits must be an object with requests_per_minute and/or writes_per_minute'],
  ])('limits %j → 400, nothing issued', async (limits, error) => {
    const before = (await t.request('GET', '/api/auth/agent-tokens', undefined, admin)).body.tokens.length;
    const res = await t.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'bad', limits }, admin);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
    expect((await t.request('GET', '/api/auth/agent-tokens', undefined, admin)).body.tokens.length).toBe(before);
  });

  it('may not exceed the server\'s unless an admin makes the token', async () => {
    for (const limits of [{ requests_per_minute: 21 }, { writes_per_minute: 5 }, { requests_per_minute: 0 }]) {
      const res = await t.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'greedy', limits }, sales);
      expect(res.status, JSON.stringify(limits)).toBe(400);
      expect(res.body.error).toMatch(/^limits\.(requests|writes)_per_minute may be at most (20|4), the server's limit \(only an admin may give a token more\)$/);
    }
    const modest = await token(sales, { limits: { requests_per_minute: 7 } });
    expect(modest.limits).toEqual({ requests_per_minute: 7, writes_per_minute: 4 });
    const generous = await token(admin, { limits: { requests_per_minute: 0, writes_per_minute: 1000 } });
    expect(generous.limits).toEqual({ requests_per_minute: 0, writes_per_minute: 1000 });
  });

  it('are listed with the server\'s', async () => {
    const made = await token(sales, { limits: { writes_per_minute: 2 } });
    const list = await t.request('GET', '/api/auth/agent-tokens', undefined, sales);
    expect(list.body.server_limits).toEqual({ requests_per_minute: 20, writes_per_minute: 4 });
    expect(list.body.tokens.find((entry: { id: string }) => entry.id === made.id).limits).toEqual({ requests_per_minute: 20, writes_per_minute: 2 });
  });

  it('a token without its own gets the server\'s', async () => {
    clock.nextMinute();
    const agent = await token(sales, {});
    expect(agent.limits).toEqual({ requests_per_minute: 20, writes_per_minute: 4 });
    const res = await t.command(agent.token, 'lead.list', { limit: 1 });
    expect(res.headers.get('ratelimit-limit')).toBe('20');
    expect(res.headers.get('ratelimit-remaining')).toBe('19');
  });
});

describe('sign-in: failures per client address', () => {
  /**
   * The usernames the 30 failures try: the first 25 are people (with the admin's cheap test hash, so that
   * each wrong password is checked in a millisecond; adding them through the runtime would hash at full
   * cost), the last 5 are unknown, so that failures for names nobody has count as well.
   */
  async function guessedUsernames(s: TestServer): Promise<string[]> {
    const usernames = Array.from({ length: 30 }, (_, i) => `guess${i}`);
    const admin = await s.server.db('rms_people').where('username', 'admin').first();
    await s.server.db('rms_people').insert(usernames.slice(0, 25).map((username, i) => ({ ...admin, id: `guessed-person-${i}`, username, roles: '[]' })));
    return usernames;
  }

  it('refuses an address that failed 30 times in a minute across usernames, whatever the password; other addresses go on', async () => {
    const s = await startTestServer({ trustProxy: 'loopback', clock });
    try {
      clock.nextMinute();
      const from = (address: string, username: string, password: string) =>
        s.request('POST', '/api/auth/login', { username, password }, undefined, { 'x-forwarded-for': address });
      for (const [i, username] of (await guessedUsernames(s)).entries()) {
        const res = await from('203.0.113.7', username, 'wrong-password');
        expect(res.status, `attempt ${i + 1}`).toBe(401);
      }
      const throttled = await from('203.0.113.7', 'admin', 'admin-test-password');
      expect(throttled.status).toBe(429);
      expect(throttled.body).toEqual({ error: 'too many failed sign-ins from this address; try again in a minute' });
      expect(throttled.headers.get('retry-after')).toBe('60');
      expect((await from('203.0.113.8', 'admin', 'admin-test-password')).status).toBe(200);
      // A minute after the oldest of those failures the address may sign in again.
      clock.advance(59_000);
      expect((await from('203.0.113.7', 'admin', 'admin-test-password')).headers.get('retry-after')).toBe('1');
      clock.advance(1_000);
      expect((await from('203.0.113.7', 'admin', 'admin-test-password')).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('without --trust-proxy, X-Forwarded-For is ignored: the socket address counts', async () => {
    const s = await startTestServer({ clock });
    try {
      clock.nextMinute();
      for (const [i, username] of (await guessedUsernames(s)).entries()) {
        const res = await s.request('POST', '/api/auth/login', { username, password: 'wrong-password' }, undefined, { 'x-forwarded-for': `198.51.100.${i}` });
        expect(res.status).toBe(401);
      }
      const res = await s.request('POST', '/api/auth/login', { username: 'admin', password: 'admin-test-password' }, undefined, { 'x-forwarded-for': '198.51.100.200' });
      expect(res.status).toBe(429);
    } finally {
      await s.close();
    }
  });
});
