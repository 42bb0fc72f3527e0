/**
 * MCP with the SDK's own client over real HTTP: protocol revisions, the tools each caller
 * sees, and tool calls going through the same command path as REST (rights, masking, approval
 * plans, refusals, audit).
 */
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../fixtures/generated/registry.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';

let t: TestServer;
let admin: string;
/** A person with role `sales` (no invoice writes). */
let sales: string;
/** Scopes `lead.*` and `party.get`. */
let agentA: string;
/** Scopes `*.search`, `party.*`, `invoice.*`. */
let agentB: string;
/** Sally's agent with scope `invoice.*`: her role hides every invoice write from it. */
let salesAgent: string;
const open: ConnectedClient[] = [];

async function connect(token: string, options: { revision?: string } = {}): Promise<ConnectedClient> {
  const connected = await connectClient(t, token, options);
  open.push(connected);
  return connected;
}

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  [sales, agentA, agentB] = await Promise.all([
    t.addPerson('sally', ['sales']),
    agentToken(t, admin, ['lead.*', 'party.get'], 'sales-bot'),
    agentToken(t, admin, ['*.search', 'party.*', 'invoice.*'], 'books-bot'),
  ]);
  salesAgent = await agentToken(t, sales, ['invoice.*'], 'sally-bot');
});

afterAll(async () => {
  await Promise.all(open.map((connected) => connected.close()));
  await t?.close();
});

async function create(commandId: string, fields: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }> {
  const res = await t.command(admin, commandId, fields);
  expect(res.status).toBe(200);
  return res.body.value;
}

function textOf(result: CallToolResult): string {
  expect(result.content).toHaveLength(1);
  const [content] = result.content;
  expect(content?.type).toBe('text');
  return (content as { text: string }).text;
}

describe('initialize', () => {
  it.each([
    ['2025-11-25', undefined],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
  ])('speaks %s and the client sends it on every later request', async (expected, pinned) => {
    const { client, negotiated, versionHeaders, transport } = await connect(agentA, pinned === undefined ? {} : { revision: pinned });
    expect(negotiated).toBe(expected);
    expect(transport.protocolVersion).toBe(expected);
    expect(transport.sessionId).toBeUndefined();
    expect(client.getServerVersion()).toMatchObject({ name: 'rmsgen' });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false }, resources: { listChanged: false } });
    expect(client.getInstructions()).toContain('approval_required');
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(versionHeaders.length).toBeGreaterThan(0);
    expect(new Set(versionHeaders)).toEqual(new Set([expected]));
  });

  it('answers a revision it does not speak with 2025-11-25', async () => {
    const { client, negotiated } = await connect(agentA, { revision: '2024-11-05' });
    expect(negotiated).toBe('2025-11-25');
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe('tools/list', () => {
  const names = async (token: string) => (await (await connect(token)).client.listTools()).tools.map((tool) => tool.name);

  it('shows a person (admin) every tool, with titles, descriptions and annotations from the registry', async () => {
    const { client } = await connect(admin);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(Object.keys(registry.tools));
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const meta of Object.values(registry.tools)) {
      const tool = byName.get(meta.name)!;
      expect(tool.title).toBe(meta.title);
      // The generated description is an agent's; a person reads personal fields in clear, so theirs
      // leaves out the sentence about tokens, and only that.
      expect(tool.description).toBe(meta.description.replace(/ Personal fields \([^)]*\) come back as tokens like [A-Z0-9_, ]+\./, ''));
      expect(tool.description).not.toMatch(/tokens like/);
      expect(tool.inputSchema).toEqual(meta.inputSchema);
      // No output schema: the description says what comes back (docs/api.md, "What a tool's schema says").
      expect(tool.outputSchema).toBeUndefined();
      expect(tool.annotations).toEqual({ title: meta.title, ...meta.annotations });
    }
    expect(byName.get('lead__get')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('lead__search')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('lead__delete')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('lead__qualify')!.title).toBe('Qualify lead');
  });

  it('shows each agent only the tools its scopes allow', async () => {
    expect(await names(agentA)).toEqual([
      'party__get',
      'party__history',
      'lead__get',
      'lead__list',
      'lead__search',
      'lead__create',
      'lead__update',
      'lead__delete',
      'lead__qualify',
      'lead__win',
      'lead__lose',
      'lead__history',
      'lead__revert',
      'lead__create_many',
      'lead__update_many',
      'lead__delete_many',
      'lead__qualify_many',
      'lead__win_many',
      'lead__lose_many',
    ]);
    expect(await names(agentB)).toEqual([
      'party__get',
      'party__list',
      'party__search',
      'party__create',
      'party__update',
      'party__delete',
      'party__history',
      'party__revert',
      'party__create_many',
      'party__update_many',
      'party__delete_many',
      'lead__search',
      'invoice__get',
      'invoice__list',
      'invoice__search',
      'invoice__create',
      'invoice__update',
      'invoice__delete',
      'invoice__post',
      'invoice__pay',
      'invoice__cancel',
      'invoice__history',
      'invoice__revert',
      'invoice__create_many',
      'invoice__update_many',
      'invoice__delete_many',
      'invoice__post_many',
      'invoice__pay_many',
      'invoice__cancel_many',
      'order__search',
    ]);
    // Scopes never widen the creator's rights.
    expect(await names(salesAgent)).toEqual(['invoice__get', 'invoice__list', 'invoice__search', 'invoice__history']);
  });

  it("fits input schemas to the caller's fields: no unreadable fields, filter and order only on clear ones", async () => {
    const tools = new Map((await (await connect(agentB)).client.listTools()).tools.map((tool) => [tool.name, tool]));
    const create = tools.get('party__create')!.inputSchema;
    expect(Object.keys(create.properties!)).toEqual(['name', 'email', 'phone', 'kind', 'notes']);
    expect(create.required).toEqual(['name']);
    const search = tools.get('party__search')!.inputSchema as any;
    expect(search.properties.filter.items.properties.field.enum).toEqual(['id', 'kind']);
    expect(search.properties.order.items.properties.field.enum).toEqual(['id', 'kind']);
    expect(search.properties.limit).toEqual((registry.tools.party__search!.inputSchema as any).properties.limit);
    // A bulk command's filter likewise (its records and set name the single tools).
    for (const name of ['party__update_many', 'party__delete_many']) {
      expect((tools.get(name)!.inputSchema as any).properties.filter.items.properties.field.enum, name).toEqual(['id', 'kind']);
    }
    expect((registry.tools.party__update_many!.inputSchema as any).properties.filter.items.properties.field.enum).toContain('tax_id');
    // The registry's schemas are left as they were.
    expect(Object.keys((registry.tools.party__create!.inputSchema as any).properties)).toContain('tax_id');
  });
});

