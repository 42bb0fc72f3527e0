/**
 * What one record may not do because of others, over REST on a real server: composite and partial
 * unique indexes (both databases: the index decides, race-free, and the error names the fields
 * and the records it is among), and references from lines, which keep their targets from being
 * deleted as a record's refs do.
 *
 * The fixture modules have no partial unique and no ref in a line, so this file serves them with a
 * module of its own, `shipping`, generated into a temp folder by the real generator.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import type { Registry } from '../../runtime/registry.ts';
import { connectClient } from '../helpers/mcp-client.ts';
import { moduleTree, removeModuleTrees } from '../helpers/module-trees.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const SHIPPING = `export default {
  label: 'Shipping',
  dependsOn: ['crm', 'sales'],
  models: {
    shipment: {
      title: 'code',
      fields: {
        code: { kind: 'text', required: true },
        carrier: { kind: 'select', options: ['post', 'courier'] },
        customer: { kind: 'ref', to: 'party' },
        weight_kg: { kind: 'decimal', scale: 1 },
        reference: { kind: 'text' },
        sent_at: { kind: 'datetime' },
        tracking: { kind: 'text' },
        express: { kind: 'bool' },
        status: { kind: 'select', options: ['open', 'sent', 'closed'], governed: true },
      },
      lines: {
        parcels: {
          fields: {
            content: { kind: 'text' },
            recipient: { kind: 'ref', to: 'party' },
            follows: { kind: 'ref', to: 'shipment' },
          },
        },
      },
      unique: [
        ['carrier', 'code'],
        { fields: ['code'], where: { status: 'sent' } },
        { fields: ['customer'], where: { weight_kg: 2.5 } },
        { fields: ['reference'], where: { sent_at: '2026-01-01T10:00:00+01:00' } },
        { fields: ['tracking'], where: { express: true } },
      ],
      actions: { send: { from: 'open', to: 'sent' }, close: { from: 'sent', to: 'closed' } },
    },
  },
};
`;

let t: TestServer;
let admin: string;
let registry: Registry;

beforeAll(async () => {
  const project = moduleTree({ shipping: SHIPPING }, { copyFixtures: true });
  const out = join(project, 'generated');
  writeOutput(out, generate(await loadProject(join(project, 'modules')), out));
  registry = ((await import(pathToFileURL(join(out, 'registry.ts')).href)) as { registry: Registry }).registry;
  t = await startTestServer({ registry });
  admin = await t.login();
});

afterAll(async () => {
  await t?.close();
  removeModuleTrees();
});

async function create(model: string, input: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await t.command(admin, `${model}.create`, input);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

const count = (table: string) => t.inspect((db) => (db.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n);

describe('unique indexes over several fields, and over some records', () => {
  it('a composite unique refuses a second record with the same values of all its fields, on create and update', async () => {
    await create('shipment', { code: 'C-1', carrier: 'post' });
    const other = await create('shipment', { code: 'C-1', carrier: 'courier' });
    const before = count('shipment');
    expect(await t.command(admin, 'shipment.create', { code: 'C-1', carrier: 'post' })).toMatchObject({ status: 400, body: { error: 'shipment: carrier, code must be unique' } });
    expect(count('shipment')).toBe(before);
    expect(await t.command(admin, 'shipment.update', { id: other.id, carrier: 'post' })).toMatchObject({ status: 400, body: { error: 'shipment: carrier, code must be unique' } });
    expect((await t.command(admin, 'shipment.get', { id: other.id })).body.value.carrier).toBe('courier');
    // Empty values never collide.
    await create('shipment', { code: 'C-1' });
    await create('shipment', { code: 'C-1' });
  });

  it('a unique among some records (where: a governed state) holds only among them: an action that would repeat a value is refused', async () => {
    const first = await create('shipment', { code: 'S-1' });
    const second = await create('shipment', { code: 'S-1' });
    expect((await t.command(admin, 'shipment.send', { id: first.id })).status).toBe(200);
    const refused = await t.command(admin, 'shipment.send', { id: second.id });
    expect(refused).toMatchObject({ status: 400, body: { error: 'shipment: code must be unique among sent records' } });
    expect((await t.command(admin, 'shipment.get', { id: second.id })).body.value.status).toBe('open');
    // Once the first is no longer sent, the second may be.
    expect((await t.command(admin, 'shipment.close', { id: first.id })).status).toBe(200);
    expect((await t.command(admin, 'shipment.send', { id: second.id })).status).toBe(200);
  });

  it.each([
    ['a decimal', { weight_kg: 2.5 }, { weight_kg: 2.4 }, (party: string) => ({ customer: party }), 'shipment: customer must be unique among 2.5 records'],
    ['a datetime (written with an offset)', { sent_at: '2026-01-01T09:00:00Z' }, { sent_at: '2026-01-01T09:00:00.001Z' }, () => ({ reference: 'R-1' }), 'shipment: reference must be unique among 2026-01-01T10:00:00+01:00 records'],
    ['a bool', { express: true }, { express: false }, () => ({ tracking: 'T-1' }), 'shipment: tracking must be unique among true records'],
  ])('a unique among the records whose %s field holds a constant compares the stored value', async (_kind, inside, outside, unique, error) => {
    const party = (await create('party', { name: `Unique ${Math.random()}` })).id as string;
    await create('shipment', { code: 'W-1', ...inside, ...unique(party) });
    // Outside the condition the value may repeat…
    await create('shipment', { code: 'W-2', ...outside, ...unique(party) });
    await create('shipment', { code: 'W-3', ...unique(party) });
    // …inside, it may not.
    expect(await t.command(admin, 'shipment.create', { code: 'W-4', ...inside, ...unique(party) })).toMatchObject({ status: 400, body: { error } });
    const moved = await create('shipment', { code: 'W-5', ...unique(party) });
    expect(await t.command(admin, 'shipment.update', { id: moved.id, ...inside })).toMatchObject({ status: 400, body: { error } });
  });

  it('the indexes are partial and unique in the database', () => {
    const sql = t.dialect === 'sqlite'
      ? "select name, sql as def from sqlite_master where type = 'index' and tbl_name = 'shipment' and name like 'rms_uq_%' order by name"
      : "select indexname as name, indexdef as def from pg_indexes where tablename = 'shipment' and indexname like 'rms_uq_%' order by indexname";
    const indexes = t.inspect((db) => db.prepare(sql).all()) as { name: string; def: string }[];
    expect(indexes).toHaveLength(5);
    for (const index of indexes) expect(index.def, index.name).toMatch(/UNIQUE/i);
    const wheres = indexes.map((index) => /where\s+(.*)$/is.exec(index.def)?.[1] ?? null).filter((where) => where !== null);
    expect(wheres).toHaveLength(4);
    expect(wheres.join(' ')).toContain('25');
    expect(wheres.join(' ')).toContain('2026-01-01T09:00:00.000Z');
  });
});

describe('refs from lines', () => {
  it('a record a line refers to cannot be deleted; once the line is gone it can', async () => {
    const party = await create('party', { name: 'Recipient' });
    const shipment = await create('shipment', { code: 'L-1', parcels: [{ content: 'books' }, { content: 'tea', recipient: party.id }] });
    const refused = await t.command(admin, 'party.delete', { id: party.id });
    expect(refused).toMatchObject({ status: 400, body: { error: `party ${party.id} is referred to by shipment ${shipment.id}` } });
    expect((await t.command(admin, 'party.get', { id: party.id })).status).toBe(200);
    expect((await t.command(admin, 'shipment.update', { id: shipment.id, parcels: [{ id: shipment.parcels[0].id }] })).status).toBe(200);
    expect((await t.command(admin, 'party.delete', { id: party.id })).status).toBe(200);
  });

  it('a line refers to a record of its own model: that one is kept, while a line of a record referring to the record itself does not keep it', async () => {
    const first = await create('shipment', { code: 'F-1' });
    const second = await create('shipment', { code: 'F-2', parcels: [{ content: 'rest', follows: first.id }] });
    expect(await t.command(admin, 'shipment.delete', { id: first.id })).toMatchObject({ status: 400, body: { error: `shipment ${first.id} is referred to by shipment ${second.id}` } });
    const self = await t.command(admin, 'shipment.update', { id: second.id, parcels: [{ content: 'loop', follows: second.id }] });
    expect(self.status, JSON.stringify(self.body)).toBe(200);
    expect((await t.command(admin, 'shipment.delete', { id: second.id })).status).toBe(200);
    expect(t.inspect((db) => db.prepare('select count(*) as n from shipment__parcels where owner = ?').get(second.id))).toEqual({ n: 0 });
    expect((await t.command(admin, 'shipment.delete', { id: first.id })).status).toBe(200);
  });

  it('a line\'s ref must name a record of its target, the error naming the line', async () => {
    const before = count('shipment');
    const res = await t.command(admin, 'shipment.create', { code: 'N-1', parcels: [{ content: 'a' }, { content: 'b', recipient: 'nope' }] });
    expect(res).toMatchObject({ status: 400, body: { error: 'shipment.parcels[1].recipient: no party with id nope' } });
    expect(count('shipment')).toBe(before);
    const shipment = await create('shipment', { code: 'N-2', parcels: [{ content: 'a' }] });
    const updated = await t.command(admin, 'shipment.update', { id: shipment.id, parcels: [{ content: 'new' }, { id: shipment.parcels[0].id, recipient: 'gone' }] });
    expect(updated).toMatchObject({ status: 400, body: { error: 'shipment.parcels[1].recipient: no party with id gone' } });
  });

  it('the delete tool says which fields of lines keep a record', async () => {
    const mcp = await connectClient(t, admin);
    try {
      const tool = (await mcp.client.listTools()).tools.find((candidate) => candidate.name === 'party__delete')!;
      expect(tool.description).toContain('(lead.party, invoice.party, order.customer, shipment.customer, shipment.parcels.recipient)');
    } finally {
      await mcp.close();
    }
  });
});
