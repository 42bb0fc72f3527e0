/**
 * `rmsgen dev`, the real binary, on a copy of the project (its sources; node_modules linked) whose
 * modules/ are the fixture modules (test/fixtures/modules, whatever the demo becomes), on a
 * free port on 127.0.0.1 and a SQLite file: each save of a module rebuilds and restarts the server
 * behind the same port, on the same database; a broken module prints its problem as `rmsgen check`
 * does while the last good server keeps answering; a fix recovers; open pages are told to reload
 * over the dev-only event stream, which neither `serve` nor web/dist/ has. Bad options are one line
 * each and change nothing. Every dev process runs in a process group of its own, killed whole at
 * the end whatever happened.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { postJson } from '../helpers/cli.ts';
import { ROOT, useFixtureModules } from '../helpers/fixtures.ts';
import { childEnv } from '../helpers/serve-env.ts';

/** Debian's Chromium, as the web app's tests use; the browser test is skipped, saying so, without it. */
const CHROMIUM = '/usr/bin/chromium';

const COPIED = ['bin', 'generator', 'generated', 'modules', 'runtime', 'web', 'package.json', 'tsconfig.json'];
const PASSWORD = 'dev-test-password';
const RELOAD_TAG = '<script type="module" src="/__rmsgen_dev/reload.js"></script>';
const NUMBER = String.raw`\d+(\.\d+)?`;

