/**
 * The README's "Try it" walk-through, run as a reader would: the server started the way the
 * section says (`npm start`; `npm install` is the test run's own set-up), with only settings the
 * section itself names (`PORT`, `RMS_DB`, `RMS_ADMIN_PASSWORD`, and `HOST`, which "Running it"
 * names), then the section's other shell blocks, extracted from README.md now and run verbatim
 * by bash, the password typed on its standard input. Each step's answer is checked, and a wrong
 * password must stop the walk-through at the sign-in, saying why.
 *
 * The server binds 127.0.0.1 on a free port and gets a fresh SQLite file. Everything is bounded
 * in time; the server's process group is stopped afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The admin password the server is started with (never printed: it goes by environment and stdin only). */
const PASSWORD = 'readme-tour-password';
const START_TIMEOUT_MS = 60_000;
const WALK_TIMEOUT_MS = 20_000;

/** The "Try it" section of README.md and its fenced `sh` blocks, in order. */
function tryIt(): { text: string; blocks: string[] } {
  const start = README.indexOf('\n## Try it\n');
  expect(start, 'README.md has a "## Try it" section').toBeGreaterThanOrEqual(0);
  const end = README.indexOf('\n## ', start + 1);
  const text = README.slice(start, end < 0 ? undefined : end);
  const blocks = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  return { text, blocks };
}

let server: ChildProcess | undefined;
let serverOutput = '';
let port = 0;
let dir = '';

beforeAll(async () => {
  const { blocks } = tryIt();
  // The first block starts the server; the test runs its `npm start` (dependencies are installed).
  expect(blocks[0]?.trim()).toBe('npm install && npm start');
  dir = mkdtempSync(join(tmpdir(), 'rmsgen-readme-'));
  server = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', RMS_DB: `sqlite:${join(dir, 'rms.sqlite')}`, RMS_ADMIN_PASSWORD: PASSWORD },
    // Its own process group, so that npm, its shell and the server are stopped together.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listening = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" within ${START_TIMEOUT_MS} ms:\n${serverOutput}`)), START_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      serverOutput += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(serverOutput);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    server!.stdout!.on('data', read);
    server!.stderr!.on('data', read);
    server!.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before listening:\n${serverOutput}`));
    });
  });
  const url = new URL(listening);
  expect(url.hostname, 'the server binds loopback only').toBe('127.0.0.1');
  port = Number(url.port);
  expect(port).toBeGreaterThan(0);
}, START_TIMEOUT_MS + 5_000);

afterAll(async () => {
  if (server?.pid !== undefined && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise<void>((resolve) => server!.once('exit', () => resolve()));
    process.kill(-server.pid, 'SIGTERM');
    const stopped = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000))]);
    if (!stopped) process.kill(-server.pid, 'SIGKILL');
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 20_000);

interface WalkResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The walk-through blocks (all but the first), verbatim, in one bash, the password typed on stdin. */
function walkThrough(password: string): Promise<WalkResult> {
  const script = tryIt().blocks.slice(1).join('\n');
  return new Promise((resolve, reject) => {
    const bash = spawn('bash', ['-c', script], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8', PORT: String(port) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      bash.kill('SIGKILL');
      reject(new Error(`the walk-through did not finish within ${WALK_TIMEOUT_MS} ms:\n${stdout}\n${stderr}`));
    }, WALK_TIMEOUT_MS);
    bash.once('error', reject);
    bash.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    bash.stdin.end(`${password}\n`);
  });
}

/** The JSON answers the walk-through printed, in order. */
function answers(stdout: string): any[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

async function call(path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function signIn(): Promise<string> {
  const res = await call('/api/auth/login', { username: 'admin', password: PASSWORD });
  expect(res.status).toBe(200);
  return res.body.token;
}

describe('README: Try it', () => {
  it('names the settings the test uses and says money is in minor units', () => {
    const { text } = tryIt();
    for (const name of ['PORT', 'RMS_DB', 'RMS_ADMIN_PASSWORD']) expect(text).toContain(`\`${name}\``);
    expect(text).toMatch(/minor units: `120000` is 1,200\.00/);
    expect(README).not.toMatch(/\.\.\/shared|shared\/SPEC/);
    expect(README).toContain('(docs/api.md)');
  });

  it('runs verbatim against the server and each step answers as it says', async () => {
    const { code, stdout, stderr } = await walkThrough(PASSWORD);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const [created, search, qualified, won, deleted, ...rest] = answers(stdout);
    expect(rest).toEqual([]);

    expect(created).toMatchObject({ denied: [], value: { title: 'Big deal', expected_revenue: 120000, close_date: '2026-12-31', stage: 'new' } });
    const id = created.value.id as string;
    expect(id).toMatch(/^[0-9A-Z]{26}$/);
    expect(search.value.total).toBeGreaterThanOrEqual(1);
    expect(search.value.rows.map((row: { id: string }) => row.id)).toContain(id);
    expect(qualified).toMatchObject({ denied: [], value: { id, stage: 'qualified' } });
    // The governed update ran the `win` action: only it moves a lead to `won`.
    expect(won).toMatchObject({ denied: [], value: { id, stage: 'won' } });
    expect(deleted).toEqual({ denied: [], value: { id } });

    const token = await signIn();
    expect(await call('/api/lead/get', { id }, token)).toEqual({ status: 400, body: { error: `lead ${id} not found` } });
  });

  it('stops at the sign-in with the server\'s answer when the password is wrong', async () => {
    const token = await signIn();
    const leads = async () => (await call('/api/lead/search', { limit: 1 }, token)).body.value.total as number;
    const before = await leads();

    const { code, stdout, stderr } = await walkThrough('not-the-password');
    expect(code).not.toBe(0);
    expect(answers(stdout)).toEqual([]);
    // One message, at the sign-in: nothing after it ran.
    const messages = stderr.trim().split('\n');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/TOKEN: sign-in failed: \{"error":"invalid username or password"\}$/);
    expect(await leads()).toBe(before);
  });
});
