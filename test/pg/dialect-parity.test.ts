/**
 * The same calls on SQLite and on PostgreSQL give the same answers: one server on each, seeded
 * identically, then every filter operator, `contains` with Unicode case and literal `%`/`_`/`\`,
 * ordering with empty values last in both directions and ties by id, paging, and the JSON form
 * of each kind (bigint as number, bool as true/false, dates as `YYYY-MM-DD` strings).
 * Ids differ between the two databases, so answers are compared with each id replaced by the
 * name of the record it belongs to.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { PG_SKIP_NOTE, PG_URL } from '../helpers/pg-env.ts';

interface Side {
  readonly name: string;
  server: TestServer;
  token: string;
  /** id → seed name */
  readonly names: Map<string, string>;
  /** seed name → id */
  readonly ids: Map<string, string>;
}

const PARTIES: [string, Record<string, unknown>][] = [
  ['P_ecole_upper', { name: 'ÉCOLE Normale', email: 'Office@Ecole.example' }],
  ['P_ecole_lower', { name: 'petite école du Louvre' }],
  ['P_ecole_plain', { name: 'Ecole sans accent', email: 'b@example.org' }],
  ['P_istanbul_dot', { name: 'İSTANBUL Ltd' }],
  ['P_istanbul', { name: 'istanbul kebab', email: 'a@example.org' }],
  ['P_sigma_upper', { name: 'ΟΔΟΣ Αθηνάς' }],
  ['P_sigma_lower', { name: 'οδοσ' }],
  ['P_percent', { name: '100% Pure' }],
  ['P_thousand', { name: '1000 Pure' }],
  ['P_underscore', { name: 'a_b corp' }],
  ['P_x', { name: 'aXb corp', email: 'Zed@example.org' }],
  ['P_backslash', { name: 'back\\slash' }],
  ['P_strasse', { name: 'Hauptstraße 5' }],
  ['P_STRASSE', { name: 'HAUPTSTRASSE 7' }],
  ['P_angstrom', { name: 'Ångström AB' }],
  ['P_emoji', { name: '😀 Smile Inc' }],
  ['P_Apple', { name: 'Apple' }],
  ['P_apple', { name: 'apple' }],
  ['P_Zebra', { name: 'Zebra', email: 'zebra@example.org' }],
];

const BIG = 2 ** 40;
const LEADS: [string, Record<string, unknown>][] = [
  ['L1', { title: 'Alpha', probability: 10, expected_revenue: 1000, close_date: '2025-01-10', hot: true, notes: 'ÉCOLE du Nord', party: 'P_Apple' }],
  ['L2', { title: 'beta 100%', probability: 20, expected_revenue: BIG, close_date: '2025-02-01', hot: false, notes: 'petite école', party: 'P_apple' }],
  ['L3', { title: 'Gamma_x' }],
  ['L4', { title: 'back\\slash', probability: -30, hot: true, notes: 'STRASSE 5', party: 'P_Zebra' }],
  ['L5', { title: 'delta', probability: 20, expected_revenue: 500, close_date: '2024-12-31', hot: false, notes: 'Hauptstraße' }],
  ['L6', { title: 'delta', probability: 20, expected_revenue: -BIG, close_date: '2024-02-29', notes: 'Ωmega' }],
  ['L7', { title: 'Éclair', close_date: '2025-01-10', hot: true }],
  ['L8', { title: 'éclair', probability: 0, expected_revenue: 0, hot: false }],
];

const sides: Side[] = [];
let dir: string;

async function seed(side: Side): Promise<void> {
  const remember = (name: string, id: string) => {
    side.ids.set(name, id);
    side.names.set(id, name);
  };
  for (const [name, fields] of PARTIES) {
    const res = await side.server.command(side.token, 'party.create', fields);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    remember(name, res.body.value.id);
  }
  for (const [name, fields] of LEADS) {
    const input = { ...fields };
    if (typeof input.party === 'string') input.party = side.ids.get(input.party);
    const res = await side.server.command(side.token, 'lead.create', input);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    remember(name, res.body.value.id);
  }
  expect((await side.server.command(side.token, 'lead.qualify', { id: side.ids.get('L4') })).status).toBe(200);
  expect((await side.server.command(side.token, 'lead.lose', { id: side.ids.get('L8'), lost_reason: 'price' })).status).toBe(200);
}

/** The answer with every id of a seeded record replaced by its seed name. */
function named(side: Side, value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/[0-9A-HJKMNP-TV-Z]{26}/g, (id) => side.names.get(id) ?? id);
  if (Array.isArray(value)) return value.map((item) => named(side, item));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, named(side, item)]));
  return value;
}

