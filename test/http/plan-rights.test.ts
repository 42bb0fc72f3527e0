/**
 * Deciding a plan needs the rights of what it will run (finding 1 of the security probe). A plan
 * made by `invoice.update {"state":"posted"}` runs `invoice.post`: a person who may update
 * invoices but not post them must not see it, and approve/reject are 404 and leave it pending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry as generated } from '../fixtures/generated/registry.ts';
import type { Registry } from '../../runtime/registry.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectClient } from '../helpers/mcp-client.ts';

/** The fixture registry plus two roles: `clerk` updates invoices but may not post; `poster` posts but may not update. */
function withRoles(): Registry {
  const reads = ['invoice.get', 'invoice.list', 'invoice.search'];
  return {
    ...generated,
    roles: { ...generated.roles, clerk: [...reads, 'invoice.update'], poster: [...reads, 'invoice.post'] },
  };
}

let t: TestServer;
let admin: string;
let clerk: string;
let poster: string;
let agent: string;
let partyId: string;

beforeAll(async () => {
  t = await startTestServer({ registry: withRoles() });
  admin = await t.login();
  clerk = await t.addPerson('clerk', ['clerk']);
  poster = await t.addPerson('poster', ['poster']);
  agent = await agentToken(t, admin, ['invoice.*'], 'books bot');
  partyId = (await t.command(admin, 'party.create', { name: 'Client' })).body.value.id;
});

afterAll(async () => {
  await t?.close();
});

async function newInvoice(number: string): Promise<string> {
  const res = await t.command(admin, 'invoice.create', { number, party: partyId, amount: 100, issue_date: '2026-11-01' });
  expect(res.status).toBe(200);
  return res.body.value.id;
}

async function planIds(token: string): Promise<string[]> {
  const res = await t.request('GET', '/api/plans', undefined, token);
  expect(res.status).toBe(200);
  return res.body.plans.map((plan: { plan_id: string }) => plan.plan_id);
}

/** GET, approve and reject of the plan by `token`: each must be 404 and leave the plan pending. */
async function expectHidden(token: string, planId: string): Promise<void> {
  expect(await planIds(token)).not.toContain(planId);
  for (const [method, path] of [
    ['GET', `/api/plans/${planId}`],
    ['POST', `/api/approve/${planId}`],
    ['POST', `/api/reject/${planId}`],
  ] as const) {
    const res = await t.request(method, path, undefined, token);
    expect(res.status, `${method} ${path}`).toBe(404);
    expect(res.body).toEqual({ error: 'not found' });
  }
  const plan = await t.request('GET', `/api/plans/${planId}`, undefined, admin);
  expect(plan.body.plan.status).toBe('pending');
}

describe('a governed update resolves to its action: deciding it needs the action', () => {
  it('hides a REST update→post plan from a person who may update but not post, and leaves it to one who may', async () => {
    const invoiceId = await newInvoice('INV-R1');
    const proposed = await t.command(agent, 'invoice.update', { id: invoiceId, state: 'posted' });
    expect(proposed.status).toBe(202);
    const planId = proposed.body.plan_id as string;

    await expectHidden(clerk, planId);
    // Posting alone is not enough either: the plan runs invoice.update.
    await expectHidden(poster, planId);

    expect(await planIds(admin)).toContain(planId);
    const approved = await t.request('POST', `/api/approve/${planId}`, undefined, admin);
    expect(approved.status).toBe(200);
    expect(approved.body.value).toMatchObject({ id: invoiceId, state: 'posted' });
    const stored = t.inspect((db) => db.prepare('select state from invoice where id = ?').get(invoiceId)) as { state: string };
    expect(stored.state).toBe('posted');
  });

  it.each(['approve', 'reject'])('refuses ?dry_run on %s rather than deciding for real, and the plan stays pending', async (decision) => {
    const invoiceId = await newInvoice(`INV-D${decision.length}`);
    const proposed = await t.command(agent, 'invoice.update', { id: invoiceId, state: 'posted' });
    const planId = proposed.body.plan_id as string;
    for (const query of ['?dry_run=true', '?dry_run=false', '?dry_run=']) {
      const tried = await t.request('POST', `/api/${decision}/${planId}${query}`, undefined, admin);
      expect({ status: tried.status, body: tried.body }).toEqual({ status: 400, body: { error: `POST /api/${decision}/${planId} takes no dry_run: a plan is approved or rejected for real` } });
    }
    expect((await t.request('GET', `/api/plans/${planId}`, undefined, admin)).body.plan.status).toBe('pending');
    expect((t.inspect((db) => db.prepare('select state from invoice where id = ?').get(invoiceId)) as { state: string }).state).toBe('draft');
    // An agent still finds no such endpoint.
    expect((await t.request('POST', `/api/${decision}/${planId}?dry_run=true`, undefined, agent)).status).toBe(404);
  });

  it('hides an MCP update→pay plan the same way', async () => {
    const invoiceId = await newInvoice('INV-M1');
    expect((await t.command(admin, 'invoice.post', { id: invoiceId })).status).toBe(200);
    const mcp = await connectClient(t, agent);
    try {
      const result = await mcp.client.callTool({ name: 'invoice__update', arguments: { id: invoiceId, state: 'paid' } });
      const planId = (result.structuredContent as { status: string; plan_id: string }).plan_id;
      expect((result.structuredContent as { status: string }).status).toBe('approval_required');
      await expectHidden(clerk, planId);
      const rejected = await t.request('POST', `/api/reject/${planId}`, undefined, admin);
      expect(rejected.status).toBe(200);
      expect(rejected.body).toEqual({ plan_id: planId, status: 'rejected' });
    } finally {
      await mcp.close();
    }
  });

  it('hides a delete plan from people who may not delete', async () => {
    const invoiceId = await newInvoice('INV-D1');
    const proposed = await t.command(agent, 'invoice.delete', { id: invoiceId });
    expect(proposed.status).toBe(202);
    await expectHidden(clerk, proposed.body.plan_id);
    const asPoster = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, poster);
    expect(asPoster.status).toBe(404);
  });
});

