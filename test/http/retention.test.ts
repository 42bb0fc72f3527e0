/**
 * Background retention through the real server, on SQLite and (under RMS_TEST_PG_URL) PostgreSQL:
 * rows are made by real requests, then the server's clock (a TestClock) is moved past each window
 * in turn and a pass is run, so that each step removes exactly what fell out of its window and
 * nothing within one: ended sessions at once (a live one kept), reads after their own window,
 * masking state of a revoked agent (a live agent's kept), history entries, then the trail and the plans decided before its cutoff (a pending
 * plan keeps its rows). The timer runs passes by itself, the pass logs counts only, and the
 * metrics count the runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, type RetentionPolicy } from '../../runtime/retention/policy.ts';
import type { PassOutcome } from '../../runtime/retention/pruner.ts';
import { TestClock } from '../helpers/clock.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const POLICY: RetentionPolicy = { auditMs: 10 * DAY_MS, auditReadsMs: 2 * DAY_MS, historyMs: 5 * DAY_MS, agentMs: 3 * DAY_MS, eventsMs: 0, deadEventsMs: 0, everyMs: 60 * 60_000 };

let t: TestServer;
let clock: TestClock;
const logged: string[] = [];
let admin: string;

beforeAll(async () => {
  clock = new TestClock(Date.now());
  t = await startTestServer({ clock, retention: POLICY, log: (line) => logged.push(line), metrics: { host: '127.0.0.1', port: 0 } });
  admin = await t.login();
});
afterAll(() => t?.close());

async function newAgent(label: string, scopes: readonly string[]): Promise<{ token: string; id: string }> {
  const res = await t.request('POST', '/api/auth/agent-token', { scopes, label }, admin);
  expect(res.status).toBe(200);
  const list = await t.request('GET', '/api/auth/agent-tokens', undefined, admin);
  return { token: res.body.token, id: list.body.tokens.find((entry: { label: string }) => entry.label === label).id };
}

async function ok(res: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
}

const db = () => t.server.db;
const ids = async (table: string, where: (query: any) => void = () => {}) => ((await db()(table).select('id').where(where).orderBy('id')) as { id: string }[]).map((row) => row.id);
const count = async (table: string, where: Record<string, unknown> = {}) => Number(((await db()(table).where(where).count({ n: '*' }).first()) as { n: number | string }).n);

async function pass(): Promise<PassOutcome & { ran: true }> {
  const outcome = await t.server.pruner!.runPass();
  expect(outcome.ran).toBe(true);
  return outcome as PassOutcome & { ran: true };
}

describe('background retention', () => {
  it('removes each kind of row once it falls out of its window, and nothing within one', async () => {
    // Before the boundary: a write and a read by a person, an agent that reads and is revoked, a live one, a pending and a rejected plan.
    const live = await newAgent('live bot', ['party.*', 'lead.*']);
    const gone = await newAgent('gone bot', ['party.*']);
    const party = (await ok(t.command(admin, 'party.create', { name: 'Ada Lovelace', email: 'ada@example.com' }))).value.id as string;
    await ok(t.command(admin, 'party.get', { id: party }));
    const liveView = (await ok(t.command(live.token, 'party.get', { id: party }))).value;
    await ok(t.command(gone.token, 'party.get', { id: party }));
    // A value the agent writes in clear gets a token bound to the field it went to.
    await ok(t.command(gone.token, 'party.create', { name: 'Grace Hopper' }));
    await ok(t.request('POST', '/api/auth/agent-token/revoke', { id: gone.id }, admin));
    const keptLead = (await ok(t.command(admin, 'lead.create', { title: 'Kept pending' }))).value.id as string;
    const pendingPlan = (await ok(t.command(live.token, 'lead.delete', { id: keptLead }), 202)).plan_id as string;
    const rejectedLead = (await ok(t.command(admin, 'lead.create', { title: 'Rejected' }))).value.id as string;
    const rejectedPlan = (await ok(t.command(live.token, 'lead.delete', { id: rejectedLead }), 202)).plan_id as string;
    await ok(t.request('POST', `/api/reject/${rejectedPlan}`, undefined, admin));

    // A session signed out: it can never be used again.
    const signedOut = await t.login();
    await ok(t.request('POST', '/api/auth/logout', undefined, signedOut));
    const sessions = () => ids('rms_tokens', (query) => query.where('kind', 'session'));
    expect((await sessions()).length).toBe(2);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const boundary = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const at = (iso: string) => Date.parse(iso);

    // After it: the same kinds of rows again.
    const newLead = (await ok(t.command(admin, 'lead.create', { title: 'New one' }))).value.id as string;
    await ok(t.command(admin, 'lead.get', { id: newLead }));
    await ok(t.command(live.token, 'lead.get', { id: newLead }));

    const oldReads = await ids('rms_audit', (query) => query.where('access', 'read').andWhere('at', '<', boundary));
    const newReads = await ids('rms_audit', (query) => query.where('access', 'read').andWhere('at', '>=', boundary));
    const newWrites = await ids('rms_audit', (query) => query.where('access', 'write').andWhere('at', '>=', boundary));
    const allAudit = await ids('rms_audit');
    expect([oldReads.length, newReads.length, newWrites.length]).toEqual([3, 2, 1]);

    // Nothing is out of any window yet, but the signed-out session goes at once; the admin's stays and works.
    clock.advance(at(boundary) - clock.now());
    expect((await pass()).report).toEqual({ auditReads: 0, audit: 0, plans: 0, history: 0, maskTokens: 0, bindings: 0, sessions: 1, deliveries: 0, events: 0 });
    expect(await ids('rms_audit')).toEqual(allAudit);
    expect((await sessions()).length).toBe(1);
    expect((await t.request('GET', '/api/meta', undefined, admin)).status).toBe(200);
    expect((await t.request('GET', '/api/meta', undefined, signedOut)).status).toBe(401);

    // Two days on: the reads made before the boundary go, and the admin's session, expired; every other row stays.
    clock.advance(2 * DAY_MS);
    expect((await pass()).report).toEqual({ auditReads: 3, audit: 0, plans: 0, history: 0, maskTokens: 0, bindings: 0, sessions: 1, deliveries: 0, events: 0 });
    expect(await sessions()).toEqual([]);
    expect(await ids('rms_audit')).toEqual(allAudit.filter((id) => !oldReads.includes(id)));

    // Three days on: the reads after the boundary are out of their window too; the revoked agent's
    // masking tokens and bindings go; the live agent's stay, and answer the same.
    const goneTokens = await count('rms_mask_tokens', { agent_token_id: gone.id });
    const goneBindings = await count('rms_mask_bindings', { agent_token_id: gone.id });
    const liveTokens = await count('rms_mask_tokens', { agent_token_id: live.id });
    expect(goneTokens).toBeGreaterThan(0);
    expect(goneBindings).toBeGreaterThan(0);
    clock.advance(DAY_MS);
    expect((await pass()).report).toEqual({ auditReads: 2, audit: 0, plans: 0, history: 0, maskTokens: goneTokens, bindings: goneBindings, sessions: 0, deliveries: 0, events: 0 });
    expect(await ids('rms_audit')).toEqual(allAudit.filter((id) => !oldReads.includes(id) && !newReads.includes(id)));
    expect([await count('rms_mask_tokens', { agent_token_id: gone.id }), await count('rms_mask_bindings', { agent_token_id: gone.id })]).toEqual([0, 0]);
    expect(await count('rms_mask_tokens', { agent_token_id: live.id })).toBe(liveTokens);

    // Five days on: history entries made before the boundary go.
    const oldHistory = await ids('rms_history', (query) => query.where('at', '<', boundary));
    const newHistory = await ids('rms_history', (query) => query.where('at', '>=', boundary));
    expect(oldHistory.length).toBe(4);
    clock.advance(2 * DAY_MS);
    expect((await pass()).report).toEqual({ auditReads: 0, audit: 0, plans: 0, history: 4, maskTokens: 0, bindings: 0, sessions: 0, deliveries: 0, events: 0 });
    expect(await ids('rms_history')).toEqual(newHistory);

    // Ten days on: the trail before the boundary goes, with the rejected plan; the pending plan and
    // its proposal stay. (History after the boundary is five days old by now: it goes too.)
    const pendingRows = await ids('rms_audit', (query) => query.where('plan_id', pendingPlan));
    expect(pendingRows.length).toBe(1);
    clock.advance(5 * DAY_MS);
    const trail = (await pass()).report;
    expect(trail).toEqual({ auditReads: 0, audit: allAudit.length - oldReads.length - newReads.length - newWrites.length - pendingRows.length, plans: 1, history: 1, maskTokens: 0, bindings: 0, sessions: 0, deliveries: 0, events: 0 });
    expect(await ids('rms_history')).toEqual([]);
    expect(await ids('rms_audit')).toEqual([...pendingRows, ...newWrites].sort());
    expect(await ids('rms_plans')).toEqual([pendingPlan]);
    expect(await count('rms_audit', { plan_id: rejectedPlan })).toBe(0);

    // What the remaining rows serve still works: the live agent sees the party by the same tokens, the plan can be approved.
    expect((await ok(t.command(live.token, 'party.get', { id: party }))).value).toEqual(liveView);
    // (The admin's session ran out in those ten days: a new one.)
    await ok(t.request('POST', `/api/approve/${pendingPlan}`, undefined, await t.login()));

    // Each pass that removed something said how much of what, and nothing else.
    const lines = logged.filter((line) => line.startsWith('retention:'));
    expect(lines).toEqual([
      'retention: removed 0 audit rows of reads, 0 other audit rows, 0 decided plans, 0 history entries, 0 masking tokens, 0 masking bindings, 1 ended sessions, 0 webhook deliveries, 0 events',
      'retention: removed 3 audit rows of reads, 0 other audit rows, 0 decided plans, 0 history entries, 0 masking tokens, 0 masking bindings, 1 ended sessions, 0 webhook deliveries, 0 events',
      `retention: removed 2 audit rows of reads, 0 other audit rows, 0 decided plans, 0 history entries, ${goneTokens} masking tokens, ${goneBindings} masking bindings, 0 ended sessions, 0 webhook deliveries, 0 events`,
      'retention: removed 0 audit rows of reads, 0 other audit rows, 0 decided plans, 4 history entries, 0 masking tokens, 0 masking bindings, 0 ended sessions, 0 webhook deliveries, 0 events',
      `retention: removed 0 audit rows of reads, ${trail.audit} other audit rows, 1 decided plans, 1 history entries, 0 masking tokens, 0 masking bindings, 0 ended sessions, 0 webhook deliveries, 0 events`,
    ]);
    expect(logged.join('\n')).not.toMatch(/Ada|ada@example/);

    const metrics = await (await fetch(t.server.metricsUrl!)).text();
    expect(metrics).toMatch(/^rms_prune_runs_total\{target="audit_reads",outcome="done"\} ([5-9]|\d\d+)$/m);
    expect(metrics).toMatch(/^rms_pruned_rows_total\{target="plans"\} [1-9]\d*$/m);
  });

  it('runs passes on its own timer, one instance holding the lease in the database', async () => {
    const own = new TestClock(Date.now());
    const logs: string[] = [];
    const fast = await startTestServer({ clock: own, retention: { ...POLICY, everyMs: 20 }, log: (line) => logs.push(line) });
    try {
      const token = await fast.login();
      for (let i = 0; i < 4; i += 1) expect((await fast.command(token, 'party.list', {})).status).toBe(200);
      const reads = () => fast.server.db('rms_audit').where('access', 'read').count({ n: '*' }).first() as Promise<{ n: number | string }>;
      expect(Number((await reads()).n)).toBe(4);
      own.advance(3 * DAY_MS);
      // The pass logs once it has removed the rows: its line is the sign it ran.
      const deadline = Date.now() + 10_000;
      while (!logs.some((line) => line.startsWith('retention:')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(logs.filter((line) => line.startsWith('retention:'))).toEqual(['retention: removed 4 audit rows of reads, 0 other audit rows, 0 decided plans, 0 history entries, 0 masking tokens, 0 masking bindings, 1 ended sessions, 0 webhook deliveries, 0 events']);
      expect(Number((await reads()).n)).toBe(0);
      expect(await fast.server.db('rms_leases').select('name', 'holder')).toEqual([{ name: 'retention', holder: fast.server.pruner!.holder }]);
    } finally {
      await fast.close();
    }
  });

  it('says what a pass removed as a JSON line when the log is JSON, as the request lines are', async () => {
    const own = new TestClock(Date.now());
    const logs: string[] = [];
    const json = await startTestServer({ clock: own, retention: { ...POLICY, everyMs: 20 }, log: (line) => logs.push(line), logFormat: 'json' });
    try {
      const token = await json.login();
      expect((await json.command(token, 'party.list', {})).status).toBe(200);
      own.advance(3 * DAY_MS);
      const deadline = Date.now() + 10_000;
      const said = () => logs.filter((line) => line.includes('retention:'));
      while (said().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const [line] = said();
      expect(JSON.parse(line!)).toEqual({
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        level: 'info',
        message: 'retention: removed 1 audit rows of reads, 0 other audit rows, 0 decided plans, 0 history entries, 0 masking tokens, 0 masking bindings, 1 ended sessions, 0 webhook deliveries, 0 events',
      });
    } finally {
      await json.close();
    }
  });
});
