/**
 * A request whose body never arrives does not hold its connection: the server's request timeout
 * (30 s unless `serve --request-timeout` says otherwise) answers 408 and closes it, and headers
 * that never end are cut off by the headers timeout. The probe's request held its connection for
 * node's default 300 s. Here the server gets short timeouts, so the test waits a moment, not a
 * window; a raw socket sends exactly what a slow or stuck client would.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS, startServer, type RunningServer } from '../../runtime/server.ts';
import { registry } from '../fixtures/generated/registry.ts';
import { FIXTURE_CLI } from '../helpers/fixtures.ts';
import { envWithoutServeVariables } from '../helpers/serve-env.ts';
import { ADMIN_PASSWORD } from '../helpers/server.ts';

const TIMEOUTS = { requestMs: 600, headersMs: 300, keepAliveMs: 400 };
const dir = mkdtempSync(join(tmpdir(), 'rmsgen-timeouts-'));
let server: RunningServer;
let token: string;

beforeAll(async () => {
  server = await startServer({ registry, dbUrl: `sqlite:${join(dir, 'rms.sqlite')}`, port: 0, adminPassword: ADMIN_PASSWORD, log: () => {}, timeouts: TIMEOUTS });
  const res = await fetch(`${server.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
  token = ((await res.json()) as { token: string }).token;
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Closed {
  /** What the server sent before closing. */
  readonly received: string;
  /** Milliseconds from the first byte sent to the close. */
  readonly afterMs: number;
}

/** Opens a socket, writes `parts` (a number waits that many milliseconds), and resolves when the server closes it. */
function rawClient(parts: readonly (string | number)[], url = server.url): Promise<Closed> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), '127.0.0.1');
    let received = '';
    let started = 0;
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ received, afterMs: Date.now() - started }));
    socket.on('connect', async () => {
      started = Date.now();
      for (const part of parts) {
        if (typeof part === 'number') await new Promise((wait) => setTimeout(wait, part));
        else if (!socket.destroyed) socket.write(part);
      }
    });
  });
}

const head = (length: number) =>
  `POST /api/lead/create HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('timeouts', () => {
  it('a body that never arrives: 408 and the connection closed within the request timeout', async () => {
    const closed = await rawClient([head(100)]);
    expect(closed.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(closed.afterMs).toBeGreaterThanOrEqual(TIMEOUTS.requestMs - 50);
    expect(closed.afterMs).toBeLessThan(TIMEOUTS.requestMs + 1_000);
  });

  it('a body that stops half-way: the same, and nothing is created', async () => {
    const closed = await rawClient([head(40), '{"title":"never fini']);
    expect(closed.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(closed.afterMs).toBeLessThan(TIMEOUTS.requestMs + 1_000);
    expect(await server.db('lead').count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('headers that never end: closed within the headers timeout', async () => {
    const closed = await rawClient(['POST /api/lead/list HTTP/1.1\r\nHost: 127.0.0.1\r\n']);
    expect(closed.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(closed.afterMs).toBeLessThan(TIMEOUTS.headersMs + 1_000);
  });

  it('a slow body that arrives in time is served', async () => {
    const body = '{"title":"in time"}';
    const closed = await rawClient([head(body.length).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'), body.slice(0, 8), 150, body.slice(8)]);
    expect(closed.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(closed.received).toContain('"title":"in time"');
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const closed = await rawClient([`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`]);
    expect(closed.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(closed.afterMs).toBeGreaterThanOrEqual(TIMEOUTS.keepAliveMs - 50);
    // node:http gives an idle socket up to a second more than the timeout (its own margin).
    expect(closed.afterMs).toBeLessThan(TIMEOUTS.keepAliveMs + 2_000);
  });

  it('defaults: 30 s for a request, 10 s for its headers, 5 s of keep-alive', () => {
    expect(DEFAULT_TIMEOUTS).toEqual({ requestMs: 30_000, headersMs: 10_000, keepAliveMs: 5_000 });
  });
});

describe('rmsgen serve --request-timeout', () => {
  it('sets the request timeout (and RMS_REQUEST_TIMEOUT_MS, the flag first)', async () => {
    const child = spawn(process.execPath, [FIXTURE_CLI, 'serve', '--port', '0', '--db', `sqlite:${join(dir, 'cli.sqlite')}`, '--request-timeout', '500', '--keep-alive-timeout', '7000'], {
      cwd: dir,
      env: { ...envWithoutServeVariables(), RMS_ADMIN_PASSWORD: ADMIN_PASSWORD, RMS_REQUEST_TIMEOUT_MS: '60000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk) => {
          out += chunk;
          const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
          if (match) resolve(match[1]!);
        });
        child.on('exit', () => reject(new Error(`serve exited: ${out}`)));
      });
      const closed = await rawClient([`POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"user`], url);
      expect(closed.received).toMatch(/^HTTP\/1\.1 408 /);
      expect(closed.afterMs).toBeLessThan(2_000);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it.each([['--request-timeout', 'soon'], ['--keep-alive-timeout', '-1']])('%s %s is refused at start', (flag, value) => {
    const run = spawnSync(process.execPath, [FIXTURE_CLI, 'serve', '--port', '0', '--db', `sqlite:${join(dir, 'refused.sqlite')}`, flag, value], {
      cwd: dir,
      env: envWithoutServeVariables(),
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`invalid ${flag} / `);
  });
});
