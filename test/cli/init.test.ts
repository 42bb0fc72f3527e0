/**
 * `rmsgen init <dir>`: a service of its own, outside this checkout, depending on it with a `file:`
 * dependency. What `npm install` makes of that dependency (node_modules/rmsgen linked to this
 * checkout, and its bin) is made here by hand, so that nothing reaches the network; then the
 * service checks, builds (its own generated/ and compiled server; this checkout's stay as they
 * were), serves its module and not the demo's, refuses a stale build of its own, runs under
 * `rmsgen dev`, and its own test passes against the real server. Refusals: a folder that is not
 * empty, a file; each one line, changing nothing.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/module-trees.ts';
import { childEnv } from '../helpers/serve-env.ts';

const PASSWORD = 'init-test-password';
const NUMBER = String.raw`\d+(\.\d+)?`;
const dir = mkdtempSync(join(tmpdir(), 'rmsgen-init-'));
const groups: number[] = [];
afterAll(() => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The environment of a process outside the test run: no vitest variables, no server variables. */
function cleanEnv(): NodeJS.ProcessEnv {
  return { ...childEnv(['NODE_TEST_CONTEXT']), NO_COLOR: '1' };
}

/** `node <script> <args>` in `cwd`, to the end. */
function run(cwd: string, script: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const result: SpawnSyncReturns<string> = spawnSync(process.execPath, [script, ...args], { cwd, env: cleanEnv(), encoding: 'utf8', timeout: 240_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every file under `folder` with its content (links by their target). */
function contents(folder: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isSymbolicLink()) found[relative(folder, path)] = `-> ${readlinkSync(path)}`;
      else if (entry.isDirectory()) walk(path);
      else found[relative(folder, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(folder);
  return found;
}

/** A child in a process group of its own, its output collected; `waitFor` a line of it. */
function start(cwd: string, args: readonly string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, args, { cwd, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  groups.push(child.pid!);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => output,
    async waitFor(pattern: RegExp, timeoutMs = 120_000): Promise<RegExpExecArray> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before ${pattern}:\n${output}`);
        if (Date.now() > until) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

async function signIn(url: string): Promise<string> {
  const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  expect(login.status).toBe(200);
  return ((await login.json()) as { token: string }).token;
}

async function meta(url: string, token: string): Promise<{ modules: { name: string }[]; models: { name: string; fields: { name: string }[] }[] }> {
  const response = await fetch(`${url}/api/meta`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

const RMSGEN = join(ROOT, 'bin/rmsgen.js');
const FILES = ['.gitignore', 'README.md', 'modules/helpdesk/module.ts', 'package.json', 'test/service.test.js', 'tsconfig.json'];

describe('rmsgen init', { timeout: 600_000 }, () => {
  const service = join(dir, 'helpdesk-service');
  const dependency = `file:${relative(service, ROOT)}`;

  it('creates a service in an empty folder: one example module, a test, a README, a package.json depending on this checkout', () => {
    mkdirSync(service);
    const created = run(dir, RMSGEN, ['init', 'helpdesk-service']);
    expect(created).toEqual({
      status: 0,
      stderr: '',
      stdout: [
        `created helpdesk-service/: the module helpdesk (customer, ticket), a test of its own, and a package.json depending on rmsgen (${dependency})`,
        ...FILES.map((file) => `  ${file}`),
        'next:',
        '  cd helpdesk-service',
        '  npm install      # links this rmsgen checkout into node_modules/; downloads nothing',
        '  npx rmsgen dev   # builds, serves http://127.0.0.1:3000, and rebuilds on every save',
        "  npm test         # in another terminal: the service's own test, against a server of its own",
        '',
      ].join('\n'),
    });
    const files = contents(service);
    expect(Object.keys(files).sort()).toEqual(FILES);
    expect(JSON.parse(files['package.json']!)).toEqual({
      name: 'helpdesk-service',
      version: '0.1.0',
      private: true,
      type: 'module',
      scripts: { dev: 'rmsgen dev', build: 'rmsgen build', check: 'rmsgen check', start: 'rmsgen serve', test: 'rmsgen build --check && node --test test/' },
      dependencies: { rmsgen: dependency },
      // The link as npm names it, from node_modules/: rmsgen's `prepare` may run on `npm install`.
      allowScripts: { [`file:${relative(join(service, 'node_modules'), ROOT)}`]: true },
    });
    // No demo modules; the example imports rmsgen through the dependency.
    expect(readdirSync(join(service, 'modules'))).toEqual(['helpdesk']);
    expect(files['modules/helpdesk/module.ts']).toBe(readFileSync(join(ROOT, 'templates/service/modules/helpdesk/module.ts'), 'utf8'));
    expect(files['modules/helpdesk/module.ts']).toMatch(/^import \{ defineModule \} from 'rmsgen\/generator\/define\.ts';\n/);
    expect(files['README.md']).toMatch(/^# helpdesk-service\n/);
    expect(files['README.md']).toContain(`npm install      # links rmsgen (${dependency}) into node_modules/; downloads nothing`);
    expect(files['.gitignore']).toBe(readFileSync(join(ROOT, 'templates/service/gitignore'), 'utf8'));
  });

  it('refuses a folder that is not empty, or a file, or no folder: one line, nothing changed', () => {
    const before = contents(service);
    expect(run(dir, RMSGEN, ['init', 'helpdesk-service'])).toEqual({
      status: 1,
      stdout: '',
      stderr: 'init: helpdesk-service is not empty (.gitignore, README.md, modules, …); choose a new or empty folder\n',
    });
    expect(contents(service)).toEqual(before);

    writeFileSync(join(dir, 'a-file'), 'mine\n');
    expect(run(dir, RMSGEN, ['init', 'a-file'])).toEqual({ status: 1, stdout: '', stderr: 'init: a-file is a file; choose a new or empty folder\n' });
    expect(readFileSync(join(dir, 'a-file'), 'utf8')).toBe('mine\n');

    const missing = run(dir, RMSGEN, ['init']);
    expect(missing.status).toBe(1);
    expect(missing.stderr.split('\n')[0]).toBe("error: missing required argument 'dir'");
  });

  it('npm installs it offline, even where install scripts not in allowScripts are refused (--strict-allow-scripts)', () => {
    // In a service of its own, so that the hand-made link of the next test stays as it is.
    const installed = join(dir, 'npm-installed');
    expect(run(dir, RMSGEN, ['init', 'npm-installed']).status).toBe(0);
    const npm = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--strict-allow-scripts'], {
      cwd: installed,
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(npm.stderr).not.toMatch(/install-scripts|allowScripts/);
    expect(npm.status).toBe(0);
    expect(realpathSync(join(installed, 'node_modules/rmsgen'))).toBe(realpathSync(ROOT));
  });

  it('builds, checks and serves as a service of its own; refuses a stale build of its own; rmsgen dev serves it', async () => {
    // What `npm install` does with the file: dependency, without the network.
    mkdirSync(join(service, 'node_modules/.bin'), { recursive: true });
    symlinkSync(relative(join(service, 'node_modules'), ROOT), join(service, 'node_modules/rmsgen'), 'dir');
    symlinkSync('../rmsgen/bin/rmsgen.js', join(service, 'node_modules/.bin/rmsgen'));
    const bin = join(service, 'node_modules/.bin/rmsgen');
    const packageServer = readFileSync(join(ROOT, 'dist/server/build-manifest.json'), 'utf8');

    expect(run(service, bin, ['check'])).toEqual({
      status: 0,
      stderr: '',
      stdout: 'modules/: 1 modules, 2 models, 27 commands, 2 roles; no problems\n  helpdesk: customer, ticket; grants support: customer *, ticket *\n',
    });
    // Nothing built yet: the server's commands say what builds it (npm install builds only rmsgen's own).
    expect(run(service, bin, ['serve', '--port', '0'])).toEqual({
      status: 1,
      stdout: '',
      stderr: 'the compiled server (dist/server/) is not built.\nRun `npx rmsgen build` to build it.\n',
    });
    const build = run(service, bin, ['build']);
    expect(build.stderr).toBe('');
    expect(build.stdout).toMatch(new RegExp(`^generated 16 files \\(16 changed\\) in generated/\\nserver compiled: dist/server/ \\(\\d+ sources, \\d+ kB of JavaScript\\) in ${NUMBER} s\\n(web app built: .*\\n)?$`));
    expect(build.status).toBe(0);
    expect(run(service, bin, ['build', '--check'])).toEqual({ status: 0, stderr: '', stdout: 'generated/ is up to date (16 files)\n' });

    // The service's compiled server: its generated/ with this checkout's runtime; this checkout's own is left as it was.
    // generated/openapi.json is not bundled: the server reads it when first asked for the document.
    const manifest = JSON.parse(readFileSync(join(service, 'dist/server/build-manifest.json'), 'utf8')) as { inputs: Record<string, unknown>; outputs: string[] };
    const generated = Object.keys(manifest.inputs).filter((file) => /(^|\/)generated\//.test(file));
    expect(generated.sort()).toEqual([
      'generated/helpdesk/customer.commands.ts',
      'generated/helpdesk/customer.logic.ts',
      'generated/helpdesk/customer.model.ts',
      'generated/helpdesk/customer.queries.ts',
      'generated/helpdesk/customer.schemas.ts',
      'generated/helpdesk/customer.tools.ts',
      'generated/helpdesk/ticket.commands.ts',
      'generated/helpdesk/ticket.logic.ts',
      'generated/helpdesk/ticket.model.ts',
      'generated/helpdesk/ticket.queries.ts',
      'generated/helpdesk/ticket.schemas.ts',
      'generated/helpdesk/ticket.tools.ts',
      'generated/logic.ts',
      'generated/registry.ts',
      'generated/roles.ts',
    ]);
    expect(manifest.inputs).toHaveProperty('modules/helpdesk/module.ts');
    expect(manifest.inputs).toHaveProperty(`${relative(service, ROOT)}/runtime/server.ts`);
    expect(manifest.outputs).toContain('node_modules');
    expect(lstatSync(join(service, 'dist/server/node_modules')).isSymbolicLink()).toBe(true);
    expect(realpathSync(join(service, 'dist/server/node_modules'))).toBe(realpathSync(join(ROOT, 'node_modules')));
    expect(readFileSync(join(ROOT, 'dist/server/build-manifest.json'), 'utf8')).toBe(packageServer);

    // Served: the service's models, not the demo's; its own web app (built with its generated logic) at /.
    const served = start(service, [bin, 'serve', '--port', '0', '--db', `sqlite:${join(service, 'data/serve.sqlite')}`], { RMS_ADMIN_PASSWORD: PASSWORD });
    const url = (await served.waitFor(/^listening on (http:\/\/127\.0\.0\.1:\d+)$/m))[1]!;
    const token = await signIn(url);
    const described = await meta(url, token);
    expect(described.modules.map((module) => module.name)).toEqual(['helpdesk']);
    expect(described.models.map((model) => [model.name, model.fields.map((field) => field.name)])).toEqual([
      ['customer', ['name', 'email']],
      ['ticket', ['subject', 'customer', 'status', 'solution']],
    ]);
    // Its OpenAPI document: read from its generated/openapi.json, not this checkout's.
    const openapi = await fetch(`${url}/api/openapi.json`, { headers: { authorization: `Bearer ${token}` } });
    expect(openapi.status).toBe(200);
    const paths = Object.keys(((await openapi.json()) as { paths: Record<string, unknown> }).paths);
    expect(paths).toEqual(expect.arrayContaining(['/api/customer/get', '/api/ticket/get']));
    expect(paths.filter((path) => path.startsWith('/api/lead/'))).toEqual([]);
    const lead = await fetch(`${url}/api/lead/get`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"id":"x"}' });
    expect([lead.status, await lead.json()]).toEqual([404, { error: 'not found' }]);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(readFileSync(join(service, 'dist/web/index.html'), 'utf8'));
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);

    // Its own test, against a server of its own.
    const ownTest = run(service, '--test', ['test/']);
    expect(ownTest.stdout, ownTest.stdout + ownTest.stderr).toMatch(/^# tests 3\n# suites 0\n# pass 3\n# fail 0\n/m);
    expect(ownTest.status).toBe(0);

    // A module edited and not built: the service's serve refuses, naming its file.
    const moduleFile = join(service, 'modules/helpdesk/module.ts');
    const source = readFileSync(moduleFile, 'utf8');
    const withPriority = source.replace("        solution: {", "        priority: { kind: 'select', options: ['low', 'high'], label: 'Priority' },\n        solution: {");
    writeFileSync(moduleFile, withPriority);
    expect(run(service, bin, ['serve', '--port', '0', '--db', `sqlite:${join(service, 'data/serve.sqlite')}`])).toEqual({
      status: 1,
      stdout: '',
      stderr: 'the compiled server (dist/server/) is older than its sources: modules/helpdesk/module.ts (changed).\nRun `npx rmsgen build` to rebuild, or pass --allow-stale to serve anyway.\n',
    });
    writeFileSync(moduleFile, source);

    // rmsgen dev in the service: watches its modules, rebuilds and restarts on a save.
    const dev = start(service, [bin, 'dev', '--port', '0', '--db', `sqlite:${join(service, 'data/dev.sqlite')}`], { RMS_ADMIN_PASSWORD: PASSWORD });
    const devUrl = (await dev.waitFor(/^dev: listening on (http:\/\/127\.0\.0\.1:\d+)$/m))[1]!;
    await dev.waitFor(new RegExp(`^dev: serving ${devUrl.replaceAll('.', '\\.')} \\(built in ${NUMBER} s\\); watching modules/ for changes$`, 'm'));
    const devToken = await signIn(devUrl);
    expect((await meta(devUrl, devToken)).models.map((model) => model.name)).toEqual(['customer', 'ticket']);
    writeFileSync(moduleFile, withPriority);
    await dev.waitFor(/^dev: rebuilt in \d+(\.\d+)? s; server restarted at .*; pages reload$/m);
    expect((await meta(devUrl, devToken)).models.find((model) => model.name === 'ticket')!.fields.map((field) => field.name)).toEqual([
      'subject',
      'customer',
      'status',
      'priority',
      'solution',
    ]);
    dev.child.kill('SIGTERM');
    expect(await dev.exited).toBe(0);
    expect(dev.output()).toMatch(/dev: SIGTERM: stopping\ndev: stopped\n$/);
    expect(existsSync(join(service, 'data/dev.sqlite'))).toBe(true);
    expect(statSync(join(service, 'generated/helpdesk/ticket.model.ts')).isFile()).toBe(true);
  });
});
