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
        mode: { kind: 'select', options: ['ok', 'bad_date', 'bad_email', 'bad_max', 'bad_option', 'bad_pattern'] },
        d: { kind: 'date', computed: (r) => (r.mode === 'bad_date' ? '2024-02-30' : '2024-02-28') },
        em: { kind: 'email', personal: true, computed: (r) => (r.mode === 'bad_email' ? 'secret-not-an-email' : 'a@example.com') },
        k: { kind: 'number', max: 10, computed: (r) => (r.mode === 'bad_max' ? 100 : 1) },
        st: { kind: 'select', options: ['x', 'y'], computed: (r) => (r.mode === 'bad_option' ? 'z' : 'x') as 'x' },
        code: { kind: 'text', pattern: '[0-9]+', computed: (r) => (r.mode === 'bad_pattern' ? 'abc' : '123') },
      },
      lines: { parts: { fields: { n: { kind: 'number' }, when: { kind: 'date', computed: (l) => ((l.n ?? 0) > 5 ? 'yesterday' : '2024-01-01') } } } },
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
