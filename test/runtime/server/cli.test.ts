/**
 * The real CLI: `rmsgen serve` prints its one ready line, serves, and shuts down cleanly on
 * SIGTERM; a first start prints the generated admin password once; `rmsgen migrate` reports
 * what it did.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_CLI } from '../../helpers/fixtures.ts';

/** The real CLI, serving the fixture modules (test/helpers/fixtures.ts). */
const CLI = FIXTURE_CLI;
const dir = mkdtempSync(join(tmpdir(), 'rmsgen-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/** The test's environment without the variables `serve` reads. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['PORT', 'HOST', 'RMS_DB', 'RMS_ADMIN_PASSWORD']) delete env[name];
  return env;
}

function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    cwd: dir,
    env: { ...cleanEnv(), ...env },
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
    child.on('exit', () => reject(new Error(`serve exited early:\n${out}`)));
  });
}

async function post(url: string, path: string, body: unknown, token?: string) {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('rmsgen serve', () => {
  it('serves with RMS_ADMIN_PASSWORD, prints only the ready line, and exits 0 on SIGTERM', async () => {
    const db = join(dir, 'a.sqlite');
    const served = await serve(['--port', '0', '--db', `sqlite:${db}`], { RMS_ADMIN_PASSWORD: 'cli-test-password' });
    expect(served.output()).not.toMatch(/password/);
    const login = await post(served.url, '/api/auth/login', { username: 'admin', password: 'cli-test-password' });
    expect(login.status).toBe(200);
    const created = await post(served.url, '/api/lead/create', { title: 'From the CLI' }, login.body.token);
    expect(created.status).toBe(200);
    expect(created.body.value).toMatchObject({ title: 'From the CLI', stage: 'new' });
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    expect(served.output().match(/listening on/g)).toHaveLength(1);
  });

  it('prints a generated admin password once on a first start, and takes RMS_DB and PORT', async () => {
    const db = join(dir, 'b.sqlite');
    const first = await serve([], { RMS_DB: `sqlite:${db}`, PORT: '0' });
    const match = /^created person admin with password (\S+)$/m.exec(first.output());
    expect(match).not.toBeNull();
    expect((await post(first.url, '/api/auth/login', { username: 'admin', password: match![1] })).status).toBe(200);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    const second = await serve(['--port', '0', '--db', `sqlite:${db}`]);
    expect(second.output()).not.toMatch(/created person/);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});

describe('rmsgen migrate', () => {
  it('creates the tables on a fresh database, then has nothing to do', () => {
    const db = `sqlite:${join(dir, 'c.sqlite')}`;
    const first = spawnSync(process.execPath, [CLI, 'migrate', '--db', db], { cwd: dir, encoding: 'utf8', env: cleanEnv() });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout.split('\n')).toEqual(expect.arrayContaining(['created table party', 'created table lead', 'created table invoice']));
    const second = spawnSync(process.execPath, [CLI, 'migrate', '--db', db], { cwd: dir, encoding: 'utf8', env: cleanEnv() });
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('schema is up to date');
  });
});
