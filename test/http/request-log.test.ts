/**
 * One log line per request, and the request id that ties a line, an audit entry and a client's
 * report together: taken from a sane `X-Request-Id`, else made; echoed in the answer; written to
 * the call's audit row (REST, MCP, approvals, rate-limit refusals) and to error lines. Lines name
 * the caller by kind and label, never by token, and hold no query string.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

const lines: string[] = [];
const errors: { error: unknown; requestId: string | undefined }[] = [];
let t: TestServer;
let admin: string;

beforeAll(async () => {
  t = await startTestServer({ logFormat: 'json', requestLog: (line) => lines.push(line), logError: (error, requestId) => errors.push({ error, requestId }) });
  admin = await t.login();
  await t.execute({
    sqlite: `create trigger rms_test_no_invoice before insert on invoice begin select raise(abort, 'invoice refused by test'); end;`,
    postgres: `create function rms_test_no_invoice() returns trigger language plpgsql as $$ begin raise exception 'invoice refused by test'; end $$;
               create trigger rms_test_no_invoice before insert on invoice for each row execute function rms_test_no_invoice();`,
  });
});

afterAll(async () => {
  await t?.close();
});

/** The log line of the request with this id (lines are written once the answer has ended). */
async function lineOf(requestId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const found = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.request_id === requestId);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no log line for ${requestId}`);
}

function auditRows(requestId: string): { command: string; outcome: string; actor: string }[] {
  return t.inspect((db) => db.prepare('select command, outcome, actor from rms_audit where request_id = ? order by id').all(requestId) as { command: string; outcome: string; actor: string }[]);
}

describe('request ids', () => {
  it.each([
    ['a sane id is kept', 'client-report-42', true],
    ['a UUID is kept', '3f2504e0-4f89-41d3-9a0c-0305e82c3301', true],
    ['base64 is kept', 'abc+/def==', true],
    ['128 characters are kept', 'x'.repeat(128), true],
    ['129 characters are replaced', 'x'.repeat(129), false],
    ['spaces are replaced', 'two words', false],
    ['quotes are replaced', 'say"hi', false],
    ['non-ASCII is replaced', 'ré', false],
  ])('%s', async (_case, sent, kept) => {
    const res = await t.request('POST', '/api/lead/list', { limit: 1 }, admin, { 'x-request-id': sent });
    expect(res.status).toBe(200);
    const echoed = res.headers.get('x-request-id')!;
    if (kept) expect(echoed).toBe(sent);
    else expect(echoed).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(auditRows(echoed)).toEqual([{ command: 'lead.list', outcome: 'executed', actor: 'person' }]);
    expect((await lineOf(echoed)).status).toBe(200);
  });

  it('is made for every request, unique, echoed on refusals and on endpoints that are not commands', async () => {
    const ids = new Set<string>();
    for (const [method, path, token] of [
      ['POST', '/api/lead/list', admin],
      ['POST', '/api/lead/list', undefined],
      ['GET', '/healthz', undefined],
      ['GET', '/api/meta', admin],
      ['POST', '/api/no_such_model/get', admin],
    ] as const) {
      const res = await t.request(method, path, method === 'POST' ? {} : undefined, token);
      const id = res.headers.get('x-request-id');
      expect(id, `${method} ${path}`).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(id!);
    }
    expect(ids.size).toBe(5);
  });

  it("is written to the audit rows of an agent's MCP call, a proposal, its approval and a rejection", async () => {
    const agent = await agentToken(t, admin, ['lead.*'], 'logged bot');
    const created = await t.command(admin, 'lead.create', { title: 'Logged' });
    const mcp = await t.request('POST', '/mcp', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'lead__delete', arguments: { id: created.body.value.id } } }, agent, {
      accept: 'application/json, text/event-stream',
      'x-request-id': 'mcp-proposal-1',
    });
    expect(mcp.status).toBe(200);
    const planId = mcp.body.result.structuredContent.plan_id as string;
    expect(auditRows('mcp-proposal-1')).toEqual([{ command: 'lead.delete', outcome: 'proposed', actor: 'agent' }]);
    expect(await lineOf('mcp-proposal-1')).toMatchObject({ interface: 'mcp', command: 'lead.delete', caller_kind: 'agent', caller_label: 'logged bot' });

    const approved = await t.request('POST', `/api/approve/${planId}`, undefined, admin, { 'x-request-id': 'approval-1' });
    expect(approved.status).toBe(200);
    expect(auditRows('approval-1')).toEqual([
      { command: 'lead.delete', outcome: 'executed', actor: 'person' },
      { command: 'lead.delete', outcome: 'approved', actor: 'person' },
    ]);

    const other = await t.command(admin, 'lead.create', { title: 'Kept' });
    const proposed = await t.command(agent, 'lead.delete', { id: other.body.value.id });
    const rejected = await t.request('POST', `/api/reject/${proposed.body.plan_id}`, undefined, admin, { 'x-request-id': 'rejection-1' });
    expect(rejected.status).toBe(200);
    expect(auditRows('rejection-1')).toEqual([{ command: 'lead.delete', outcome: 'rejected', actor: 'person' }]);
  });

  it('can be looked up in the audit trail', async () => {
    await t.request('POST', '/api/lead/list', { limit: 2 }, admin, { 'x-request-id': 'find-me-7' });
    const res = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'request_id', op: 'eq', value: 'find-me-7' }]))}`, undefined, admin);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rows).toHaveLength(1);
    expect(res.body.rows[0]).toMatchObject({ command: 'lead.list', request_id: 'find-me-7', outcome: 'executed' });
  });
});