describe('deciding a plan needs reading every field it changes, a revert\'s included', () => {
  /** The fixture registry with `party.tax_id` readable by agents (still only by admin and accountant among people). */
  function taxVisibleToAgents(): Registry {
    const party = generated.models.party!;
    return { ...generated, models: { ...generated.models, party: { ...party, fields: party.fields.map((field) => (field.name === 'tax_id' ? { ...field, hiddenFromAgents: false } : field)) } } };
  }

  let s: TestServer;
  let boss: string;
  let sales: string;
  let accountant: string;
  let bot: string;

  beforeAll(async () => {
    s = await startTestServer({ registry: taxVisibleToAgents() });
    boss = await s.login();
    sales = await s.addPerson('seller', ['sales']);
    accountant = await s.addPerson('counter', ['accountant']);
    bot = await agentToken(s, boss, ['party.*'], 'tax bot');
  });

  afterAll(async () => {
    await s?.close();
  });

  async function revertPlan(changes: Record<string, unknown>): Promise<string> {
    const id = (await s.command(boss, 'party.create', { name: 'Taxed', tax_id: `T-${Math.random()}` })).body.value.id;
    expect((await s.command(boss, 'party.update', { id, ...changes })).status).toBe(200);
    const [change] = (await s.command(boss, 'party.history', { id })).body.value.rows;
    const proposed = await s.command(bot, 'party.revert', { id, change_id: change.change_id });
    expect(proposed.status).toBe(202);
    return proposed.body.plan_id;
  }

  it('hides a revert plan of a withheld field, and of a change that touched one, from a person who may revert but not read it', async () => {
    for (const changes of [{ tax_id: 'T-NEW' }, { tax_id: 'T-NEWER', name: 'Renamed' }]) {
      const planId = await revertPlan(changes);
      for (const [method, path] of [
        ['GET', `/api/plans/${planId}`],
        ['POST', `/api/approve/${planId}`],
        ['POST', `/api/reject/${planId}`],
      ] as const) {
        expect((await s.request(method, path, undefined, sales)).status, `${method} ${path}`).toBe(404);
      }
      expect((await s.request('GET', '/api/plans', undefined, sales)).body.plans.map((plan: { plan_id: string }) => plan.plan_id)).not.toContain(planId);
      // Pending, for someone who may decide it: an accountant reads tax ids and may update parties.
      expect((await s.request('GET', `/api/plans/${planId}`, undefined, boss)).body.plan.status).toBe('pending');
      expect((await s.request('GET', `/api/plans/${planId}`, undefined, accountant)).status).toBe(200);
    }
  });

  it('leaves a revert plan of readable fields to that person', async () => {
    const planId = await revertPlan({ name: 'Only the name' });
    expect((await s.request('GET', `/api/plans/${planId}`, undefined, sales)).status).toBe(200);
    expect((await s.request('POST', `/api/approve/${planId}`, undefined, sales)).status).toBe(200);
  });
});
