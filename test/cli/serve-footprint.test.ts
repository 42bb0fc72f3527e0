/**
 * `rmsgen serve` runs the compiled server: the real process, watched by a preload that records
 * every module it loads (record-modules.mjs), loads no TypeScript compiler, ts-morph, esbuild,
 * tsx, generator or `.ts` file; on SQLite no pg, no MCP SDK until the first `/mcp` request, and
 * not the generated OpenAPI document (the largest generated file): the compiled server holds none
 * of it, and reads generated/openapi.json when it is first asked for it.
 * The server's other commands (`user …`, `migrate`, the prunes, `backup`) load neither the build
 * tools nor the server itself: no Express.
 *
 * The package served is the fixture package (test/helpers/fixtures.ts): this package's build, made
 * the same way (`rmsgen build`), of the fixture modules rather than the demo.
 *
 * And a stale build is refused with the command that rebuilds it: in a copy of that package (the
 * tests around this one run its build as it is), each kind of edit — runtime/, modules/,
 * web/src/ — makes `serve` exit 1 naming the changed file and `npx rmsgen build`; `--allow-stale`
 * starts anyway; recompiling without regenerating (`npm install`) does not hide an edit of
 * modules/; and `npx rmsgen build` makes it start again.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_PACKAGE, ROOT } from '../helpers/fixtures.ts';
import { envWithoutServeVariables } from '../helpers/serve-env.ts';

const RECORDER = join(import.meta.dirname, '../helpers/record-modules.mjs');
const PASSWORD = 'footprint-test-password';
const dir = mkdtempSync(join(tmpdir(), 'rmsgen-footprint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a server process must never load. */
const BUILD_TOOLS = /\/node_modules\/(typescript|ts-morph|@ts-morph\/[^/]+|esbuild|@esbuild\/[^/]+|tsx|get-tsconfig)\//;

interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

function serve(cwd: string, args: readonly string[], options: { nodeArgs?: readonly string[]; env?: Record<string, string> } = {}): Promise<Served> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), join(cwd, 'bin/rmsgen.js'), 'serve', '--port', '0', ...args], {
    cwd: dir,
    env: { ...envWithoutServeVariables(['NODE_OPTIONS']), RMS_ADMIN_PASSWORD: PASSWORD, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 20_000);
    child.stdout!.on('data', () => {
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => out, exited });
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`serve exited early:\n${out}`));
    });
  });
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
}