describe('tools/call', () => {
  it('reads masked, exactly as REST: personal fields as tokens, hidden ones named in denied', async () => {
    const party = await create('party.create', { name: 'Ada Lovelace', email: 'ada@example.com', kind: 'person', tax_id: 'GB123' });
    const { client } = await connect(agentA);
    const result = (await client.callTool({ name: 'party__get', arguments: { id: party.id } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      denied: ['party.tax_id'],
      value: { id: party.id, name: expect.stringMatching(/^NAME_\d+$/), email: expect.stringMatching(/^EMAIL_\d+$/), phone: null, kind: 'person', notes: null },
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(textOf(result)).not.toMatch(/Ada|GB123/);
    const rest = await t.command(agentA, 'party.get', { id: party.id });
    expect(rest.body).toEqual(result.structuredContent);
  });

  it('runs an action directly when it needs no approval, and audits it as REST does', async () => {
    const lead = await create('lead.create', { title: 'Engine deal' });
    const { client } = await connect(agentA);
    const result = (await client.callTool({ name: 'lead__qualify', arguments: { id: lead.id } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ denied: [], value: { id: lead.id, stage: 'qualified' } });
    const audit = t.inspect((db) => db.prepare('select actor, agent_label, outcome from rms_audit where command = ? and record_id = ?').all('lead.qualify', lead.id));
    expect(audit).toEqual([{ actor: 'agent', agent_label: 'sales-bot', outcome: 'executed' }]);
  });

  it('only proposes a delete that needs approval: a normal result with status approval_required and the plan id', async () => {
    const lead = await create('lead.create', { title: 'Keep me' });
    const { client } = await connect(agentA);
    const result = (await client.callTool({ name: 'lead__delete', arguments: { id: lead.id } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ status: 'approval_required', plan_id: expect.any(String) });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect((await t.command(admin, 'lead.get', { id: lead.id })).status).toBe(200);
    // The plan is a real one: a person approves it over REST.
    const planId = (result.structuredContent as { plan_id: string }).plan_id;
    expect((await t.request('POST', `/api/approve/${planId}`, undefined, admin)).status).toBe(200);
    expect((await t.command(admin, 'lead.get', { id: lead.id })).status).toBe(400);
  });

  it('only proposes an update whose governed change runs an action that needs approval (invoice state → posted)', async () => {
    const party = await create('party.create', { name: 'Posting Ltd' });
    const invoice = await create('invoice.create', { number: 'INV-MCP-1', party: party.id, amount: 4200, issue_date: '2026-11-01' });
    const { client } = await connect(agentB);
    // The SDK client would check structuredContent against an output schema of a tool it has
    // listed; the tools have none, so the plan answer and the envelope both reach it as they are.
    await client.listTools();
    const result = (await client.callTool({ name: 'invoice__update', arguments: { id: invoice.id, state: 'posted' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ status: 'approval_required', plan_id: expect.any(String) });
    expect((await t.command(admin, 'invoice.get', { id: invoice.id })).body.value.state).toBe('draft');
    // A plain field update of the same tool still answers the envelope.
    const plain = (await client.callTool({ name: 'invoice__update', arguments: { id: invoice.id, due_date: '2026-12-01' } })) as CallToolResult;
    expect(plain.structuredContent).toMatchObject({ denied: ['invoice.internal_note'], value: { id: invoice.id, due_date: '2026-12-01', state: 'draft' } });
  });

  it('answers refused input with isError and the error text REST gives', async () => {
    const { client } = await connect(agentA);
    const result = (await client.callTool({ name: 'lead__create', arguments: {} })) as CallToolResult;
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toBe('lead.title is required');
    expect((await t.command(agentA, 'lead.create', {})).body).toEqual({ error: 'lead.title is required' });
    const masked = (await client.callTool({ name: 'lead__create', arguments: { title: 'x', notes: 'NOTES_999999' } })) as CallToolResult;
    expect(masked.isError).toBe(true);
    expect(textOf(masked)).toBe('invalid token');
  });

  it('gives an unknown, an out-of-scope, a hidden and a role-forbidden tool the same JSON-RPC error', async () => {
    const cases: [string, string][] = [
      [agentA, 'boat__sink'],
      [agentA, 'constructor'],
      [agentA, 'invoice__get'],
      [salesAgent, 'invoice__create'],
      [sales, 'invoice__create'],
    ];
    for (const [token, name] of cases) {
      const { client } = await connect(token);
      const error = await client.callTool({ name, arguments: { id: 'x' } }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((error as McpError).message).toBe(`MCP error -32602: Unknown tool: ${name}`);
    }
  });
});
