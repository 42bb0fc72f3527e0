/**
 * Records with lines through MCP, with the SDK's own client over real HTTP: an agent reads an
 * order's lines with their personal values masked and their computed fields worked out, changes a
 * line by its id with a token it was given (stored in clear), adds and removes lines, is refused
 * with REST's texts, and can only propose deleting the order; approving the plan removes the
 * lines with it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';

let t: TestServer;
let admin: string;
let agent: string;
let connected: ConnectedClient;
let customer: { id: string };

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  agent = await agentToken(t, admin, ['order.*', 'party.get'], 'order-bot');
  customer = (await t.command(admin, 'party.create', { name: 'Lines Ltd' })).body.value;
  connected = await connectClient(t, agent);
  await connected.client.listTools();
});

afterAll(async () => {
  await connected?.close();
  await t?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await connected.client.callTool({ name, arguments: args })) as CallToolResult;
}

function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  return (result.content[0] as { text: string }).text;
}

async function newOrder(number: string): Promise<{ id: string; items: { id: string }[] }> {
  const res = await t.command(admin, 'order.create', {
    number,
    customer: customer.id,
    items: [
      { description: 'Chair', quantity: 2, unit_price: 4500, note: 'Leave at the back door' },
      { description: 'Table', quantity: 1, unit_price: 12000 },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

const storedLines = (owner: string) =>
  t.inspect((db) => db.prepare('select description, quantity, unit_price, note, amount from order__items where owner = ? order by position').all(owner));

describe('an order with lines through MCP', () => {
  it('reads lines with personal values masked, computed fields worked out, as REST does', async () => {
    const order = await newOrder('ML-0001');
    const result = await call('order__get', { id: order.id });
    expect(result.isError).toBeFalsy();
    const value = (result.structuredContent as { value: any }).value;
    expect(value.total).toBe(21000);
    expect(value.items).toEqual([
      { id: order.items[0]!.id, description: 'Chair', quantity: 2, unit_price: 4500, note: expect.stringMatching(/^NOTE_\d+$/), amount: 9000 },
      { id: order.items[1]!.id, description: 'Table', quantity: 1, unit_price: 12000, note: null, amount: 12000 },
    ]);
    expect(JSON.stringify(result)).not.toContain('back door');
    expect((await t.command(agent, 'order.get', { id: order.id })).body).toEqual(result.structuredContent);
  });

  it('changes a line by id, adds one with a token it was given and removes one: stored in clear, recomputed', async () => {
    const order = await newOrder('ML-0002');
    const read = (await call('order__get', { id: order.id })).structuredContent as { value: { items: { id: string; note: string | null }[] } };
    const token = read.value.items[0]!.note!;
    const result = await call('order__update', {
      id: order.id,
      items: [{ id: order.items[0]!.id, quantity: 3 }, { description: 'Lamp', quantity: 1, unit_price: 3000, note: token }],
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const value = (result.structuredContent as { value: any }).value;
    expect(value.total).toBe(3 * 4500 + 3000);
    expect(value.items.map((line: { note: string | null }) => line.note)).toEqual([token, token]);
    expect(storedLines(order.id)).toEqual([
      { description: 'Chair', quantity: 3000, unit_price: 4500, note: 'Leave at the back door', amount: 13500 },
      { description: 'Lamp', quantity: 1000, unit_price: 3000, note: 'Leave at the back door', amount: 3000 },
    ]);
  });

  it('refuses what REST refuses, with the same texts, and changes nothing', async () => {
    const order = await newOrder('ML-0003');
    const before = storedLines(order.id);
    for (const [args, text] of [
      [{ id: order.id, items: [] }, 'order.items needs at least 1 line'],
      [{ id: order.id, items: [{ id: order.items[0]!.id, amount: 1 }] }, 'order.items[0].amount is computed'],
      [{ id: order.id, items: [{ id: 'no-such-line', quantity: 1 }] }, 'order.items[0].id is not a line of this order'],
      [{ id: order.id, items: [{ description: 'Pen', quantity: 1, unit_price: 100, note: 'NOTE_999999' }] }, 'invalid token'],
      [{ id: order.id, total: 5 }, 'order.total is computed'],
    ] as const) {
      expect(errorText(await call('order__update', args))).toBe(text);
      expect((await t.command(agent, 'order.update', args)).body).toEqual({ error: text });
    }
    expect(storedLines(order.id)).toEqual(before);
  });

  it('only proposes deleting an order; the approved plan removes its lines with it', async () => {
    const order = await newOrder('ML-0004');
    const result = await call('order__delete', { id: order.id });
    expect(result.structuredContent).toEqual({ status: 'approval_required', plan_id: expect.any(String) });
    expect(storedLines(order.id)).toHaveLength(2);
    const planId = (result.structuredContent as { plan_id: string }).plan_id;
    expect((await t.request('POST', `/api/approve/${planId}`, undefined, admin)).status).toBe(200);
    expect(storedLines(order.id)).toEqual([]);
    expect((await t.command(admin, 'order.get', { id: order.id })).body).toEqual({ error: `order ${order.id} not found` });
  });
});
