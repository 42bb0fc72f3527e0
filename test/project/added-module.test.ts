/**
 * A module added under modules/ never breaks the project's own checks: in a copy of the project
 * (its sources, tests and configs; node_modules linked) whose modules/ are the fixture modules
 * (test/fixtures/modules, so that this holds whatever the demo becomes), a module whose model
 * refers to `party` and `lead` (and to itself) is added and built, and then what `npm test` checks
 * still passes there: `rmsgen build --check`, both type-checks, and the generator's tests, whose
 * queries test then exercises the new model's generated queries against a real database too.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT, useFixtureModules } from '../helpers/fixtures.ts';

const COPIED = ['bin', 'bench', 'generator', 'generated', 'modules', 'runtime', 'test', 'web', 'package.json', 'tsconfig.json', 'tsconfig.modules.json', 'vitest.config.ts'];

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
  roles: { support: { ticket: '*' }, sales: { ticket: ['get', 'list', 'search'] } },
});
`;

const project = mkdtempSync(join(tmpdir(), 'rmsgen-project-'));
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  // The copy's type-check test kept its incremental state in the shared node_modules, named after the copy's folder.
  const checkout = createHash('sha256').update(project).digest('hex').slice(0, 12);
  rmSync(join(ROOT, `node_modules/.cache/rmsgen/typecheck-${checkout}.tsbuildinfo`), { force: true });
});

interface Run {
  readonly status: number | null;
  readonly output: string;
}

/** Runs a node script of the copy (a CLI under node_modules, or bin/rmsgen.js) in the copy. */
function run(script: string, args: readonly string[]): Promise<Run> {
  // This test runs under vitest: the child vitest must not take its variables for its own.
  // Nor may its counts join this run's summary file (RMS_TEST_SUMMARY_FILE): CI's total would count them twice.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_OPTIONS' && name !== 'RMS_TEST_SUMMARY_FILE'),
  );
  return new Promise((resolve) => {
    execFile(process.execPath, [join(project, script), ...args], { cwd: project, env: { ...env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, output: `${stdout}${stderr}` });
    });
  });
}

it('a module with refs to existing models, added to a copy of the project: build, type-checks and the generator tests pass there', async () => {
  for (const name of COPIED) {
    cpSync(join(ROOT, name), join(project, name), { recursive: true, filter: (source) => !source.startsWith(join(ROOT, 'web/dist')) });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  await useFixtureModules(project);
  mkdirSync(join(project, 'modules/support'));
  writeFileSync(join(project, 'modules/support/module.ts'), SUPPORT);

  const build = await run('bin/rmsgen.js', ['build']);
  // In the project's own generated/, build also brings the compiled server and the web app up to date.
  expect(build.output).toMatch(/^generated 33 files \(\d+ changed\) in generated\/\nserver compiled: dist\/server\/ .*\n(web app built: .*\n)?$/);
  expect(build.status).toBe(0);
  expect(existsSync(join(project, 'generated/support/ticket.queries.ts'))).toBe(true);
  expect(readFileSync(join(project, 'generated/crm/party.queries.ts'), 'utf8')).toContain("return { model: 'ticket', field: 'party'");
  expect(readFileSync(join(project, 'generated/support/ticket.queries.ts'), 'utf8')).toContain('A ticket whose duplicate_of is itself does not keep itself alive.');
  expect(await run('bin/rmsgen.js', ['build', '--check'])).toEqual({ status: 0, output: 'generated/ is up to date (33 files)\n' });

  for (const tsconfig of ['tsconfig.json', 'tsconfig.modules.json', 'web/tsconfig.json']) {
    const typecheck = await run('node_modules/typescript/bin/tsc', ['--noEmit', '--pretty', 'false', '-p', tsconfig]);
    expect(typecheck.output.split('\n').filter((line) => line.includes('error TS')), tsconfig).toEqual([]);
    expect(typecheck.status, tsconfig).toBe(0);
  }

  const tests = await run('node_modules/vitest/vitest.mjs', ['run', 'test/generator']);
  expect(tests.output, tests.output).toMatch(/tests: \d+ passed, 0 failed/);
  expect(tests.status, tests.output).toBe(0);
}, 600_000);
