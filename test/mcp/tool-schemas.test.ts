/**
 * The MCP tools of a model with depth (the fixtures' `order`: decimal, datetime, email, url,
 * multiselect, checks, defaults, a computed field, write rights, a line list, a rule, action
 * inputs), as the SDK's own client lists them over real HTTP: what an agent needs to write a valid
 * call the first time is in the schemas (JSON Schema keywords) and the descriptions (the rule), and
 * a call written from them passes; one breaking the rule is refused with its message.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindTraits } from '../../runtime/command-kinds.ts';
import { registry } from '../fixtures/generated/registry.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';

let t: TestServer;
let admin: string;
let connected: ConnectedClient;
let tools: Map<string, Tool>;
let party: string;

type Schema = { [key: string]: any };

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  connected = await connectClient(t, admin);
  tools = new Map((await connected.client.listTools()).tools.map((tool) => [tool.name, tool]));
  const created = await t.command(admin, 'party.create', { name: 'Ann' });
  expect(created.status).toBe(200);
  party = created.body.value.id;
});

afterAll(async () => {
  await connected?.close();
  await t?.close();
});

function inputOf(name: string): Schema {
  const tool = tools.get(name);
  expect(tool, name).toBeDefined();
  return tool!.inputSchema as Schema;
}

/** The non-null branch of a nullable property (zod writes some as `anyOf [value, null]`). */
function valueSchema(property: Schema): Schema {
  return property.anyOf ? property.anyOf.find((branch: Schema) => branch.type !== 'null') : property;
}

