/**
 * The field kinds of records with depth — decimal, datetime, email, url, phone, multiselect — over
 * REST and MCP on a real server: their values in and out and as stored, their checks and refusals,
 * filters and order (datetimes as instants, multiselects by option), history; and `personal` on
 * every kind: agents see tokens (strings, whatever the kind) that cannot be filtered or ordered, a
 * token sent back stands for its value, and `token_filter` finds records by one.
 *
 * The fixture modules have no phone field and few personal kinds, so this file serves them with a
 * module of its own, `specimens` (a field of each kind, and a personal one of each), generated into
 * a temp folder by the real generator.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import type { Registry } from '../../runtime/registry.ts';
import { connectClient } from '../helpers/mcp-client.ts';
import { moduleTree, removeModuleTrees } from '../helpers/module-trees.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

const SPECIMENS = `export default {
  label: 'Specimens',
  dependsOn: ['crm'],
  models: {
    specimen: {
      title: 'name',
      fields: {
        name: { kind: 'text', required: true },
        amount: { kind: 'decimal', scale: 2, min: -1000, max: 1000 },
        fine: { kind: 'decimal', scale: 6 },
        whole: { kind: 'decimal', scale: 0 },
        at: { kind: 'datetime', min: '2000-01-01T00:00:00Z' },
        email: { kind: 'email', personal: false, length: 40 },
        site: { kind: 'url' },
        phone: { kind: 'phone', personal: false },
        tags: { kind: 'multiselect', options: ['red', 'green', 'blue'] },
        code: { kind: 'text', pattern: '[a-z]{3}' },
        secret_amount: { kind: 'decimal', scale: 3, personal: true },
        secret_at: { kind: 'datetime', personal: true },
        secret_email: { kind: 'email' },
        secret_site: { kind: 'url', personal: true },
        secret_phone: { kind: 'phone' },
        secret_tags: { kind: 'multiselect', options: ['red', 'green', 'blue'], personal: true },
        secret_date: { kind: 'date', personal: true },
        secret_number: { kind: 'number', personal: true },
        secret_money: { kind: 'money', personal: true },
        secret_bool: { kind: 'bool', personal: true },
        secret_select: { kind: 'select', options: ['low', 'high'], personal: true },
        secret_party: { kind: 'ref', to: 'party', personal: true },
      },
      lines: {
        parts: { fields: { label: { kind: 'text' }, weight: { kind: 'decimal', scale: 1 }, seen_at: { kind: 'datetime', personal: true } } },
      },
    },
  },
};
`;

let t: TestServer;
let admin: string;
let agent: string;
let registry: Registry;
let party: string;

beforeAll(async () => {
  const project = moduleTree({ specimens: SPECIMENS }, { copyFixtures: true });
  const out = join(project, 'generated');
  writeOutput(out, generate(await loadProject(join(project, 'modules')), out));
  registry = ((await import(pathToFileURL(join(out, 'registry.ts')).href)) as { registry: Registry }).registry;
  t = await startTestServer({ registry });
  admin = await t.login();
  agent = await agentToken(t, admin, ['specimen.*'], 'kind reader');
  party = (await t.command(admin, 'party.create', { name: 'Kind Party' })).body.value.id;
});

afterAll(async () => {
  await t?.close();
  removeModuleTrees();
});

let names = 0;

async function create(input: Record<string, unknown>, token = admin): Promise<Record<string, any>> {
  const res = await t.command(token, 'specimen.create', { name: `Specimen ${++names}`, ...input });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

const column = (id: string, name: string) => (t.inspect((db) => db.prepare(`select "${name}" as v from specimen where id = ?`).get(id)) as { v: unknown }).v;

describe('values in, out and stored', () => {
  it.each([
    ['decimal', 'amount', 12.5, 12.5, 1250],
    ['decimal, negative', 'amount', -0.01, -0.01, -1],
    ['decimal, 0.1 + 0.2 written as 0.3', 'amount', 0.3, 0.3, 30],
    ['decimal, scale 6', 'fine', 0.000001, 0.000001, 1],
    ['decimal, scale 6, large', 'fine', 123456789.123456, 123456789.123456, 123456789123456],
    ['decimal, scale 0', 'whole', 42, 42, 42],
    ['decimal, 15 digits', 'whole', 999999999999999, 999999999999999, 999999999999999],
    ['datetime at the widest offset', 'at', '2026-11-26T14:30:00+23:59', '2026-11-25T14:31:00.000Z', '2026-11-25T14:31:00.000Z'],
    ['datetime with an offset', 'at', '2026-11-26T14:30:00+01:00', '2026-11-26T13:30:00.000Z', '2026-11-26T13:30:00.000Z'],
    ['datetime without seconds', 'at', '2026-11-26T14:30Z', '2026-11-26T14:30:00.000Z', '2026-11-26T14:30:00.000Z'],
    ['datetime with a fraction', 'at', '2026-11-26T14:30:00.123456-05:30', '2026-11-26T20:00:00.123Z', '2026-11-26T20:00:00.123Z'],
    ['datetime across a day', 'at', '2026-12-31T23:30:00-01:00', '2027-01-01T00:30:00.000Z', '2027-01-01T00:30:00.000Z'],
    ['email', 'email', 'ann@example.org', 'ann@example.org', 'ann@example.org'],
    ['url', 'site', 'https://example.org/a?b=c#d', 'https://example.org/a?b=c#d', 'https://example.org/a?b=c#d'],
    ['phone', 'phone', '+31 (20) 123-4567', '+31 (20) 123-4567', '+31 (20) 123-4567'],
    ['multiselect, in the options\' order', 'tags', ['blue', 'red'], ['red', 'blue'], '["red","blue"]'],
    ['multiselect, none', 'tags', [], null, null],
  ])('%s: %j', async (_case, field, given, answered, stored) => {
    const record = await create({ [field]: given });
    expect(record[field]).toEqual(answered);
    expect(column(record.id, field)).toEqual(stored);
    expect((await t.command(admin, 'specimen.get', { id: record.id })).body.value[field]).toEqual(answered);
  });

  it('stores a decimal as an integer column (bigint), a datetime and a multiselect as text', () => {
    const sql = t.dialect === 'sqlite'
      ? "select name, type from pragma_table_info('specimen') where name in ('amount', 'at', 'tags') order by name"
      : "select column_name as name, data_type as type from information_schema.columns where table_name = 'specimen' and column_name in ('amount', 'at', 'tags') order by column_name";
    const types = Object.fromEntries((t.inspect((db) => db.prepare(sql).all()) as { name: string; type: string }[]).map((row) => [row.name, row.type.toLowerCase()]));
    expect(types).toEqual({ amount: 'bigint', at: 'text', tags: 'text' });
  });

  it.each([
    [{ amount: 1.005 }, 'specimen.amount has at most 2 decimal places'],
    [{ whole: 1.5 }, 'specimen.whole has at most 0 decimal places'],
    // Past 15 digits a JSON number may not be read as written (9007199254740.991 reads as …740.99).
    [{ fine: 1234567890.123456 }, 'specimen.fine is too large'],
    [{ whole: 1e15 }, 'specimen.whole is too large'],
    [{ whole: -1e15 }, 'specimen.whole is too large'],
    [{ at: '2026-11-26T14:30:00+24:00' }, 'specimen.at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    [{ at: '2026-11-26T14:30:00-05:60' }, 'specimen.at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    [{ amount: '12.5' }, 'specimen.amount must be a number'],
    [{ amount: -1000.01 }, 'specimen.amount must be at least -1000'],
    [{ amount: 1000.01 }, 'specimen.amount must be at most 1000'],
    [{ at: '2026-11-26T14:30:00' }, 'specimen.at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    [{ at: '2026-02-30T10:00:00Z' }, 'specimen.at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    [{ at: '2026-11-26' }, 'specimen.at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    [{ at: '1999-12-31T23:59:59Z' }, 'specimen.at must be at least 2000-01-01T00:00:00.000Z'],
    [{ email: 'not an address' }, 'specimen.email must be an email address'],
    [{ email: 'ann@localhost' }, 'specimen.email must be an email address'],
    [{ email: `${'a'.repeat(30)}@example.org` }, 'specimen.email must be at most 40 characters'],
    [{ site: 'ftp://example.org' }, 'specimen.site must be a URL'],
    [{ site: 'javascript:alert(1)' }, 'specimen.site must be a URL'],
    // Forms URL parsing would read as another URL than the one written, or that carry a password.
    [{ site: 'http:example.org' }, 'specimen.site must be a URL'],
    [{ site: 'http:/example.org' }, 'specimen.site must be a URL'],
    [{ site: 'http:///example.org' }, 'specimen.site must be a URL'],
    [{ site: 'https://x.org:0' }, 'specimen.site must be a URL'],
    [{ site: 'https://user:pw@x.org' }, 'specimen.site must be a URL'],
    [{ site: 'https://x.org/\\evil' }, 'specimen.site must be a URL'],
    [{ email: 'ann<ann@x.org>' }, 'specimen.email must be an email address'],
    [{ email: 'mailto:ann@x.org' }, 'specimen.email must be an email address'],
    [{ email: '.ann@x.org' }, 'specimen.email must be an email address'],
    [{ email: 'ann.@x.org' }, 'specimen.email must be an email address'],
    [{ email: 'ann@-x.org' }, 'specimen.email must be an email address'],
    [{ email: 'a..b@x.org' }, 'specimen.email must be an email address'],
    [{ site: 'example.org' }, 'specimen.site must be a URL'],
    [{ phone: '12345' }, 'specimen.phone must be a phone number'],
    [{ phone: '+1 555 CALL NOW' }, 'specimen.phone must be a phone number'],
    [{ phone: '1'.repeat(21) }, 'specimen.phone must be a phone number'],
    [{ tags: ['red', 'red'] }, 'specimen.tags lists red twice'],
    [{ tags: ['pink'] }, 'specimen.tags must list options of: red, green, blue'],
    [{ tags: 'red' }, 'specimen.tags must be a list of options of: red, green, blue'],
    [{ code: 'ABC' }, 'specimen.code does not match the required pattern'],
    [{ code: 'abcd' }, 'specimen.code does not match the required pattern'],
  ])('refuses %j: %s, and stores nothing', async (input, error) => {
    const before = t.inspect((db) => (db.prepare('select count(*) as n from specimen').get() as { n: number }).n);
    const res = await t.command(admin, 'specimen.create', { name: 'Refused', ...input });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
    expect(t.inspect((db) => (db.prepare('select count(*) as n from specimen').get() as { n: number }).n)).toBe(before);
  });

  it('an update takes the same values, and history shows them as the API does', async () => {
    const record = await create({ amount: 1.5, at: '2026-01-01T00:00:00Z', tags: ['green'] });
    const updated = await t.command(admin, 'specimen.update', { id: record.id, amount: 2.25, at: '2026-01-01T12:00:00+12:00', tags: ['blue', 'green'] });
    expect(updated.body.value).toMatchObject({ amount: 2.25, at: '2026-01-01T00:00:00.000Z', tags: ['green', 'blue'] });
    const [change] = (await t.command(admin, 'specimen.history', { id: record.id })).body.value.rows;
    // The datetime names the same instant: not a change.
    expect(change.changes).toEqual({ amount: { from: 1.5, to: 2.25 }, tags: { from: ['green'], to: ['green', 'blue'] } });
  });
});

describe('filters and order', () => {
  const tag = `kinds${Date.now()}`;
  let a: Record<string, any>;
  let b: Record<string, any>;
  let c: Record<string, any>;
  beforeAll(async () => {
    // Instants in another order than their texts: b is earliest, though written latest in the day.
    a = await create({ code: 'aaa', site: `https://${tag}.example.org/a`, amount: 12.5, at: '2026-11-26T14:00:00+01:00', tags: ['red'], email: 'a@example.org', phone: '+31 20 111 1111' });
    b = await create({ code: 'bbb', site: `https://${tag}.example.org/b`, amount: 3, at: '2026-11-26T20:00:00+10:00', tags: ['green', 'blue'] });
    c = await create({ code: 'ccc', site: `https://${tag}.example.org/c`, amount: 12.49, at: '2026-11-26T08:30:00-05:00', tags: [] });
  });

  const ids = async (condition: unknown, order: unknown[] = [{ field: 'code' }]) => {
    const res = await t.command(admin, 'specimen.list', { filter: [{ field: 'site', op: 'contains', value: tag }, condition], order });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.value.map((row: { id: string }) => row.id);
  };

  it.each([
    [{ field: 'amount', op: 'eq', value: 12.5 }, () => [a.id]],
    [{ field: 'amount', op: 'gt', value: 12.49 }, () => [a.id]],
    [{ field: 'amount', op: 'lte', value: 12.49 }, () => [b.id, c.id]],
    [{ field: 'amount', op: 'in', value: [3, 12.49] }, () => [b.id, c.id]],
    [{ field: 'at', op: 'gt', value: '2026-11-26T14:00:00+02:00' }, () => [a.id, c.id]],
    [{ field: 'at', op: 'eq', value: '2026-11-26T13:00:00Z' }, () => [a.id]],
    [{ field: 'at', op: 'lt', value: '2026-11-26T12:00:00.000Z' }, () => [b.id]],
    // Finer than the milliseconds stored (a's is 13:00:00.000): such an instant lies between two of them.
    [{ field: 'at', op: 'gte', value: '2026-11-26T13:00:00.0001Z' }, () => [c.id]],
    [{ field: 'at', op: 'lt', value: '2026-11-26T13:00:00.0001Z' }, () => [a.id, b.id]],
    [{ field: 'at', op: 'gt', value: '2026-11-26T12:59:59.9995Z' }, () => [a.id, c.id]],
    [{ field: 'at', op: 'lte', value: '2026-11-26T12:59:59.9995Z' }, () => [b.id]],
    [{ field: 'at', op: 'eq', value: '2026-11-26T13:00:00.000400Z' }, () => []],
    [{ field: 'at', op: 'eq', value: '2026-11-26T13:00:00.000000Z' }, () => [a.id]],
    [{ field: 'at', op: 'ne', value: '2026-11-26T14:00:00.000400+01:00' }, () => [a.id, b.id, c.id]],
    [{ field: 'at', op: 'in', value: ['2026-11-26T13:00:00.0004Z', '2026-11-26T10:00:00Z'] }, () => [b.id]],
    [{ field: 'at', op: 'in', value: ['2026-11-26T13:00:00.0004Z'] }, () => []],
    [{ field: 'email', op: 'contains', value: 'A@EXAMPLE' }, () => [a.id]],
    [{ field: 'phone', op: 'contains', value: '111' }, () => [a.id]],
    [{ field: 'tags', op: 'contains', value: 'blue' }, () => [b.id]],
    [{ field: 'tags', op: 'in', value: ['red', 'blue'] }, () => [a.id, b.id]],
    [{ field: 'tags', op: 'eq', value: ['blue', 'green'] }, () => [b.id]],
    [{ field: 'tags', op: 'ne', value: ['red'] }, () => [b.id, c.id]],
    [{ field: 'tags', op: 'is_null' }, () => [c.id]],
  ])('%j', async (condition, expected) => {
    expect(await ids(condition)).toEqual(expected());
  });

  it('orders decimals as numbers and datetimes as instants', async () => {
    expect(await ids({ field: 'amount', op: 'is_null', value: false }, [{ field: 'amount', dir: 'desc' }])).toEqual([a.id, c.id, b.id]);
    expect(await ids({ field: 'at', op: 'is_null', value: false }, [{ field: 'at' }])).toEqual([b.id, a.id, c.id]);
  });

  it('pages with a cursor through an order on each kind', async () => {
    for (const field of ['amount', 'at', 'email']) {
      const seen: string[] = [];
      let after = '';
      for (let page = 0; page < 5; page++) {
        const res = await t.command(admin, 'specimen.list', { filter: [{ field: 'site', op: 'contains', value: tag }], order: [{ field }], limit: 1, after });
        expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(200);
        seen.push(...res.body.value.map((row: { id: string }) => row.id));
        if (!res.body.next) break;
        after = res.body.next;
      }
      expect([...seen].sort(), field).toEqual([a.id, b.id, c.id].sort());
    }
  });

  it.each([
    [{ field: 'tags', op: 'gt', value: 'red' }, 'specimen.tags: gt is not allowed on multiselect fields'],
    [{ field: 'tags', op: 'contains', value: 'pink' }, 'specimen.tags must be one of: red, green, blue'],
    [{ field: 'amount', op: 'eq', value: 1.001 }, 'specimen.amount has at most 2 decimal places'],
    [{ field: 'at', op: 'gt', value: '2026-11-26' }, 'specimen.at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    [{ field: 'amount', op: 'contains', value: '1' }, 'specimen.amount: contains works on text fields only'],
  ])('refuses %j: %s', async (condition, error) => {
    expect(await t.command(admin, 'specimen.list', { filter: [condition] })).toMatchObject({ status: 400, body: { error } });
  });

  it('does not order by a multiselect, as by no file: its list as text orders nothing anyone means', async () => {
    for (const order of [[{ field: 'tags' }], [{ field: 'amount' }, { field: 'tags', dir: 'desc' }]]) {
      for (const command of ['specimen.list', 'specimen.search']) {
        const res = await t.command(admin, command, { order });
        expect([res.status, res.body], command).toEqual([400, { error: 'specimen.tags: multiselect fields cannot be ordered by' }]);
      }
    }
  });
});

describe('personal, of every kind', () => {
  const secrets: Record<string, unknown> = {
    secret_amount: 7.125,
    secret_at: '2026-03-04T05:06:07+02:00',
    secret_email: 'hidden@example.org',
    secret_site: 'https://hidden.example.org/',
    secret_phone: '+44 20 7946 0958',
    secret_tags: ['green', 'red'],
    secret_date: '1980-02-29',
    secret_number: 424242,
    secret_money: 999_99,
    secret_bool: true,
    secret_select: 'high',
  };
  const clear: Record<string, unknown> = { ...secrets, secret_at: '2026-03-04T03:06:07.000Z', secret_tags: ['red', 'green'] };
  const label = (field: string) => field.toUpperCase();
  let source: Record<string, any>;

  beforeAll(async () => {
    source = await create({ ...secrets, secret_party: party, parts: [{ label: 'p', weight: 1.5, seen_at: '2026-01-01T00:00:00Z' }] });
  });

  it('an agent sees a token for each, a string whatever the kind, in reads and history; never the value', async () => {
    const read = await t.command(agent, 'specimen.get', { id: source.id });
    expect(read.status).toBe(200);
    for (const field of [...Object.keys(secrets), 'secret_party']) expect(read.body.value[field], field).toMatch(new RegExp(`^${label(field)}_\\d+$`));
    expect(read.body.value.parts[0].seen_at).toMatch(/^SEEN_AT_\d+$/);
    const history = await t.command(agent, 'specimen.history', { id: source.id });
    const [created] = history.body.value.rows;
    for (const field of Object.keys(secrets)) expect(created.changes[field].to, field).toBe(read.body.value[field]);
    expect(created.changes.parts.added[0].seen_at).toBe(read.body.value.parts[0].seen_at);
    const text = JSON.stringify([read.body, history.body]);
    for (const value of ['hidden@example.org', '7.125', '424242', '99999', '1980-02-29', '0958', 'hidden.example.org', '2026-03-04', '2026-01-01T00:00:00']) expect(text).not.toContain(value);
  });

  it('equal values show one token, on any record; other values another', async () => {
    const same = await create({ secret_amount: 7.125, secret_date: '1980-02-29', secret_tags: ['red', 'green'], secret_bool: true });
    const other = await create({ secret_amount: 7.124, secret_date: '1980-03-01', secret_tags: ['red'], secret_bool: false });
    const [a, b, c] = await Promise.all([source, same, other].map(async (record) => (await t.command(agent, 'specimen.get', { id: record.id })).body.value));
    for (const field of ['secret_amount', 'secret_date', 'secret_tags', 'secret_bool']) {
      expect(b[field], field).toBe(a[field]);
      expect(c[field], field).not.toBe(a[field]);
    }
  });

  it.each(['secret_amount', 'secret_at', 'secret_tags', 'secret_date', 'secret_number', 'secret_bool', 'secret_party'])('%s cannot be filtered or ordered by an agent', async (field) => {
    const message = `unknown field specimen.${field}: it is personal data, masked for you, so it cannot be filtered or ordered by its value; to find records by it, use token_filter with eq or in and a masking token you were given`;
    expect(await t.command(agent, 'specimen.list', { filter: [{ field, op: 'is_null' }] })).toMatchObject({ status: 400, body: { error: message } });
    expect(await t.command(agent, 'specimen.list', { order: [{ field }] })).toMatchObject({ status: 400, body: { error: message } });
  });

  it('a token sent back stands for its value, of every kind; token_filter finds the records that show it', async () => {
    const read = (await t.command(agent, 'specimen.get', { id: source.id })).body.value;
    const fields = [...Object.keys(secrets), 'secret_party'];
    const tokens = Object.fromEntries(fields.map((field) => [field, read[field]]));
    const copy = await t.command(agent, 'specimen.create', { name: 'Copied by token', ...tokens, parts: [{ label: 'q', seen_at: read.parts[0].seen_at }] });
    expect(copy.status, JSON.stringify(copy.body)).toBe(200);
    // The agent sees its tokens again; a person the values.
    for (const field of fields) expect(copy.body.value[field], field).toBe(tokens[field]);
    const stored = (await t.command(admin, 'specimen.get', { id: copy.body.value.id })).body.value;
    for (const field of Object.keys(secrets)) expect(stored[field], field).toEqual(clear[field]);
    expect(stored.secret_party).toBe(party);
    expect(stored.parts[0].seen_at).toBe('2026-01-01T00:00:00.000Z');
    for (const field of fields) {
      const found = await t.command(agent, 'specimen.list', { token_filter: [{ field, op: 'eq', value: tokens[field] }], filter: [{ field: 'name', op: 'in', value: [source.name, 'Copied by token'] }] });
      expect(found.status, `${field}: ${JSON.stringify(found.body)}`).toBe(200);
      expect(found.body.value.map((row: { id: string }) => row.id).sort(), field).toEqual([source.id, copy.body.value.id].sort());
    }
  });

  it('a value an agent writes in clear gets a fresh token of its own, never the one it holds for an equal value', async () => {
    const shown = (await t.command(agent, 'specimen.get', { id: source.id })).body.value;
    const guess = await t.command(agent, 'specimen.create', { name: 'Guess', ...secrets });
    expect(guess.status, JSON.stringify(guess.body)).toBe(200);
    for (const field of Object.keys(secrets)) {
      expect(guess.body.value[field], field).toMatch(new RegExp(`^${label(field)}_\\d+$`));
      expect(guess.body.value[field], field).not.toBe(shown[field]);
    }
    expect((await t.command(agent, 'specimen.get', { id: guess.body.value.id })).body.value).toEqual(guess.body.value);
    expect((await t.command(agent, 'specimen.get', { id: source.id })).body.value).toEqual(shown);
  });
});

describe('MCP', () => {
  it("describes each kind in the record schema (the caller's OpenAPI document; MCP tools have none), a personal one as a token to an agent, and MCP results pass it", async () => {
    const people = await connectClient(t, admin);
    const agents = await connectClient(t, agent);
    try {
      const schemaOf = async (client: typeof people, name: string) => (await client.client.listTools()).tools.find((tool) => tool.name === name)!;
      const documentOf = async (token: string) => (await t.request('GET', '/api/openapi.json', undefined, token)).body;
      const recordOf = (document: any) => document.components.schemas.SpecimenRecord;
      const record = recordOf(await documentOf(admin)).properties;
      expect(record.amount).toMatchObject({ type: ['number', 'null'], description: expect.stringContaining('at most 2 decimals') });
      // No multipleOf: with it, a validator's default settings refused 33.33 (33.33 / 0.01 in floating point).
      expect(record.amount.multipleOf).toBeUndefined();
      for (const amount of [33.33, 1.13, 0.07, 2.67]) expect(new Ajv2020({ strict: false }).validate(record.amount, amount), String(amount)).toBe(true);
      expect(record.at).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
      expect(record.email).toMatchObject({ format: 'email' });
      expect(record.site).toMatchObject({ format: 'uri' });
      expect(record.phone.pattern).toBeDefined();
      expect(record.tags).toMatchObject({ type: ['array', 'null'], items: { enum: ['red', 'green', 'blue'] }, uniqueItems: true });
      expect(record.secret_amount).toMatchObject({ type: ['number', 'null'] });
      const agentDocument = await documentOf(agent);
      const masked = recordOf(agentDocument).properties;
      for (const field of ['secret_amount', 'secret_at', 'secret_email', 'secret_tags', 'secret_bool', 'secret_party']) {
        expect(masked[field], field).toMatchObject({ type: ['string', 'null'], pattern: `^${field.toUpperCase()}_[1-9][0-9]*$` });
      }
      expect(masked.parts.items.properties.seen_at).toMatchObject({ type: ['string', 'null'], pattern: '^SEEN_AT_[1-9][0-9]*$' });
      expect(masked.amount).toEqual(record.amount);
      expect((await schemaOf(agents, 'specimen__get')).outputSchema).toBeUndefined();
      const input = ((await schemaOf(agents, 'specimen__create')).inputSchema as any).properties;
      expect(input.secret_amount.anyOf).toContainEqual({ type: 'string', pattern: '^SECRET_AMOUNT_[1-9][0-9]*$' });
      const ajv = new Ajv2020({ strict: false });
      const fitsRecord = (value: unknown) => ajv.validate({ allOf: [recordOf(agentDocument)], components: agentDocument.components }, value);
      const created = (await agents.client.callTool({ name: 'specimen__create', arguments: { name: 'By MCP', secret_amount: 1.5, secret_tags: ['blue'], amount: 1.25, at: '2026-05-05T05:05:05+05:00', parts: [{ seen_at: '2026-01-01T00:00:00Z' }] } })) as CallToolResult;
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      const value = (created.structuredContent as { value: Record<string, any> }).value;
      expect(value).toMatchObject({ amount: 1.25, at: '2026-05-05T00:05:05.000Z', secret_amount: expect.stringMatching(/^SECRET_AMOUNT_\d+$/) });
      expect(fitsRecord(value), ajv.errorsText()).toBe(true);
      const listed = (await agents.client.callTool({ name: 'specimen__list', arguments: { include: ['parts'], limit: 50 } })) as CallToolResult;
      expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
      for (const row of (listed.structuredContent as { value: unknown[] }).value) expect(fitsRecord(row), ajv.errorsText()).toBe(true);
      const history = (await agents.client.callTool({ name: 'specimen__history', arguments: { id: value.id } })) as CallToolResult;
      expect(history.isError, JSON.stringify(history.content)).toBeFalsy();
    } finally {
      await people.close();
      await agents.close();
    }
  });
});