/** The modules recorded so far, once the `# snapshot <n>` line is there. */
async function recorded(file: string, snapshot: number): Promise<string[]> {
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (text.includes(`# snapshot ${snapshot}\n`)) return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no snapshot ${snapshot} in ${file}`);
}

describe('the serve process', () => {
  it('loads no TypeScript, ts-morph, esbuild, tsx or generator, no pg on SQLite, and the MCP SDK only for /mcp', async () => {
    const modulesFile = join(dir, 'modules.txt');
    const served = await serve(FIXTURE_PACKAGE, ['--db', `sqlite:${join(dir, 'footprint.sqlite')}`], {
      nodeArgs: ['--import', RECORDER],
      env: { RMS_RECORD_MODULES: modulesFile },
    });
    const login = await post(`${served.url}/api/auth/login`, { username: 'admin', password: PASSWORD });
    const auth = { authorization: `Bearer ${login.body.token}` };
    const created = await post(`${served.url}/api/lead/create`, { title: 'Footprint' }, auth);
    expect(created.status).toBe(200);
    expect((await post(`${served.url}/api/lead/get`, { id: created.body.value.id }, auth)).status).toBe(200);

    served.child.kill('SIGUSR2');
    const beforeMcp = await recorded(modulesFile, 1);
    // The recorder sees both kinds of module: else an empty list would pass.
    expect(beforeMcp).toEqual(expect.arrayContaining([expect.stringMatching(/\/dist\/server\/rmsgen-server\.js$/)]));
    expect(beforeMcp.some((module) => /\/node_modules\/knex\//.test(module))).toBe(true); // CommonJS
    expect(beforeMcp.some((module) => /\/node_modules\/zod\//.test(module))).toBe(true); // ES modules
    expect(beforeMcp.filter((module) => BUILD_TOOLS.test(module))).toEqual([]);
    expect(beforeMcp.filter((module) => /\.(ts|tsx|mts|cts)$/.test(module))).toEqual([]);
    expect(beforeMcp.filter((module) => module.includes('/generator/'))).toEqual([]);
    expect(beforeMcp.filter((module) => /\/node_modules\/(pg|pg-pool|pg-protocol)\//.test(module))).toEqual([]);
    expect(beforeMcp.filter((module) => /\/node_modules\/(@modelcontextprotocol\/sdk|ajv)\//.test(module))).toEqual([]);

    const tools = await fetch(`${served.url}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(tools.status).toBe(200);
    expect(((await tools.json()) as any).result.tools.length).toBeGreaterThan(0);
    // The document's own member, which no source of the server spells: the bundle does not carry it.
    const manifest = JSON.parse(readFileSync(join(FIXTURE_PACKAGE, 'dist/server/build-manifest.json'), 'utf8')) as { outputs: string[] };
    const scripts = manifest.outputs.filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((name) => readFileSync(join(FIXTURE_PACKAGE, 'dist/server', name), 'utf8').includes('"x-mcp"'))).toEqual([]);
    const generated = JSON.parse(readFileSync(join(FIXTURE_PACKAGE, 'generated/openapi.json'), 'utf8'));
    expect(generated['x-mcp']).toBeDefined();
    const openapi = await fetch(`${served.url}/api/openapi.json`, { headers: auth });
    expect(openapi.status).toBe(200);
    const document = (await openapi.json()) as any;
    expect(document['x-mcp']).toEqual(generated['x-mcp']);
    expect(Object.keys(document.paths)).toContain('/api/lead/get');

    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    const all = await recorded(modulesFile, 2);
    expect(all.some((module) => /\/node_modules\/@modelcontextprotocol\/sdk\//.test(module))).toBe(true);
    expect(all.filter((module) => BUILD_TOOLS.test(module))).toEqual([]);
    expect(all.filter((module) => /\.(ts|tsx|mts|cts)$/.test(module))).toEqual([]);
  });

  it('says in --help that it refuses a stale build unless --allow-stale', () => {
    const help = spawnSync(process.execPath, [join(FIXTURE_PACKAGE, 'bin/rmsgen.js'), 'serve', '--help'], { cwd: dir, encoding: 'utf8', env: envWithoutServeVariables(['NODE_OPTIONS']) });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--allow-stale/);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/npx rmsgen build/);
  });
});

