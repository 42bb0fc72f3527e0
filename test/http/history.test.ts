/**
 * Record history over real HTTP (and the MCP SDK client), on SQLite and (under RMS_TEST_PG_URL)
 * PostgreSQL: every change leaves a history entry in its own transaction; `<model>.history` shows
 * it with rights and masking applied as to reads; `<model>.revert` puts back an update's fields,
 * refuses a conflict with 409 and anything else with a clear 400, and is only proposed by agents.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';

/** History entries whose changes hold "kaboom" cannot be stored: the write that made them must not stay either. */
const FAIL_HISTORY = {
  sqlite: `create trigger fail_history before insert on rms_history
    when new.changes like '%kaboom%'
    begin select raise(abort, 'history refused'); end;`,
  postgres: `create function fail_history() returns trigger language plpgsql as $$
      begin raise exception 'history refused'; end $$;
    create trigger fail_history before insert on rms_history for each row
      when (new.changes like '%kaboom%') execute function fail_history();`,
};

/** The executed audit row of a call whose input holds "fizzle" is refused: its change, and so its history entry, must not stay. */
const FAIL_AUDIT = {
  sqlite: `create trigger fail_audit before insert on rms_audit
    when new.outcome = 'executed' and new.input like '%fizzle%'
    begin select raise(abort, 'audit refused'); end;`,
  postgres: `create function fail_audit() returns trigger language plpgsql as $$
      begin raise exception 'audit refused'; end $$;
    create trigger fail_audit before insert on rms_audit for each row
      when (new.outcome = 'executed' and new.input like '%fizzle%') execute function fail_audit();`,
};

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let t: TestServer;
let admin: string;
/** Role sales: reads parties without tax_id. */
let sales: string;
/** Admin's agent with scopes party.*, lead.*. */
let agent: string;
/** Another agent of admin's with the same scopes. */
let otherAgent: string;
const clients: ConnectedClient[] = [];

beforeAll(async () => {
  t = await startTestServer({ logError: () => {} });
  await t.execute(FAIL_HISTORY);
  await t.execute(FAIL_AUDIT);
  admin = await t.login();
  sales = await t.addPerson('hsales', ['sales']);
  agent = await agentToken(t, admin, ['party.*', 'lead.*'], 'history-bot');
  otherAgent = await agentToken(t, admin, ['party.*', 'lead.*'], 'other-bot');
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t?.close();
});

