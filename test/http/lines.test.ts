/**
 * Line lists over REST on a real server (the fixtures' `order` and its `items`): a record's lines
 * in get, and in list and search with `include`; a create's lines and an update's new list (lines
 * kept by id with the fields given, added, removed, reordered); the errors, each naming its line;
 * line fields' options (checks, computed, read and write rights, hidden from agents, personal);
 * filters on line fields; lines deleted with their record; history and revert of lines; an agent's
 * update that carries lines held as one plan.
 *
 * The registry is the fixtures' with, for the rights: `items.note` read by admin and sales only,
 * `items.quantity` written by admin and sales only, `items.amount` hidden from agents, and
 * `order.update` held for approval when an agent calls it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry as generated } from '../fixtures/generated/registry.ts';
import type { FieldMeta, ModelMeta, Registry } from '../../runtime/registry.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

function variant(): Registry {
  const order = generated.models.order!;
  const patch: Record<string, Partial<FieldMeta>> = {
    note: { readRoles: ['admin', 'sales'] },
    quantity: { writeRoles: ['admin', 'sales'] },
    amount: { hiddenFromAgents: true },
  };
  const changed: ModelMeta = {
    ...order,
    lines: order.lines.map((list) => ({ ...list, fields: list.fields.map((field) => ({ ...field, ...patch[field.name] })) })),
  };
  return {
    ...generated,
    models: { ...generated.models, order: changed },
    commands: { ...generated.commands, 'order.update': { ...generated.commands['order.update']!, needsApproval: true } },
  };
}

let t: TestServer;
let admin: string;
let sales: string;
let accountant: string;
let customer: string;
let numbers = 1000;

beforeAll(async () => {
  t = await startTestServer({ registry: variant() });
  admin = await t.login();
  sales = await t.addPerson('sam', ['sales']);
  accountant = await t.addPerson('abby', ['accountant']);
  customer = (await t.command(admin, 'party.create', { name: 'Lines Ltd' })).body.value.id;
});

afterAll(async () => {
  await t?.close();
});

type Line = { id?: string; description?: string; quantity?: number; unit_price?: number; note?: string | null; amount?: number };
/** A record's lines as answered (up to the three a test makes). */
type Lines = [Required<Line>, Required<Line>, Required<Line>];

const line = (description: string, quantity: number, unitPrice: number, extra: Partial<Line> = {}): Line => ({ description, quantity, unit_price: unitPrice, ...extra });

