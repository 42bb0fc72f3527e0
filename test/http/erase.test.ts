/**
 * `<model>.erase {id}` over real HTTP (and the MCP SDK client), on SQLite and (under
 * RMS_TEST_PG_URL) PostgreSQL: an admin forgets a person's data. The record's personal fields and
 * its lines' become empty; the values leave its history (field names kept with `{"erased": true}`),
 * the audit trail and plans of its model, every agent's masking tokens, and the bindings; after it
 * the database holds none of them — the whole SQLite file and its write-ahead log searched byte by
 * byte, every PostgreSQL table row by row. Only `admin` may erase, never an agent, and the erasure
 * is audited without the values.
 */
import { readFileSync, existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

const ERASED = { erased: true };

let t: TestServer;
let admin: string;
let sales: string;
const clients: ConnectedClient[] = [];

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  sales = await t.addPerson('esales', ['sales']);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t?.close();
});

async function ok(token: string, command: string, input: unknown): Promise<any> {
  const res = await t.command(token, command, input);
  expect(res.status, `${command}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.value;
}

/** Where each of `values` still occurs in the database: SQLite's file and log as bytes, every PostgreSQL table as text. */
function occurrences(values: readonly string[]): string[] {
  if (t.dialect === 'sqlite') {
    const files = [t.dbFile, `${t.dbFile}-wal`].filter((file) => existsSync(file)).map((file) => [file, readFileSync(file)] as const);
    return values.flatMap((value) => files.filter(([, bytes]) => bytes.includes(Buffer.from(value, 'utf8'))).map(([file]) => `${value} in ${file}`));
  }
  const tables = t.inspect((db) => db.prepare(`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`).all()) as { name: string }[];
  expect(tables.length).toBeGreaterThan(10);
  // One query for every table: each row of each table as text.
  const sql = tables.map(({ name }) => `select '${name}' as name, coalesce(string_agg(t::text, E'\\n'), '') as dump from "${name}" t`).join(' union all ');
  const dumps = t.inspect((db) => db.prepare(sql).all()) as { name: string; dump: string }[];
  return dumps.flatMap(({ name, dump }) => values.filter((value) => dump.includes(value)).map((value) => `${value} in ${name}`));
}

describe('erasing a party that people, an agent, plans and history touched', () => {
  const person = {
    name: 'Zelda Quartermain-7Q',
    oldEmail: 'zelda.old7q@example.test',
    email: 'zelda.7q@example.test',
    phone: '+44 7700 900123',
    agentPhone: '+44 7700 900999',
    notes: 'Prefers calls after five, Zq7',
  };
  const values = [person.name, person.oldEmail, person.email, person.phone, person.agentPhone, person.notes];
  let party: string;
  let lead: string;
  let agent: string;
  let agentTokens: { name: string; phone: string };
  let erasure: any;
  let pendingRevert: string;

  beforeAll(async () => {
    // A person creates the party and changes its email; another record refers to it.
    party = (await ok(sales, 'party.create', { name: person.name, email: person.oldEmail, phone: person.phone, kind: 'person', notes: person.notes })).id;
    await ok(sales, 'party.update', { id: party, email: person.email });
    await ok(admin, 'party.update', { id: party, tax_id: 'TX-7Q' });
    lead = (await ok(sales, 'lead.create', { title: 'Deal with Q', party })).id;
    // People search for it by name (the audit trail keeps the filter).
    expect((await ok(sales, 'party.search', { filter: [{ field: 'name', op: 'eq', value: person.name }] })).total).toBe(1);
    // An agent reads it (shared tokens), writes a phone in clear (a written token, a binding), and proposes a revert that a person approves.
    agent = await agentToken(t, sales, ['party.*', 'lead.*'], 'erase-bot');
    const seen = await ok(agent, 'party.get', { id: party });
    agentTokens = { name: seen.name, phone: seen.phone };
    expect(agentTokens.name).toMatch(/^NAME_\d+$/);
    await ok(agent, 'party.list', { limit: 10 });
    await ok(agent, 'party.update', { id: party, phone: person.agentPhone });
    await ok(agent, 'party.update', { id: party, phone: agentTokens.phone });
    const history = (await ok(admin, 'party.history', { id: party })).rows;
    const emailChange = history.find((entry: any) => entry.changes.email && entry.command === 'party.update');
    const proposed = await t.command(agent, 'party.revert', { id: party, change_id: emailChange.change_id });
    expect(proposed.status).toBe(202);
    const approved = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    await ok(sales, 'party.update', { id: party, email: person.email });
    // A revert proposed and left pending: its input carries no value, and it stays pending.
    const latest = (await ok(admin, 'party.history', { id: party, limit: 1 })).rows[0];
    pendingRevert = (await t.command(agent, 'party.revert', { id: party, change_id: latest.change_id })).body.plan_id;
    expect(pendingRevert).toEqual(expect.any(String));
    expect(occurrences(values).length).toBeGreaterThan(0);
    erasure = await ok(admin, 'party.erase', { id: party });
  });

  it('answers what it erased and where', () => {
    expect(erasure).toMatchObject({ id: party, fields: ['name', 'email', 'phone', 'notes'], plans_rejected: 0 });
    expect(erasure.history_entries).toBeGreaterThanOrEqual(5);
    expect(erasure.audit_rows).toBeGreaterThanOrEqual(4);
    // The plans about it carry no value (a revert names a change): they stay as they are.
    expect(erasure.plans).toBe(0);
    expect(erasure.mask_tokens).toBeGreaterThanOrEqual(4);
  });

  it('leaves none of the values anywhere in the database', () => {
    expect(occurrences(values)).toEqual([]);
  });

  it('empties the personal fields (a required one holds its kind’s erased value) and keeps the rest, and the refs to it', async () => {
    expect(await ok(admin, 'party.get', { id: party })).toEqual({ id: party, name: '[erased]', email: null, phone: null, kind: 'person', tax_id: 'TX-7Q', notes: null });
    expect((await ok(admin, 'lead.get', { id: lead })).party).toBe(party);
  });

  it('keeps history entries with the field names, and the erasure as an entry of its own', async () => {
    const { rows } = await ok(admin, 'party.history', { id: party });
    const [latest, ...earlier] = rows;
    expect(latest).toMatchObject({ command: 'party.erase', by: { kind: 'person', username: 'admin' }, changes: { name: ERASED, email: ERASED, phone: ERASED, notes: ERASED } });
    const create = earlier.find((entry: any) => entry.command === 'party.create');
    expect(create.changes).toEqual({ name: ERASED, email: ERASED, phone: ERASED, kind: { from: null, to: 'person' }, notes: ERASED });
    for (const entry of earlier) for (const [field, change] of Object.entries(entry.changes)) if (['name', 'email', 'phone', 'notes'].includes(field)) expect(change, `${entry.command} ${field}`).toEqual(ERASED);
  });

  it('shows an agent the marker in history, and refuses the tokens it held', async () => {
    const { rows } = await ok(agent, 'party.history', { id: party });
    expect(rows[0].changes).toEqual({ name: ERASED, email: ERASED, phone: ERASED, notes: ERASED });
    for (const [field, token] of [['name', agentTokens.name], ['phone', agentTokens.phone]] as const) {
      const res = await t.command(agent, 'party.search', { token_filter: [{ field, op: 'eq', value: token }] });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'invalid token' } });
      const sent = await t.command(agent, 'party.update', { id: party, name: agentTokens.name });
      expect(sent.status).toBe(400);
      expect(sent.body).toEqual({ error: 'invalid token' });
    }
  });

  it('is audited as an erasure, without the values; a pending plan without them stays pending, and can no longer put them back', async () => {
    const row = t.inspect((db) => db.prepare(`select actor, username, access, outcome, input, record_id from rms_audit where command = 'party.erase'`).get()) as Record<string, unknown>;
    expect(row).toEqual({ actor: 'person', username: 'admin', access: 'write', outcome: 'executed', input: JSON.stringify({ id: party }), record_id: party });
    const plans = (await t.request('GET', '/api/plans', undefined, admin)).body.plans.filter((plan: any) => plan.record_id === party);
    expect(plans.map((plan: any) => [plan.command, plan.status])).toEqual([
      ['party.revert', 'pending'],
      ['party.revert', 'approved'],
    ]);
    const approved = await t.request('POST', `/api/approve/${pendingRevert}`, undefined, admin);
    expect(approved.status).toBe(400);
    expect(approved.body.error).toMatch(/^change \S+ cannot be reverted$/);
  });

  it('refuses to revert a change whose values were erased', async () => {
    const { rows } = await ok(admin, 'party.history', { id: party });
    const update = rows.find((entry: any) => entry.command === 'party.update' && entry.changes.email);
    const res = await t.command(admin, 'party.revert', { id: party, change_id: update.change_id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `change ${update.change_id} cannot be reverted` });
  });

  it('finds nothing more a second time', async () => {
    expect(await ok(admin, 'party.erase', { id: party })).toEqual({ id: party, fields: [], history_entries: 0, audit_rows: 0, plans: 0, plans_rejected: 0, mask_tokens: 0, bindings: 0 });
  });
});

describe('who may erase', () => {
  let party: string;
  beforeAll(async () => {
    party = (await ok(admin, 'party.create', { name: 'Not To Be Erased' })).id;
  });

  it('no other role, even one granted the whole model: 404, as for a command that does not exist', async () => {
    const res = await t.command(sales, 'party.erase', { id: party });
    expect(res.status).toBe(404);
    const commands = (await t.request('GET', '/api/commands', undefined, sales)).body;
    expect(JSON.stringify(commands)).not.toContain('erase');
  });

  it('no agent token names erase in its scopes', async () => {
    for (const scopes of [['party.erase'], ['party.get', 'party.erase'], ['*.erase']]) {
      const res = await t.request('POST', '/api/auth/agent-token', { scopes, label: 'eraser' }, admin);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: `scope ${scopes.at(-1)} matches only commands no agent may use` });
    }
  });

  it.each([
    ['*.*', ['*.*']],
    ['party.*', ['party.*']],
  ])('never an agent, even an admin’s with %s', async (_label, scopes) => {
    const agent = await agentToken(t, admin, scopes, `admin-bot ${scopes.join(' ')}`);
    const res = await t.command(agent, 'party.erase', { id: party });
    expect(res.status).toBe(404);
    const mcp = await connectClient(t, agent);
    clients.push(mcp);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name).filter((name) => name.endsWith('__erase'))).toEqual([]);
    await expect(mcp.client.callTool({ name: 'party__erase', arguments: { id: party } })).rejects.toThrow(/Unknown tool: party__erase/);
    expect((await ok(admin, 'party.get', { id: party })).name).toBe('Not To Be Erased');
  });

  it('an admin person over MCP may', async () => {
    const mcp = await connectClient(t, admin);
    clients.push(mcp);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['party__erase', 'lead__erase', 'order__erase']));
    // A model without personal data has nothing to erase, and no erase.
    expect(tools.map((tool) => tool.name)).not.toContain('invoice__erase');
    const result = await mcp.client.callTool({ name: 'party__erase', arguments: { id: party } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as any).value).toMatchObject({ id: party, fields: ['name'] });
  });
});

describe('erasing a record with lines', () => {
  it('empties its lines’ personal fields, rejects a pending plan that carried one of the values, and keeps the rest', async () => {
    const customer = (await ok(admin, 'party.create', { name: 'Line Customer' })).id;
    const note = 'Leave it with Mrs Halloran-9L next door';
    const earlier = 'Call Mrs Halloran-9L first';
    const order = await ok(sales, 'order.create', { number: 'EL-0001', customer, items: [{ description: 'Lamp', quantity: 1, unit_price: 2500, note: earlier }] });
    await ok(sales, 'order.update', { id: order.id, items: [{ id: order.items[0].id, note }] });
    const agent = await agentToken(t, sales, ['order.*'], 'order-bot');
    // Cancelling needs approval: the plan keeps its reason, which here is the note itself.
    const proposed = await t.command(agent, 'order.cancel', { id: order.id, reason: note });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    const erased = await ok(admin, 'order.erase', { id: order.id });
    expect(erased).toMatchObject({ id: order.id, fields: ['items.note'], plans: 1, plans_rejected: 1 });
    const after = await ok(admin, 'order.get', { id: order.id });
    expect(after.items).toEqual([{ ...order.items[0], note: null }]);
    expect(after.status).toBe('draft');
    expect(after.number).toBe('EL-0001');
    const plan = (await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, admin)).body.plan;
    expect(plan).toMatchObject({ status: 'rejected', decided_by: expect.any(String), error: `order ${order.id} was erased` });
    expect(JSON.stringify(plan.input)).not.toContain('Halloran');
    const approve = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    expect(approve.status).toBe(409);
    const { rows } = await ok(admin, 'order.history', { id: order.id });
    expect(rows[0]).toMatchObject({ command: 'order.erase', changes: { items: { added: [], removed: [], changed: [{ id: order.items[0].id, changes: { note: ERASED } }] } } });
    const create = rows.find((entry: any) => entry.command === 'order.create');
    expect(create.changes.items.added[0].note).toEqual(ERASED);
    expect(create.changes.items.added[0].description).toBe('Lamp');
    const update = rows.find((entry: any) => entry.command === 'order.update');
    expect(update.changes.items.changed[0].changes).toEqual({ note: ERASED });
    expect(occurrences([note, earlier])).toEqual([]);
  });
});

describe('what an agent sees after an erasure', () => {
  it("an erased line value in history is the marker, not a token of it, and no token stands for the marker", async () => {
    const customer = (await ok(admin, 'party.create', { name: 'Marker Customer' })).id;
    const agent = await agentToken(t, sales, ['order.*'], 'marker-bot');
    const order = await ok(sales, 'order.create', { number: 'EM-0001', customer, items: [{ description: 'Kept', quantity: 1, unit_price: 100, note: 'Ring twice, Em1' }, { description: 'Gone', quantity: 1, unit_price: 100, note: 'Side door, Em1' }] });
    await ok(sales, 'order.update', { id: order.id, items: [{ id: order.items[0].id }] });
    await ok(admin, 'order.erase', { id: order.id });
    const { rows } = await ok(agent, 'order.history', { id: order.id });
    const create = rows.find((entry: any) => entry.command === 'order.create');
    expect(create.changes.items.added.map((line: any) => line.note)).toEqual([ERASED, ERASED]);
    const update = rows.find((entry: any) => entry.command === 'order.update');
    expect(update.changes.items.removed.map((line: any) => line.note)).toEqual([ERASED]);
    const markers = t.inspect((db) => db.prepare(`select count(*) as n from rms_mask_tokens where value like '%erased%'`).get()) as { n: number };
    expect(Number(markers.n)).toBe(0);
  });

  it("a value it copied into another record shows a new token there, which it may use; the erased one's token is refused", async () => {
    const agent = await agentToken(t, sales, ['party.*', 'lead.*'], 'copy-bot');
    const notes = 'Copied note of Ophelia-8C';
    const source = (await ok(sales, 'party.create', { name: 'Ophelia Source-8C', notes })).id;
    const copy = (await ok(sales, 'party.create', { name: 'Copy Target-8C' })).id;
    const token = (await ok(agent, 'party.get', { id: source })).notes as string;
    expect(token).toMatch(/^NOTES_\d+$/);
    // The agent copies the value by its token into another party and a new lead.
    expect((await ok(agent, 'party.update', { id: copy, notes: token })).notes).toBe(token);
    const lead = (await ok(agent, 'lead.create', { title: 'Copy lead 8C', notes: token })).id;
    const erasure = await ok(admin, 'party.erase', { id: source });
    expect(erasure.bindings).toBeGreaterThanOrEqual(2);
    // The copies still hold the value (only the erased record forgets it): a new token, not the erased one.
    const [seenParty, seenLead] = [(await ok(agent, 'party.get', { id: copy })).notes, (await ok(agent, 'lead.get', { id: lead })).notes];
    expect(seenParty).toMatch(/^NOTES_\d+$/);
    expect(seenParty).not.toBe(token);
    expect(seenLead).toBe(seenParty);
    expect((await ok(agent, 'party.history', { id: copy })).rows[0].changes.notes.to).toBe(seenParty);
    // The new token works: in a filter and in a write; the old one is refused.
    expect((await ok(agent, 'party.search', { token_filter: [{ field: 'notes', op: 'eq', value: seenParty }] })).rows.map((row: any) => row.id)).toEqual([copy]);
    expect((await t.command(agent, 'party.search', { token_filter: [{ field: 'notes', op: 'eq', value: token }] })).body).toEqual({ error: 'invalid token' });
    expect((await t.command(agent, 'party.update', { id: copy, notes: seenParty, kind: 'company' })).status).toBe(200);
    expect((await t.command(agent, 'party.update', { id: copy, notes: token })).body).toEqual({ error: 'invalid token' });
    expect((await ok(admin, 'party.get', { id: copy })).notes).toBe(notes);
  });

  it("a plan an erasure rejected shows the agent the marker where its token was", async () => {
    const agent = await agentToken(t, sales, ['party.*'], 'plan-bot');
    const source = (await ok(sales, 'party.create', { name: 'Plan Source-5P', notes: 'Planned note 5P' })).id;
    const target = (await ok(sales, 'party.create', { name: 'Plan Target-5P' })).id;
    const token = (await ok(agent, 'party.get', { id: source })).notes as string;
    const proposed = await t.command(agent, 'party.update_many', { ids: [target], set: { notes: token }, max_affected: 1 });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    await ok(admin, 'party.erase', { id: source });
    const asAgent = (await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, agent)).body.plan;
    const asPerson = (await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, sales)).body.plan;
    expect(asPerson).toMatchObject({ status: 'rejected', input: { set: { notes: ERASED } } });
    expect(asAgent).toMatchObject({ status: 'rejected', input: { set: { notes: ERASED } } });
  });
});

describe('bulk plans that name the record', () => {
  it("a pending update_many naming it among its ids is rejected, and the value it proposed for it leaves the plan and the agent's tokens", async () => {
    const bulkAgent = await agentToken(t, admin, ['party.*'], 'bulk eraser');
    const id = (await ok(admin, 'party.create', { name: 'Bulky Bea-9B', phone: '+44 7700 900321' })).id;
    const other = (await ok(admin, 'party.create', { name: 'Other Otto-9B' })).id;
    const proposed = await t.command(bulkAgent, 'party.update_many', { ids: [id, other], set: { phone: '+44 7700 900555-9B' }, max_affected: 5 });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    // One that selects by filter names no record until it runs: kept as it is.
    const filtered = await t.command(bulkAgent, 'party.update_many', { filter: [{ field: 'id', op: 'eq', value: other }], set: { notes: 'Kept 9B' }, max_affected: 5 });
    expect(filtered.status).toBe(202);
    const erased = await ok(admin, 'party.erase', { id });
    expect(erased).toMatchObject({ plans_rejected: 1 });
    const plan = (await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, admin)).body.plan;
    expect(plan).toMatchObject({ status: 'rejected', error: `party ${id} was erased`, input: { ids: [id, other], set: { phone: ERASED } } });
    const approve = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    expect([approve.status, approve.body]).toEqual([409, { error: `plan ${proposed.body.plan_id} is already rejected` }]);
    expect((await ok(admin, 'party.get', { id })).phone).toBeNull();
    expect(occurrences(['+44 7700 900555-9B', 'Bulky Bea-9B', '+44 7700 900321'])).toEqual([]);
    expect((await t.request('GET', `/api/plans/${filtered.body.plan_id}`, undefined, admin)).body.plan).toMatchObject({ status: 'pending', input: { set: { notes: 'Kept 9B' } } });
  });
});

describe('what can be erased', () => {
  it('a deleted record: its history forgets it', async () => {
    const name = 'Deleted Dora-3D';
    const id = (await ok(admin, 'party.create', { name })).id;
    await ok(admin, 'party.delete', { id });
    const erased = await ok(admin, 'party.erase', { id });
    expect(erased).toMatchObject({ id, fields: [], history_entries: 2 });
    expect(occurrences([name])).toEqual([]);
  });

  it.each([
    ['an id that never was a record’s', { id: '01NEVERWASARECORD0000000000' }, 400, { error: 'party 01NEVERWASARECORD0000000000 not found' }],
    ['no id', {}, 400, { error: 'id is required' }],
    ['a field besides the id', { id: 'x', name: 'y' }, 400, undefined],
  ])('%s is refused and changes nothing', async (_case, input, status, body) => {
    const res = await t.command(admin, 'party.erase', input);
    expect(res.status).toBe(status);
    if (body) expect(res.body).toEqual(body);
  });

  it('a dry run says what it would erase and erases nothing', async () => {
    const id = (await ok(admin, 'party.create', { name: 'Dry Dan-4R', email: 'dry.dan@example.test' })).id;
    const res = await t.request('POST', '/api/party/erase?dry_run=true', { id }, admin);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dry_run: true, value: { id, fields: ['name', 'email'] } });
    expect((await ok(admin, 'party.get', { id })).email).toBe('dry.dan@example.test');
  });
});