describe("order's tools as the MCP client lists them", () => {
  it('create: every kind with its form and checks, defaults, no computed field, the line list nested', () => {
    const create = inputOf('order__create');
    const properties = create.properties as Record<string, Schema>;
    expect(create.required).toEqual(['number', 'customer', 'items']);
    expect(Object.keys(properties)).not.toContain('total');
    expect(Object.keys(properties)).not.toContain('status');
    expect(valueSchema(properties.number!)).toMatchObject({ type: 'string', pattern: '^(?:[A-Z]{2}-[0-9]{4,})$' });
    expect(properties.discount_pct).toMatchObject({ type: ['number', 'null'], minimum: 0, maximum: 100, default: 0 });
    expect(properties.discount_pct?.multipleOf).toBeUndefined();
    expect(properties.ordered_on!.description).toContain("When absent: today (the server's UTC day).");
    expect(valueSchema(properties.contact_email!)).toMatchObject({ type: 'string', format: 'email' });
    expect(valueSchema(properties.website!)).toMatchObject({ type: 'string', format: 'uri' });
    expect(properties.delivered_at).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    expect(valueSchema(properties.tags!)).toEqual({ type: 'array', items: { type: 'string', enum: ['rush', 'gift', 'export'] }, uniqueItems: true });

    const items = properties.items!;
    expect(items).toMatchObject({ type: 'array', minItems: 1, maxItems: 500, description: 'Items.' });
    expect(items.items.required).toEqual(['description', 'quantity', 'unit_price']);
    expect(items.items.additionalProperties).toBe(false);
    expect(Object.keys(items.items.properties)).toEqual(['description', 'quantity', 'unit_price', 'note']);
    expect(items.items.properties.description).toMatchObject({ type: 'string', maxLength: 200 });
    expect(items.items.properties.quantity).toMatchObject({ type: 'number', minimum: 0.001 });
    expect(items.items.properties.quantity.multipleOf).toBeUndefined();
    expect(items.items.properties.unit_price).toMatchObject({ type: 'integer', minimum: 0 });
    expect(items.items.properties.note.description).toContain('NOTE_1');
  });

  it('update: a line may carry the id of a line it keeps, and then only what changes; the list is optional', () => {
    const update = inputOf('order__update');
    expect(update.required).toEqual(['id']);
    const items = update.properties.items as Schema;
    expect(items).toMatchObject({ minItems: 1, maxItems: 500 });
    expect(items.description).toBe(
      'Items. The new list: a line with an id changes that line (give only what changes), one without adds a line (needs description, quantity, unit_price), a line left out is removed.',
    );
    expect(Object.keys(items.items.properties)).toEqual(['id', 'description', 'quantity', 'unit_price', 'note']);
    // A line with an id gives only the fields it changes.
    expect(items.items.required).toBeUndefined();
    expect(Object.keys(update.properties)).not.toContain('total');
  });

  it("the rule and the required line list are in create's and update's descriptions, and in no other tool's", () => {
    const rule = 'Rules the order must pass: deliver by must be on or after the order date.';
    expect(tools.get('order__create')!.description).toContain('Required: number, customer, items (at least 1 line).');
    expect(tools.get('order__create')!.description).toContain(rule);
    expect(tools.get('order__update')!.description).toContain(rule);
    const others = [...tools.values()].filter((tool) => tool.name !== 'order__create' && tool.name !== 'order__update');
    for (const tool of others) expect(tool.description, tool.name).not.toContain('deliver by must be');
  });

  it('the record: said in the description, with no output schema; list: include and line fields in filters', () => {
    for (const tool of tools.values()) expect(tool.outputSchema, tool.name).toBeUndefined();
    expect(tools.get('order__get')!.description).toContain('Returns the order.');
    const list = inputOf('order__list');
    expect(list.properties.include).toMatchObject({ type: 'array', items: { type: 'string', enum: ['items'] } });
    expect(list.properties.filter.items.properties.field.enum).toContain('items.description');
    // A model without lines has no include to offer.
    expect(inputOf('lead__list').properties.include).toBeUndefined();
  });

  it('actions: declared inputs, required or not; one named like a field is that field', () => {
    const cancel = inputOf('order__cancel');
    expect(cancel.required).toEqual(['id', 'reason']);
    expect(cancel.properties.reason).toMatchObject({ type: 'string', minLength: 1 });
    expect(tools.get('order__cancel')!.description).toContain('Also give: reason.');
    const deliver = inputOf('order__deliver');
    expect(deliver.required).toEqual(['id']);
    expect(deliver.properties.delivered_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(tools.get('order__deliver')!.description).toContain('May also give: delivered_at.');
  });

  it('a call written from the schemas passes the first time; one breaking the rule is refused with its message', async () => {
    const call = (args: Record<string, unknown>) => connected.client.callTool({ name: 'order__create', arguments: args });
    const order = {
      number: 'AB-1234',
      customer: party,
      ordered_on: '2026-11-26',
      deliver_by: '2026-12-01',
      discount_pct: 12.5,
      tags: ['gift', 'rush'],
      items: [
        { description: 'Chair', quantity: 2, unit_price: 4999 },
        { description: 'Desk', quantity: 0.5, unit_price: 20000, note: null },
      ],
    };
    const created = await call(order);
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const value = (created.structuredContent as { value: Schema }).value;
    expect(value).toMatchObject({ number: 'AB-1234', discount_pct: 12.5, tags: ['rush', 'gift'], total: 19998, status: 'draft' });
    expect(value.items.map((line: Schema) => line.amount)).toEqual([9998, 10000]);

    const late = await call({ ...order, number: 'AB-1235', deliver_by: '2026-11-01' });
    expect(late.isError).toBe(true);
    expect(JSON.stringify(late.content)).toContain('order: deliver by must be on or after the order date');
  });
});

describe('tool annotations as the MCP client lists them', () => {
  it("every tool says readOnlyHint, destructiveHint and idempotentHint outright, as its command's kind is", () => {
    // Said outright: a client takes an absent destructiveHint as true and an absent idempotentHint as false.
    expect([...tools.keys()].sort()).toEqual(Object.keys(registry.tools).sort());
    for (const tool of tools.values()) {
      const traits = kindTraits(registry.commands[registry.tools[tool.name]!.command]!.kind);
      expect(tool.annotations, tool.name).toEqual({
        title: tool.title,
        readOnlyHint: traits.access === 'read',
        destructiveHint: traits.destructive,
        idempotentHint: traits.idempotent,
        openWorldHint: false,
      });
    }
  });

  it.each([
    ['lead__get', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['lead__list', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['lead__history', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['lead__create', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    ['lead__update', { readOnlyHint: false, destructiveHint: false, idempotentHint: true }],
    ['lead__delete', { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
    ['lead__qualify', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    ['lead__revert', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
  ])('%s: %o', (name, hints) => {
    expect(tools.get(name)?.annotations).toMatchObject(hints);
  });
});
