/**
 * Agents over real HTTP and a real SQLite file: agent rights, masking, approval plans, catalogue,
 * meta and the audit trail. Two agents with different scopes work on the same records.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../fixtures/generated/registry.ts';
import { createPerson } from '../../runtime/auth/index.ts';
import { startServer } from '../../runtime/server.ts';
import { postgresInspector } from '../helpers/postgres.ts';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.ts';

/** What follows `unknown field <model>.<field>` for a field masked for the caller (SPEC 4.5's text, then why). */
const MASKED_REASON =
  ': it is personal data, masked for you, so it cannot be filtered or ordered by its value; to find records by it, use token_filter with eq or in and a masking token you were given';

let t: TestServer;
let admin: string;
/** Scopes `lead.*` and `party.get` (the issue's walk-through). */
let agentA: string;
let agentAId: string;
/** Scopes `*.search`, `party.*`, `invoice.*`: a differently scoped agent. */
let agentB: string;

async function agentToken(token: string, scopes: string[], label: string): Promise<{ token: string; id: string }> {
  const res = await t.request('POST', '/api/auth/agent-token', { scopes, label }, token);
  expect(res.status).toBe(200);
  const list = await t.request('GET', '/api/auth/agent-tokens', undefined, token);
  const row = list.body.tokens.find((entry: { label: string }) => entry.label === label);
  return { token: res.body.token, id: row.id };
}

/** The test server's database, read-only (on PostgreSQL a stand-in with `prepare(sql).get/all`). */
function sqlite() {
  return t.dbUrl.startsWith('sqlite:') ? new Database(t.dbFile, { readonly: true }) : postgresInspector(t.dbUrl);
}

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  ({ token: agentA, id: agentAId } = await agentToken(admin, ['lead.*', 'party.get'], 'sales-bot'));
  ({ token: agentB } = await agentToken(admin, ['*.search', 'party.*', 'invoice.*'], 'books-bot'));
});

afterAll(async () => {
  await t?.close();
});

async function createParty(fields: Record<string, unknown>) {
  const res = await t.command(admin, 'party.create', fields);
  expect(res.status).toBe(200);
  return res.body.value as Record<string, unknown> & { id: string };
}

async function createLead(fields: Record<string, unknown>) {
  const res = await t.command(admin, 'lead.create', fields);
  expect(res.status).toBe(200);
  return res.body.value as Record<string, unknown> & { id: string };
}

