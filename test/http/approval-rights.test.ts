/**
 * Deciding a plan needs the command AND every field the plan writes: an agent created by an admin
 * may write a field that the person asked to approve may not read.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { registry as generated } from '../fixtures/generated/registry.ts';
import type { ModelMeta, Registry } from '../../runtime/registry.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The fixture registry, with `invoice.internal_note` readable by admins only and visible to agents. */
function variant(): Registry {
  const invoice = generated.models.invoice!;
  const changed: ModelMeta = {
    ...invoice,
    fields: invoice.fields.map((field) => (field.name === 'internal_note' ? { ...field, hiddenFromAgents: false, readRoles: ['admin'] } : field)),
  };
  return { ...generated, models: { ...generated.models, invoice: changed } };
}

let t: TestServer;
let admin: string;
let accountant: string;
let agent: string;
let invoiceId: string;

beforeAll(async () => {
  t = await startTestServer({ registry: variant() });
  admin = await t.login();
  accountant = await t.addPerson('acc', ['accountant']);
  const issued = await t.request('POST', '/api/auth/agent-token', { scopes: ['invoice.*'], label: 'books' }, admin);
  agent = issued.body.token;
  const party = await t.command(admin, 'party.create', { name: 'Client' });
  const invoice = await t.command(admin, 'invoice.create', { number: 'INV-9', party: party.body.value.id, amount: 100, issue_date: '2026-11-01' });
  invoiceId = invoice.body.value.id;
});

afterAll(async () => {
  await t?.close();
});

it('hides from an approver a plan that writes a field they may not read, and lets one who may decide it', async () => {
  const withNote = await t.command(agent, 'invoice.update', { id: invoiceId, state: 'posted', internal_note: 'written by the agent' });
  expect(withNote.status).toBe(202);
  const plain = await t.command(agent, 'invoice.post', { id: invoiceId });
  expect(plain.status).toBe(202);

  const inbox = await t.request('GET', '/api/plans', undefined, accountant);
  expect(inbox.body.plans.map((plan: { plan_id: string }) => plan.plan_id)).toEqual([plain.body.plan_id]);
  for (const [method, path] of [
    ['GET', `/api/plans/${withNote.body.plan_id}`],
    ['POST', `/api/approve/${withNote.body.plan_id}`],
    ['POST', `/api/reject/${withNote.body.plan_id}`],
  ] as const) {
    const res = await t.request(method, path, undefined, accountant);
    expect(res.status, `${method} ${path}`).toBe(404);
  }
  const stillPending = await t.request('GET', `/api/plans/${withNote.body.plan_id}`, undefined, admin);
  expect(stillPending.body.plan.status).toBe('pending');

  const approved = await t.request('POST', `/api/approve/${withNote.body.plan_id}`, undefined, admin);
  expect(approved.status).toBe(200);
  expect(approved.body.value).toMatchObject({ state: 'posted', internal_note: 'written by the agent' });
});

it('answers 404 for a plan id that names no plan, whatever its form: unknown, too long, with NUL (SPEC 7)', async () => {
  for (const id of ['01M8452PGTZ3QHM2AWMARJ1NTB', 'x'.repeat(65), 'a%00b', 'nope']) {
    for (const [method, path] of [['GET', `/api/plans/${id}`], ['POST', `/api/approve/${id}`], ['POST', `/api/reject/${id}`]] as const) {
      const res = await t.request(method, path, undefined, admin);
      expect({ status: res.status, body: res.body }, `${method} ${path}`).toEqual({ status: 404, body: { error: 'not found' } });
    }
  }
});
