/**
 * What a model declares about its records' values, over REST (and MCP where it says so) on a real
 * server, with the fixtures' `order`: computed fields worked out in the write's transaction on every
 * path and never written by callers; defaults; rules (nothing written when one fails, an approved
 * plan that would break one ends failed); write rights (an agent has its creator's); states that
 * lock a record; actions' inputs and sets.
 *
 * The server's clock stands at 2031-05-06 23:30 UTC, the day and time `'today'` and `'now'` give.
 * The registry is the fixtures' with `order.delivered_at` defaulting to `'now'`, `order.confirm`
 * also setting `delivered_at` to `'now'` and `discount_pct` to 5, and `order.cancel` running from
 * `done` too (an action out of a locked state).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { registry as generated } from '../fixtures/generated/registry.ts';
import type { ActionMeta, ModelMeta, Registry } from '../../runtime/registry.ts';
import { TestClock } from '../helpers/clock.ts';
import { connectClient } from '../helpers/mcp-client.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

const NOW = '2031-05-06T23:30:00.000Z';
const TODAY = '2031-05-06';

function variant(): Registry {
  const order = generated.models.order!;
  const actionPatch: Record<string, Partial<ActionMeta>> = {
    confirm: { set: { confirmed_on: 'today', delivered_at: 'now', discount_pct: { value: 5 } } },
    cancel: { from: ['draft', 'confirmed', 'done'] },
  };
  const actions = order.actions.map((action) => ({ ...action, ...actionPatch[action.name] }));
  const changed: ModelMeta = {
    ...order,
    fields: order.fields.map((field) => (field.name === 'delivered_at' ? { ...field, default: 'now' as const } : field)),
    actions,
  };
  const commands = { ...generated.commands };
  for (const action of actions) commands[`order.${action.name}`] = { ...commands[`order.${action.name}`]!, action };
  return { ...generated, models: { ...generated.models, order: changed }, commands };
}

let t: TestServer;
let admin: string;
let sales: string;
let accountant: string;
let customer: string;
let numbers = 2000;

beforeAll(async () => {
  t = await startTestServer({ registry: variant(), clock: new TestClock(Date.parse(NOW)) });
  admin = await t.login();
  sales = await t.addPerson('sid', ['sales']);
  accountant = await t.addPerson('ann', ['accountant']);
  customer = (await t.command(admin, 'party.create', { name: 'Depth GmbH' })).body.value.id;
});

afterAll(async () => {
  await t?.close();
});

const item = (description: string, quantity: number, unitPrice: number) => ({ description, quantity, unit_price: unitPrice });

function orderInput(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { number: `CR-${numbers++}`, customer, items: [item('Bolt', 10, 25), item('Nut', 2.5, 10)], ...extra };
}

async function createOrder(extra: Record<string, unknown> = {}, token = admin): Promise<Record<string, any>> {
  const res = await t.command(token, 'order.create', orderInput(extra));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

const stored = (id: string) => t.inspect((db) => db.prepare('select * from "order" where id = ?').get(id)) as Record<string, unknown> | undefined;
const orders = () => t.inspect((db) => (db.prepare('select count(*) as n from "order"').get() as { n: number }).n);
const approve = (planId: string, token = admin) => t.request('POST', `/api/approve/${planId}`, undefined, token);

describe('computed fields', () => {
  it('are worked out on create, lines first, and stored', async () => {
    const order = await createOrder();
    expect(order.items.map((line: { amount: number }) => line.amount)).toEqual([250, 25]);
    expect(order.total).toBe(275);
    expect(stored(order.id)!.total).toBe(275);
    const amounts = t.inspect((db) => db.prepare('select amount from order__items where owner = ? order by position').all(order.id));
    expect(amounts).toEqual([{ amount: 250 }, { amount: 25 }]);
  });

  it('the demo line amount rounds half up as on paper, whatever floating point makes of quantity × price', async () => {
    // 1.005 * 100 is 100.49999… and 0.145 * 100 is 14.499…: rounded as products of floats, 100 and 14.
    const order = await createOrder({ items: [item('Washer', 1.005, 100), item('Pin', 0.145, 100), item('Rod', 2.675, 1000), item('Cap', 1.5, 333)] });
    expect(order.items.map((line: { amount: number }) => line.amount)).toEqual([101, 15, 2675, 500]);
    expect(order.total).toBe(101 + 15 + 2675 + 500);
  });

  it('follow every write of what they are made from, and history records their change', async () => {
    const order = await createOrder();
    const updated = await t.command(admin, 'order.update', { id: order.id, items: [{ id: order.items[0].id, quantity: 1 }, { id: order.items[1].id }] });
    expect(updated.body.value.total).toBe(50);
    expect(stored(order.id)!.total).toBe(50);
    // A write that does not touch the lines leaves it; so does an action.
    expect((await t.command(admin, 'order.update', { id: order.id, website: 'https://example.org' })).body.value.total).toBe(50);
    expect((await t.command(admin, 'order.confirm', { id: order.id })).body.value.total).toBe(50);
    const [, , change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(change.changes.total).toEqual({ from: 275, to: 50 });
    // A revert puts the lines back, and the total with them.
    const reverted = await t.command(admin, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(reverted.body.value.total).toBe(275);
    expect(stored(order.id)!.total).toBe(275);
  });

  it('are worked out when an approved plan runs (an agent\'s revert)', async () => {
    const order = await createOrder();
    await t.command(admin, 'order.update', { id: order.id, items: [{ id: order.items[0].id, quantity: 4 }, { id: order.items[1].id }] });
    const [change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    const agent = await agentToken(t, admin, ['order.*'], 'computing planner');
    const proposed = await t.command(agent, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(proposed.status).toBe(202);
    expect(stored(order.id)!.total).toBe(125);
    const approved = await approve(proposed.body.plan_id);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.value.total).toBe(275);
    expect(stored(order.id)!.total).toBe(275);
  });

  it.each([
    ['create', () => orderInput({ total: 5 })],
    ['update', (id: string) => ({ id, total: 5 })],
    ['update (null)', (id: string) => ({ id, total: null })],
  ])('may not be written: %s is refused with <model>.<field> is computed', async (command, input) => {
    const order = await createOrder();
    const res = await t.command(admin, `order.${command.split(' ')[0]}`, input(order.id));
    expect(res).toMatchObject({ status: 400, body: { error: 'order.total is computed' } });
    expect(stored(order.id)!.total).toBe(275);
  });

  it('may not be written over MCP either, whose input schemas leave them out', async () => {
    const mcp = await connectClient(t, admin);
    try {
      const tools = new Map((await mcp.client.listTools()).tools.map((tool) => [tool.name, tool]));
      expect(Object.keys((tools.get('order__create')!.inputSchema as any).properties.items.items.properties)).not.toContain('amount');
      expect(Object.keys((tools.get('order__create')!.inputSchema as any).properties)).not.toContain('total');
      const result = (await mcp.client.callTool({ name: 'order__create', arguments: orderInput({ total: 1 }) })) as CallToolResult;
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'order.total is computed' }] });
    } finally {
      await mcp.close();
    }
  });

  it('that would be past what their field holds exactly are refused, naming the field, and nothing is written', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const before = orders();
    const cases: [Record<string, unknown>, string][] = [
      // Each line fits; their sum does not.
      [{ items: [item('A', 1, max), item('B', 1, 2)] }, 'order.total is too large: the computed value is past what the field holds exactly'],
      // A line's own amount does not.
      [{ items: [item('A', 1000000, max)] }, 'order.items[0].amount is too large: the computed value is past what the field holds exactly'],
    ];
    for (const [input, error] of cases) {
      const res = await t.command(admin, 'order.create', orderInput(input));
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error });
    }
    expect(orders()).toBe(before);
    // An update that would take the total past it likewise, and the order stays as it was.
    const order = await createOrder({ items: [item('A', 1, max - 10)] });
    const res = await t.command(admin, 'order.update', { id: order.id, items: [{ id: order.items[0].id }, item('B', 1, 20)] });
    expect(res.body).toEqual({ error: 'order.total is too large: the computed value is past what the field holds exactly', fields: ['total'] });
    expect(stored(order.id)!.total).toBe(max - 10);
  });

  it('filter and order like any field', async () => {
    const tag = `total${Date.now()}`;
    const small = await createOrder({ website: `https://${tag}.example.org/s`, items: [item('A', 1, 5)] });
    const large = await createOrder({ website: `https://${tag}.example.org/l`, items: [item('A', 3, 500)] });
    const mid = await createOrder({ website: `https://${tag}.example.org/m`, items: [item('A', 1, 60)] });
    const res = await t.command(admin, 'order.list', { filter: [{ field: 'website', op: 'contains', value: tag }, { field: 'total', op: 'gt', value: 10 }], order: [{ field: 'total', dir: 'desc' }] });
    expect(res.body.value.map((row: { id: string }) => row.id)).toEqual([large.id, mid.id]);
    expect(small.total).toBe(5);
  });
});

describe('defaults', () => {
  it('apply on create to the fields the input does not have: a constant, the server\'s UTC day, now', async () => {
    const order = await createOrder();
    expect(order).toMatchObject({ ordered_on: TODAY, discount_pct: 0, status: 'draft', delivered_at: NOW });
    expect(stored(order.id)).toMatchObject({ ordered_on: TODAY, discount_pct: 0, delivered_at: NOW });
  });

  it('do not apply to a field given, nor to one given as null', async () => {
    const order = await createOrder({ ordered_on: '2031-01-02', discount_pct: 12.5, delivered_at: '2031-05-06T10:00:00+02:00' });
    expect(order).toMatchObject({ ordered_on: '2031-01-02', discount_pct: 12.5, delivered_at: '2031-05-06T08:00:00.000Z' });
    const empty = await createOrder({ ordered_on: null, discount_pct: null, delivered_at: null });
    expect(empty).toMatchObject({ ordered_on: null, discount_pct: null, delivered_at: null });
    expect(stored(empty.id)).toMatchObject({ ordered_on: null, discount_pct: null, delivered_at: null });
  });

  it('a required field given as null is refused whatever its default', async () => {
    expect(await t.command(admin, 'order.create', orderInput({ status: null }))).toMatchObject({ status: 400 });
    expect(await t.command(admin, 'order.create', orderInput({ items: [{ description: 'x', quantity: null, unit_price: 1 }] }))).toMatchObject({ status: 400, body: { error: 'order.items[0].quantity is required' } });
  });
});

describe('rules', () => {
  const RULE = { error: 'order: deliver by must be on or after the order date', fields: ['deliver_by'] };

  it('refuse a create that breaks one with the rule\'s message and fields, and nothing is written', async () => {
    const before = orders();
    const lines = t.inspect((db) => (db.prepare('select count(*) as n from order__items').get() as { n: number }).n);
    const res = await t.command(admin, 'order.create', orderInput({ ordered_on: '2031-05-06', deliver_by: '2031-05-05' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(RULE);
    expect(orders()).toBe(before);
    expect(t.inspect((db) => (db.prepare('select count(*) as n from order__items').get() as { n: number }).n)).toBe(lines);
    // The rule sees the record as it will be: the default ordered_on (today) too.
    expect((await t.command(admin, 'order.create', orderInput({ deliver_by: '2031-05-05' }))).body).toEqual(RULE);
    expect((await t.command(admin, 'order.create', orderInput({ deliver_by: TODAY }))).status).toBe(200);
  });

  it('see a defaulted field a caller wrote null to as empty: the demo\'s rule has no order date to compare with', async () => {
    // The functions' copies type a defaulted field as possibly null (the build refuses one that
    // reads it as a value without looking); the demo's rule passes when there is no order date.
    const made = await t.command(admin, 'order.create', orderInput({ ordered_on: null, deliver_by: '2001-01-01' }));
    expect([made.status, made.body.value?.ordered_on, made.body.value?.deliver_by]).toEqual([200, null, '2001-01-01']);
    const later = await createOrder({ ordered_on: '2031-05-06', deliver_by: '2031-05-07' });
    const updated = await t.command(admin, 'order.update', { id: later.id, ordered_on: null, deliver_by: '2031-01-01' });
    expect([updated.status, updated.body.value?.ordered_on]).toEqual([200, null]);
    // With an order date again, the rule holds.
    expect((await t.command(admin, 'order.update', { id: later.id, ordered_on: '2031-05-06' })).body).toEqual(RULE);
  });

  it('refuse an update that breaks one; its lines are not written either', async () => {
    const order = await createOrder({ deliver_by: '2031-06-01' });
    const res = await t.command(admin, 'order.update', { id: order.id, ordered_on: '2031-07-01', items: [{ id: order.items[0].id, quantity: 99 }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(RULE);
    expect((await t.command(admin, 'order.get', { id: order.id })).body.value).toEqual(order);
    expect((await t.command(admin, 'order.history', { id: order.id })).body.value.total).toBe(1);
  });

  it('answer an MCP call with the rule\'s message', async () => {
    const mcp = await connectClient(t, admin);
    try {
      const result = (await mcp.client.callTool({ name: 'order__create', arguments: orderInput({ ordered_on: '2031-05-06', deliver_by: '2031-01-01' }) })) as CallToolResult;
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: RULE.error }] });
    } finally {
      await mcp.close();
    }
  });

  it('an approved plan that would break one by the time it runs ends failed with the rule\'s message, and writes nothing', async () => {
    const order = await createOrder({ ordered_on: '2031-01-01', deliver_by: '2031-02-01' });
    await t.command(admin, 'order.update', { id: order.id, deliver_by: '2031-09-01' });
    const [change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    const agent = await agentToken(t, admin, ['order.*'], 'rule breaker');
    // Putting deliver_by back to 2031-02-01 passes the rule now…
    const proposed = await t.command(agent, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    // …but not once the order date has moved past it.
    expect((await t.command(admin, 'order.update', { id: order.id, ordered_on: '2031-03-01' })).status).toBe(200);
    const approved = await approve(proposed.body.plan_id);
    expect(approved.status).toBe(400);
    expect(approved.body).toEqual(RULE);
    const plan = (await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, admin)).body.plan;
    expect(plan).toMatchObject({ status: 'failed', error: RULE.error });
    expect((await t.command(admin, 'order.get', { id: order.id })).body.value.deliver_by).toBe('2031-09-01');
  });
});

describe('write rights', () => {
  const REFUSED = { error: 'order.credit_limit cannot be written by your role' };

  it('a role that reads a field but may not write it is refused with 403 on create and update, and nothing is written', async () => {
    const before = orders();
    const created = await t.command(sales, 'order.create', orderInput({ credit_limit: 100 }));
    expect(created.status).toBe(403);
    expect(created.body).toEqual(REFUSED);
    expect(orders()).toBe(before);
    const order = await createOrder({}, sales);
    const updated = await t.command(sales, 'order.update', { id: order.id, credit_limit: 100 });
    expect(updated.status).toBe(403);
    expect(updated.body).toEqual(REFUSED);
    expect(stored(order.id)!.credit_limit).toBeNull();
    // It reads it all the same; a role among the field's writers writes it.
    expect((await t.command(sales, 'order.get', { id: order.id })).body.value.credit_limit).toBeNull();
    expect((await t.command(accountant, 'order.update', { id: order.id, credit_limit: 100 })).body.value.credit_limit).toBe(100);
  });

  it('GET /api/meta says which fields the caller may write', async () => {
    const writable = async (token: string) => {
      const meta = await t.request('GET', '/api/meta', undefined, token);
      const fields = meta.body.models.find((model: { name: string }) => model.name === 'order').fields as { name: string; writable: boolean }[];
      return Object.fromEntries(fields.filter((field) => ['credit_limit', 'total', 'number'].includes(field.name)).map((field) => [field.name, field.writable]));
    };
    expect(await writable(sales)).toEqual({ number: true, credit_limit: false, total: false });
    expect(await writable(accountant)).toEqual({ number: true, credit_limit: true, total: false });
  });

  it('an agent has its creator\'s write rights', async () => {
    const order = await createOrder();
    const salesAgent = await agentToken(t, sales, ['order.*'], 'sales bot');
    const accountantAgent = await agentToken(t, accountant, ['order.update', 'order.get'], 'accounting bot');
    expect(await t.command(salesAgent, 'order.update', { id: order.id, credit_limit: 5 })).toMatchObject({ status: 403, body: REFUSED });
    expect(await t.command(salesAgent, 'order.create', orderInput({ credit_limit: 5 }))).toMatchObject({ status: 403, body: REFUSED });
    expect((await t.command(accountantAgent, 'order.update', { id: order.id, credit_limit: 5 })).body.value.credit_limit).toBe(5);
  });

  it('a revert may not write what the caller may not: 403, nothing written', async () => {
    const order = await createOrder();
    expect((await t.command(accountant, 'order.update', { id: order.id, credit_limit: 700 })).status).toBe(200);
    const [change] = (await t.command(sales, 'order.history', { id: order.id })).body.value.rows;
    const res = await t.command(sales, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(REFUSED);
    expect(stored(order.id)!.credit_limit).toBe(700);
    expect((await t.command(accountant, 'order.revert', { id: order.id, change_id: change.change_id })).body.value.credit_limit).toBeNull();
  });

  it('a plan that writes a field is decided only by people who may write it', async () => {
    const order = await createOrder();
    await t.command(accountant, 'order.update', { id: order.id, credit_limit: 900 });
    const [change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    const agent = await agentToken(t, accountant, ['order.*'], 'accounting reverter');
    const proposed = await t.command(agent, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    // Sales may revert orders, and reads credit_limit, but may not write it: the plan is not theirs to see or decide.
    expect((await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, sales)).status).toBe(404);
    expect((await approve(proposed.body.plan_id, sales)).status).toBe(404);
    expect((await t.request('GET', '/api/plans', undefined, sales)).body.plans.map((plan: { plan_id: string }) => plan.plan_id)).not.toContain(proposed.body.plan_id);
    expect(stored(order.id)!.credit_limit).toBe(900);
    const approved = await approve(proposed.body.plan_id, accountant);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(stored(order.id)!.credit_limit).toBeNull();
  });
});

describe('states that lock a record', () => {
  let done: Record<string, any>;
  let earlier: string;
  beforeAll(async () => {
    done = await createOrder();
    await t.command(admin, 'order.update', { id: done.id, website: 'https://locked.example.org' });
    [{ change_id: earlier }] = (await t.command(admin, 'order.history', { id: done.id })).body.value.rows;
    expect((await t.command(admin, 'order.confirm', { id: done.id })).status).toBe(200);
    expect((await t.command(admin, 'order.deliver', { id: done.id })).status).toBe(200);
    done = (await t.command(admin, 'order.get', { id: done.id })).body.value;
  });

  it.each([
    ['an update', () => ['order.update', { id: done.id, website: 'https://other.example.org' }]],
    ['an update of its lines', () => ['order.update', { id: done.id, items: [{ id: done.items[0].id, quantity: 1 }] }]],
    ['a revert', () => ['order.revert', { id: done.id, change_id: earlier }]],
    ['a delete', () => ['order.delete', { id: done.id }]],
  ])('refuse %s with 409 <model> is <state> and cannot be changed', async (_case, call) => {
    const [command, input] = call() as [string, Record<string, unknown>];
    const res = await t.command(admin, command, input);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'order is done and cannot be changed' });
    expect((await t.command(admin, 'order.get', { id: done.id })).body.value).toEqual(done);
  });

  it('an agent\'s delete of a locked record is refused when proposed: no plan', async () => {
    const agent = await agentToken(t, admin, ['order.*'], 'lock tester');
    expect(await t.command(agent, 'order.delete', { id: done.id })).toMatchObject({ status: 409, body: { error: 'order is done and cannot be changed' } });
  });

  it('actions out of a locked state still run; the next state may lock it too', async () => {
    const cancelled = await t.command(admin, 'order.cancel', { id: done.id, reason: 'returned' });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.value.status).toBe('cancelled');
    expect(await t.command(admin, 'order.update', { id: done.id, website: null })).toMatchObject({ status: 409, body: { error: 'order is cancelled and cannot be changed' } });
  });
});

describe('actions: inputs and sets', () => {
  it('set fields when they run: today, now and a constant', async () => {
    const order = await createOrder({ delivered_at: null });
    const confirmed = await t.command(admin, 'order.confirm', { id: order.id });
    expect(confirmed.body.value).toMatchObject({ status: 'confirmed', confirmed_on: TODAY, delivered_at: NOW, discount_pct: 5 });
    const [entry] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(entry.changes).toEqual({
      discount_pct: { from: 0, to: 5 },
      confirmed_on: { from: null, to: TODAY },
      delivered_at: { from: null, to: NOW },
      status: { from: 'draft', to: 'confirmed' },
    });
  });

  it('an input named like a field sets it when given, and leaves it when not', async () => {
    const given = await createOrder();
    await t.command(admin, 'order.confirm', { id: given.id });
    const delivered = await t.command(admin, 'order.deliver', { id: given.id, delivered_at: '2031-05-07T09:15:00+02:00' });
    expect(delivered.body.value).toMatchObject({ status: 'done', delivered_at: '2031-05-07T07:15:00.000Z' });
    const absent = await createOrder();
    await t.command(admin, 'order.confirm', { id: absent.id });
    expect((await t.command(admin, 'order.deliver', { id: absent.id })).body.value).toMatchObject({ status: 'done', delivered_at: NOW });
    expect(await t.command(admin, 'order.deliver', { id: absent.id, delivered_at: 'tomorrow' })).toMatchObject({ status: 400 });
  });

  it.each([
    ['missing', {}, 'order.cancel.reason is required'],
    ['null', { reason: null }, 'order.cancel.reason is required'],
    ['empty', { reason: '' }, 'order.cancel.reason is required'],
    ['of the wrong kind', { reason: 5 }, 'order.cancel.reason must be a string'],
    ['a field of the record', { reason: 'x', website: 'https://example.org' }, 'order.cancel does not take order.website'],
  ])('an input that is no field is validated: %s is refused', async (_case, input, error) => {
    const order = await createOrder();
    expect(await t.command(admin, 'order.cancel', { id: order.id, ...input })).toMatchObject({ status: 400, body: { error } });
    expect(stored(order.id)!.status).toBe('draft');
  });

  it('an input that is no field is kept in the history entry (inputs) and the audit row, not in the record', async () => {
    const order = await createOrder();
    const cancelled = await t.command(admin, 'order.cancel', { id: order.id, reason: 'customer changed their mind' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.value).not.toHaveProperty('reason');
    const [entry] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(entry).toMatchObject({ command: 'order.cancel', changes: { status: { from: 'draft', to: 'cancelled' } }, inputs: { reason: 'customer changed their mind' } });
    const audit = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'record_id', op: 'eq', value: order.id }, { field: 'command', op: 'eq', value: 'order.cancel' }]))}`, undefined, admin);
    expect(audit.body.rows[0].input).toEqual({ id: order.id, reason: 'customer changed their mind' });
  });

  it('an agent\'s action with an input is one plan that shows it; approved, history keeps it with the plan', async () => {
    const order = await createOrder();
    const agent = await agentToken(t, admin, ['order.*'], 'canceller');
    const proposed = await t.command(agent, 'order.cancel', { id: order.id, reason: 'duplicate order' });
    expect(proposed.status).toBe(202);
    const plan = (await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, admin)).body.plan;
    expect(plan).toMatchObject({ command: 'order.cancel', input: { id: order.id, reason: 'duplicate order' }, status: 'pending' });
    expect((await approve(proposed.body.plan_id)).status).toBe(200);
    const [entry] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(entry).toMatchObject({ plan_id: proposed.body.plan_id, inputs: { reason: 'duplicate order' }, by: { kind: 'agent', agent_label: 'canceller' } });
  });

  it('an update cannot run an action that needs an input that is no field: it says which action to run', async () => {
    const order = await createOrder();
    const res = await t.command(admin, 'order.update', { id: order.id, status: 'cancelled' });
    expect(res).toMatchObject({ status: 400, body: { error: 'order.status cannot move from draft to cancelled by update: run order.cancel, which needs reason' } });
    expect(stored(order.id)!.status).toBe('draft');
    // A governed change whose action needs no such input runs it.
    expect((await t.command(admin, 'order.update', { id: order.id, status: 'confirmed' })).body.value).toMatchObject({ status: 'confirmed', confirmed_on: TODAY });
  });
});
