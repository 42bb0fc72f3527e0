/**
 * The project's own checks and tests survive a change of its modules: neither the demo's present
 * shape nor the set of modules is built into them. In one copy of the project (its sources, tests
 * and configs; node_modules linked):
 *
 * - the demo is changed the way a team starting from it would: a field added to lead and one
 *   removed from party, a label changed, the role `sales` renamed (in crm and sales), the
 *   accounting module removed;
 * - a module is added under modules/ whose model refers to `party` and `lead` (and to itself);
 *
 * and then, after `rmsgen build`, what `npm test` checks still passes there: `rmsgen build --check`,
 * the project's type-check, the tests that read the project's modules/ and generated/ (golden,
 * schemas, imports, and queries, which exercises the new model's generated queries against a real
 * database), and the copy's own compiled server, started by the real `rmsgen serve`, serves the
 * changed demo: the new model and its action, the added field, without the removed one.
 *
 * One copy for both changes: each run of the type-check and of the tests in a copy costs tens of
 * seconds, and neither change hides a failure the other would show (each would fail the same
 * checks on its own). Not run in the copy, because nothing in them reads modules/ or generated/:
 * the rest of the suite runs against the fixture modules (test/fixtures: test/helpers/fixtures.ts),
 * which a change of the demo leaves as they are; the web app's type-check (web/tsconfig.json
 * includes web/src and runtime/api-shapes.ts only); the generator's CLI, validation and type-check
 * tests (they build their own module trees in temp folders; the copy's `tsc` above covers its
 * generated/). About the demo itself, so not in the copy: the README's walk-through
 * (test/docs/readme-tour.test.ts) and the benchmark's smoke run (test/bench/smoke.test.ts).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tscCommand, tscStateFile } from '../../scripts/tsc-run.mjs';
import { afterAll, expect, it } from 'vitest';
import { postJson } from '../helpers/cli.ts';
import { ROOT } from '../helpers/fixtures.ts';
import { childEnv } from '../helpers/serve-env.ts';

const COPIED = ['bin', 'bench', 'docs', 'generator', 'generated', 'modules', 'runtime', 'scripts', 'test', 'web', 'README.md', 'package.json', 'tsconfig.json', 'vitest.config.ts'];
/**
 * Left behind: what the browser tests write, build output (the copy builds its own; web/dist is
 * copied as current), and what the bench keeps (its results, and the 470 MB of Directus it
 * installs on a first full run: copying and removing it took the copy past its hook's minute).
 */
const NOT_COPIED = ['test/screenshots', 'dist', 'bench/.directus', 'bench/results'].map((path) => join(ROOT, path));

/** The tests that read the project's modules/ and generated/ (the rest read the fixture modules'). */
const SUBSET = ['test/generator/golden.test.ts', 'test/generator/emit/schemas.test.ts', 'test/generator/emit/queries.test.ts', 'test/generator/generated-imports.test.ts'];

/** The added module: refs to the demo's party and lead, and to itself. */
const SUPPORT = `import { defineModule } from '../../generator/define.ts';

export default defineModule({
  label: 'Support',
  description: 'Tickets raised by parties, about their leads.',
  dependsOn: ['crm'],
  models: {
    ticket: {
      title: 'subject',
      fields: {
        subject: { kind: 'text', required: true },
        party: { kind: 'ref', to: 'party', required: true },
        lead: { kind: 'ref', to: 'lead' },
        duplicate_of: { kind: 'ref', to: 'ticket' },
        urgent: { kind: 'bool' },
        status: { kind: 'select', options: ['open', 'closed'], governed: true },
      },
      actions: { close: { description: 'Close a ticket', from: 'open', to: 'closed' } },
    },
  },
  roles: { support: { ticket: '*' }, seller: { ticket: ['get', 'list', 'search'] } },
});
`;

const project = mkdtempSync(join(tmpdir(), 'rmsgen-modules-changed-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

interface Run {
  readonly status: number | null;
  readonly output: string;
}

/** Runs a node script of the copy (a CLI under node_modules, or bin/rmsgen.js) in the copy. */
function run(script: string, args: readonly string[]): Promise<Run> {
  return runNode([join(project, script), ...args]);
}

/** Runs node with these arguments in the copy. */
function runNode(args: readonly string[]): Promise<Run> {
  // The child vitest runs on SQLite whatever this run is on.
  const env = childEnv(['RMS_TEST_PG_URL', 'RMS_TEST_POSTGRES_URL']);
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: project, env: { ...env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, output: `${stdout}${stderr}` });
    });
  });
}

const PASSWORD = 'changed-modules-password';

/** The copy's real `rmsgen serve` with `args`, once it listens. */
function serve(args: readonly string[]): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const env = { ...childEnv(['RMS_TEST_PG_URL', 'RMS_TEST_POSTGRES_URL']), NO_COLOR: '1', RMS_ADMIN_PASSWORD: PASSWORD };
  const child = spawn(process.execPath, [join(project, 'bin/rmsgen.js'), 'serve', ...args], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not listen within 60 s:\n${output}`)), 60_000);
    const take = (chunk: Buffer) => {
      output += chunk;
      const listening = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output);
      if (listening) {
        clearTimeout(timer);
        resolve({ child, url: listening[1]!, exited });
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening:\n${output}`));
    });
  });
}

/** Replaces `from` (which must be there) with `to` in a file of the copy. */
function edit(path: string, from: string, to: string): void {
  const file = join(project, path);
  const source = readFileSync(file, 'utf8');
  expect(source, `${path} holds ${from}`).toContain(from);
  writeFileSync(file, source.replaceAll(from, to));
}