describe('what an agent reads', () => {
  it('gets personal fields as tokens and hidden fields withheld and named in denied', async () => {
    const party = await createParty({ name: 'Ada Lovelace', email: 'ada@example.com', kind: 'person', tax_id: 'GB123', notes: 'Met at the fair' });
    const res = await t.command(agentA, 'party.get', { id: party.id });
    expect(res.status).toBe(200);
    expect(res.body.denied).toEqual(['party.tax_id']);
    expect(res.body.value).toEqual({ id: party.id, name: expect.stringMatching(/^NAME_\d+$/), email: expect.stringMatching(/^EMAIL_\d+$/), phone: null, kind: 'person', notes: expect.stringMatching(/^NOTES_\d+$/) });
    expect(JSON.stringify(res.body)).not.toContain('Ada');
    expect(JSON.stringify(res.body)).not.toContain('GB123');
  });

  it('gives the same token for the same value on every call and every model, and unrelated numbering to another agent', async () => {
    const party = await createParty({ name: 'Grace Hopper', notes: 'same note' });
    const lead = await createLead({ title: 'Compiler deal', party: party.id, notes: 'same note' });
    const first = await t.command(agentA, 'party.get', { id: party.id });
    const again = await t.command(agentA, 'party.get', { id: party.id });
    const viaLead = await t.command(agentA, 'lead.get', { id: lead.id });
    expect(again.body.value.name).toBe(first.body.value.name);
    // Same label (Notes) on two models: the same token.
    expect(viaLead.body.value.notes).toBe(first.body.value.notes);
    const other = await t.command(agentB, 'party.get', { id: party.id });
    expect(other.status).toBe(200);
    expect(other.body.value.name).toMatch(/^NAME_\d+$/);
    // B's numbering is its own: B has seen only this party so far, so it starts at 1.
    expect(other.body.value.name).toBe('NAME_1');
    expect(first.body.value.name).not.toBe('NAME_1');
  });

  it('keeps the mapping in the database: the same tokens after a restart', async () => {
    const party = await createParty({ name: 'Katherine Johnson' });
    const before = await t.command(agentA, 'party.get', { id: party.id });
    const db = sqlite();
    const stored = db.prepare('select count(*) as n from rms_mask_tokens where value = ?').get('Katherine Johnson') as { n: number };
    db.close();
    expect(stored.n).toBeGreaterThan(0);
    const second = await startServer({ registry, dbUrl: t.dbUrl, host: '127.0.0.1', port: 0, adminPassword: ADMIN_PASSWORD, log: () => {} });
    try {
      const res = await fetch(`${second.url}/api/party/get`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${agentA}` },
        body: JSON.stringify({ id: party.id }),
      });
      expect((await res.json()).value.name).toBe(before.body.value.name);
    } finally {
      await second.close();
    }
  });

  it('masks rows of list and search too', async () => {
    const res = await t.command(agentB, 'party.search', { filter: [{ field: 'kind', op: 'eq', value: 'person' }] });
    expect(res.status).toBe(200);
    expect(res.body.denied).toEqual(['party.tax_id']);
    expect(res.body.value.total).toBeGreaterThan(0);
    for (const row of res.body.value.rows) {
      expect(row.name).toMatch(/^NAME_\d+$/);
      expect(row).not.toHaveProperty('tax_id');
    }
  });

  it('refuses filtering and ordering on masked or hidden fields with unknown field, saying why for a masked one', async () => {
    const masked = (field: string) => `unknown field party.${field}${MASKED_REASON}`;
    for (const [input, error] of [
      [{ filter: [{ field: 'name', op: 'eq', value: 'NAME_1' }] }, masked('name')],
      [{ filter: [{ field: 'tax_id', op: 'is_null' }] }, 'unknown field party.tax_id'],
      [{ order: [{ field: 'email' }] }, masked('email')],
      [{ order: [{ field: 'tax_id', dir: 'desc' }] }, 'unknown field party.tax_id'],
    ] as const) {
      const res = await t.command(agentB, 'party.list', input);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: error });
    }
    const invoices = await t.command(agentB, 'invoice.list', { filter: [{ field: 'internal_note', op: 'contains', value: 'x' }] });
    expect(invoices.body).toEqual({ error: 'unknown field invoice.internal_note' });
  });
});

describe('what an agent writes', () => {
  it('replaces a token it was issued by the clear value, on create and update', async () => {
    const party = await createParty({ name: 'Margaret Hamilton', email: 'mh@example.com' });
    const seen = (await t.command(agentB, 'party.get', { id: party.id })).body.value;
    const created = await t.command(agentB, 'party.create', { name: seen.name, email: 'new@example.com', notes: 'fresh clear note' });
    expect(created.status).toBe(200);
    // The agent gets its own token back for the same person, and the new clear values as tokens.
    expect(created.body.value.name).toBe(seen.name);
    expect(created.body.value.email).toMatch(/^EMAIL_\d+$/);
    const asAdmin = await t.command(admin, 'party.get', { id: created.body.value.id });
    expect(asAdmin.body.value).toMatchObject({ name: 'Margaret Hamilton', email: 'new@example.com', notes: 'fresh clear note' });

    const updated = await t.command(agentB, 'party.update', { id: created.body.value.id, email: seen.email });
    expect(updated.status).toBe(200);
    expect((await t.command(admin, 'party.get', { id: created.body.value.id })).body.value.email).toBe('mh@example.com');
  });

  it('refuses every other token-form value with invalid token and writes nothing', async () => {
    const party = await createParty({ name: 'Hedy Lamarr', email: 'hedy@example.com' });
    const seen = (await t.command(agentB, 'party.get', { id: party.id })).body.value;
    const seenByA = (await t.command(agentA, 'party.get', { id: party.id })).body.value;
    const db = sqlite();
    const count = () => (db.prepare('select count(*) as n from party').get() as { n: number }).n;
    const before = count();
    const cases: Record<string, unknown>[] = [
      { name: 'NAME_999999' }, // never issued
      { name: seen.email }, // issued, but for another label
      { name: 'PHONE_1' }, // a label this agent was never issued
    ];
    // Another agent's token: A's numbering is unrelated to B's, so pick one B was never issued.
    const bTokens = db.prepare("select t.label || '_' || t.n as token from rms_mask_tokens t join rms_tokens k on k.id = t.agent_token_id where k.label = 'books-bot'").all() as { token: string }[];
    const aTokens = db.prepare('select label, n from rms_mask_tokens where agent_token_id = ?').all(agentAId) as { label: string; n: number }[];
    const foreign = aTokens.map((row) => `${row.label}_${row.n}`).find((token) => token.startsWith('NAME_') && !bTokens.some((b) => b.token === token));
    if (foreign) cases.push({ name: foreign });
    expect(seenByA.name).toMatch(/^NAME_/);
    for (const fields of cases) {
      const res = await t.command(agentB, 'party.create', fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.body).toEqual({ error: 'invalid token' });
    }
    const update = await t.command(agentB, 'party.update', { id: party.id, notes: 'NOTES_424242' });
    expect(update.body).toEqual({ error: 'invalid token' });
    expect(count()).toBe(before);
    const row = db.prepare('select notes, name from party where id = ?').get(party.id) as { notes: string | null; name: string };
    expect(row).toEqual({ notes: null, name: 'Hedy Lamarr' });
    db.close();
  });

  it('may write new clear values', async () => {
    const res = await t.command(agentB, 'party.create', { name: 'Radia Perlman', kind: 'person' });
    expect(res.status).toBe(200);
    expect(res.body.value.name).toMatch(/^NAME_\d+$/);
  });
});

describe('rights of agents', () => {
  it('lists only the commands of its scopes within its creator\'s rights', async () => {
    const a = await t.request('GET', '/api/commands', undefined, agentA);
    expect(a.status).toBe(200);
    expect(a.body.commands.map((c: { id: string }) => c.id)).toEqual([
      'party.get', 'party.history',
      'lead.get', 'lead.list', 'lead.search', 'lead.create', 'lead.update', 'lead.delete', 'lead.qualify', 'lead.win', 'lead.lose', 'lead.history', 'lead.revert',
      'lead.create_many', 'lead.update_many', 'lead.delete_many', 'lead.qualify_many', 'lead.win_many', 'lead.lose_many',
    ]);
    expect(a.body.commands.find((c: { id: string }) => c.id === 'lead.delete')).toEqual({ id: 'lead.delete', description: expect.any(String), needs_approval: true });
    expect(a.body.commands.find((c: { id: string }) => c.id === 'lead.qualify').needs_approval).toBe(false);
    const b = await t.request('GET', '/api/commands', undefined, agentB);
    expect(b.body.commands.map((c: { id: string }) => c.id)).toEqual([
      'party.get', 'party.list', 'party.search', 'party.create', 'party.update', 'party.delete', 'party.history', 'party.revert', 'party.create_many', 'party.update_many', 'party.delete_many',
      'lead.search',
      'invoice.get', 'invoice.list', 'invoice.search', 'invoice.create', 'invoice.update', 'invoice.delete', 'invoice.post', 'invoice.pay', 'invoice.cancel', 'invoice.history', 'invoice.revert',
      'invoice.create_many', 'invoice.update_many', 'invoice.delete_many', 'invoice.post_many', 'invoice.pay_many', 'invoice.cancel_many',
      'order.search',
    ]);
  });

  it('gets 404 for commands outside its scopes, the same as for unknown ones', async () => {
    const outside = await t.command(agentA, 'party.list', {});
    const unknown = await t.command(agentA, 'party.frobnicate', {});
    const noModel = await t.command(agentA, 'nothing.get', { id: 'x' });
    for (const res of [outside, unknown, noModel]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(outside.body);
    }
  });

  it('gets 404 from every person-only endpoint', async () => {
    const lead = await createLead({ title: 'Plan target' });
    const proposal = await t.command(agentA, 'lead.delete', { id: lead.id });
    expect(proposal.status).toBe(202);
    for (const [method, path, body] of [
      ['POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'x' }],
      ['GET', '/api/auth/agent-tokens', undefined],
      ['POST', '/api/auth/agent-token/revoke', { id: agentAId }],
      ['POST', `/api/approve/${proposal.body.plan_id}`, undefined],
      ['POST', `/api/reject/${proposal.body.plan_id}`, undefined],
      ['GET', '/api/audit', undefined],
    ] as const) {
      const res = await t.request(method, path, body, agentA);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // Another method on a path of two parts is 405, to an agent as to anyone (docs/api.md): it says
    // nothing of what is there, as on every command-shaped path.
    for (const path of ['/api/auth/login', '/api/auth/logout', '/api/auth/nothing']) {
      for (const token of [agentA, admin]) {
        const res = await t.request('GET', path, undefined, token);
        expect([res.status, res.headers.get('allow'), res.body], path).toEqual([405, 'POST', { error: 'method not allowed: commands are called with POST' }]);
      }
    }
    // The plan is untouched.
    const plan = await t.request('GET', `/api/plans/${proposal.body.plan_id}`, undefined, admin);
    expect(plan.body.plan.status).toBe('pending');
  });

  it('meta shows only what the agent may see, with the MCP link', async () => {
    const res = await t.request('GET', '/api/meta', undefined, agentA);
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toBe('</mcp>; rel="mcp"');
    expect(res.body.modules).toEqual([{ name: 'crm', label: 'CRM', description: expect.any(String), models: ['party', 'lead'] }]);
    const party = res.body.models.find((m: { name: string }) => m.name === 'party');
    expect(party.commands).toEqual(['get', 'history']);
    expect(party.denied).toEqual(['party.tax_id']);
    expect(party.fields.map((f: { name: string }) => f.name)).toEqual(['name', 'email', 'phone', 'kind', 'notes']);
    expect(party.fields.find((f: { name: string }) => f.name === 'name')).toMatchObject({ kind: 'text', label: 'Name', required: true, personal: true, masked: true });
    const lead = res.body.models.find((m: { name: string }) => m.name === 'lead');
    expect(lead.actions.map((a: { name: string }) => a.name)).toEqual(['qualify', 'win', 'lose']);
    expect(lead.fields.find((f: { name: string }) => f.name === 'stage')).toMatchObject({ kind: 'select', governed: true, options: ['new', 'qualified', 'won', 'lost'] });
    expect(lead.fields.find((f: { name: string }) => f.name === 'party')).toMatchObject({ kind: 'ref', target: 'party' });
    const forAdmin = await t.request('GET', '/api/meta', undefined, admin);
    expect(forAdmin.body.models.map((m: { name: string }) => m.name)).toEqual(['party', 'lead', 'invoice', 'order']);
    expect(forAdmin.body.models[0].fields.find((f: { name: string }) => f.name === 'name').masked).toBe(false);
  });

  it('loses its rights with its creator\'s role, and gets 401 once revoked', async () => {
    const db = t.server.db;
    await createPerson(db, { username: 'sam', password: 'sam-password-1', roles: ['sales'] });
    const sam = await t.login('sam', 'sam-password-1');
    const bot = await agentToken(sam, ['lead.*'], 'sam-bot');
    expect((await t.command(bot.token, 'lead.list', {})).status).toBe(200);
    await db('rms_people').where({ username: 'sam' }).update({ roles: JSON.stringify(['accountant']) });
    // accountant may only read leads: list still works, create is gone.
    expect((await t.command(bot.token, 'lead.list', {})).status).toBe(200);
    expect((await t.command(bot.token, 'lead.create', { title: 'x' })).status).toBe(404);
    const revoke = await t.request('POST', '/api/auth/agent-token/revoke', { id: bot.id }, sam);
    expect(revoke.status).toBe(200);
    const after = await t.command(bot.token, 'lead.list', {});
    expect(after.status).toBe(401);
  });
});

describe('approval', () => {
  it('runs lead.qualify directly for an agent (needs_approval false)', async () => {
    const lead = await createLead({ title: 'Qualify me' });
    const res = await t.command(agentA, 'lead.qualify', { id: lead.id });
    expect(res.status).toBe(200);
    expect(res.body.value).toMatchObject({ id: lead.id, stage: 'qualified' });
  });

  it('holds a delete as a plan that changes nothing until a person approves it, once', async () => {
    const lead = await createLead({ title: 'Delete me', notes: 'secret note' });
    const res = await t.command(agentA, 'lead.delete', { id: lead.id });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ approval_required: true, plan_id: expect.any(String) });
    const planId = res.body.plan_id as string;
    expect((await t.command(admin, 'lead.get', { id: lead.id })).status).toBe(200);

    const mine = await t.request('GET', '/api/plans', undefined, agentA);
    expect(mine.body.plans.find((p: { plan_id: string }) => p.plan_id === planId)).toMatchObject({ command: 'lead.delete', record_id: lead.id, status: 'pending', input: { id: lead.id } });
    const inbox = await t.request('GET', '/api/plans', undefined, admin);
    expect(inbox.body.plans[0].status).toBe('pending');
    expect(inbox.body.plans.find((p: { plan_id: string }) => p.plan_id === planId)).toMatchObject({ agent: { label: 'sales-bot' }, creator: 'admin' });

    const approved = await t.request('POST', `/api/approve/${planId}`, undefined, admin);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ denied: [], value: { id: lead.id } });
    expect((await t.command(admin, 'lead.get', { id: lead.id })).body).toEqual({ error: `lead ${lead.id} not found` });

    const again = await t.request('POST', `/api/approve/${planId}`, undefined, admin);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: `plan ${planId} is already approved` });
    const rejectLate = await t.request('POST', `/api/reject/${planId}`, undefined, admin);
    expect(rejectLate.status).toBe(409);
    const status = await t.request('GET', `/api/plans/${planId}`, undefined, agentA);
    expect(status.body.plan).toMatchObject({ status: 'approved', decided_by: 'admin' });
  });

  it('executes a plan once when two approvals race', async () => {
    const lead = await createLead({ title: 'Race' });
    const { body } = await t.command(agentA, 'lead.delete', { id: lead.id });
    const results = await Promise.all([1, 2, 3].map(() => t.request('POST', `/api/approve/${body.plan_id}`, undefined, admin)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
  });

  it('marks a plan failed when its command fails at approval, and carries the error', async () => {
    const lead = await createLead({ title: 'Gone before approval' });
    const { body } = await t.command(agentA, 'lead.delete', { id: lead.id });
    expect((await t.command(admin, 'lead.delete', { id: lead.id })).status).toBe(200);
    const res = await t.request('POST', `/api/approve/${body.plan_id}`, undefined, admin);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `lead ${lead.id} not found` });
    const plan = await t.request('GET', `/api/plans/${body.plan_id}`, undefined, admin);
    expect(plan.body.plan).toMatchObject({ status: 'failed', error: `lead ${lead.id} not found` });
    expect((await t.request('POST', `/api/approve/${body.plan_id}`, undefined, admin)).status).toBe(409);
  });

  it('rejects a plan: nothing happens', async () => {
    const lead = await createLead({ title: 'Keep me' });
    const { body } = await t.command(agentA, 'lead.delete', { id: lead.id });
    const res = await t.request('POST', `/api/reject/${body.plan_id}`, undefined, admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ plan_id: body.plan_id, status: 'rejected' });
    expect((await t.command(admin, 'lead.get', { id: lead.id })).status).toBe(200);
    expect((await t.request('POST', `/api/approve/${body.plan_id}`, undefined, admin)).status).toBe(409);
  });

  it('answers 404 for an unknown plan', async () => {
    for (const path of ['/api/approve/nope', '/api/reject/nope', '/api/plans/nope']) {
      const res = await t.request(path.startsWith('/api/plans') ? 'GET' : 'POST', path, undefined, admin);
      expect(res.status).toBe(404);
    }
  });

  it('validates a proposal before storing it, and holds invoice.post and governed updates that need approval', async () => {
    const bad = await t.command(agentA, 'lead.delete', { id: 'no-such-lead' });
    expect(bad.status).toBe(400);
    const party = await createParty({ name: 'Invoice Co' });
    const invoice = (await t.command(admin, 'invoice.create', { number: 'INV-1', party: party.id, amount: 1000, issue_date: '2026-01-31' })).body.value;
    const post = await t.command(agentB, 'invoice.post', { id: invoice.id });
    expect(post.status).toBe(202);
    const viaUpdate = await t.command(agentB, 'invoice.update', { id: invoice.id, state: 'posted' });
    expect(viaUpdate.status).toBe(202);
    expect((await t.command(admin, 'invoice.get', { id: invoice.id })).body.value.state).toBe('draft');
    const approved = await t.request('POST', `/api/approve/${post.body.plan_id}`, undefined, admin);
    expect(approved.status).toBe(200);
    expect(approved.body.value).toMatchObject({ id: invoice.id, state: 'posted' });
    // The second plan was made for a draft invoice; it is posted now, so approving it fails.
    const second = await t.request('POST', `/api/approve/${viaUpdate.body.plan_id}`, undefined, admin);
    expect(second.status).toBe(400);
  });
});

describe('audit trail', () => {
  it('records commands, proposals, approvals and rejections, without clear personal values for agents', async () => {
    const party = await createParty({ name: 'Audit Person', email: 'audit@example.com' });
    await t.command(agentB, 'party.update', { id: party.id, notes: 'clear note by agent' });
    const lead = await createLead({ title: 'Audited' });
    const proposal = await t.command(agentA, 'lead.delete', { id: lead.id });
    await t.request('POST', `/api/approve/${proposal.body.plan_id}`, undefined, admin);

    const res = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'record_id', op: 'in', value: [party.id, lead.id] }]))}&order=${encodeURIComponent(JSON.stringify([{ field: 'id', dir: 'asc' }]))}`, undefined, admin);
    expect(res.status).toBe(200);
    const rows = res.body.rows.map((row: Record<string, unknown>) => [row.actor, row.username, row.agent_label, row.command, row.outcome]);
    expect(rows).toEqual([
      ['person', 'admin', null, 'party.create', 'executed'],
      ['agent', 'admin', 'books-bot', 'party.update', 'executed'],
      ['person', 'admin', null, 'lead.create', 'executed'],
      ['agent', 'admin', 'sales-bot', 'lead.delete', 'proposed'],
      ['person', 'admin', null, 'lead.delete', 'executed'],
      ['person', 'admin', null, 'lead.delete', 'approved'],
    ]);
    expect(res.body.total).toBe(6);
    const agentUpdate = res.body.rows[1];
    expect(agentUpdate.input.notes).toMatch(/^NOTES_\d+$/);

    const db = sqlite();
    const agentRows = db.prepare("select input from rms_audit where actor = 'agent'").all() as { input: string | null }[];
    db.close();
    for (const row of agentRows) {
      for (const clear of ['clear note by agent', 'Audit Person', 'audit@example.com', 'Margaret Hamilton', 'new@example.com', 'fresh clear note', 'Radia Perlman']) {
        expect(row.input ?? '').not.toContain(clear);
      }
    }
    const paged = await t.request('GET', '/api/audit?limit=2&offset=1', undefined, admin);
    expect(paged.body.rows).toHaveLength(2);
    expect((await t.request('GET', '/api/audit?limit=0', undefined, admin)).status).toBe(400);
    expect((await t.request('GET', `/api/audit?filter=${encodeURIComponent('[{"field":"nope","op":"eq","value":1}]')}`, undefined, admin)).body).toEqual({ error: 'unknown field audit.nope' });
  });

  it('is readable by admins only', async () => {
    await createPerson(t.server.db, { username: 'ann', password: 'ann-password-1', roles: ['accountant'] });
    const ann = await t.login('ann', 'ann-password-1');
    expect((await t.request('GET', '/api/audit', undefined, ann)).status).toBe(404);
  });
});