async function createOrder(items: Line[], extra: Record<string, unknown> = {}, token = admin): Promise<Record<string, any>> {
  const res = await t.command(token, 'order.create', { number: `LN-${numbers++}`, customer, items, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

/** The lines as stored, in order: `order__items` rows of the order. */
function storedLines(orderId: string): Record<string, unknown>[] {
  return t.inspect((db) => db.prepare('select id, position, description, quantity, unit_price, note, amount from order__items where owner = ? order by position').all(orderId)) as Record<string, unknown>[];
}

describe('get, list and search', () => {
  it('get answers each line list with its lines, in order, each with its id and computed fields', async () => {
    const order = await createOrder([line('Chairs', 4, 2500), line('Table', 1.5, 10000, { note: 'oak' })]);
    const got = await t.command(admin, 'order.get', { id: order.id });
    expect(got.status).toBe(200);
    expect(got.body.value.items).toEqual([
      { id: expect.any(String), description: 'Chairs', quantity: 4, unit_price: 2500, note: null, amount: 10000 },
      { id: expect.any(String), description: 'Table', quantity: 1.5, unit_price: 10000, note: 'oak', amount: 15000 },
    ]);
    expect(got.body.value).toEqual(order);
    expect(got.body.value.total).toBe(25000);
    // Stored exactly: a decimal as an integer (× 10^scale), in the line's own table.
    expect(storedLines(order.id)).toEqual([
      { id: order.items[0].id, position: 0, description: 'Chairs', quantity: 4000, unit_price: 2500, note: null, amount: 10000 },
      { id: order.items[1].id, position: 1, description: 'Table', quantity: 1500, unit_price: 10000, note: 'oak', amount: 15000 },
    ]);
  });

  it('list and search answer records without their lines, unless include names the list', async () => {
    const order = await createOrder([line('Lamp', 2, 1999)]);
    const byId = [{ field: 'id', op: 'eq', value: order.id }];
    const { items, ...withoutLines } = order;
    expect((await t.command(admin, 'order.list', { filter: byId })).body.value).toEqual([withoutLines]);
    expect((await t.command(admin, 'order.search', { filter: byId })).body.value).toEqual({ rows: [withoutLines], total: 1 });
    expect((await t.command(admin, 'order.list', { filter: byId, include: ['items'] })).body.value).toEqual([order]);
    expect((await t.command(admin, 'order.search', { filter: byId, include: ['items'] })).body.value).toEqual({ rows: [order], total: 1 });
    expect(items).toHaveLength(1);
  });

  it.each([
    [{ include: ['lines'] }, 'include: order has no line list lines'],
    [{ include: 'items' }, 'include must be an array of line list names'],
    [{ include: [5] }, 'include must be an array of line list names'],
  ])('refuses include %j: %s', async (input, error) => {
    expect(await t.command(admin, 'order.list', input)).toMatchObject({ status: 400, body: { error } });
  });
});

describe('create', () => {
  it.each([
    ['no list', {}, 'order.items needs at least 1 line'],
    ['an empty list', { items: [] }, 'order.items needs at least 1 line'],
    ['too many lines', { items: Array.from({ length: 501 }, (_, i) => line(`Line ${i}`, 1, 1)) }, 'order.items has at most 500 lines'],
    ['not a list', { items: { description: 'x' } }, 'order.items must be a list of lines'],
    ['a line that is no object', { items: [line('A', 1, 1), 'B'] }, 'order.items[1] must be an object'],
    ['a required field missing', { items: [line('A', 1, 1), line('B', 1, 1), { description: 'C', unit_price: 5 }] }, 'order.items[2].quantity is required'],
    ['a required field emptied', { items: [{ description: '', quantity: 1, unit_price: 1 }] }, 'order.items[0].description is required'],
    ['a check (min)', { items: [line('A', 1, 1), line('B', 0, 1)] }, 'order.items[1].quantity must be at least 0.001'],
    ['a check (length)', { items: [line('x'.repeat(201), 1, 1)] }, 'order.items[0].description must be at most 200 characters'],
    ['a decimal with too many places', { items: [line('A', 1.0001, 1)] }, 'order.items[0].quantity has at most 3 decimal places'],
    ['money with a fraction', { items: [line('A', 1, 1.5)] }, 'order.items[0].unit_price must be an integer amount in minor units (12.34 is 1234)'],
    ['a computed field', { items: [line('A', 1, 1, { amount: 5 })] }, 'order.items[0].amount is computed'],
    ['an unknown field', { items: [{ ...line('A', 1, 1), colour: 'red' }] }, 'unknown field order.items[0].colour'],
    ['an id on a new line', { items: [{ ...line('A', 1, 1), id: 'LINE1' }] }, 'unknown field order.items[0].id'],
  ])('refuses %s, and stores nothing', async (_case, input, error) => {
    const before = t.inspect((db) => (db.prepare('select count(*) as n from "order"').get() as { n: number }).n);
    const res = await t.command(admin, 'order.create', { number: `LN-${numbers++}`, customer, ...input });
    expect(res).toMatchObject({ status: 400, body: { error } });
    expect(t.inspect((db) => (db.prepare('select count(*) as n from "order"').get() as { n: number }).n)).toBe(before);
  });

  it('takes 500 lines, in their order', async () => {
    const order = await createOrder(Array.from({ length: 500 }, (_, i) => line(`Line ${i}`, 1, i)));
    expect(order.items.map((item: Line) => item.description)).toEqual(Array.from({ length: 500 }, (_, i) => `Line ${i}`));
    expect(order.total).toBe((499 * 500) / 2);
    expect(storedLines(order.id).map((row) => row.position)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });
});

describe('update', () => {
  it('takes the new list: a line with an id changes only the fields it gives, one without is added, one left out is removed; in the order given', async () => {
    const order = await createOrder([line('Keep', 1, 100, { note: 'first' }), line('Drop', 2, 200), line('Change', 3, 300, { note: 'old' })]);
    const [keep, drop, change] = order.items as Lines;
    const res = await t.command(admin, 'order.update', { id: order.id, items: [{ id: change.id, quantity: 4 }, line('New', 1, 50), { id: keep.id }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value.items).toEqual([
      { id: change.id, description: 'Change', quantity: 4, unit_price: 300, note: 'old', amount: 1200 },
      { id: expect.any(String), description: 'New', quantity: 1, unit_price: 50, note: null, amount: 50 },
      { id: keep.id, description: 'Keep', quantity: 1, unit_price: 100, note: 'first', amount: 100 },
    ]);
    expect(res.body.value.total).toBe(1350);
    expect((await t.command(admin, 'order.get', { id: order.id })).body.value).toEqual(res.body.value);
    const stored = storedLines(order.id);
    expect(stored.map((row) => [row.id, row.position])).toEqual([
      [change.id, 0],
      [res.body.value.items[1].id, 1],
      [keep.id, 2],
    ]);
    expect(stored.some((row) => row.id === drop.id)).toBe(false);
  });

  it('leaves the lines as they are when the update does not name the list, and empties a field given null', async () => {
    const order = await createOrder([line('A', 1, 100, { note: 'n' })]);
    const res = await t.command(admin, 'order.update', { id: order.id, deliver_by: '2099-01-01' });
    expect(res.body.value.items).toEqual(order.items);
    const emptied = await t.command(admin, 'order.update', { id: order.id, items: [{ id: order.items[0].id, note: null }] });
    expect(emptied.body.value.items).toEqual([{ ...order.items[0], note: null }]);
  });

  it.each([
    ['an id of no line', () => [{ id: 'NOPE' }], 'order.items[0].id is not a line of this order'],
    ['an id of another order\'s line', (other: string) => [line('A', 1, 1), { id: other }], 'order.items[1].id is not a line of this order'],
    ['one id twice', (_other: string, own: string) => [{ id: own }, { id: own }], 'order.items[1].id is not a line of this order'],
    ['an empty list', () => [], 'order.items needs at least 1 line'],
    ['a new line without a required field', () => [{ description: 'x', quantity: 1 }], 'order.items[0].unit_price is required'],
    ['a kept line emptying a required field', (_other: string, own: string) => [{ id: own, quantity: null }], 'order.items[0].quantity is required'],
    ['a kept line breaking a check', (_other: string, own: string) => [{ id: own, unit_price: -1 }], 'order.items[0].unit_price must be at least 0'],
    ['a kept line writing a computed field', (_other: string, own: string) => [{ id: own, amount: 1 }], 'order.items[0].amount is computed'],
  ])('refuses %s, and changes nothing', async (_case, items, error) => {
    const other = await createOrder([line('Other', 1, 1)]);
    const order = await createOrder([line('Own', 1, 1)]);
    const before = storedLines(order.id);
    const res = await t.command(admin, 'order.update', { id: order.id, items: (items as (other: string, own: string) => unknown[])(other.items[0].id, order.items[0].id) });
    expect(res).toMatchObject({ status: 400, body: { error } });
    expect(storedLines(order.id)).toEqual(before);
    expect(storedLines(other.id)).toHaveLength(1);
  });
});

describe('filters on line fields', () => {
  let cheap: Record<string, any>;
  let dear: Record<string, any>;
  const tag = `flt${Date.now()}`;
  beforeAll(async () => {
    cheap = await createOrder([line(`${tag} pencil`, 10, 50), line(`${tag} eraser`, 1, 20)]);
    dear = await createOrder([line(`${tag} Fountain PEN`, 1, 12000)]);
  });

  it.each([
    [{ field: 'items.description', op: 'contains', value: 'pen' }, () => [cheap.id, dear.id]],
    [{ field: 'items.description', op: 'contains', value: 'fountain' }, () => [dear.id]],
    [{ field: 'items.quantity', op: 'gte', value: 10 }, () => [cheap.id]],
    [{ field: 'items.unit_price', op: 'lt', value: 30 }, () => [cheap.id]],
    [{ field: 'items.amount', op: 'eq', value: 12000 }, () => [dear.id]],
    [{ field: 'items.note', op: 'is_null' }, () => [cheap.id, dear.id]],
  ])('%j finds the records with a line that matches, once each', async (condition, expected) => {
    const res = await t.command(admin, 'order.search', { filter: [{ field: 'items.description', op: 'contains', value: tag }, condition], order: [{ field: 'number' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value.rows.map((row: { id: string }) => row.id)).toEqual(expected());
    expect(res.body.value.total).toBe(expected().length);
  });

  it.each([
    ['admin', { field: 'items.colour', op: 'eq', value: 'x' }, 'unknown field order.items.colour'],
    ['admin', { field: 'items.quantity', op: 'eq', value: 1.0001 }, 'order.items.quantity has at most 3 decimal places'],
    ['admin', { field: 'items.description', op: 'gt' }, 'order.items.description: gt needs a value (use is_null for empty values)'],
    // A line field withheld from the caller is no field to it.
    ['accountant', { field: 'items.note', op: 'is_null' }, 'unknown field order.items.note'],
  ])('refuses %s filtering on %j: %s', async (who, condition, error) => {
    const token = who === 'accountant' ? accountant : admin;
    expect(await t.command(token, 'order.list', { filter: [condition] })).toMatchObject({ status: 400, body: { error } });
  });

  it('orders by no line field, saying so to whoever reads it; to a role it is withheld from it is no field', async () => {
    for (const command of ['order.list', 'order.search']) {
      expect(await t.command(admin, command, { order: [{ field: 'items.amount' }] })).toMatchObject({ status: 400, body: { error: 'order.items.amount: line fields cannot be ordered by' } });
      expect(await t.command(admin, command, { order: [{ field: 'items.colour' }] })).toMatchObject({ status: 400, body: { error: 'unknown field order.items.colour' } });
      expect(await t.command(accountant, command, { order: [{ field: 'items.note' }] })).toMatchObject({ status: 400, body: { error: 'unknown field order.items.note' } });
    }
  });

  it('an agent filters on the line fields it reads in clear; a masked one is refused saying why, a hidden one is no field', async () => {
    const agent = await agentToken(t, admin, ['order.*'], 'line filter bot');
    const found = await t.command(agent, 'order.list', { filter: [{ field: 'items.description', op: 'contains', value: `${tag} fountain` }] });
    expect(found.body.value.map((row: { id: string }) => row.id)).toEqual([dear.id]);
    const masked =
      'unknown field order.items.note: it is personal data, masked for you, so it cannot be filtered by its value, nor by its tokens (token_filter takes fields of the record, not of its lines)';
    for (const command of ['order.list', 'order.search']) {
      expect(await t.command(agent, command, { filter: [{ field: 'items.note', op: 'is_null' }] })).toMatchObject({ status: 400, body: { error: masked } });
      expect(await t.command(agent, command, { filter: [{ field: 'items.note', op: 'eq', value: 'x' }] })).toMatchObject({ status: 400, body: { error: masked } });
      expect(await t.command(agent, command, { filter: [{ field: 'items.amount', op: 'gt', value: 1 }] })).toMatchObject({ status: 400, body: { error: 'unknown field order.items.amount' } });
    }
    expect(await t.command(agent, 'order.search', { token_filter: [{ field: 'items.note', op: 'eq', value: 'NOTE_1' }] })).toMatchObject({
      status: 400,
      body: { error: 'order.items.note: token_filter takes fields of the record, not of its lines' },
    });
    expect(await t.command(agent, 'order.search', { token_filter: [{ field: 'items.colour', op: 'eq', value: 'NOTE_1' }] })).toMatchObject({ status: 400, body: { error: 'unknown field order.items.colour' } });
    // A person who may not read the field is told it is no field, as before.
    expect(await t.command(accountant, 'order.search', { token_filter: [{ field: 'items.note', op: 'eq', value: 'NOTE_1' }] })).toMatchObject({ status: 400 });
  });
});

describe('rights on line fields', () => {
  it('a line field the caller may not read is absent from every line and named in denied as <model>.<lines>.<field>', async () => {
    const order = await createOrder([line('Secret note', 1, 1, { note: 'for sales only' })]);
    const got = await t.command(accountant, 'order.get', { id: order.id });
    expect(got.body.denied).toEqual(['order.items.note']);
    expect(got.body.value.items).toEqual([{ id: order.items[0].id, description: 'Secret note', quantity: 1, unit_price: 1, amount: 1 }]);
    const listed = await t.command(accountant, 'order.list', { filter: [{ field: 'id', op: 'eq', value: order.id }], include: ['items'] });
    expect(listed.body.value[0].items).toEqual(got.body.value.items);
    expect(JSON.stringify([got.body, listed.body])).not.toContain('for sales only');
    const meta = await t.request('GET', '/api/meta', undefined, accountant);
    const items = meta.body.models.find((model: { name: string }) => model.name === 'order').lines[0];
    expect(items.fields.map((field: { name: string }) => field.name)).toEqual(['description', 'quantity', 'unit_price', 'amount']);
    expect(items.denied).toEqual(['order.items.note']);
  });

  it('refuses writing it (unknown to the caller), and keeps it when the caller changes the line', async () => {
    const order = await createOrder([line('Noted', 1, 1, { note: 'keep me' })]);
    expect(await t.command(accountant, 'order.update', { id: order.id, items: [{ id: order.items[0].id, note: 'x' }] })).toMatchObject({ status: 400, body: { error: 'unknown field order.items[0].note' } });
    const changed = await t.command(accountant, 'order.update', { id: order.id, items: [{ id: order.items[0].id, unit_price: 7 }] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await t.command(admin, 'order.get', { id: order.id })).body.value.items[0]).toMatchObject({ note: 'keep me', unit_price: 7, amount: 7 });
  });

  it('refuses writing a line field the role may read but not write: 403, naming the line', async () => {
    const order = await createOrder([line('Counted', 1, 1)]);
    const res = await t.command(accountant, 'order.update', { id: order.id, items: [{ id: order.items[0].id, quantity: 2 }] });
    expect(res).toMatchObject({ status: 403, body: { error: 'order.items[0].quantity cannot be written by your role' } });
    expect(storedLines(order.id)[0]!.quantity).toBe(1000);
    const meta = await t.request('GET', '/api/meta', undefined, accountant);
    const quantity = meta.body.models.find((model: { name: string }) => model.name === 'order').lines[0].fields.find((field: { name: string }) => field.name === 'quantity');
    expect(quantity).toMatchObject({ writable: false, computed: false });
  });

  it('an agent sees a line field hidden from agents nowhere, and a personal one as a token', async () => {
    const order = await createOrder([line('Masked', 1, 1, { note: 'clear note' })]);
    const agent = await agentToken(t, admin, ['order.*'], 'line reader');
    const got = await t.command(agent, 'order.get', { id: order.id });
    expect(got.body.denied).toEqual(['order.items.amount']);
    expect(got.body.value.items).toEqual([{ id: order.items[0].id, description: 'Masked', quantity: 1, unit_price: 1, note: expect.stringMatching(/^NOTE_\d+$/) }]);
    expect(JSON.stringify(got.body)).not.toContain('clear note');
  });
});

describe('delete', () => {
  it('removes the record\'s lines with it', async () => {
    const order = await createOrder([line('Gone', 1, 1), line('Gone too', 1, 1)]);
    expect(storedLines(order.id)).toHaveLength(2);
    expect((await t.command(admin, 'order.delete', { id: order.id })).status).toBe(200);
    expect(storedLines(order.id)).toEqual([]);
    const history = await t.command(admin, 'order.history', { id: order.id });
    expect(history.body.value.rows[0].changes.items).toEqual({ added: [], removed: order.items, changed: [] });
  });
});

describe('history and revert', () => {
  it('records per line list what was added, removed and changed (only the changed fields, from and to)', async () => {
    const order = await createOrder([line('One', 1, 100), line('Two', 2, 100)]);
    const [one, two] = order.items as Lines;
    const updated = await t.command(admin, 'order.update', { id: order.id, items: [{ id: one.id, quantity: 3, note: 'more' }, line('Three', 1, 5)] });
    const three = updated.body.value.items[1];
    const history = await t.command(admin, 'order.history', { id: order.id });
    const [update, create] = history.body.value.rows;
    expect(create.changes.items).toEqual({ added: order.items, removed: [], changed: [] });
    expect(update.command).toBe('order.update');
    expect(update.changes).toEqual({
      total: { from: 300, to: 305 },
      items: {
        added: [three],
        removed: [two],
        changed: [{ id: one.id, changes: { quantity: { from: 1, to: 3 }, note: { from: null, to: 'more' }, amount: { from: 100, to: 300 } } }],
      },
    });
  });

  it('shows a caller only the line fields it reads; an entry that changed only withheld ones not at all', async () => {
    const order = await createOrder([line('Private', 1, 1)]);
    await t.command(admin, 'order.update', { id: order.id, items: [{ id: order.items[0].id, note: 'hush' }] });
    const mine = await t.command(admin, 'order.history', { id: order.id });
    const theirs = await t.command(accountant, 'order.history', { id: order.id });
    expect(mine.body.value.total).toBe(2);
    expect(theirs.body.value.total).toBe(1);
    expect(theirs.body.value.rows[0].changes.items.added).toEqual([{ id: order.items[0].id, description: 'Private', quantity: 1, unit_price: 1, amount: 1 }]);
    expect(JSON.stringify(theirs.body)).not.toContain('hush');
  });

  it('revert puts the lines back as they were: removed ones under their ids, added ones gone, changed ones with their values', async () => {
    const order = await createOrder([line('One', 1, 100, { note: 'n1' }), line('Two', 2, 100)]);
    const [one, two] = order.items as Lines;
    await t.command(admin, 'order.update', { id: order.id, items: [{ id: one.id, quantity: 3, note: null }, line('Three', 1, 5)] });
    const [change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    const reverted = await t.command(admin, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect(reverted.body.value.items).toEqual([one, two]);
    expect(reverted.body.value.total).toBe(300);
    expect(storedLines(order.id).map((row) => row.id)).toEqual([one.id, two.id]);
    const [entry] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(entry).toMatchObject({ reverts: change.change_id, command: 'order.update' });
    expect(entry.changes.items.removed.map((removed: Line) => removed.description)).toEqual(['Three']);
    expect(entry.changes.items.added).toEqual([two]);
  });

  it('records a change of the lines\' order alone, and revert puts them back in their order', async () => {
    const order = await createOrder([line('One', 1, 100), line('Two', 2, 100), line('Three', 3, 100)]);
    const [one, two, three] = order.items as Lines;
    const moved = await t.command(admin, 'order.update', { id: order.id, items: [{ id: three.id }, { id: one.id }, { id: two.id }] });
    expect(moved.body.value.items.map((item: Line) => item.id)).toEqual([three.id, one.id, two.id]);
    const [change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(change).toMatchObject({ command: 'order.update', changes: { items: { added: [], removed: [], changed: [], order: { from: [one.id, two.id, three.id], to: [three.id, one.id, two.id] } } } });
    expect(Object.keys(change.changes)).toEqual(['items']);
    const reverted = await t.command(admin, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect(reverted.body.value.items).toEqual([one, two, three]);
    expect(storedLines(order.id).map((row) => [row.id, row.position])).toEqual([[one.id, 0], [two.id, 1], [three.id, 2]]);
    const [entry] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(entry).toMatchObject({ reverts: change.change_id, changes: { items: { added: [], removed: [], changed: [], order: { from: [three.id, one.id, two.id], to: [one.id, two.id, three.id] } } } });
  });

  it('revert puts a line removed from between others back in its place, and a moved and changed line back with its values', async () => {
    const order = await createOrder([line('One', 1, 100), line('Two', 2, 100), line('Three', 3, 100)]);
    const [one, two, three] = order.items as Lines;
    await t.command(admin, 'order.update', { id: order.id, items: [{ id: three.id, quantity: 4 }, { id: one.id }] });
    const [change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(change.changes.items).toEqual({
      added: [],
      removed: [two],
      changed: [{ id: three.id, changes: { quantity: { from: 3, to: 4 }, amount: { from: 300, to: 400 } } }],
      order: { from: [one.id, two.id, three.id], to: [three.id, one.id] },
    });
    const reverted = await t.command(admin, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect(reverted.body.value.items).toEqual([one, two, three]);
    expect(storedLines(order.id).map((row) => row.id)).toEqual([one.id, two.id, three.id]);
  });

  it('records no order where adding at the end and leaving out the last lines say it all', async () => {
    const order = await createOrder([line('One', 1, 100), line('Two', 2, 100), line('Three', 3, 100)]);
    const [one, two] = order.items as Lines;
    await t.command(admin, 'order.update', { id: order.id, items: [{ id: one.id }, { id: two.id }, line('Four', 1, 1)] });
    const [change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(Object.keys(change.changes.items)).toEqual(['added', 'removed', 'changed']);
    const same = await t.command(admin, 'order.update', { id: order.id, items: [{ id: one.id }, { id: two.id }, { id: change.changes.items.added[0].id }] });
    expect(same.status).toBe(200);
    expect((await t.command(admin, 'order.history', { id: order.id })).body.value.total).toBe(2);
  });

  it('refuses with 409 to revert a move when the lines were moved again since, changing nothing', async () => {
    const order = await createOrder([line('One', 1, 100), line('Two', 2, 100)]);
    const [one, two] = order.items as Lines;
    await t.command(admin, 'order.update', { id: order.id, items: [{ id: two.id }, { id: one.id }] });
    const [change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    await t.command(admin, 'order.update', { id: order.id, items: [{ id: one.id }, { id: two.id }] });
    const before = storedLines(order.id);
    const res = await t.command(admin, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(res).toMatchObject({ status: 409, body: { error: `order ${order.id} changed since change ${change.change_id}` } });
    expect(storedLines(order.id)).toEqual(before);
  });

  it('shows an agent the order of lines it reads, as line ids', async () => {
    const order = await createOrder([line('One', 1, 100), line('Two', 2, 100)]);
    const [one, two] = order.items as Lines;
    await t.command(admin, 'order.update', { id: order.id, items: [{ id: two.id }, { id: one.id }] });
    const bot = await agentToken(t, admin, ['order.*']);
    const [change] = (await t.command(bot, 'order.history', { id: order.id })).body.value.rows;
    expect(change.changes.items.order).toEqual({ from: [one.id, two.id], to: [two.id, one.id] });
  });

  it.each([
    ['a line it changed changed again', (order: Record<string, any>) => ({ items: [{ id: order.items[0].id, quantity: 9 }, { id: order.items[1].id }] })],
    ['a line it added was removed', (order: Record<string, any>) => ({ items: [{ id: order.items[0].id }] })],
  ])('refuses with 409 when %s since', async (_case, later) => {
    const order = await createOrder([line('One', 1, 100)]);
    const updated = await t.command(admin, 'order.update', { id: order.id, items: [{ id: order.items[0].id, quantity: 2 }, line('Added', 1, 1)] });
    const [change] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect((await t.command(admin, 'order.update', { id: order.id, ...later(updated.body.value) })).status).toBe(200);
    const before = storedLines(order.id);
    const res = await t.command(admin, 'order.revert', { id: order.id, change_id: change.change_id });
    expect(res).toMatchObject({ status: 409, body: { error: `order ${order.id} changed since change ${change.change_id}` } });
    expect(storedLines(order.id)).toEqual(before);
  });

  it('refuses to revert a change of lines whose fields the caller may not read', async () => {
    const order = await createOrder([line('One', 1, 100)]);
    await t.command(admin, 'order.update', { id: order.id, items: [{ id: order.items[0].id, quantity: 2 }] });
    const [change] = (await t.command(accountant, 'order.history', { id: order.id })).body.value.rows;
    expect(await t.command(accountant, 'order.revert', { id: order.id, change_id: change.change_id })).toMatchObject({ status: 400, body: { error: `change ${change.change_id} cannot be reverted` } });
  });
});

describe('an agent\'s update that carries lines and needs approval', () => {
  it('is one plan that shows the line changes; approved, it writes them in one change that names the agent and the plan', async () => {
    const order = await createOrder([line('Desk', 1, 30000, { note: 'walnut' }), line('Lamp', 1, 2000)]);
    const [desk, lamp] = order.items as Lines;
    const agent = await agentToken(t, admin, ['order.*'], 'line planner');
    const proposed = await t.command(agent, 'order.update', { id: order.id, items: [{ id: desk.id, quantity: 2, note: 'oak' }, line('Chair', 2, 5000, { note: 'red' })] });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    expect(storedLines(order.id)).toHaveLength(2);
    const plans = (await t.request('GET', '/api/plans', undefined, admin)).body.plans.filter((plan: { record_id: string }) => plan.record_id === order.id);
    expect(plans).toHaveLength(1);
    expect(plans[0].input).toEqual({ id: order.id, items: [{ id: desk.id, quantity: 2, note: 'oak' }, { description: 'Chair', quantity: 2, unit_price: 5000, note: 'red' }] });
    // The agent sees its own plan with its personal values as the tokens it knows them by.
    const asAgent = (await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, agent)).body.plan;
    expect(asAgent.input.items).toEqual([
      { id: desk.id, quantity: 2, note: expect.stringMatching(/^NOTE_\d+$/) },
      { description: 'Chair', quantity: 2, unit_price: 5000, note: expect.stringMatching(/^NOTE_\d+$/) },
    ]);
    const approved = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.value.items).toEqual([
      { id: desk.id, description: 'Desk', quantity: 2, unit_price: 30000, note: 'oak', amount: 60000 },
      { id: expect.any(String), description: 'Chair', quantity: 2, unit_price: 5000, note: 'red', amount: 10000 },
    ]);
    const [entry] = (await t.command(admin, 'order.history', { id: order.id })).body.value.rows;
    expect(entry).toMatchObject({ plan_id: proposed.body.plan_id, by: { kind: 'agent', agent_label: 'line planner' } });
    expect(entry.changes.items.removed).toEqual([lamp]);
    // The agent reads back the values it wrote as the tokens it was shown.
    const read = await t.command(agent, 'order.get', { id: order.id });
    expect(read.body.value.items.map((item: Line) => item.note)).toEqual(asAgent.input.items.map((item: Line) => item.note));
  });

  it('approved, a plan that gives a line\'s personal field the value it holds leaves the same history as one that changes it', async () => {
    const agent = await agentToken(t, admin, ['order.*'], 'line guesser');
    const [same, other] = [await createOrder([line('Desk', 1, 30000, { note: 'walnut' })]), await createOrder([line('Desk', 1, 30000, { note: 'walnut' })])];
    const held = (await t.command(agent, 'order.get', { id: same.id })).body.value.items[0].note as string;
    const approve = async (order: Record<string, any>, note: string) => {
      const proposed = await t.command(agent, 'order.update', { id: order.id, items: [{ id: order.items[0].id, note }] });
      expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
      const shown = (await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, agent)).body.plan.input.items[0].note as string;
      expect((await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin)).status).toBe(200);
      return shown;
    };
    const [sameToken, otherToken] = [await approve(same, 'walnut'), await approve(other, 'oak')];
    expect(sameToken).not.toBe(held);
    const history = async (id: string) => (await t.command(agent, 'order.history', { id })).body.value;
    const [sameHistory, otherHistory] = [await history(same.id), await history(other.id)];
    expect(sameHistory.total).toBe(otherHistory.total);
    expect(sameHistory.rows[0].changes).toEqual({ items: { added: [], removed: [], changed: [{ id: same.items[0].id, changes: { note: { from: held, to: sameToken } } }] } });
    expect(otherHistory.rows[0].changes.items.changed[0].changes.note.to).toBe(otherToken);
    // It reads back as the token its plan showed.
    expect((await t.command(agent, 'order.get', { id: same.id })).body.value.items[0].note).toBe(sameToken);
  });
});
