/**
 * Fixture module trees for generator tests, built in a temp folder from strings so that each
 * test states the definition it is about. Also runs the real `rmsgen` CLI, or its `build` and
 * `check` in this process (`rmsgenInProcess`).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { copyFixtureModules, ROOT } from './fixtures.ts';

export { ROOT };

const created: string[] = [];

/** Removes the temp folders made by `moduleTree` (call from `afterAll`). */
export function removeModuleTrees(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface ModuleTreeOptions {
  /** First copy the fixture modules (test/fixtures/modules: crm and accounting, see test/helpers/fixtures.ts). */
  readonly copyFixtures?: boolean;
  /** @deprecated The same as `copyFixtures`: the tests' crm and accounting are the fixture modules, not the demo's. */
  readonly copyDemo?: boolean;
}

/**
 * A temp project folder holding `modules/<name>/module.ts` for each entry, after the fixture modules
 * with `copyFixtures` (plus a package.json with `"type": "module"`, and links to node_modules and
 * generator/ so that copied fixture modules load and generated code there can import zod).
 */
export function moduleTree(modules: Record<string, string>, options: ModuleTreeOptions = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-fixture-'));
  created.push(dir);
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  // The fixture modules, copied here, import '../../generator/define.ts'.
  symlinkSync(join(ROOT, 'generator'), join(dir, 'generator'), 'dir');
  if (options.copyFixtures || options.copyDemo) copyFixtureModules(join(dir, 'modules'));
  for (const [name, text] of Object.entries(modules)) {
    mkdirSync(join(dir, 'modules', name), { recursive: true });
    writeFileSync(join(dir, 'modules', name, 'module.ts'), text);
  }
  return dir;
}

/** `moduleTree` for one module, `crm`. */
export function oneModule(text: string): string {
  return moduleTree({ crm: text });
}

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real CLI, `node bin/rmsgen.js <args>`, in `cwd`. */
export function rmsgen(args: readonly string[], cwd = ROOT): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    execFile(process.execPath, [join(ROOT, 'bin/rmsgen.js'), ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolvePromise({ status, stdout, stderr });
    });
  });
}

let inProcessQueue: Promise<unknown> = Promise.resolve();

/**
 * `rmsgen build` / `rmsgen check` with `args` run in this process, in `cwd`, through the same
 * commander command and generator as the CLI: what it writes to stdout and stderr and the exit
 * status it sets. A spawned CLI pays some 3 s of CPU loading tsx, TypeScript and ts-morph before it
 * checks anything; here they are loaded once per test worker. For the messages about definitions;
 * what only a process shows (the exit itself, the default --out of a project, tsx's stack lines)
 * stays with `rmsgen`. Runs one at a time (it changes directory and takes over process.stdout and
 * process.stderr while it runs), and a module file is loaded once per path: a test that edits a
 * module file and checks again uses `rmsgen`.
 */
export function rmsgenInProcess(args: readonly string[], cwd: string): Promise<CliResult> {
  const run = inProcessQueue.then(() => runInProcess(args, cwd));
  inProcessQueue = run.catch(() => undefined);
  return run;
}

async function runInProcess(args: readonly string[], cwd: string): Promise<CliResult> {
  if (args[0] !== 'build' && args[0] !== 'check') throw new Error(`rmsgenInProcess runs build and check, not ${args[0]}`);
  if (args[0] === 'build' && !args.includes('--out')) throw new Error('rmsgenInProcess builds into a given --out only (the project\'s own generated/ also compiles: use rmsgen)');
  const [{ createProgram }, { registerGeneratorCommands }] = await Promise.all([import('../../bin/program.ts'), import('../../generator/cli.ts')]);
  const program = createProgram().exitOverride();
  registerGeneratorCommands(program);
  let stdout = '';
  let stderr = '';
  const writes = { out: process.stdout.write, err: process.stderr.write, exitCode: process.exitCode, cwd: process.cwd() };
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  process.exitCode = undefined;
  process.chdir(cwd);
  try {
    await program.parseAsync(['node', 'rmsgen', ...args]);
    return { status: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    process.chdir(writes.cwd);
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    process.exitCode = writes.exitCode;
  }
}

/** Every file under `dir` with its content (for "nothing changed" assertions). */
export function snapshotFolder(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  if (!existsSync(dir)) return files;
  const walk = (current: string): void => {
    for (const name of readdirSync(current).sort()) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/** Unusual but valid definitions: no fields, names like the imports of generated code, self-references, quotes in options. */
export const UNUSUAL = `export default {
  models: {
    // A label that would end a comment early, or break a line comment in two: the generated code still compiles.
    bare: { label: "Bare */ thing\\nsecond line", fields: {} },
    // Its record interface is called Knex, like the knex type the queries file imports.
    knex: { fields: { secret: { kind: 'text', required: true, read: ['viewer'] }, on: { kind: 'bool' }, size: { kind: 'number' } } },
    team_member: {
      fields: {
        manager: { kind: 'ref', to: 'team_member' },
        q_2: { kind: 'select', options: ["it's", 'a "quote"', 'ünï'] },
        status: { kind: 'select', options: ['a', 'b'], governed: true },
        phase: { kind: 'select', options: ['x', 'y'], governed: true },
      },
      actions: { advance: { description: 'Advance', field: 'phase', from: 'x', to: 'y', required: ['manager', 'q_2'] } },
    },
    // Its record interface is called Referrer, like a runtime type the queries file imports.
    referrer: { fields: { name: { kind: 'text' }, member: { kind: 'ref', to: 'team_member' } } },
  },
  roles: { viewer: { bare: ['get'] } },
};`;