it('with the demo changed (a field added, a field removed, a label, a role renamed, a module removed) and a module with refs added: build, type-check, the tests that read the demo and its compiled server pass', async () => {
  for (const name of COPIED) {
    cpSync(join(ROOT, name), join(project, name), { recursive: true, preserveTimestamps: true, filter: (source) => !NOT_COPIED.some((left) => source.startsWith(left)) });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');

  rmSync(join(project, 'modules/accounting'), { recursive: true });
  const crm = 'modules/crm/module.ts';
  edit(crm, "lost_reason: { kind: 'text', label: 'Lost reason' },", "lost_reason: { kind: 'text', label: 'Lost reason' },\n        priority: { kind: 'select', options: ['low', 'high'], label: 'Priority' },");
  edit(crm, "title: { kind: 'text', required: true, label: 'Title', search: true },", "title: { kind: 'text', required: true, label: 'Deal', search: true },");
  edit(crm, "phone: { kind: 'text', personal: true, label: 'Phone' },\n", '');
  edit(crm, "list: ['kind', 'email', 'phone'],", "list: ['kind', 'email'],");
  edit(crm, 'sales: {', 'seller: {');
  edit('modules/sales/module.ts', 'sales: { order', 'seller: { order');
  mkdirSync(join(project, 'modules/support'));
  writeFileSync(join(project, 'modules/support/module.ts'), SUPPORT);

  const build = await run('bin/rmsgen.js', ['build']);
  expect(build.status, build.output).toBe(0);
  // Six files a model: crm's 12, sales' 6 (its role renamed) and support's 6, and logic, roles,
  // openapi.json and registry; accounting's 6 removed. In the project's own generated/,
  // build also brings the compiled server and the web app up to date.
  expect(build.output).toMatch(/^generated 28 files \(\d+ changed, 6 removed\) in generated\/\nserver compiled: dist\/server\/ .*\n(web app built: .*\n)?$/);
  const generated = readdirSync(join(project, 'generated'), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.ts'));
  expect(generated.filter((path) => path.startsWith('accounting'))).toEqual([]);
  expect(existsSync(join(project, 'generated/support/ticket.queries.ts'))).toBe(true);
  expect(readFileSync(join(project, 'generated/crm/party.queries.ts'), 'utf8')).toContain("return { model: 'ticket', field: 'party'");
  expect(readFileSync(join(project, 'generated/support/ticket.queries.ts'), 'utf8')).toContain('A ticket whose duplicate_of is itself does not keep itself alive.');
  const roles = readFileSync(join(project, 'generated/roles.ts'), 'utf8');
  expect(roles).toMatch(/\bseller\b/);
  expect(roles).toMatch(/\bsupport\b/);
  expect(roles).not.toMatch(/\bsales\b/);
  expect(readFileSync(join(project, 'generated/crm/lead.model.ts'), 'utf8')).toContain("'priority'");
  expect(await run('bin/rmsgen.js', ['build', '--check'])).toEqual({ status: 0, output: 'generated/ is up to date (28 files)\n' });

  // As `npm run typecheck` runs it, from this checkout's state where it has one (npm test makes it
  // before the tests run): only what the changes can affect is checked again.
  const state = tscStateFile('tsconfig.json');
  if (existsSync(join(ROOT, state))) cpSync(join(ROOT, state), join(project, state));
  const typecheck = await runNode(tscCommand('tsconfig.json'));
  expect(typecheck.output.split('\n').filter((line) => line.includes('error TS'))).toEqual([]);
  expect(typecheck.status, typecheck.output).toBe(0);

  // The copy's compiled server, as `npm start` runs it: the changed demo, on a fresh SQLite file.
  const served = await serve(['--port', '0', '--db', `sqlite:${join(project, 'data/changed.sqlite')}`]);
  try {
    const token = (await postJson(served.url, '/api/auth/login', { username: 'admin', password: PASSWORD })).body.token as string;
    const meta = await fetch(`${served.url}/api/meta`, { headers: { authorization: `Bearer ${token}` } });
    expect(meta.status).toBe(200);
    const models = ((await meta.json()) as { models: { name: string; fields: { name: string }[] }[] }).models;
    expect(models.map((model) => model.name).sort()).toEqual(['lead', 'order', 'party', 'ticket']);
    expect(models.find((model) => model.name === 'lead')!.fields.map((field) => field.name)).toContain('priority');
    expect(models.find((model) => model.name === 'party')!.fields.map((field) => field.name)).not.toContain('phone');
    const party = await postJson(served.url, '/api/party/create', { name: 'Changed Ltd' }, token);
    expect(party.status).toBe(200);
    const ticket = await postJson(served.url, '/api/ticket/create', { subject: 'It works', party: party.body.value.id }, token);
    expect(ticket.status, JSON.stringify(ticket.body)).toBe(200);
    expect(ticket.body.value.status).toBe('open');
    expect((await postJson(served.url, '/api/ticket/close', { id: ticket.body.value.id }, token)).body.value.status).toBe('closed');
  } finally {
    served.child.kill('SIGTERM');
    await served.exited;
  }

  const tests = await run('node_modules/vitest/vitest.mjs', ['run', ...SUBSET]);
  expect(tests.output, tests.output).toMatch(/tests: \d+ passed, 0 failed, 0 skipped/);
  expect(tests.output).toContain(`Test Files  ${SUBSET.length} passed (${SUBSET.length})`);
  expect(tests.status, tests.output).toBe(0);
}, 240_000);
