/**
 * `GET /metrics` on the metrics port (`serve --metrics-port`), scraped as Prometheus would after
 * real calls: requests by interface, model, kind, caller kind and status, their latency, rate-limit
 * refusals, sign-ins and lockouts, plans by status, audit and history rows, prune runs, the pool,
 * the event loop and memory. No label or value holds a token, a password or a personal value. The
 * service's own port has no `/metrics`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordPruneRun } from '../../runtime/metrics.ts';
import { TestClock } from '../helpers/clock.ts';
import { agentToken, ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.ts';

const clock = new TestClock();
let t: TestServer;
let metricsUrl: string;
let admin: string;

beforeAll(async () => {
  t = await startTestServer({ metrics: { host: '127.0.0.1', port: 0 }, agentLimits: { requestsPerMinute: 3, writesPerMinute: 0 }, clock });
  metricsUrl = t.server.metricsUrl!;
  admin = await t.login();
});

afterAll(async () => {
  await t?.close();
});

/** An agent token without rate limits (the server's here are tiny, for the refusals' test). */
async function unlimitedAgent(scopes: string[], label: string): Promise<string> {
  const res = await t.request('POST', '/api/auth/agent-token', { scopes, label, limits: { requests_per_minute: 0, writes_per_minute: 0 } }, admin);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.token as string;
}

async function scrape(): Promise<string> {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return res.text();
}