describe('request lines', () => {
  it('give time, id, method, path, interface, command, caller kind and label, status, duration and bytes', async () => {
    const res = await t.request('POST', '/api/lead/create?dry_run=true', { title: 'A line' }, admin, { 'x-request-id': 'line-1' });
    expect(res.status).toBe(200);
    const line = await lineOf('line-1');
    expect(Object.keys(line)).toEqual(['time', 'level', 'request_id', 'method', 'path', 'interface', 'command', 'caller_kind', 'caller_label', 'status', 'duration_ms', 'bytes']);
    expect(line).toMatchObject({ level: 'info', method: 'POST', path: '/api/lead/create', interface: 'rest', command: 'lead.create', caller_kind: 'person', caller_label: 'admin', status: 200 });
    expect(Date.now() - Date.parse(String(line.time))).toBeLessThan(60_000);
    expect(line.duration_ms).toBeGreaterThan(0);
    // The answer's body and its headers.
    expect(line.bytes).toBeGreaterThan(JSON.stringify(res.body).length);
  });

  it('name a refused caller as none, an agent by its label, and never hold a token', async () => {
    const agent = await agentToken(t, admin, ['lead.*'], 'label "with" quotes');
    await t.request('POST', '/api/lead/list', {}, 'rms_s_not-a-real-token', { 'x-request-id': 'bad-token' });
    await t.request('POST', '/api/lead/list', {}, agent, { 'x-request-id': 'agent-line' });
    await t.request('POST', '/api/auth/login', { username: 'admin', password: 'wrong password here' }, undefined, { 'x-request-id': 'bad-login' });
    expect(await lineOf('bad-token')).toMatchObject({ caller_kind: 'none', caller_label: null, status: 401, command: 'lead.list' });
    expect(await lineOf('agent-line')).toMatchObject({ caller_kind: 'agent', caller_label: 'label "with" quotes', status: 200 });
    expect(await lineOf('bad-login')).toMatchObject({ caller_kind: 'none', path: '/api/auth/login', status: 401, command: null });
    const all = lines.join('\n');
    for (const secret of [admin, agent, 'not-a-real-token', 'wrong password here']) expect(all).not.toContain(secret);
  });

  it('name a request the client abandons by its whole path (499), a sign-in too; and a webhook command by its command', async () => {
    const port = Number(new URL(t.url).port);
    for (const [id, path] of [['cut-login', '/api/auth/login'], ['cut-command', '/api/lead/create']] as const) {
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${id}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`);
          setTimeout(() => socket.destroy(), 100);
        });
        socket.on('close', () => resolve());
      });
      expect(await lineOf(id)).toMatchObject({ path, status: 499 });
    }
    await t.request('POST', '/api/webhook/list', {}, admin, { 'x-request-id': 'hook-line' });
    expect(await lineOf('hook-line')).toMatchObject({ path: '/api/webhook/list', command: 'webhook.list', status: 200 });
  });

  it("log an unexpected error with its request's id, and the line its 500", async () => {
    const party = await t.command(admin, 'party.create', { name: 'Payer' });
    const res = await t.request('POST', '/api/invoice/create', { number: 'INV-9', party: party.body.value.id, amount: 100, issue_date: '2026-01-01' }, admin, { 'x-request-id': 'will-fail' });
    expect(res.status, JSON.stringify(res.body)).toBe(500);
    expect(res.body).toEqual({ error: 'internal error' });
    expect(errors.filter((logged) => logged.requestId === 'will-fail')).toHaveLength(1);
    expect(await lineOf('will-fail')).toMatchObject({ status: 500, command: 'invoice.create' });
  });
});