/** The input for one database: `@<seed name>` replaced by that record's id there. */
function withIds(side: Side, value: unknown): unknown {
  if (typeof value === 'string' && value.startsWith('@')) return side.ids.get(value.slice(1)) ?? value;
  if (Array.isArray(value)) return value.map((item) => withIds(side, item));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withIds(side, item)]));
  return value;
}

/** Runs the call on both databases; expects the same status and (named) body, and returns it. */
async function same(commandId: string, input: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const answers = [];
  for (const side of sides) {
    const res = await side.server.command(side.token, commandId, withIds(side, input) as Record<string, unknown>);
    answers.push({ status: res.status, body: named(side, res.body) });
  }
  expect(answers[1], `${commandId} ${JSON.stringify(input)} on ${sides[1]!.name}`).toEqual(answers[0]);
  return answers[0]!;
}

/** Seed names `list` returns, in order, after checking both databases agree. */
async function listed(model: string, input: Record<string, unknown>): Promise<string[]> {
  const answer = await same(`${model}.list`, input);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.value.map((row: { id: string }) => row.id);
}

const contains = (value: string) => listed('party', { filter: [{ field: 'name', op: 'contains', value }] });

describe.skipIf(!PG_URL)(`the same calls on SQLite and PostgreSQL give the same answers${PG_SKIP_NOTE}`, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmsgen-parity-'));
    const sqlite = await startTestServer({ dbUrl: `sqlite:${join(dir, 'parity.sqlite')}` });
    const postgres = await startTestServer();
    expect(postgres.dbUrl).toMatch(/^postgres/);
    for (const [name, server] of [
      ['sqlite', sqlite],
      ['postgres', postgres],
    ] as const) {
      const side: Side = { name, server, token: await server.login(), names: new Map(), ids: new Map() };
      sides.push(side);
      await seed(side);
    }
  });

  afterAll(async () => {
    for (const side of sides) await side.server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('contains is case-insensitive for all of Unicode', async () => {
    expect(await contains('école')).toEqual(['P_ecole_upper', 'P_ecole_lower']);
    expect(await contains('ÉCOLE')).toEqual(['P_ecole_upper', 'P_ecole_lower']);
    expect(await contains('ecole')).toEqual(['P_ecole_plain']);
    expect(await contains('ångström')).toEqual(['P_angstrom']);
    expect(await contains('straße')).toEqual(['P_strasse']);
    expect(await contains('strasse')).toEqual(['P_STRASSE']);
    expect(await contains('😀')).toEqual(['P_emoji']);
    // Dotted capital I and final sigma fold as JavaScript's toLowerCase does, on both databases.
    for (const value of ['İSTANBUL', 'istanbul', 'i̇stanbul', 'ΟΔΟΣ', 'οδος', 'οδοσ', 'Σ', 'σ', 'ς']) await contains(value);
    expect(await contains('İSTANBUL')).toEqual(['P_istanbul_dot']);
  });

  it('contains takes %, _ and \\ literally', async () => {
    expect(await contains('%')).toEqual(['P_percent']);
    expect(await contains('0%')).toEqual(['P_percent']);
    expect(await contains('_')).toEqual(['P_underscore']);
    expect(await contains('a_b')).toEqual(['P_underscore']);
    expect(await contains('\\')).toEqual(['P_backslash']);
    expect(await contains('\\s')).toEqual(['P_backslash']);
    expect(await listed('lead', { filter: [{ field: 'title', op: 'contains', value: '%' }] })).toEqual(['L2']);
    expect(await listed('lead', { filter: [{ field: 'notes', op: 'contains', value: 'STRASSE' }] })).toEqual(['L4']);
  });

  it('orders text by code point, empty values last in both directions, ties by id', async () => {
    const byName = await listed('party', { order: [{ field: 'name' }] });
    expect(byName.slice(0, 3)).toEqual(['P_percent', 'P_thousand', 'P_Apple']);
    await listed('party', { order: [{ field: 'name', dir: 'desc' }] });
    for (const dir of ['asc', 'desc']) {
      const byEmail = await listed('party', { order: [{ field: 'email', dir }] });
      expect(byEmail.slice(-PARTIES.filter(([, p]) => !p.email).length).every((name) => !PARTIES.find(([n]) => n === name)![1].email)).toBe(true);
    }
    for (const field of ['title', 'probability', 'expected_revenue', 'close_date', 'hot', 'stage', 'party', 'notes', 'id']) {
      for (const dir of ['asc', 'desc']) await listed('lead', { order: [{ field, dir }] });
    }
    expect(await listed('lead', { order: [{ field: 'probability', dir: 'desc' }] })).toEqual(['L2', 'L5', 'L6', 'L1', 'L8', 'L4', 'L3', 'L7']);
    expect(await listed('lead', { order: [{ field: 'hot', dir: 'desc' }, { field: 'title', dir: 'desc' }] })).toEqual(['L7', 'L4', 'L1', 'L8', 'L5', 'L2', 'L6', 'L3']);
    expect(await listed('lead', { order: [{ field: 'title' }, { field: 'close_date', dir: 'desc' }] })).toEqual(['L1', 'L3', 'L4', 'L2', 'L5', 'L6', 'L7', 'L8']);
  });

  it('every operator gives the same rows, with the same empty-value rules', async () => {
    const conditions: Record<string, unknown>[] = [
      { field: 'probability', op: 'eq', value: 20 },
      { field: 'probability', op: 'ne', value: 20 },
      { field: 'probability', op: 'gt', value: 0 },
      { field: 'probability', op: 'gte', value: 0 },
      { field: 'probability', op: 'lt', value: 0 },
      { field: 'probability', op: 'lte', value: 10 },
      { field: 'probability', op: 'in', value: [10, -30] },
      { field: 'probability', op: 'is_null' },
      { field: 'probability', op: 'is_null', value: false },
      { field: 'expected_revenue', op: 'gt', value: 2 ** 35 },
      { field: 'expected_revenue', op: 'lt', value: 0 },
      { field: 'expected_revenue', op: 'eq', value: BIG },
      { field: 'close_date', op: 'eq', value: '2025-01-10' },
      { field: 'close_date', op: 'gt', value: '2024-12-31' },
      { field: 'close_date', op: 'lte', value: '2024-12-31' },
      { field: 'close_date', op: 'in', value: ['2024-02-29', '2025-02-01'] },
      { field: 'close_date', op: 'ne', value: '2025-01-10' },
      { field: 'hot', op: 'eq', value: true },
      { field: 'hot', op: 'eq', value: false },
      { field: 'hot', op: 'ne', value: true },
      { field: 'hot', op: 'in', value: [false] },
      { field: 'hot', op: 'is_null' },
      { field: 'stage', op: 'eq', value: 'new' },
      { field: 'stage', op: 'in', value: ['qualified', 'lost'] },
      { field: 'stage', op: 'ne', value: 'new' },
      { field: 'title', op: 'gt', value: 'a' },
      { field: 'title', op: 'lt', value: 'É' },
      { field: 'title', op: 'eq', value: 'delta' },
      { field: 'title', op: 'ne', value: 'delta' },
      { field: 'title', op: 'contains', value: 'ÉCLAIR' },
      { field: 'notes', op: 'contains', value: 'ω' },
      { field: 'notes', op: 'is_null' },
      { field: 'lost_reason', op: 'eq', value: 'price' },
      { field: 'id', op: 'gt', value: '0' },
    ];
    for (const condition of conditions) await listed('lead', { filter: [condition] });
    expect(await listed('lead', { filter: [{ field: 'hot', op: 'ne', value: true }] })).toEqual(['L2', 'L3', 'L5', 'L6', 'L8']);
    expect(await listed('lead', { filter: [{ field: 'expected_revenue', op: 'eq', value: BIG }] })).toEqual(['L2']);
  });

  it('search counts before paging, and pages the same way', async () => {
    for (const [limit, offset] of [
      [2, 0],
      [3, 2],
      [5, 7],
      [1, 100],
    ]) {
      const answer = await same('lead.search', { order: [{ field: 'close_date', dir: 'desc' }], limit, offset });
      expect(answer.body.value.total).toBe(LEADS.length);
    }
    await same('party.search', { filter: [{ field: 'name', op: 'contains', value: 'pure' }], offset: 1 });
  });

  it('returns each kind in the same JSON form', async () => {
    const answer = await same('lead.get', { id: '@L2' });
    expect(answer.body.value).toEqual({
      id: 'L2',
      title: 'beta 100%',
      party: 'P_apple',
      stage: 'new',
      expected_revenue: BIG,
      probability: 20,
      close_date: '2025-02-01',
      hot: false,
      notes: 'petite école',
      lost_reason: null,
    });
    const updated = await same('lead.update', { id: '@L3', hot: true, close_date: '2028-02-29', expected_revenue: -1 });
    expect(updated.body.value).toMatchObject({ hot: true, close_date: '2028-02-29', expected_revenue: -1 });
    await same('lead.list', { filter: [{ field: 'close_date', op: 'eq', value: '2028-02-29' }] });
  });

  it('refuses the same input with the same errors', async () => {
    await same('lead.list', { filter: [{ field: 'hot', op: 'gt', value: true }] });
    await same('lead.list', { filter: [{ field: 'nope', op: 'eq', value: 1 }] });
    await same('lead.create', { title: 'x', close_date: '2025-02-30' });
    await same('lead.create', { title: 'x', probability: 2 ** 60 });
    await same('lead.create', { title: 'x', party: 'no-such-party' });
    await same('party.delete', { id: '@P_Apple' });
  });
});
