/**
 * A computed function is typed by its kind's JavaScript type only (a string for a date, a number
 * for a bounded number): what it gives is held to the checks a written value meets before it is
 * stored — refused with 400 naming the field and saying the value was computed, never the value.
 * Over real HTTP on a service of its own (its modules written to a temporary folder).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import type { Registry } from '../../runtime/registry.ts';
import { moduleTree, removeModuleTrees } from '../helpers/module-trees.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const MODULE = `export default {
  models: {
    thing: {
      fields: {
        mode: { kind: 'select', options: ['ok', 'bad_date', 'bad_email', 'bad_max', 'bad_option', 'bad_pattern', 'nan', 'infinite', 'two_picks', 'no_picks'] },
        d: { kind: 'date', computed: (r) => (r.mode === 'bad_date' ? '2024-02-30' : '2024-02-28') },
        em: { kind: 'email', personal: true, computed: (r) => (r.mode === 'bad_email' ? 'secret-not-an-email' : 'a@example.com') },
        k: { kind: 'number', max: 10, computed: (r) => (r.mode === 'bad_max' ? 100 : 1) },
        st: { kind: 'select', options: ['x', 'y'], computed: (r) => (r.mode === 'bad_option' ? 'z' : 'x') as 'x' },
        code: { kind: 'text', pattern: '[0-9]+', computed: (r) => (r.mode === 'bad_pattern' ? 'abc' : '123') },
        ratio: { kind: 'decimal', scale: 2, computed: (r) => (r.mode === 'nan' ? 0 / 0 : r.mode === 'infinite' ? -1 / 0 : 0.5) },
        picks: { kind: 'multiselect', options: ['a', 'b', 'c'], computed: (r) => (r.mode === 'two_picks' ? ['c', 'a'] : r.mode === 'no_picks' ? [] : ['b']) as ('a' | 'b' | 'c')[] },
        at: { kind: 'datetime', computed: () => '2026-01-01T10:00:00+02:00' },
        // Read before they are declared: each is worked out after what it reads.
        doubled: { kind: 'number', computed: (r) => r.counted * 2 },
        counted: { kind: 'number', computed: (r) => (r.code ?? '').length + r.parts.reduce((sum, part) => sum + part.later, 0) },
      },
      lines: {
        parts: {
          fields: {
            n: { kind: 'number' },
            when: { kind: 'date', computed: (l) => ((l.n ?? 0) > 5 ? 'yesterday' : '2024-01-01') },
            share: { kind: 'money', computed: (l) => (l.n === -1 ? 1 / 0 : l.n === 3 ? -12.5 : l.n === 4 ? 12.5 : 100) },
            marks: { kind: 'multiselect', options: ['x', 'y'], computed: (l) => ((l.n ?? 0) > 1 ? ['y', 'x'] : []) as ('x' | 'y')[] },
            seen: { kind: 'datetime', computed: () => '2026-06-30T23:30:00-01:00' },
            earlier: { kind: 'number', computed: (l) => l['later'] + 1 },
            later: { kind: 'number', computed: (l) => (l.n ?? 0) * 10 },
          },
        },
      },
    },
  },
};`;

let t: TestServer;
let admin: string;

beforeAll(async () => {
  const project = moduleTree({ things: MODULE });
  const out = join(project, 'generated');
  writeOutput(out, generate(await loadProject(join(project, 'modules')), out));
  const registry = ((await import(pathToFileURL(join(out, 'registry.ts')).href)) as { registry: Registry }).registry;
  t = await startTestServer({ registry });
  admin = await t.login();
}, 120_000);

afterAll(async () => {
  await t?.close();
  removeModuleTrees();
});

it('stores what its checks take', async () => {
  const res = await t.command(admin, 'thing.create', { mode: 'ok', parts: [{ n: 1 }] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.value).toMatchObject({ d: '2024-02-28', em: 'a@example.com', k: 1, st: 'x', code: '123', parts: [{ n: 1, when: '2024-01-01' }] });
});

it('stores a computed multiselect and datetime as a written one is stored: options in their order, none as empty, the UTC instant', async () => {
  const two = await t.command(admin, 'thing.create', { mode: 'two_picks', parts: [{ n: 2 }, { n: 1 }] });
  expect(two.status, JSON.stringify(two.body)).toBe(200);
  const expected = {
    picks: ['a', 'c'],
    at: '2026-01-01T08:00:00.000Z',
    parts: [
      { n: 2, marks: ['x', 'y'], seen: '2026-07-01T00:30:00.000Z' },
      { n: 1, marks: null, seen: '2026-07-01T00:30:00.000Z' },
    ],
  };
  expect(two.body.value).toMatchObject(expected);
  // Read back as answered, and found by the values a caller would write.
  expect((await t.command(admin, 'thing.get', { id: two.body.value.id })).body.value).toMatchObject(expected);
  const found = (filter: unknown) => t.command(admin, 'thing.list', { filter }).then((res) => res.body.value.map((row: { id: string }) => row.id));
  expect(await found([{ field: 'picks', op: 'eq', value: ['c', 'a'] }])).toEqual([two.body.value.id]);
  expect(await found([{ field: 'at', op: 'eq', value: '2026-01-01T08:00:00Z' }, { field: 'id', op: 'eq', value: two.body.value.id }])).toEqual([two.body.value.id]);
  expect(await found([{ field: 'at', op: 'gt', value: '2026-01-01T09:00:00Z' }])).toEqual([]);

  // A function that gives no options leaves the field empty, as a write of [] does; an update
  // that changes nothing records no change (a line's [] against its stored empty was one).
  const none = await t.command(admin, 'thing.create', { mode: 'no_picks' });
  expect(none.body.value.picks).toBeNull();
  expect((await t.command(admin, 'thing.get', { id: none.body.value.id })).body.value.picks).toBeNull();
  const updated = await t.command(admin, 'thing.update', { id: two.body.value.id, parts: [{ id: two.body.value.parts[0].id, n: 2 }, { id: two.body.value.parts[1].id, n: 1 }] });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  const history = await t.command(admin, 'thing.history', { id: two.body.value.id });
  expect(history.body.value.rows.map((row: { command: string }) => row.command)).toEqual(['thing.create']);
});

it('works out a computed field after the computed fields it reads, on create and on update (not from their stored values)', async () => {
  const made = await t.command(admin, 'thing.create', { mode: 'ok', parts: [{ n: 1 }, { n: 2 }] });
  // code '123': 3, plus the lines' later 10 + 20.
  expect(made.body.value).toMatchObject({ counted: 33, doubled: 66, parts: [{ later: 10, earlier: 11 }, { later: 20, earlier: 21 }] });
  const updated = await t.command(admin, 'thing.update', { id: made.body.value.id, parts: [{ id: made.body.value.parts[0].id, n: 4 }] });
  expect(updated.body.value).toMatchObject({ counted: 43, doubled: 86, parts: [{ later: 40, earlier: 41 }] });
});

it('rounds a computed money value as a decimal is rounded: halves away from zero', async () => {
  const res = await t.command(admin, 'thing.create', { mode: 'ok', parts: [{ n: 3 }, { n: 4 }] });
  expect(res.body.value.parts.map((part: { share: number }) => part.share)).toEqual([-13, 13]);
});

it.each([
  ['nan', {}, 'thing.ratio is not a finite number (the value its computed function gave)', ['ratio']],
  ['infinite', {}, 'thing.ratio is not a finite number (the value its computed function gave)', ['ratio']],
  ['ok', { parts: [{ n: 1 }, { n: -1 }] }, 'thing.parts[1].share is not a finite number (the value its computed function gave)', undefined],
] as const)('refuses a computed value that is not a finite number (%s %j), storing nothing', async (mode, more, error, fields) => {
  const before = t.inspect((db) => (db.prepare('select count(*) as n from thing').get() as { n: number }).n);
  const res = await t.command(admin, 'thing.create', { mode, ...more });
  expect([res.status, res.body]).toEqual([400, fields ? { error, fields } : { error }]);
  expect(t.inspect((db) => (db.prepare('select count(*) as n from thing').get() as { n: number }).n)).toBe(before);
});

it.each([
  ['bad_date', 'thing.d must be a real calendar date YYYY-MM-DD (the value its computed function gave)'],
  ['bad_email', 'thing.em must be an email address (the value its computed function gave)'],
  ['bad_max', 'thing.k must be at most 10 (the value its computed function gave)'],
  ['bad_option', 'thing.st must be one of: x, y (the value its computed function gave)'],
  ['bad_pattern', 'thing.code does not match the required pattern (the value its computed function gave)'],
])('refuses a computed value its field does not take (%s), storing nothing, never saying the value', async (mode, error) => {
  const before = t.inspect((db) => (db.prepare('select count(*) as n from thing').get() as { n: number }).n);
  const res = await t.command(admin, 'thing.create', { mode });
  // Named as the field (the web app shows it there).
  expect([res.status, res.body]).toEqual([400, { error, fields: [error.split(' ')[0]!.split('.')[1]] }]);
  expect(JSON.stringify(res.body)).not.toContain('secret-not-an-email');
  expect(t.inspect((db) => (db.prepare('select count(*) as n from thing').get() as { n: number }).n)).toBe(before);
  // An update to the same mode is refused alike.
  const id = (await t.command(admin, 'thing.create', { mode: 'ok' })).body.value.id;
  expect((await t.command(admin, 'thing.update', { id, mode })).body.error).toBe(error);
});

it("refuses a line's computed value naming the line, wherever it is and whichever was refused before", async () => {
  // One schema per field checks every line; the refusal's message is the line's own.
  for (const parts of [[{ n: 1 }, { n: 9 }], [{ n: 9 }], [{ n: 1 }, { n: 1 }, { n: 9 }, { n: 9 }], [{ n: 1 }, { n: 9 }]]) {
    const res = await t.command(admin, 'thing.create', { mode: 'ok', parts });
    const index = parts.findIndex((part) => part.n === 9);
    expect([res.status, res.body]).toEqual([400, { error: `thing.parts[${index}].when must be a real calendar date YYYY-MM-DD (the value its computed function gave)` }]);
  }
});
