/**
 * The modules the project's own tests run against: `test/fixtures/modules/` (copies of the demo's
 * crm and accounting modules as the tests were written against them) and their generated code,
 * `test/fixtures/generated/` (committed; test/generator/golden.test.ts fails when it is stale). The
 * demo under modules/ can then change, or go, without any test but those about the demo noticing.
 *
 * Tests that import the runtime use `test/fixtures/generated/registry.ts` (startTestServer's default).
 * Tests of the real CLI (`serve`, `migrate`, `seed`, `user …`, `history prune`) run `FIXTURE_CLI`: the
 * bin/rmsgen.js of the fixture package, a copy of this package whose modules/ are the fixture modules,
 * built by `rmsgen build` in it (generated/, the compiled server, the web app) by the vitest global
 * setup (`buildFixturePackage`) into `dist/fixture-package/` (git-ignored, like dist/server/).
 *
 * Regenerate the fixtures' code after changing them (or the generator's output):
 *
 *   node bin/rmsgen.js build --modules test/fixtures/modules --out test/fixtures/generated
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv } from './serve-env.ts';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The fixture modules' folder: one `<name>/module.ts` each, as under modules/. */
export const FIXTURE_MODULES_DIR = join(ROOT, 'test/fixtures/modules');
/** Their generated code, committed (regenerate with the command above). */
export const FIXTURE_GENERATED_DIR = join(ROOT, 'test/fixtures/generated');
/** The fixture modules, in dependency order. */
export const FIXTURE_MODULES = ['crm', 'accounting', 'sales'] as const;

/** A copy of the package serving the fixture modules, built by the global setup (`buildFixturePackage`). */
export const FIXTURE_PACKAGE = join(ROOT, 'dist/fixture-package');
/** The fixture package's `rmsgen` (`node FIXTURE_CLI serve …`): the real CLI and compiled server, serving the fixture modules. */
export const FIXTURE_CLI = join(FIXTURE_PACKAGE, 'bin/rmsgen.js');

/**
 * The source of fixture module `name` for a project laid out like this package, at
 * `<project>/modules/<name>/module.ts`: its relative imports (`defineModule` from generator/)
 * rewritten for that place.
 */
export function fixtureModuleSource(name: string): string {
  const from = join(FIXTURE_MODULES_DIR, name);
  const source = readFileSync(join(from, 'module.ts'), 'utf8');
  return source.replace(/(from\s+|import\s*\(\s*)(['"])(\.\.?\/[^'"]+)\2/g, (_match, before: string, quote: string, specifier: string) => {
    const target = relative(ROOT, resolve(from, specifier)).split(sep).join(posix.sep);
    if (target.startsWith('..') || target.startsWith('test/')) {
      throw new Error(`test/fixtures/modules/${name}/module.ts imports ${specifier}, outside what a project copy holds`);
    }
    return `${before}${quote}${posix.relative(`modules/${name}`, target)}${quote}`;
  });
}

/** Writes the fixture modules into `modulesDir` (`<project>/modules`), leaving files with the same content alone. */
export function copyFixtureModules(modulesDir: string): void {
  for (const name of FIXTURE_MODULES) {
    const target = join(modulesDir, name, 'module.ts');
    const source = fixtureModuleSource(name);
    if (existsSync(target) && readFileSync(target, 'utf8') === source) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, source);
  }
}

/**
 * Makes `project`, a copy of this package (or a project laid out like it), a project of the fixture
 * modules: its modules/ become exactly the fixture modules, and its generated/ what `rmsgen build`
 * writes there from them (so that its first build changes nothing). For tests of commands that run
 * on a project's modules/, such as `rmsgen dev`, so that they do not depend on the demo.
 */
export async function useFixtureModules(project: string): Promise<void> {
  // Loaded here only: the global setup imports this file and needs no generator.
  const [{ emit }, { loadProject }, { writeOutput }] = await Promise.all([
    import('../../generator/emit/index.ts'),
    import('../../generator/pipeline.ts'),
    import('../../generator/write.ts'),
  ]);
  rmSync(join(project, 'modules'), { recursive: true, force: true });
  copyFixtureModules(join(project, 'modules'));
  rmSync(join(project, 'generated'), { recursive: true, force: true });
  // Generated code imports the runtime relative to its folder: `../runtime/` from <project>/generated, emit's default.
  writeOutput(join(project, 'generated'), emit(await loadProject(FIXTURE_MODULES_DIR)));
}

/** What the fixture package copies of this package: what `rmsgen build` and the server's commands need. */
const PACKAGE_ENTRIES = ['bin', 'generator', 'runtime', 'web', 'package.json', 'tsconfig.json'] as const;

/**
 * Brings the fixture package up to date: copies of this package's sources (timestamps kept, so that
 * the web app built here stays current there), modules/ holding exactly the fixture modules, and then
 * the real `rmsgen build` run in it, which writes its generated/ and compiles its server and web app
 * where stale. Run by the vitest global setup after this package's own outputs are built.
 */
export function buildFixturePackage(log: (line: string) => void = () => {}): void {
  mkdirSync(FIXTURE_PACKAGE, { recursive: true });
  for (const entry of PACKAGE_ENTRIES) {
    rmSync(join(FIXTURE_PACKAGE, entry), { recursive: true, force: true });
    cpSync(join(ROOT, entry), join(FIXTURE_PACKAGE, entry), { recursive: true, preserveTimestamps: true });
  }
  const modulesDir = join(FIXTURE_PACKAGE, 'modules');
  for (const name of existsSync(modulesDir) ? readdirSync(modulesDir) : []) {
    if (!(FIXTURE_MODULES as readonly string[]).includes(name)) rmSync(join(modulesDir, name), { recursive: true, force: true });
  }
  copyFixtureModules(modulesDir);

  // The child is the real CLI, not a test: none of vitest's variables.
  const build = spawnSync(process.execPath, ['bin/rmsgen.js', 'build'], { cwd: FIXTURE_PACKAGE, env: { ...childEnv(), NO_COLOR: '1' }, encoding: 'utf8', timeout: 120_000 });
  const output = `${build.stdout ?? ''}${build.stderr ?? ''}`;
  if (build.status !== 0) throw new Error(`rmsgen build in the fixture package (${FIXTURE_PACKAGE}) failed (${build.status ?? build.signal}):\n${output}`);
  for (const line of output.trimEnd().split('\n')) log(`fixture package: ${line}`);
}
