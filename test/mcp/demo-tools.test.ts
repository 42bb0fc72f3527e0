/**
 * The demo's MCP tools (modules/, generated/) as the SDK's own client lists and calls them over
 * real HTTP: what `tools/list` weighs (every conversation of every agent pays for it; its budget is
 * in docs/performance.md), that the schemas carry none of zod's noise and no output schema, and
 * that every tool, called once with arguments checked first against its listed input schema (as a
 * client may check them), runs.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry as demo } from '../../generated/registry.ts';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

/** Issue 25's goal for `tools/list`, in bytes of its JSON result: met by an agent whose scopes name one model's commands. */
const TOOL_LIST_GOAL_BYTES = 25_000;
/**
 * The whole demo (69 tools; the goal was set when it had 26): 81.0 kB measured (79.5 kB before
 * every text, ref and id input said its maxLength, which the server checks; 76.7 kB before the
 * bulk commands' filters named the fields they take), from 203.7 kB before tools lost their
 * output schemas and zod's noise. A ceiling so that it does not grow back.
 */
const DEMO_TOOL_LIST_CEILING_BYTES = 82_000;

let t: TestServer;
let admin: string;
/** The bench's agent: scopes `lead.*`. */
let leadAgent: string;
let connected: ConnectedClient;
let tools: Map<string, Tool>;

beforeAll(async () => {
  t = await startTestServer({ registry: demo });
  admin = await t.login();
  leadAgent = await agentToken(t, admin, ['lead.*'], 'lead-bot');
  connected = await connectClient(t, admin);
  tools = new Map((await connected.client.listTools()).tools.map((tool) => [tool.name, tool]));
});

afterAll(async () => {
  await connected?.close();
  await t?.close();
});

