/**
 * The project's own tests do not depend on the demo: they run against the fixture modules under
 * test/fixtures (test/helpers/fixtures.ts). In a copy of the project (its sources, tests and
 * configs; node_modules linked) the demo is changed the way a team starting from it would — a
 * field added to lead and one removed from party, a label changed, the role `sales` renamed,
 * the accounting and sales modules removed — and rebuilt with `rmsgen build`; then `rmsgen build --check`,
 * the project's type-check and a cross-section of the suite pass there: the golden tests, the
 * generated schemas and queries, REST and MCP on a real server, rights, migrations, the API
 * reference, and the real CLI (`serve`, `migrate`, `user …`) — every kind of test that used to
 * read the demo's generated code or run its compiled server.
 *
 * Not in the cross-section, because they are about the demo itself: the README's walk-through
 * (test/docs/readme-tour.test.ts) and the benchmark's smoke run (test/footprint/bench-smoke.test.ts).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../helpers/fixtures.ts';

const COPIED = ['bin', 'bench', 'docs', 'generator', 'generated', 'modules', 'runtime', 'test', 'web', 'README.md', 'package.json', 'tsconfig.json', 'vitest.config.ts'];
/** Left behind: what the browser tests write, and build output (the copy builds its own; web/dist is copied as current). */
const NOT_COPIED = ['test/screenshots', 'dist'].map((path) => join(ROOT, path));

/** A cross-section of the suite: one or more files of each kind that used to read the demo. */
const SUBSET = [
  'test/generator/golden.test.ts',
  'test/generator/schemas.test.ts',
  'test/generator/queries.test.ts',
  'test/generator/generated-imports.test.ts',
  'test/conformance/catalogue-meta.test.ts',
  'test/conformance/rights.test.ts',
  'test/conformance/workflow-actions.test.ts',
  'test/mcp/tools.test.ts',
  'test/security/plan-rights.test.ts',
  'test/db/migrate-rolling.test.ts',
  'test/docs/api-doc.test.ts',
  'test/runtime/server/cli.test.ts',
  'test/runtime/auth/agent-token.test.ts',
];

const project = mkdtempSync(join(tmpdir(), 'rmsgen-demo-changed-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

interface Run {
  readonly status: number | null;
  readonly output: string;
}

/** Runs a node script of the copy (a CLI under node_modules, or bin/rmsgen.js) in the copy. */
function run(script: string, args: readonly string[]): Promise<Run> {
  // The child vitest must not take this one's variables for its own, nor add its counts to this run's summary
  // file (RMS_TEST_SUMMARY_FILE); and it runs on SQLite whatever this run is on.
  const dropped = new Set(['NODE_OPTIONS', 'RMS_TEST_SUMMARY_FILE', 'RMS_TEST_PG_URL', 'RMS_TEST_POSTGRES_URL']);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && !dropped.has(name)));
  return new Promise((resolve) => {
    execFile(process.execPath, [join(project, script), ...args], { cwd: project, env: { ...env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, output: `${stdout}${stderr}` });
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

it('with the demo changed (a field added, a field removed, a label, a role renamed, a module removed), build, type-check and a cross-section of the suite pass', async () => {
  for (const name of COPIED) {
    cpSync(join(ROOT, name), join(project, name), { recursive: true, preserveTimestamps: true, filter: (source) => !NOT_COPIED.some((left) => source.startsWith(left)) });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');

  rmSync(join(project, 'modules/accounting'), { recursive: true });
  rmSync(join(project, 'modules/sales'), { recursive: true });
  const crm = 'modules/crm/module.ts';
  edit(crm, "lost_reason: { kind: 'text', label: 'Lost reason' },", "lost_reason: { kind: 'text', label: 'Lost reason' },\n        priority: { kind: 'select', options: ['low', 'high'], label: 'Priority' },");
  edit(crm, "title: { kind: 'text', required: true, label: 'Title', search: true },", "title: { kind: 'text', required: true, label: 'Deal', search: true },");
  edit(crm, "phone: { kind: 'text', personal: true, label: 'Phone' },\n", '');
  edit(crm, "list: ['kind', 'email', 'phone'],", "list: ['kind', 'email'],");
  edit(crm, 'sales: {', 'seller: {');

  const build = await run('bin/rmsgen.js', ['build']);
  expect(build.status, build.output).toBe(0);
  expect(build.output).toMatch(/^generated 15 files \(\d+ changed, 12 removed\) in generated\/\n/);
  const generated = readdirSync(join(project, 'generated'), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.ts'));
  expect(generated.filter((path) => path.startsWith('accounting') || path.startsWith('sales'))).toEqual([]);
  expect(readFileSync(join(project, 'generated/roles.ts'), 'utf8')).toMatch(/\bseller\b/);
  expect(readFileSync(join(project, 'generated/roles.ts'), 'utf8')).not.toMatch(/\bsales\b/);
  expect(readFileSync(join(project, 'generated/crm/lead.model.ts'), 'utf8')).toContain("'priority'");
  expect(await run('bin/rmsgen.js', ['build', '--check'])).toEqual({ status: 0, output: 'generated/ is up to date (15 files)\n' });

  const typecheck = await run('node_modules/typescript/bin/tsc', ['--noEmit', '--pretty', 'false', '-p', 'tsconfig.json']);
  expect(typecheck.output.split('\n').filter((line) => line.includes('error TS'))).toEqual([]);
  expect(typecheck.status, typecheck.output).toBe(0);

  const tests = await run('node_modules/vitest/vitest.mjs', ['run', ...SUBSET]);
  expect(tests.output, tests.output).toMatch(/tests: \d+ passed, 0 failed, 0 skipped/);
  expect(tests.output).toContain(`Test Files  ${SUBSET.length} passed (${SUBSET.length})`);
  expect(tests.status, tests.output).toBe(0);
}, 240_000);