/** The value of one sample (`name{labels}`), 0 when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (wanted.every(([key, value]) => present[key] === value) && Object.keys(present).length === wanted.length) return Number(match[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  it('counts requests by interface, model, kind, caller kind and status, with their latency', async () => {
    const before = await scrape();
    const created = await t.command(admin, 'lead.create', { title: 'Counted' });
    expect(created.status).toBe(200);
    expect((await t.command(admin, 'lead.get', { id: created.body.value.id })).status).toBe(200);
    expect((await t.command(admin, 'lead.get', { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })).status).toBe(400);
    // The web app's own calls: a browser's same-origin request.
    expect((await t.request('POST', '/api/lead/list', { limit: 1 }, admin, { 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    const agent = await unlimitedAgent(['lead.*'], 'metrics bot');
    const mcp = await t.request('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'lead__get', arguments: { id: created.body.value.id } } }, agent, {
      accept: 'application/json, text/event-stream',
    });
    expect(mcp.status).toBe(200);
    expect((await t.request('POST', '/api/lead/get', { id: created.body.value.id })).status).toBe(401);

    const after = await scrape();
    const delta = (labels: Record<string, string>) => sample(after, 'rms_requests_total', labels) - sample(before, 'rms_requests_total', labels);
    const cases: [Record<string, string>, number][] = [
      [{ interface: 'rest', model: 'lead', kind: 'create', caller: 'person', status: '200' }, 1],
      [{ interface: 'rest', model: 'lead', kind: 'get', caller: 'person', status: '200' }, 1],
      [{ interface: 'rest', model: 'lead', kind: 'get', caller: 'person', status: '400' }, 1],
      [{ interface: 'web', model: 'lead', kind: 'list', caller: 'person', status: '200' }, 1],
      [{ interface: 'mcp', model: 'lead', kind: 'get', caller: 'agent', status: '200' }, 1],
      [{ interface: 'rest', model: 'lead', kind: 'get', caller: 'none', status: '401' }, 1],
      // Issuing the agent token: no command, a person.
      [{ interface: 'rest', model: '', kind: '', caller: 'person', status: '200' }, 1],
    ];
    for (const [labels, count] of cases) expect(delta(labels), JSON.stringify(labels)).toBe(count);
    const latency = (suffix: string, labels: Record<string, string>) => sample(after, `rms_request_duration_seconds${suffix}`, labels) - sample(before, `rms_request_duration_seconds${suffix}`, labels);
    expect(latency('_count', { interface: 'rest', model: 'lead', kind: 'get' })).toBe(3);
    expect(latency('_bucket', { interface: 'rest', model: 'lead', kind: 'get', le: '+Inf' })).toBe(3);
    expect(latency('_sum', { interface: 'rest', model: 'lead', kind: 'get' })).toBeGreaterThan(0);
  });

  it("counts agents' rate-limit refusals, sign-ins by outcome and a lockout", async () => {
    clock.nextMinute();
    const agent = await agentToken(t, admin, ['lead.*'], 'limited');
    const before = await scrape();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.command(agent, 'lead.list', { limit: 1 })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    await t.addPerson('locky', ['sales']);
    const signIns: number[] = [];
    for (let i = 0; i < 6; i++) signIns.push((await t.request('POST', '/api/auth/login', { username: 'locky', password: 'not the password' })).status);
    expect(signIns).toEqual([401, 401, 401, 401, 401, 429]);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('rms_rate_limit_refusals_total', { interface: 'rest' })).toBe(2);
    expect(delta('rms_requests_total', { interface: 'rest', model: 'lead', kind: 'list', caller: 'agent', status: '429' })).toBe(2);
    expect(delta('rms_sign_ins_total', { outcome: 'invalid' })).toBe(5);
    expect(delta('rms_sign_ins_total', { outcome: 'locked' })).toBe(1);
    expect(delta('rms_sign_ins_total', { outcome: 'ok' })).toBe(1); // addPerson signs the new person in
    expect(sample(after, 'rms_sign_ins_total', { outcome: 'throttled' })).toBe(0);
  });

  it('shows plans by status, as the database holds them', async () => {
    const agent = await unlimitedAgent(['lead.*'], 'planner');
    const plan = async () => {
      const created = await t.command(admin, 'lead.create', { title: 'To delete' });
      const proposed = await t.command(agent, 'lead.delete', { id: created.body.value.id });
      expect(proposed.status).toBe(202);
      return { plan: proposed.body.plan_id as string, lead: created.body.value.id as string };
    };
    const approved = await plan();
    const rejected = await plan();
    const failed = await plan();
    await plan(); // left pending
    expect((await t.request('POST', `/api/approve/${approved.plan}`, undefined, admin)).status).toBe(200);
    expect((await t.request('POST', `/api/reject/${rejected.plan}`, undefined, admin)).status).toBe(200);
    expect((await t.command(admin, 'lead.delete', { id: failed.lead })).status).toBe(200);
    expect((await t.request('POST', `/api/approve/${failed.plan}`, undefined, admin)).status).toBe(400);
    const text = await scrape();
    const counts = t.inspect((db) => db.prepare('select status, count(*) as n from rms_plans group by status').all() as { status: string; n: number }[]);
    expect(Object.fromEntries(counts.map((row) => [row.status, Number(row.n)]))).toEqual({ pending: 1, approved: 1, rejected: 1, failed: 1 });
    for (const status of ['pending', 'approved', 'rejected', 'failed']) expect(sample(text, 'rms_plans', { status }), status).toBe(1);
  });

  it('counts audit rows and history entries written, and prune runs', async () => {
    const before = await scrape();
    const created = await t.command(admin, 'lead.create', { title: 'Written' });
    expect((await t.command(admin, 'lead.update', { id: created.body.value.id, title: 'Written again' })).status).toBe(200);
    expect((await t.command(admin, 'lead.get', { id: created.body.value.id })).status).toBe(200);
    recordPruneRun('metrics_test', 'done', 7);
    recordPruneRun('metrics_test', 'failed');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('rms_audit_rows_written_total')).toBe(3);
    expect(delta('rms_history_entries_written_total')).toBe(2);
    expect(sample(after, 'rms_prune_runs_total', { target: 'metrics_test', outcome: 'done' })).toBe(1);
    expect(sample(after, 'rms_prune_runs_total', { target: 'metrics_test', outcome: 'failed' })).toBe(1);
    expect(sample(after, 'rms_pruned_rows_total', { target: 'metrics_test' })).toBe(7);
  });

  it('shows the database pool, the event loop delay and memory', async () => {
    // The audit rows of the calls before are written in a group commit after their answers: on
    // PostgreSQL one may hold a connection for a moment when the scrape comes. Scraped until idle.
    let text = await scrape();
    for (let tries = 0; tries < 40 && sample(text, 'rms_db_pool_connections', { state: 'in_use' }) !== 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      text = await scrape();
    }
    const max = t.dialect === 'sqlite' ? 1 : 10;
    expect(sample(text, 'rms_db_pool_connections', { state: 'max' })).toBe(max);
    expect(sample(text, 'rms_db_pool_connections', { state: 'in_use' })).toBe(0);
    expect(sample(text, 'rms_db_pool_waiting')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 2 ** 20);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it('holds no token, password or personal value', async () => {
    const agent = await unlimitedAgent(['party.*'], 'party bot');
    const party = await t.command(admin, 'party.create', { name: 'Zebediah Quartermaine', email: 'zebediah@example.com' });
    expect(party.status).toBe(200);
    expect((await t.command(agent, 'party.get', { id: party.body.value.id })).status).toBe(200);
    const text = await scrape();
    for (const secret of [admin, agent, ADMIN_PASSWORD, 'Zebediah', 'zebediah@example.com', party.body.value.id]) expect(text).not.toContain(secret);
    // Label values come from fixed sets only.
    for (const [, name, value] of text.matchAll(/([a-z_]+)="([^"]*)"/g)) {
      if (name === 'model') expect(['', 'lead', 'party', 'invoice', ...Object.keys(t.server.service.registry.models)]).toContain(value);
      if (name === 'caller') expect(['person', 'agent', 'none']).toContain(value);
      if (name === 'interface') expect(['rest', 'mcp', 'web']).toContain(value);
      if (name === 'status' && value !== '' && !['pending', 'approved', 'rejected', 'failed'].includes(value!)) expect(value).toMatch(/^\d{3}$/);
    }
  });

  it('is on the metrics port only: 404 on the service, 404 for other paths and 405 for other methods there', async () => {
    const service = await t.request('GET', '/metrics');
    expect([service.status, service.body]).toEqual([404, { error: 'not found' }]);
    expect((await t.request('POST', '/metrics', {}, admin)).status).toBe(404);
    const base = metricsUrl.replace(/\/metrics$/, '');
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(100);
    expect(new URL(metricsUrl).hostname).toBe('127.0.0.1');
  });
});