const folders: string[] = [];
const groups: number[] = [];
afterAll(() => {
  for (const group of groups) killGroup(group);
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/**
 * A copy of the project's sources with node_modules linked, its modules/ the fixture modules with
 * their generated/; web/dist/ and dist/ are built by dev.
 */
async function copyProject(): Promise<string> {
  const project = mkdtempSync(join(tmpdir(), 'rmsgen-dev-'));
  folders.push(project);
  for (const name of COPIED) {
    cpSync(join(ROOT, name), join(project, name), { recursive: true, filter: (source) => !source.startsWith(join(ROOT, 'web/dist')) });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  await useFixtureModules(project);
  return project;
}

function cleanEnv(): NodeJS.ProcessEnv {
  return { ...childEnv(), NO_COLOR: '1', RMS_ADMIN_PASSWORD: PASSWORD };
}

function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/** The real `rmsgen dev` in `project`, in a process group of its own. */
class Dev {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(project: string, args: readonly string[]) {
    this.child = spawn(process.execPath, [join(project, 'bin/rmsgen.js'), 'dev', ...args], { cwd: project, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    groups.push(this.child.pid!);
    this.child.stdout!.on('data', (chunk) => (this.stdout += chunk));
    this.child.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  lines(): string[] {
    return this.stdout.split('\n').filter((line) => line !== '');
  }

  /** Waits for the `count`-th stdout line matching `pattern` (dev's rebuilds take seconds; generous for busy machines). */
  async line(pattern: RegExp, count = 1, timeoutMs = 120_000): Promise<RegExpExecArray> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const matching = this.lines().filter((line) => pattern.test(line));
      if (matching.length >= count) return pattern.exec(matching[count - 1]!)!;
      if (this.child.exitCode !== null) throw new Error(`dev exited (${this.child.exitCode}) before ${pattern}:\n${this.stdout}\n${this.stderr}`);
      if (Date.now() > until) throw new Error(`no ${pattern} (${count}) within ${timeoutMs} ms:\n${this.stdout}\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGTERM, then the exit status once dev and everything it started are gone. */
  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    const code = await this.exited;
    const until = Date.now() + 10_000;
    while (groupAlive(this.child.pid!) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    return code;
  }
}

/** The dev-only event stream, read as it comes: `{event, data}` in order. */
function listen(url: string): { events: { event: string; data: unknown }[]; next(event: string, count: number): Promise<unknown>; close(): void } {
  const controller = new AbortController();
  const events: { event: string; data: unknown }[] = [];
  void (async () => {
    const response = await fetch(`${url}/__rmsgen_dev/events`, { signal: controller.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) });
      }
    }
  })().catch(() => undefined);
  return {
    events,
    async next(event, count) {
      const until = Date.now() + 30_000;
      for (;;) {
        const found = events.filter((entry) => entry.event === event);
        if (found.length >= count) return found[count - 1]!.data;
        if (Date.now() > until) throw new Error(`no ${event} event (${count}): ${JSON.stringify(events)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => controller.abort(),
  };
}

async function get(url: string, path: string, token?: string): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

async function partyFields(url: string, token: string): Promise<string[]> {
  const meta = await get(url, '/api/meta', token);
  expect(meta.status).toBe(200);
  return (JSON.parse(meta.text).models as { name: string; fields: { name: string }[] }[]).find((model) => model.name === 'party')!.fields.map((field) => field.name);
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

/** The web app at `url` in a new page, once it listens to dev's events; marked so that a reload shows (the mark goes with it). */
async function openPage(browser: Browser, url: string): Promise<{ page: Page; consoleErrors: string[] }> {
  const page = await browser.newPage();
  page.setDefaultTimeout(60_000);
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.goto(url);
  await page.waitForSelector('html[data-rmsgen-dev="1"]', { state: 'attached' });
  await page.evaluate(() => ((window as unknown as { loadedBefore: boolean }).loadedBefore = true));
  return { page, consoleErrors };
}

const CRM = 'modules/crm/module.ts';
const PARTY_FIELDS = ['name', 'email', 'phone', 'kind', 'tax_id', 'notes'];

describe('rmsgen dev', { timeout: 400_000 }, () => {
  it('bad options: one line each, exit 1, nothing built; a port in use is refused the same way', async () => {
    const project = await copyProject();
    const blocker = createServer();
    const taken = await new Promise<number>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)));
    const run = (args: string[]) => {
      const result = spawnSync(process.execPath, [join(project, 'bin/rmsgen.js'), 'dev', ...args], { cwd: project, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    try {
      expect(run(['--port', 'abc'])).toEqual({ status: 1, stdout: '', stderr: 'dev: invalid port abc: use a number from 0 to 65535\n' });
      expect(run(['--port', '0', '--db', ':memory:'])).toEqual({
        status: 1,
        stdout: '',
        stderr: 'dev: --db / RMS_DB :memory: would start empty at every restart; use a file: sqlite:<file>\n',
      });
      expect(run(['--port', '0', '--db', 'mysql://db/x'])).toEqual({
        status: 1,
        stdout: '',
        stderr: 'dev: invalid --db / RMS_DB mysql://db/x: unsupported database URL (use sqlite:<file> or postgres://user:pass@host:port/db)\n',
      });
      expect(run(['--port', '0', '--modules', 'nowhere'])).toEqual({ status: 1, stdout: '', stderr: 'dev: nowhere: modules folder not found (create it, or pass --modules <dir>)\n' });
      expect(run(['--port', String(taken)])).toEqual({ status: 1, stdout: '', stderr: `dev: cannot listen: listen EADDRINUSE: address already in use 127.0.0.1:${taken}\n` });
    } finally {
      blocker.close();
    }
    expect(existsSync(join(project, 'dist'))).toBe(false);
    expect(existsSync(join(project, 'web/dist'))).toBe(false);
    expect(existsSync(join(project, 'data'))).toBe(false);
  });

  it('starting on a broken module: no server yet (503 saying why), then a fix starts one', async () => {
    const project = await copyProject();
    const source = readFileSync(join(project, CRM), 'utf8');
    writeFileSync(join(project, CRM), source.replace("kind: { kind: 'select',", "kind: { kind: 'selct',"));
    const port = await freePort();
    const dev = new Dev(project, ['--port', String(port), '--db', `sqlite:${join(project, 'dev.sqlite')}`]);
    try {
      const url = `http://127.0.0.1:${port}`;
      await dev.line(/^dev: build failed; no server yet: fix the problems and save$/);
      expect(dev.stderr).toBe(
        'modules/crm/module.ts: model party, field kind: unknown kind "selct" (did you mean "select"? valid kinds: text, longtext, number, money, date, bool, select, ref, decimal, datetime, email, url, phone, multiselect, file)\n',
      );
      const meta = await get(url, '/api/meta');
      expect(meta).toEqual({ status: 503, type: 'application/json; charset=utf-8', text: '{"error":"rmsgen dev: no server is running: the build failed: see the terminal"}' });
      const page = await get(url, '/');
      expect(page.status).toBe(503);
      expect(page.text).toContain(`${RELOAD_TAG}\n</head>`);
      expect(page.text).toContain('rmsgen dev: no server is running: the build failed: see the terminal.');
      const events = listen(url);
      expect(await events.next('hello', 1)).toEqual({
        build: 0,
        problems: ['modules/crm/module.ts: model party, field kind: unknown kind "selct" (did you mean "select"? valid kinds: text, longtext, number, money, date, bool, select, ref, decimal, datetime, email, url, phone, multiselect, file)'],
      });

      writeFileSync(join(project, CRM), source);
      await dev.line(new RegExp(`^dev: rebuilt in ${NUMBER} s; server started at http://127\\.0\\.0\\.1:${port}; pages reload$`));
      expect(await events.next('reload', 1)).toEqual({ build: 1 });
      events.close();
      const token = (await postJson(url, '/api/auth/login', { username: 'admin', password: PASSWORD })).body.token as string;
      expect(await partyFields(url, token)).toEqual(PARTY_FIELDS);

      expect(await dev.stop()).toBe(0);
      expect(dev.lines().slice(-2)).toEqual(['dev: SIGTERM: stopping', 'dev: stopped']);
      expect(groupAlive(dev.child.pid!)).toBe(false);
    } finally {
      killGroup(dev.child.pid!);
    }
  });

  it('a save rebuilds and restarts behind the same port on the same database; a broken module or a server that does not start keeps the last good server; pages reload, in Chromium too', async () => {
    const project = await copyProject();
    const db = join(project, 'data/dev.sqlite');
    const dev = new Dev(project, ['--port', '0', '--db', `sqlite:${db}`]);
    // One dev process for the terminal's lines, the event stream and the page in Chromium: each dev
    // start builds everything once, the most expensive part of this file. Without Chromium the
    // page's part is skipped, saying so.
    const browser = existsSync(CHROMIUM) ? await launchBrowser() : undefined;
    if (!browser) console.warn(`dev test: ${CHROMIUM} not found: the page's reload in Chromium is not tested`);
    try {
      const url = (await dev.line(/^dev: listening on (http:\/\/127\.0\.0\.1:\d+)$/))[1]!;
      const escaped = url.replaceAll('.', '\\.');
      await dev.line(new RegExp(`^dev: serving ${escaped} \\(built in ${NUMBER} s\\); watching modules/, runtime/, web/src/ for changes$`));

      const token = (await postJson(url, '/api/auth/login', { username: 'admin', password: PASSWORD })).body.token as string;
      const before = await postJson(url, '/api/party/create', { name: 'Before the change' }, token);
      expect(before.status).toBe(200);
      const partyId = before.body.value.id as string;
      expect(await partyFields(url, token)).toEqual(PARTY_FIELDS);

      // The page the server serves, with the reload script; serve's own (web/dist/) has none.
      const builtIndex = readFileSync(join(project, 'web/dist/index.html'), 'utf8');
      expect(builtIndex).not.toContain('__rmsgen_dev');
      const page = await get(url, '/');
      expect(page.status).toBe(200);
      expect(page.text).toBe(builtIndex.replace('</head>', `${RELOAD_TAG}\n</head>`));
      const script = await get(url, '/__rmsgen_dev/reload.js');
      expect(script.status).toBe(200);
      expect(script.type).toBe('text/javascript; charset=utf-8');
      expect(script.text).toContain("new EventSource('/__rmsgen_dev/events')");
      const events = listen(url);
      expect(await events.next('hello', 1)).toEqual({ build: 1, problems: [] });
      const inChromium = browser ? await openPage(browser, `${url}/records/party`) : undefined;

      // A burst of saves: one rebuild, of the last. dev is stopped while they are written, so that
      // their events reach it together however the machine schedules this process: on a loaded
      // machine a pause between two writes longer than the debounce let dev snapshot the first one
      // and build twice, which is right for saves that far apart, but not the burst meant here.
      const source = readFileSync(join(project, CRM), 'utf8');
      const withWebsite = source.replace("        tax_id: {", "        website: { kind: 'text', label: 'Website' },\n        tax_id: {");
      process.kill(dev.child.pid!, 'SIGSTOP');
      try {
        writeFileSync(join(project, CRM), `${source}\n`);
        writeFileSync(join(project, CRM), source);
        writeFileSync(join(project, CRM), withWebsite);
      } finally {
        process.kill(dev.child.pid!, 'SIGCONT');
      }
      await dev.line(new RegExp(`^dev: rebuilt in ${NUMBER} s; server restarted at ${escaped}; pages reload$`));
      expect(dev.lines().filter((line) => line.endsWith('changed; rebuilding'))).toEqual(['dev: modules/crm/module.ts changed; rebuilding']);
      expect(await events.next('reload', 1)).toEqual({ build: 2 });
      if (inChromium) {
        // The page reloaded itself (a mark on the window goes with a reload) and stayed where it was.
        await inChromium.page.waitForSelector('html[data-rmsgen-dev="2"]', { state: 'attached' });
        expect(await inChromium.page.evaluate(() => (window as unknown as { loadedBefore?: boolean }).loadedBefore)).toBeUndefined();
        expect(inChromium.page.url()).toBe(`${url}/records/party`);
      }
      expect(await partyFields(url, token)).toEqual(['name', 'email', 'phone', 'kind', 'website', 'tax_id', 'notes']);
      // The same database: the session and the record made before the change are there.
      const kept = await postJson(url, '/api/party/get', { id: partyId }, token);
      expect(kept).toEqual({
        status: 200,
        body: { denied: [], value: { id: partyId, name: 'Before the change', email: null, phone: null, kind: null, website: null, tax_id: null, notes: null } },
      });
      const withSite = await postJson(url, '/api/party/create', { name: 'After', website: 'https://example.com' }, token);
      expect(withSite.status).toBe(200);
      expect(withSite.body.value.website).toBe('https://example.com');

      // A syntax error: the problem as `rmsgen check` prints it; the last good server answers on.
      const broken = withWebsite.replace("website: { kind: 'text', label: 'Website' }", "website: { kind: 'text' label: 'Website' }");
      const lineIndex = broken.split('\n').findIndex((line) => line.includes("kind: 'text' label"));
      const brokenLine = broken.split('\n')[lineIndex]!;
      const column = brokenLine.indexOf("label: 'Website'") + 1;
      const problem = [`modules/crm/module.ts:${lineIndex + 1}:${column}: ',' expected. (TS1005)`, `    ${brokenLine}`, `    ${' '.repeat(column - 1)}^`];
      writeFileSync(join(project, CRM), broken);
      await dev.line(new RegExp(`^dev: build failed; still serving the last good build at ${escaped}$`));
      expect(dev.stderr).toBe(`${problem.join('\n')}\n`);
      expect(await events.next('problems', 1)).toEqual({ problems: problem });
      if (inChromium) {
        // Shown over the page, which stays.
        const box = inChromium.page.locator('#rmsgen-dev-problems');
        await box.waitFor();
        expect(await box.textContent()).toBe(`rmsgen dev: the last build failed; this page shows the last good one.\n\n${problem.join('\n')}`);
        expect(await box.evaluate((element) => getComputedStyle(element).position)).toBe('fixed');
      }
      expect(await partyFields(url, token)).toEqual(['name', 'email', 'phone', 'kind', 'website', 'tax_id', 'notes']);
      expect((await postJson(url, '/api/party/get', { id: partyId }, token)).status).toBe(200);

      // Fixed, with one more field: back to a new server.
      const fixed = withWebsite.replace("        tax_id: {", "        twitter: { kind: 'text', label: 'Twitter' },\n        tax_id: {");
      writeFileSync(join(project, CRM), fixed);
      await dev.line(new RegExp(`^dev: rebuilt in ${NUMBER} s; server restarted at ${escaped}; pages reload$`), 2);
      expect(await events.next('reload', 2)).toEqual({ build: 3 });
      if (inChromium) {
        await inChromium.page.waitForSelector('html[data-rmsgen-dev="3"]', { state: 'attached' });
        expect(await inChromium.page.locator('#rmsgen-dev-problems').count()).toBe(0);
        // The app's content security policy let the dev script and its event stream through.
        expect(inChromium.consoleErrors).toEqual([]);
        await inChromium.page.close();
      }
      expect(await partyFields(url, token)).toEqual(['name', 'email', 'phone', 'kind', 'website', 'twitter', 'tax_id', 'notes']);
      const search = await postJson(url, '/api/party/search', { order: [{ field: 'name', dir: 'asc' }] }, token);
      expect(search.body.value.rows.map((row: { name: string; twitter: null }) => [row.name, row.twitter])).toEqual([
        ['After', null],
        ['Before the change', null],
      ]);

      // A build whose server does not start (serve refuses a new required field on a table with
      // rows): its refusal is printed, the last good server answers on; making it optional recovers.
      const withVat = (vat: string) => fixed.replace("        tax_id: {", `        vat: ${vat},\n        tax_id: {`);
      writeFileSync(join(project, CRM), withVat("{ kind: 'text', required: true, label: 'VAT' }"));
      await dev.line(new RegExp(`^dev: the new server did not start \\(exit status 1\\); still serving the last good build at ${escaped}$`));
      const refusal = [
        'migration refused; nothing was changed:',
        '  - party.vat is new and required, but party has 2 row(s) and the field has no default: add it as optional, fill it in, then make it required',
      ];
      expect(dev.stderr).toBe(`${[...problem, ...refusal].join('\n')}\n`);
      expect(await events.next('problems', 2)).toEqual({ problems: [...refusal, 'the new server did not start (exit status 1)'] });
      expect(await partyFields(url, token)).toEqual(['name', 'email', 'phone', 'kind', 'website', 'twitter', 'tax_id', 'notes']);
      writeFileSync(join(project, CRM), withVat("{ kind: 'text', label: 'VAT' }"));
      await dev.line(new RegExp(`^dev: rebuilt in ${NUMBER} s; server restarted at ${escaped}; pages reload$`), 3);
      expect(await events.next('reload', 3)).toEqual({ build: 4 });
      expect(await partyFields(url, token)).toEqual(['name', 'email', 'phone', 'kind', 'website', 'twitter', 'vat', 'tax_id', 'notes']);

      // The web app's sources: rebuilt, the server left running, pages reload.
      const app = join(project, 'web/src/app.tsx');
      writeFileSync(app, `${readFileSync(app, 'utf8')}\n// edited by the dev test\n`);
      await dev.line(new RegExp(`^dev: rebuilt in ${NUMBER} s; web app rebuilt; pages reload$`));
      expect(await events.next('reload', 4)).toEqual({ build: 5 });
      expect((await get(url, '/')).text).toBe(readFileSync(join(project, 'web/dist/index.html'), 'utf8').replace('</head>', `${RELOAD_TAG}\n</head>`));
      events.close();

      expect(await dev.stop()).toBe(0);
      expect(groupAlive(dev.child.pid!)).toBe(false);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();

      const compiled = new RegExp(`^server compiled: dist/server/ \\(\\d+ sources, \\d+ kB of JavaScript\\) in ${NUMBER} s$`);
      const expected: (string | RegExp)[] = [
        `dev: listening on ${url}`,
        'dev: building',
        'generated 28 files (0 changed) in generated/',
        compiled,
        /^web app built: index\.html .*$/,
        new RegExp(`^dev: serving ${escaped} \\(built in ${NUMBER} s\\); watching modules/, runtime/, web/src/ for changes$`),
        'dev: modules/crm/module.ts changed; rebuilding',
        'generated 28 files (5 changed) in generated/',
        compiled,
        new RegExp(`^dev: rebuilt in ${NUMBER} s; server restarted at ${escaped}; pages reload$`),
        'dev: modules/crm/module.ts changed; rebuilding',
        `dev: build failed; still serving the last good build at ${url}`,
        'dev: modules/crm/module.ts changed; rebuilding',
        'generated 28 files (5 changed) in generated/',
        compiled,
        new RegExp(`^dev: rebuilt in ${NUMBER} s; server restarted at ${escaped}; pages reload$`),
        'dev: modules/crm/module.ts changed; rebuilding',
        'generated 28 files (5 changed) in generated/',
        compiled,
        `dev: the new server did not start (exit status 1); still serving the last good build at ${url}`,
        'dev: modules/crm/module.ts changed; rebuilding',
        'generated 28 files (5 changed) in generated/',
        compiled,
        new RegExp(`^dev: rebuilt in ${NUMBER} s; server restarted at ${escaped}; pages reload$`),
        'dev: web/src/app.tsx changed; rebuilding',
        'generated 28 files (0 changed) in generated/',
        /^web app built: index\.html .*$/,
        new RegExp(`^dev: rebuilt in ${NUMBER} s; web app rebuilt; pages reload$`),
        'dev: SIGTERM: stopping',
        'dev: stopped',
      ];
      const lines = dev.lines();
      expect(lines.length, dev.stdout).toBe(expected.length);
      expected.forEach((want, index) => {
        if (typeof want === 'string') expect(lines[index], dev.stdout).toBe(want);
        else expect(lines[index], dev.stdout).toMatch(want);
      });
      expect(existsSync(db)).toBe(true);
    } finally {
      await browser?.close();
      killGroup(dev.child.pid!);
    }
  });

  it('what serve leaves in place for rmsgen migrate is named once, with the command that applies it, however often the server restarts; each build reads the module files afresh, and the builder’s own new code', async () => {
    const project = await copyProject();
    // A module that goes away while dev runs: its table stays, left for rmsgen migrate.
    mkdirSync(join(project, 'modules/notes'));
    writeFileSync(join(project, 'modules/notes/module.ts'), "export default { models: { memo: { fields: { body: { kind: 'text' } } } } };\n");
    const db = join(project, 'data/dev.sqlite');
    const dev = new Dev(project, ['--port', '0', '--db', `sqlite:${db}`]);
    try {
      const url = (await dev.line(/^dev: serving (http:\/\/127\.0\.0\.1:\d+) /))[1]!;
      rmSync(join(project, 'modules/notes'), { recursive: true });
      await dev.line(/^dev: rebuilt in .*; server restarted at /);
      // Two more restarts, one of them a change of its own.
      const source = readFileSync(join(project, CRM), 'utf8');
      writeFileSync(join(project, CRM), source.replace("        tax_id: {", "        website: { kind: 'text' },\n        tax_id: {"));
      await dev.line(/^dev: rebuilt in .*; server restarted at /, 2);
      writeFileSync(join(project, CRM), source);
      await dev.line(/^dev: rebuilt in .*; server restarted at /, 3);

      const left = 'left in place for rmsgen migrate: table memo (model memo is not in this version\'s definitions)';
      const hint = `dev: \`npx rmsgen migrate --db sqlite:${db}\` applies what serve leaves in place: it drops tables and columns that hold nothing, and refuses what would lose data (dev names each once)`;
      const lines = dev.lines();
      expect(lines.filter((line) => line.startsWith('left in place'))).toEqual([
        left,
        // The website column the next change removed again.
        'left in place for rmsgen migrate: column party.website (not in this version\'s definitions)',
      ]);
      expect(lines.filter((line) => line.includes('applies what serve leaves in place'))).toEqual([hint, hint]);
      expect(lines.indexOf(hint)).toBe(lines.indexOf(left) + 1);

      // The command does what the line says, beside the running server.
      const migrated = spawnSync(process.execPath, [join(project, 'bin/rmsgen.js'), 'migrate', '--db', `sqlite:${db}`], { cwd: project, env: cleanEnv(), encoding: 'utf8', timeout: 120_000 });
      expect({ status: migrated.status, stderr: migrated.stderr }).toEqual({ status: 0, stderr: '' });
      expect(migrated.stdout).toContain('dropped empty table memo (model removed)');

      // Each build loads the module files and what they import afresh (dev's builder stays loaded
      // between builds, bin/dev-builder.ts): a change to a file the module imports is built.
      const token = (await postJson(url, '/api/auth/login', { username: 'admin', password: PASSWORD })).body.token as string;
      const phoneLabel = async () => {
        const meta = await get(url, '/api/meta', token);
        return (JSON.parse(meta.text).models as { name: string; fields: { name: string; label: string }[] }[]).find((model) => model.name === 'party')!.fields.find((field) => field.name === 'phone')!.label;
      };
      writeFileSync(join(project, 'modules/crm/labels.ts'), "export const PHONE = 'Phone one';\n");
      writeFileSync(join(project, CRM), `import { PHONE } from './labels.ts';\n${source.replace("label: 'Phone' }", 'label: PHONE }')}`);
      await dev.line(/^dev: rebuilt in .*; server restarted at /, 4);
      expect(await phoneLabel()).toBe('Phone one');
      writeFileSync(join(project, 'modules/crm/labels.ts'), "export const PHONE = 'Phone two';\n");
      await dev.line(/^dev: rebuilt in .*; server restarted at /, 5);
      expect(await phoneLabel()).toBe('Phone two');
      // The builder's own code changed (here the generator's banner): the next build runs the new code.
      const emitIndex = join(project, 'generator/emit/index.ts');
      writeFileSync(emitIndex, readFileSync(emitIndex, 'utf8').replace(' — do not edit.', ' — do not edit (changed).'));
      writeFileSync(join(project, 'modules/crm/labels.ts'), "export const PHONE = 'Phone three';\n");
      await dev.line(/^dev: rebuilt in .*; server restarted at /, 6);
      expect(await phoneLabel()).toBe('Phone three');
      expect(readFileSync(join(project, 'generated/crm/party.model.ts'), 'utf8')).toContain('— do not edit (changed).');
      expect(await dev.stop()).toBe(0);
    } finally {
      killGroup(dev.child.pid!);
    }
  });

});