/** The bytes of the JSON `result` of `tools/list`, as the server sends it to this caller. */
async function toolListBytes(token: string): Promise<{ bytes: number; names: string[] }> {
  const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  const res = await t.request('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, token, headers);
  expect(res.status).toBe(200);
  const result = res.body.result as { tools: Tool[] };
  return { bytes: Buffer.byteLength(JSON.stringify(result)), names: result.tools.map((tool) => tool.name) };
}

describe("the demo's tools/list", () => {
  it(`an agent of one model's tools (lead.*, as the bench's) gets it in under ${TOOL_LIST_GOAL_BYTES} bytes; the whole demo in under ${DEMO_TOOL_LIST_CEILING_BYTES}`, async () => {
    const lead = await toolListBytes(leadAgent);
    expect(lead.names).toHaveLength(17);
    expect(lead.names.every((name) => name.startsWith('lead__'))).toBe(true);
    expect(lead.bytes).toBeLessThan(TOOL_LIST_GOAL_BYTES);
    const all = await toolListBytes(admin);
    expect(all.names).toEqual(Object.keys(demo.tools));
    expect(all.bytes).toBeLessThan(DEMO_TOOL_LIST_CEILING_BYTES);
  });

  it('says the most characters of every text, ref and id the server takes: the module\'s length, or what the column stores', () => {
    const property = (tool: string, name: string) => {
      const schema = (tools.get(tool)!.inputSchema.properties as Record<string, Record<string, unknown>>)[name]!;
      return (schema.anyOf as Record<string, unknown>[] | undefined)?.find((branch) => branch.type !== 'null') ?? schema;
    };
    expect(property('lead__create', 'title').maxLength).toBe(10_000);
    expect(property('lead__get', 'id').maxLength).toBe(64);
    expect(property('lead__create', 'party').maxLength).toBe(64);
    // A unique field is indexed: 500 characters.
    expect(property('party__create', 'tax_id').maxLength).toBe(500);
    expect(property('lead__revert', 'change_id').maxLength).toBe(64);
    // Every string an input takes says its bound, unless an enum or a date's format bounds it.
    const unbounded: string[] = [];
    const walk = (schema: Record<string, unknown>, path: string) => {
      if (schema.type === 'string' && schema.maxLength === undefined && schema.enum === undefined && schema.format !== 'date' && schema.format !== 'date-time') unbounded.push(path);
      for (const branch of (schema.anyOf as Record<string, unknown>[] | undefined) ?? []) walk(branch, path);
      if (schema.items) walk(schema.items as Record<string, unknown>, `${path}[]`);
      for (const [name, child] of Object.entries((schema.properties as Record<string, Record<string, unknown>> | undefined) ?? {})) walk(child, `${path}.${name}`);
    };
    for (const [name, tool] of tools) if (!/__(list|search|[a-z_]+_many)$/.test(name)) walk(tool.inputSchema as Record<string, unknown>, name);
    expect(unbounded).toEqual([]);
  });

  it("no output schema, no dialect, no date regex beside format date, no safe-integer bounds: what a model need not read", () => {
    expect(tools.size).toBe(Object.keys(demo.tools).length);
    for (const tool of tools.values()) {
      expect(tool.outputSchema, tool.name).toBeUndefined();
      const text = JSON.stringify(tool.inputSchema);
      expect(text, tool.name).not.toContain('$schema');
      expect(text, tool.name).not.toContain(String(Number.MAX_SAFE_INTEGER));
      expect(text, tool.name).not.toMatch(/"format":"date","pattern"|"pattern":"\^\(\?:\(\?:\\\\d\\\\d/);
    }
    // What the date's regex said, format says: the day is checked by the server all the same.
    expect((tools.get('lead__create')!.inputSchema.properties!.close_date as { anyOf: unknown[] }).anyOf[0]).toEqual({ type: 'string', format: 'date' });
  });
});

describe('every tool of the demo, called once with input its listed schema accepts', () => {
  const ajv = new Ajv2020({ strict: false });
  (addFormatsPlugin as unknown as (ajv: Ajv2020) => void)(ajv);
  const called = new Set<string>();

  /** Checks the arguments against the tool's listed input schema, calls it, and answers its value. */
  async function call(name: string, args: Record<string, unknown>): Promise<any> {
    const tool = tools.get(name);
    expect(tool, name).toBeDefined();
    expect(ajv.validate(tool!.inputSchema, args), `${name}: ${ajv.errorsText()}`).toBe(true);
    const result = (await connected.client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    called.add(name);
    return (result.structuredContent as { value: unknown }).value;
  }

  /** get, list, search, update, history and revert of one record, then its bulk commands. */
  async function readAndChange(model: string, id: string, change: Record<string, unknown>, searchField: string, searchValue: unknown): Promise<void> {
    expect((await call(`${model}__get`, { id })).id).toBe(id);
    expect((await call(`${model}__list`, { filter: [{ field: 'id', op: 'eq', value: id }], order: [{ field: 'id', dir: 'desc' }], limit: 5 })).map((row: { id: string }) => row.id)).toEqual([id]);
    expect((await call(`${model}__search`, { filter: [{ field: searchField, op: 'eq', value: searchValue }], limit: 1, offset: 0 })).total).toBeGreaterThan(0);
    await call(`${model}__update`, { id, ...change });
    const history = await call(`${model}__history`, { id, limit: 10 });
    expect(history.rows[0].command).toBe(`${model}.update`);
    await call(`${model}__revert`, { id, change_id: history.rows[0].change_id });
  }

  async function bulk(model: string, records: Record<string, unknown>[], set: Record<string, unknown>): Promise<string[]> {
    const created = await call(`${model}__create_many`, { records, dry_run: false });
    const ids = created.ids as string[];
    const updated = await call(`${model}__update_many`, { ids, max_affected: ids.length, set });
    await call(`${model}__revert_batch`, { batch_id: updated.batch_id });
    await call(`${model}__delete_many`, { filter: [{ field: 'id', op: 'in', value: [ids[0]] }], max_affected: 1, dry_run: true });
    await call(`${model}__delete_many`, { ids: [ids[0]], max_affected: 1 });
    return ids.slice(1);
  }

  it('party, lead, invoice and order: every tool, each call passing', async () => {
    const party = (await call('party__create', { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000', kind: 'person', notes: 'met in May' })).id as string;
    await readAndChange('party', party, { notes: 'met in June', tax_id: null }, 'kind', 'person');
    const [spareParty] = await bulk('party', [{ name: 'Bea' }, { name: 'Cy' }], { notes: 'bulk' });
    await call('party__erase', { id: spareParty });
    await call('party__delete', { id: spareParty });

    const lead = (await call('lead__create', { title: 'Big deal', party, expected_revenue: 95000, probability: 50, close_date: '2026-12-01', hot: true, notes: 'call back' })).id as string;
    await readAndChange('lead', lead, { probability: 60, hot: null }, 'hot', true);
    await call('lead__qualify', { id: lead });
    await call('lead__win', { id: lead });
    const lost = (await call('lead__create', { title: 'Small deal' })).id as string;
    await call('lead__lose', { id: lost, lost_reason: 'price' });
    const leads = await bulk('lead', [{ title: 'A' }, { title: 'B' }, { title: 'C' }], { probability: 10 });
    await call('lead__qualify_many', { ids: [leads[0]], max_affected: 1 });
    await call('lead__win_many', { ids: [leads[0]], max_affected: 1 });
    await call('lead__lose_many', { ids: [leads[1]], max_affected: 1, input: { lost_reason: 'timing' } });
    await call('lead__erase', { id: lost });
    await call('lead__delete', { id: lost });

    const invoice = (await call('invoice__create', { number: 'INV-1', party, lead, amount: 120000, issue_date: '2026-11-01', due_date: '2026-12-01' })).id as string;
    await readAndChange('invoice', invoice, { amount: 125000 }, 'number', 'INV-1');
    await call('invoice__post', { id: invoice });
    await call('invoice__pay', { id: invoice });
    const cancelled = (await call('invoice__create', { number: 'INV-2', party, amount: 1, issue_date: '2026-11-02' })).id as string;
    await call('invoice__cancel', { id: cancelled });
    const invoices = await bulk('invoice', ['INV-3', 'INV-4', 'INV-5'].map((number) => ({ number, party, amount: 100, issue_date: '2026-11-03' })), { due_date: '2026-12-31' });
    await call('invoice__post_many', { ids: [invoices[0]], max_affected: 1 });
    await call('invoice__pay_many', { ids: [invoices[0]], max_affected: 1 });
    await call('invoice__cancel_many', { ids: [invoices[1]], max_affected: 1 });
    await call('invoice__delete', { id: invoices[1] });

    const line = { description: 'Chair', quantity: 1.5, unit_price: 4999, note: 'blue' };
    const order = (await call('order__create', { number: 'AB-1000', customer: party, ordered_on: '2026-11-20', deliver_by: '2026-12-01', contact_email: 'buyer@example.com', website: 'https://example.com', discount_pct: 5, tags: ['rush'], credit_limit: 100000, items: [line] })).id as string;
    await readAndChange('order', order, { tags: ['gift', 'export'], items: [line, { description: 'Desk', quantity: 1, unit_price: 20000 }] }, 'number', 'AB-1000');
    await call('order__confirm', { id: order });
    await call('order__deliver', { id: order, delivered_at: '2026-11-26T14:30:00Z' });
    const dropped = (await call('order__create', { number: 'AB-1001', customer: party, items: [line] })).id as string;
    await call('order__cancel', { id: dropped, reason: 'no longer needed' });
    const orders = await bulk('order', ['AB-1002', 'AB-1003', 'AB-1004', 'AB-1005'].map((number) => ({ number, customer: party, items: [line] })), { discount_pct: 10 });
    await call('order__confirm_many', { ids: [orders[0]], max_affected: 1 });
    await call('order__deliver_many', { ids: [orders[0]], max_affected: 1, input: {} });
    await call('order__cancel_many', { ids: [orders[1]], max_affected: 1, input: { reason: 'duplicate' } });
    await call('order__erase', { id: dropped });
    await call('order__delete', { id: orders[2] });

    expect([...called].sort()).toEqual(Object.keys(demo.tools).sort());
  });
});