async function ok(token: string, command: string, input: unknown): Promise<any> {
  const res = await t.command(token, command, input);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function history(token: string, model: string, id: string, page: Record<string, unknown> = {}): Promise<any> {
  return ok(token, `${model}.history`, { id, ...page });
}

const count = (sql: string, ...args: unknown[]) => t.inspect((db) => Number((db.prepare(sql).get(...args) as { n: number | string }).n));

describe('history entries', () => {
  it('a create lists every field it set from null; an update only what changed; an action its field; newest first', async () => {
    const created = (await ok(admin, 'lead.create', { title: 'History deal', expected_revenue: 120000, hot: true })).value;
    await ok(admin, 'lead.update', { id: created.id, title: 'History deal 2', expected_revenue: 120000, probability: 40 });
    await ok(admin, 'lead.qualify', { id: created.id });
    const body = await history(admin, 'lead', created.id);
    expect(body.denied).toEqual([]);
    expect(body.value.total).toBe(3);
    const [qualified, updated, made] = body.value.rows;
    for (const entry of body.value.rows) {
      expect(Object.keys(entry).sort()).toEqual(['at', 'by', 'change_id', 'changes', 'command', 'plan_id']);
      expect(entry.at).toMatch(ISO_MS);
      expect(entry.by).toEqual({ kind: 'person', username: 'admin', agent_label: null });
      expect(entry.plan_id).toBeNull();
    }
    expect(made.command).toBe('lead.create');
    expect(made.changes).toEqual({
      title: { from: null, to: 'History deal' },
      stage: { from: null, to: 'new' },
      expected_revenue: { from: null, to: 120000 },
      hot: { from: null, to: true },
    });
    expect(updated.command).toBe('lead.update');
    expect(updated.changes).toEqual({ title: { from: 'History deal', to: 'History deal 2' }, probability: { from: null, to: 40 } });
    expect(qualified.command).toBe('lead.qualify');
    expect(qualified.changes).toEqual({ stage: { from: 'new', to: 'qualified' } });
    expect(made.at <= updated.at && updated.at <= qualified.at).toBe(true);

    const page = await history(admin, 'lead', created.id, { limit: 1, offset: 1 });
    expect(page.value).toEqual({ rows: [updated], total: 3 });
  });

  it('an update that changes nothing leaves no entry', async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Same' })).value;
    await ok(admin, 'lead.update', { id, title: 'Same' });
    expect((await history(admin, 'lead', id)).value.total).toBe(1);
  });

  it("works for a deleted record's id: its last entry is the delete, every field to null", async () => {
    const { id } = (await ok(admin, 'party.create', { name: 'Gone Person', kind: 'person', tax_id: 'DEL-1' })).value;
    await ok(admin, 'party.delete', { id });
    const body = await history(admin, 'party', id);
    expect(body.value.total).toBe(2);
    const [deleted] = body.value.rows;
    expect(deleted.command).toBe('party.delete');
    expect(deleted.changes).toEqual({
      name: { from: 'Gone Person', to: null },
      email: { from: null, to: null },
      phone: { from: null, to: null },
      kind: { from: 'person', to: null },
      tax_id: { from: 'DEL-1', to: null },
      notes: { from: null, to: null },
    });
  });

  it('refuses an id that never existed, a bad page and unknown keys, like other reads', async () => {
    expect(await t.command(admin, 'lead.history', { id: 'nope' })).toMatchObject({ status: 400, body: { error: 'lead nope not found' } });
    expect(await t.command(admin, 'lead.history', {})).toMatchObject({ status: 400, body: { error: 'id is required' } });
    const { id } = (await ok(admin, 'lead.create', { title: 'Paged' })).value;
    expect(await t.command(admin, 'lead.history', { id, limit: 0 })).toMatchObject({ status: 400, body: { error: 'limit must be an integer from 1 to 5000' } });
    expect(await t.command(admin, 'lead.history', { id, offset: -1 })).toMatchObject({ status: 400, body: { error: 'offset must be an integer of 0 or more' } });
    expect(await t.command(admin, 'lead.history', { id, since: 1 })).toMatchObject({ status: 400, body: { error: 'unknown field lead.since' } });
  });

  it('leaves out fields the caller may not read, names them in denied, and does not show or count an entry that changed only those', async () => {
    const { id } = (await ok(admin, 'party.create', { name: 'Taxed Co', kind: 'company', tax_id: 'T-1' })).value;
    await ok(admin, 'party.update', { id, tax_id: 'T-2' });
    const body = await history(sales, 'party', id);
    expect(body.denied).toEqual(['party.tax_id']);
    expect(body.value.total).toBe(1);
    expect(body.value.rows.map((row: { changes: unknown }) => row.changes)).toEqual([{ name: { from: null, to: 'Taxed Co' }, kind: { from: null, to: 'company' } }]);
    expect(JSON.stringify(body)).not.toContain('T-1');
    expect((await history(admin, 'party', id)).value.total).toBe(2);
  });

  it('is written in the transaction of its change: a change whose entry cannot be stored does not happen, and a failed change leaves no entry', async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Atomic' })).value;
    const refused = await t.command(admin, 'lead.update', { id, title: 'kaboom' });
    expect(refused.status).toBe(500);
    expect(t.inspect((db) => db.prepare('select title from lead where id = ?').get(id))).toEqual({ title: 'Atomic' });
    const failed = await t.command(admin, 'lead.update', { id, title: 'fizzle' });
    expect(failed.status).toBe(500);
    expect((await history(admin, 'lead', id)).value.total).toBe(1);
    expect(count('select count(*) as n from rms_history where record_id = ?', id)).toBe(1);
  });

  it('each executed write in the audit trail names its history entry', async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Audited' })).value;
    await ok(admin, 'lead.update', { id, probability: 5 });
    const entries = (await history(admin, 'lead', id)).value.rows as { change_id: string; command: string }[];
    const audit = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'record_id', op: 'eq', value: id }]))}&order=${encodeURIComponent(JSON.stringify([{ field: 'id', dir: 'asc' }]))}`, undefined, admin);
    expect(audit.status).toBe(200);
    const rows = audit.body.rows as { command: string; change_id: string | null; access: string }[];
    expect(rows.map((row) => [row.command, row.access, row.change_id])).toEqual([
      ['lead.create', 'write', entries[1]!.change_id],
      ['lead.update', 'write', entries[0]!.change_id],
      ['lead.history', 'read', null],
    ]);
  });
});

describe('history for agents', () => {
  it('shows personal values as the tokens reads show, and never in clear', async () => {
    const { id } = (await ok(admin, 'party.create', { name: 'Alice Liddell', email: 'alice@example.com', kind: 'person', tax_id: 'A-1' })).value;
    await ok(admin, 'party.update', { id, email: 'alice@wonderland.example' });
    const read = (await ok(agent, 'party.get', { id })).value;
    const body = await history(agent, 'party', id);
    expect(body.denied).toEqual(['party.tax_id']);
    const [changedEmail, made] = body.value.rows;
    expect(made.changes.name).toEqual({ from: null, to: read.name });
    expect(made.changes.name.to).toMatch(/^NAME_\d+$/);
    expect(changedEmail.changes.email.to).toBe(read.email);
    expect(changedEmail.changes.email.from).toMatch(/^EMAIL_\d+$/);
    expect(changedEmail.changes.email.from).not.toBe(read.email);
    expect(made.changes.tax_id).toBeUndefined();
    const text = JSON.stringify(body);
    for (const clear of ['Alice', 'alice@', 'A-1']) expect(text).not.toContain(clear);
    // The same value reads as the same token for the same agent, each time.
    expect((await history(agent, 'party', id)).value).toEqual(body.value);
  });

  it('a value an agent wrote shows as the token it knows it by, also after a person replaced it', async () => {
    const { id } = (await ok(admin, 'party.create', { name: 'Placeholder', kind: 'person' })).value;
    const written = (await ok(agent, 'party.update', { id, name: 'Bob Written' })).value.name as string;
    expect(written).toMatch(/^NAME_\d+$/);
    await ok(admin, 'party.update', { id, name: 'Bob Corrected' });
    const [corrected, byAgent] = (await history(agent, 'party', id)).value.rows;
    expect(byAgent.by).toEqual({ kind: 'agent', username: 'admin', agent_label: 'history-bot' });
    expect(byAgent.changes.name.to).toBe(written);
    expect(corrected.changes.name.from).toBe(written);
    expect(corrected.changes.name.to).not.toBe(written);
    // Another agent never learns the first one's token for it: it sees shared tokens.
    const [otherCorrected, otherByAgent] = (await history(otherAgent, 'party', id)).value.rows;
    expect(otherByAgent.changes.name.to).not.toBe(written);
    expect(otherCorrected.changes.name.from).toBe(otherByAgent.changes.name.to);
  });

  it('MCP: lead__history answers what REST answers; lead__revert is only proposed', async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Over MCP', probability: 10 })).value;
    await ok(admin, 'lead.update', { id, probability: 20 });
    const rest = await history(agent, 'lead', id);
    const connected = await connectClient(t, agent);
    clients.push(connected);
    const result = (await connected.client.callTool({ name: 'lead__history', arguments: { id } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ denied: rest.denied, value: rest.value });
    const change = rest.value.rows[0].change_id as string;
    const proposed = (await connected.client.callTool({ name: 'lead__revert', arguments: { id, change_id: change } })) as CallToolResult;
    expect(proposed.structuredContent).toMatchObject({ status: 'approval_required', plan_id: expect.any(String) });
    expect((await ok(admin, 'lead.get', { id })).value.probability).toBe(20);
  });
});

describe('revert', () => {
  it("puts back an update's fields as one update, named in history as reverting it", async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Before', expected_revenue: 1000, probability: 10 })).value;
    const updated = await ok(admin, 'lead.update', { id, title: 'After', expected_revenue: 2000 });
    expect(updated.value).toMatchObject({ title: 'After', expected_revenue: 2000, probability: 10 });
    const [change] = (await history(admin, 'lead', id)).value.rows;
    const reverted = await ok(admin, 'lead.revert', { id, change_id: change.change_id });
    expect(reverted).toEqual({ denied: [], value: { ...updated.value, title: 'Before', expected_revenue: 1000 } });
    const [entry] = (await history(admin, 'lead', id)).value.rows;
    expect(entry).toMatchObject({
      command: 'lead.update',
      reverts: change.change_id,
      by: { kind: 'person', username: 'admin', agent_label: null },
      changes: { title: { from: 'After', to: 'Before' }, expected_revenue: { from: 2000, to: 1000 } },
    });
    // The revert is an update too: reverting it puts the change back again.
    await ok(admin, 'lead.revert', { id, change_id: entry.change_id });
    expect((await ok(admin, 'lead.get', { id })).value).toMatchObject({ title: 'After', expected_revenue: 2000 });
  });

  it('409 when a field of the change changed since, changing nothing; other fields changing is fine', async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'One', probability: 1 })).value;
    await ok(admin, 'lead.update', { id, title: 'Two' });
    const [first] = (await history(admin, 'lead', id)).value.rows;
    await ok(admin, 'lead.update', { id, probability: 2 });
    await ok(admin, 'lead.update', { id, title: 'Three' });
    const before = (await history(admin, 'lead', id)).value.total;
    const conflict = await t.command(admin, 'lead.revert', { id, change_id: first.change_id });
    expect(conflict).toMatchObject({ status: 409, body: { error: `lead ${id} changed since change ${first.change_id}` } });
    expect((await ok(admin, 'lead.get', { id })).value).toMatchObject({ title: 'Three', probability: 2 });
    expect((await history(admin, 'lead', id)).value.total).toBe(before);
    const [third, second] = (await history(admin, 'lead', id)).value.rows;
    expect(third.changes).toEqual({ title: { from: 'Two', to: 'Three' } });
    const probability = await ok(admin, 'lead.revert', { id, change_id: second.change_id });
    expect(probability.value).toMatchObject({ title: 'Three', probability: 1 });
  });

  it('refuses what is not an update, unknown changes and changes of other records with 400', async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Refusals' })).value;
    const other = (await ok(admin, 'lead.create', { title: 'Other' })).value.id as string;
    await ok(admin, 'lead.update', { id: other, title: 'Other 2' });
    await ok(admin, 'lead.qualify', { id });
    await ok(admin, 'lead.update', { id, stage: 'won' });
    const [governed, action, created] = (await history(admin, 'lead', id)).value.rows;
    expect(governed.command).toBe('lead.update');
    expect(governed.changes).toEqual({ stage: { from: 'qualified', to: 'won' } });
    for (const change of [created, action, governed]) {
      expect(await t.command(admin, 'lead.revert', { id, change_id: change.change_id })).toMatchObject({ status: 400, body: { error: `change ${change.change_id} cannot be reverted` } });
    }
    const [otherChange] = (await history(admin, 'lead', other)).value.rows;
    expect(await t.command(admin, 'lead.revert', { id, change_id: otherChange.change_id })).toMatchObject({ status: 400, body: { error: `change ${otherChange.change_id} not found` } });
    expect(await t.command(admin, 'party.revert', { id: other, change_id: otherChange.change_id })).toMatchObject({ status: 400, body: { error: `change ${otherChange.change_id} not found` } });
    expect(await t.command(admin, 'lead.revert', { id, change_id: 'nope' })).toMatchObject({ status: 400, body: { error: 'change nope not found' } });
    expect(await t.command(admin, 'lead.revert', { id })).toMatchObject({ status: 400, body: { error: 'change_id is required' } });
    expect(await t.command(admin, 'lead.revert', { id, change_id: 5 })).toMatchObject({ status: 400, body: { error: 'change_id must be a string' } });
    expect(await t.command(admin, 'lead.revert', { id, change_id: 'x', title: 'y' })).toMatchObject({ status: 400, body: { error: 'unknown field lead.title' } });
  });

  it('reverts only the fields an update changed besides its governed one', async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Mixed' })).value;
    await ok(admin, 'lead.update', { id, stage: 'lost', lost_reason: 'budget' });
    const [change] = (await history(admin, 'lead', id)).value.rows;
    expect(change.changes).toEqual({ stage: { from: 'new', to: 'lost' }, lost_reason: { from: null, to: 'budget' } });
    const reverted = await ok(admin, 'lead.revert', { id, change_id: change.change_id });
    expect(reverted.value).toMatchObject({ stage: 'lost', lost_reason: null });
  });

  it('needs the right to update: history comes with get, revert with update', async () => {
    const accountant = await t.addPerson('haccountant', ['accountant']);
    const { id } = (await ok(admin, 'lead.create', { title: 'Rights' })).value;
    await ok(admin, 'lead.update', { id, title: 'Rights 2' });
    const [change] = (await history(accountant, 'lead', id)).value.rows;
    expect(await t.command(accountant, 'lead.revert', { id, change_id: change.change_id })).toMatchObject({ status: 404, body: { error: 'not found' } });
    const commands = (await t.request('GET', '/api/commands', undefined, accountant)).body.commands as { id: string }[];
    expect(commands.map((command) => command.id).filter((command) => command.startsWith('lead.'))).toEqual(['lead.get', 'lead.list', 'lead.search', 'lead.history']);
  });

  it("an agent's revert is a plan: nothing changes until a person approves; then history names the agent and the plan", async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Planned', probability: 30 })).value;
    await ok(admin, 'lead.update', { id, probability: 90 });
    const [change] = (await history(agent, 'lead', id)).value.rows;
    const proposed = await t.command(agent, 'lead.revert', { id, change_id: change.change_id });
    expect(proposed.status).toBe(202);
    expect(proposed.body).toEqual({ approval_required: true, plan_id: expect.any(String) });
    expect((await ok(admin, 'lead.get', { id })).value.probability).toBe(90);
    const approved = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    expect(approved.status).toBe(200);
    expect(approved.body.value.probability).toBe(30);
    const [entry] = (await history(admin, 'lead', id)).value.rows;
    expect(entry).toMatchObject({
      command: 'lead.update',
      reverts: change.change_id,
      by: { kind: 'agent', username: 'admin', agent_label: 'history-bot' },
      plan_id: proposed.body.plan_id,
      changes: { probability: { from: 90, to: 30 } },
    });
  });

  it("a plan's change is the proposing agent's in history, with the plan named: a delete", async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Delete me' })).value;
    const proposed = await t.command(agent, 'lead.delete', { id });
    expect(proposed.status).toBe(202);
    expect((await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin)).status).toBe(200);
    const [deleted] = (await history(admin, 'lead', id)).value.rows;
    expect(deleted).toMatchObject({ command: 'lead.delete', by: { kind: 'agent', username: 'admin', agent_label: 'history-bot' }, plan_id: proposed.body.plan_id });
    expect(deleted.changes.title).toEqual({ from: 'Delete me', to: null });
  });

  it('puts back the tokens agents knew a personal value by', async () => {
    const { id } = (await ok(admin, 'party.create', { name: 'Original Name', kind: 'person' })).value;
    const before = (await ok(agent, 'party.get', { id })).value.name as string;
    await ok(admin, 'party.update', { id, name: 'Wrong Name' });
    expect((await ok(agent, 'party.get', { id })).value.name).not.toBe(before);
    const [change] = (await history(admin, 'party', id)).value.rows;
    await ok(admin, 'party.revert', { id, change_id: change.change_id });
    expect((await ok(agent, 'party.get', { id })).value.name).toBe(before);
    const [entry] = (await history(agent, 'party', id)).value.rows;
    expect(entry.changes.name.to).toBe(before);
  });
});

describe('an approved revert that conflicts', () => {
  it('fails the plan with the conflict, leaving the record as it is', async () => {
    const { id } = (await ok(admin, 'lead.create', { title: 'Late', probability: 1 })).value;
    await ok(admin, 'lead.update', { id, probability: 2 });
    const [change] = (await history(agent, 'lead', id)).value.rows;
    const proposed = await t.command(agent, 'lead.revert', { id, change_id: change.change_id });
    expect(proposed.status).toBe(202);
    await ok(admin, 'lead.update', { id, probability: 3 });
    const approved = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    expect(approved).toMatchObject({ status: 409, body: { error: `lead ${id} changed since change ${change.change_id}` } });
    const plan = await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, admin);
    expect(plan.body.plan).toMatchObject({ status: 'failed', error: `lead ${id} changed since change ${change.change_id}` });
    expect((await ok(admin, 'lead.get', { id })).value.probability).toBe(3);
    // Decided now: approving again is the plan's own 409.
    const again = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    expect(again).toMatchObject({ status: 409, body: { error: `plan ${proposed.body.plan_id} is already failed` } });
  });
});