describe("the server's other commands", () => {
  // migrate first: it makes the database, which user list wants there.
  it.each(['migrate', 'user list', 'history prune --before 2020-01-01'])('`rmsgen %s` loads no Express, TypeScript or generator', (line) => {
    const command = line.split(' ');
    const modulesFile = join(dir, `modules-${command[0]}.txt`);
    const run = spawnSync(process.execPath, ['--import', RECORDER, join(FIXTURE_PACKAGE, 'bin/rmsgen.js'), ...command, '--db', `sqlite:${join(dir, 'other-commands.sqlite')}`], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...envWithoutServeVariables(['NODE_OPTIONS']), RMS_RECORD_MODULES: modulesFile },
    });
    expect(run.status, run.stderr).toBe(0);
    const loaded = readFileSync(modulesFile, 'utf8').split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(loaded.some((module) => /\/node_modules\/knex\//.test(module))).toBe(true); // the recorder saw what it ran
    expect(loaded.filter((module) => /\/node_modules\/(express|body-parser|router|send|serve-static)\//.test(module))).toEqual([]);
    expect(loaded.filter((module) => BUILD_TOOLS.test(module))).toEqual([]);
    expect(loaded.filter((module) => /\.(ts|tsx|mts|cts)$/.test(module) || module.includes('/generator/'))).toEqual([]);
  });
});

describe('a stale build', () => {
  /** A copy of the fixture package whose build outputs are current (copied with their timestamps). */
  function copyPackage(): string {
    const copy = mkdtempSync(join(tmpdir(), 'rmsgen-footprint-copy-'));
    for (const entry of ['bin', 'generator', 'runtime', 'generated', 'modules', 'web', 'dist', 'package.json', 'tsconfig.json']) {
      cpSync(join(FIXTURE_PACKAGE, entry), join(copy, entry), { recursive: true, preserveTimestamps: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    return copy;
  }

  function run(copy: string, args: readonly string[]) {
    return spawnSync(process.execPath, [join(copy, 'bin/rmsgen.js'), ...args], { cwd: copy, encoding: 'utf8', env: { ...envWithoutServeVariables(['NODE_OPTIONS']), RMS_ADMIN_PASSWORD: PASSWORD }, timeout: 60_000 });
  }

  it('is refused, naming what changed and `npx rmsgen build`, which makes serve start again', async () => {
    const copy = copyPackage();
    try {
      const db = ['--db', `sqlite:${join(copy, 'stale.sqlite')}`];
      const fresh = await serve(copy, db);
      fresh.child.kill('SIGTERM');
      expect(await fresh.exited).toBe(0);

      appendFileSync(join(copy, 'runtime/errors.ts'), '\n// edited\n');
      const server = run(copy, ['serve', '--port', '0', ...db]);
      expect(server.status).toBe(1);
      expect(server.stderr).toContain('the compiled server (dist/server/) is older than its sources: runtime/errors.ts (changed)');
      expect(server.stderr).toContain('Run `npx rmsgen build` to rebuild');
      const migrate = run(copy, ['migrate', ...db]);
      expect(migrate.status).toBe(1);
      expect(migrate.stderr).toContain('runtime/errors.ts (changed)');

      const anyway = await serve(copy, [...db, '--allow-stale']);
      expect(anyway.output()).toMatch(/warning: the compiled server .* is older than its sources: runtime\/errors\.ts \(changed\); running it anyway/);
      anyway.child.kill('SIGTERM');
      expect(await anyway.exited).toBe(0);

      writeFileSync(join(copy, 'modules/crm/extra.md'), 'notes\n');
      appendFileSync(join(copy, 'web/src/main.tsx'), '\n// edited\n');
      const refused = run(copy, ['serve', '--port', '0', ...db]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('modules/crm/extra.md (added)');
      expect(refused.stderr).toContain('the web app (web/dist/) is older than its sources: web/src/main.tsx (changed)');

      // Recompiling alone (what `npm install` does) leaves generated/ as it was: still refused.
      const recompiled = spawnSync(process.execPath, ['--import', 'tsx', 'bin/compile.ts'], { cwd: copy, encoding: 'utf8', env: envWithoutServeVariables(['NODE_OPTIONS']) });
      expect(recompiled.status, recompiled.stderr).toBe(0);
      expect(recompiled.stdout).toMatch(/web app built:/);
      const stillRefused = run(copy, ['serve', '--port', '0', ...db]);
      expect(stillRefused.status).toBe(1);
      expect(stillRefused.stderr).toContain('modules/crm/extra.md (added)');
      expect(stillRefused.stderr).not.toContain('web app');

      const build = run(copy, ['build']);
      expect(build.status, build.stderr).toBe(0);
      expect(build.stdout).toMatch(/server compiled: dist\/server\//);
      const rebuilt = await serve(copy, db);
      rebuilt.child.kill('SIGTERM');
      expect(await rebuilt.exited).toBe(0);

      rmSync(join(copy, 'dist'), { recursive: true });
      const missing = run(copy, ['serve', '--port', '0', ...db]);
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain('the compiled server (dist/server/) is not built');
      expect(missing.stderr).toContain('npx rmsgen build');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 90_000);
});
