/**
 * Fixture module trees for generator tests, built in a temp folder from strings so that each
 * test states the definition it is about. Also runs the real `rmsgen` CLI.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const created: string[] = [];

/** Removes the temp folders made by `moduleTree` (call from `afterAll`). */
export function removeModuleTrees(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A temp project folder holding `modules/<name>/module.ts` for each entry (plus a package.json
 * with `"type": "module"`, and links to node_modules and generator/ so that copied demo modules
 * load and generated code there can import zod).
 */
export function moduleTree(modules: Record<string, string>, options: { copyDemo?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-fixture-'));
  created.push(dir);
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  // The demo modules import '../../generator/define.ts'.
  symlinkSync(join(ROOT, 'generator'), join(dir, 'generator'), 'dir');
  if (options.copyDemo) cpSync(join(ROOT, 'modules'), join(dir, 'modules'), { recursive: true });
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
