/**
 * `rmsgen init <dir>`: a service of its own, from templates/service/: one example module (no demo
 * modules), a test of its own that drives the real server over HTTP (node:test, no packages to
 * install), a README, and a package.json whose one dependency is this rmsgen checkout as a
 * `file:` dependency. npm links such a dependency (node_modules/rmsgen → this checkout) without
 * downloading anything, and the service runs this checkout's build, runtime and web app with its
 * own modules/, generated/ and dist/server/ (bin/project.js). So a fresh machine needs this
 * checkout, installed (`npm install` here), next to the service where the dependency points.
 *
 * Refuses a folder that exists and is not empty, or is a file; on any failure, removes what it
 * wrote.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { listFiles } from '../generator/write.ts';
import { CliError } from '../runtime/cli-error.ts';
import { PACKAGE_ROOT } from './outputs.ts';

const TEMPLATE_DIR = join(PACKAGE_ROOT, 'templates', 'service');
/** Template files stored under another name (a `.gitignore` in templates/ would apply to this repository). */
const RENAMED: Readonly<Record<string, string>> = { gitignore: '.gitignore' };

export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description('Create a service of your own in <dir> (new or empty): one example module, a test of its own, a README, and a package.json depending on this rmsgen checkout')
    .argument('<dir>', 'folder to create the service in')
    .action((dir: string) => runInit(dir));
}

export function runInit(dir: string): void {
  const target = resolve(dir);
  const shown = dir.replace(/\/+$/, '') || dir;
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) fail(`${shown} is a file; choose a new or empty folder`);
    const entries = readdirSync(target).sort();
    if (entries.length > 0) {
      const listed = entries.slice(0, 3).join(', ') + (entries.length > 3 ? ', …' : '');
      fail(`${shown} is not empty (${listed}); choose a new or empty folder`);
    }
  }
  const name = packageName(basename(target));
  const files = listFiles(TEMPLATE_DIR);
  if (files.length === 0) throw new Error(`no service template in ${TEMPLATE_DIR}: the rmsgen checkout is incomplete`);
  const values: Readonly<Record<string, string>> = { name, dependency: fileDependency(target), dependencyScripts: scriptsKey(target) };

  // What exists before: on failure, everything below it that init made goes.
  const created = firstMissing(target);
  try {
    for (const file of files) {
      const path = join(target, ...(RENAMED[file] ?? file).split('/'));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, fill(readFileSync(join(TEMPLATE_DIR, file), 'utf8'), values), { flag: 'wx' });
    }
  } catch (error) {
    if (created !== undefined) rmSync(created, { recursive: true, force: true });
    else for (const entry of readdirSync(target)) rmSync(join(target, entry), { recursive: true, force: true });
    fail(`cannot write ${shown}: ${(error as Error).message}`);
  }

  const written = files.map((file) => RENAMED[file] ?? file).sort();
  const lines = [
    `created ${shown}/: the module helpdesk (customer, ticket), a test of its own, and a package.json depending on rmsgen (${values.dependency})`,
    ...written.map((file) => `  ${file}`),
    'next:',
    `  cd ${/^[\w./@+-]+$/.test(shown) ? shown : `'${shown.replaceAll("'", "'\\''")}'`}`,
    '  npm install      # links this rmsgen checkout into node_modules/; downloads nothing',
    '  npx rmsgen dev   # builds, serves http://127.0.0.1:3000, and rebuilds on every save',
    '  npm test         # in another terminal: the service\'s own test, against a server of its own',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `{{name}}` → its value; every placeholder must have one. */
function fill(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`templates/service: no value for {{${key}}}`);
    return value;
  });
}

/** The dependency on this checkout, relative to the service so that the two can move together. */
function fileDependency(target: string): string {
  const path = relative(target, PACKAGE_ROOT).split(sep).join('/');
  return `file:${path === '' ? '.' : path}`;
}

/**
 * The `allowScripts` key that lets npm run this checkout's `prepare` when it installs the service:
 * the link's own spec, relative to the service's node_modules/ (what `npm install-scripts approve`
 * writes, and the form npm's `--strict-allow-scripts` check matches before it links anything).
 */
function scriptsKey(target: string): string {
  return `file:${relative(join(target, 'node_modules'), PACKAGE_ROOT).split(sep).join('/')}`;
}

/** A folder name as an npm package name: lower case, letters, digits, `-`, `.` and `_`. */
function packageName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '')
    .replace(/-+$/, '')
    .slice(0, 214);
  return name === '' ? 'service' : name;
}

/** The outermost folder of `path` (itself included) that does not exist yet. */
function firstMissing(path: string): string | undefined {
  let missing: string | undefined;
  for (let current = path; !existsSync(current); current = dirname(current)) {
    missing = current;
    if (dirname(current) === current) break;
  }
  return missing;
}

function fail(line: string): never {
  throw new CliError(`init: ${line}`);
}
