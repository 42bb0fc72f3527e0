/**
 * A rolling restart behind a real load balancer: two `rmsgen serve` processes on one PostgreSQL
 * database behind HAProxy (Debian's package), which health-checks `/healthz` with the
 * configuration docs/operations.md ships. Under a steady mixed load through HAProxy (people's
 * creates, updates, gets and searches, an agent's MCP calls), each instance in turn is stopped
 * with SIGTERM and started again on its port: not one request fails, and every acknowledged write
 * is in the database.
 *
 * Runs only with `RMS_TEST_PG_URL` and HAProxy installed (`.ci/run` installs it); otherwise
 * skipped, saying why. Loopback only; the load runs a few seconds and stops by itself; HAProxy and
 * both instances are stopped in afterAll.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_CLI } from '../helpers/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { PG_SKIP_NOTE, PG_URL } from '../helpers/pg-env.ts';
import { envWithoutServeVariables } from '../helpers/serve-env.ts';

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].find((path) => existsSync(path));
const SKIP_NOTE = !PG_URL ? PG_SKIP_NOTE : HAPROXY ? '' : ' (skipped: HAProxy is not installed; apt-get install haproxy, as .ci/run does)';
const ROOT = join(import.meta.dirname, '../..');
const PASSWORD = 'rolling-restart-password';
const dir = mkdtempSync(join(tmpdir(), 'rmsgen-rolling-'));

interface Instance {
  readonly name: string;
  readonly port: number;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly output: () => string;
}

let database: TestDatabase | undefined;
let haproxy: ChildProcess | undefined;
let frontPort = 0;
let haproxyLog = '';
const instances = new Map<string, Instance>();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function serve(name: string, port: number, dbUrl: string): Promise<Instance> {
  const args = ['serve', '--port', String(port), '--db', dbUrl, '--pool-size', '5', '--keep-alive-timeout', '65000', '--public-url', `http://127.0.0.1:${frontPort}`, '--no-request-log'];
  const child = spawn(process.execPath, [FIXTURE_CLI, ...args], {
    cwd: ROOT,
    env: { ...envWithoutServeVariables(), RMS_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no listening line within 45 s:\n${out}`)), 45_000);
    child.stdout!.on('data', () => {
      if (!/^listening on http:\/\/127\.0\.0\.1:\d+$/m.test(out)) return;
      clearTimeout(timer);
      const instance = { name, port, child, exited, output: () => out };
      instances.set(name, instance);
      resolve(instance);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} while starting:\n${out}`));
    });
  });
}

/** The HAProxy configuration docs/operations.md shows, with this test's ports and quicker checks. */
function haproxyConfig(ports: { front: number; a: number; b: number }, socket: string): string {
  const doc = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const example = /```haproxy\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!example) throw new Error('docs/operations.md has no ```haproxy example');
  // Its log (to standard output, one line per request) tells how a failed request ended.
  const global = `global\n  stats socket ${socket} mode 600 level admin\n  log stdout format raw local0\n\n`;
  return `${global}${example
    .replace('bind :80', `bind 127.0.0.1:${ports.front}`)
    .replace('10.0.0.11:3000', `127.0.0.1:${ports.a}`)
    .replace('10.0.0.12:3000', `127.0.0.1:${ports.b}`)
    .replace('inter 1s', 'inter 250ms')
    .replace('defaults\n', 'defaults\n  log global\n  option httplog\n')}`;
}

/**
 * A backend that answers the first request on each connection (keeping it open) and closes the
 * connection, answering nothing, when a second request comes on it: what an instance looks like to
 * the balancer when it closes an idle kept-alive connection (draining, or its keep-alive timeout)
 * just as the balancer sends a request on it.
 */
function closingBackend(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = '';
    let answered = 0;
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        if (answered++ > 0) return void socket.destroy();
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"ok":true}');
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const close = () => new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      });
      resolve({ port: (server.address() as { port: number }).port, close });
    });
  });
}

/** A server's state as HAProxy sees it (`UP`, `DOWN`, …), through its admin socket. */
function serverState(socket: string, server: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = connect(socket);
    let text = '';
    client.on('data', (chunk) => (text += chunk));
    client.on('error', reject);
    client.on('end', () => {
      const line = text.split('\n').find((row) => row.startsWith(`rms,${server},`));
      resolve(line?.split(',')[17] ?? 'missing');
    });
    client.end('show stat\n');
  });
}

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface Answer {
  readonly status: number;
  readonly body: any;
}

function call(agent: Agent, path: string, body: unknown, token: string, headers: Record<string, string> = {}): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `http://127.0.0.1:${frontPort}${path}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), authorization: `Bearer ${token}`, ...headers } },
      (res) => {
        let received = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (received += chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode!, body: JSON.parse(received) });
          } catch {
            resolve({ status: res.statusCode!, body: received });
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

async function stopInstance(instance: Instance): Promise<number | null> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return instance.child.exitCode;
  instance.child.kill('SIGTERM');
  const killer = setTimeout(() => instance.child.kill('SIGKILL'), 15_000);
  const code = await instance.exited;
  clearTimeout(killer);
  return code;
}

afterAll(async () => {
  for (const instance of instances.values()) await stopInstance(instance);
  if (haproxy && haproxy.exitCode === null) {
    const exited = new Promise((resolve) => haproxy!.once('exit', resolve));
    haproxy.kill('SIGTERM');
    await exited;
  }
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!HAPROXY)('the documented HAProxy configuration and an instance closing an idle connection', () => {
  it('never passes the close on to a client: each request gets its own connection to an instance', async () => {
    const backends = [await closingBackend(), await closingBackend()];
    const front = await freePort();
    const socket = join(dir, 'closing.sock');
    const config = join(dir, 'closing.cfg');
    writeFileSync(config, haproxyConfig({ front, a: backends[0]!.port, b: backends[1]!.port }, socket));
    const proxy = spawn(HAPROXY!, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    proxy.stdout!.on('data', (chunk) => (log += chunk));
    proxy.stderr!.on('data', (chunk) => (log += chunk));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await until('HAProxy sees both backends up', async () => existsSync(socket) && (await serverState(socket, 'a')) === 'UP' && (await serverState(socket, 'b')) === 'UP');
      const outcomes: string[] = [];
      for (let n = 0; n < 12; n++) {
        const answer = await new Promise<string>((resolve) => {
          const req = request(`http://127.0.0.1:${front}/api/lead/create`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': 2 } }, (res) => {
            let body = '';
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () => resolve(`${res.statusCode} ${body}`));
          });
          req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
          req.end('{}');
        });
        outcomes.push(answer);
      }
      expect(outcomes, log).toEqual(Array.from({ length: 12 }, () => '200 {"ok":true}'));
    } finally {
      agent.destroy();
      const exited = new Promise((resolve) => proxy.once('exit', resolve));
      proxy.kill('SIGTERM');
      await exited;
      for (const backend of backends) await backend.close();
    }
  });
});

describe.skipIf(SKIP_NOTE !== '')(`a rolling restart of two instances behind HAProxy${SKIP_NOTE}`, () => {
  const socket = join(dir, 'haproxy.sock');
  let ports: { front: number; a: number; b: number };

  beforeAll(async () => {
    database = await createTestDatabase(PG_URL!, 'rms_rolling');
    ports = { front: await freePort(), a: await freePort(), b: await freePort() };
    frontPort = ports.front;
    await serve('a', ports.a, database.url);
    await serve('b', ports.b, database.url);
    const config = join(dir, 'haproxy.cfg');
    writeFileSync(config, haproxyConfig(ports, socket));
    const check = spawnSync(HAPROXY!, ['-c', '-f', config], { encoding: 'utf8' });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    haproxy = spawn(HAPROXY!, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    haproxy.stdout!.on('data', (chunk) => (haproxyLog += chunk));
    haproxy.stderr!.on('data', (chunk) => (haproxyLog += chunk));
    await until('HAProxy sees both instances up', async () => existsSync(socket) && (await serverState(socket, 'a')) === 'UP' && (await serverState(socket, 'b')) === 'UP');
  });

  it('serves a steady mixed load with 0 failed requests while each instance is restarted in turn', async () => {
    const agent0 = new Agent({ keepAlive: true, maxSockets: 1 });
    const admin = (await call(agent0, '/api/auth/login', { username: 'admin', password: PASSWORD }, '')).body.token as string;
    const issued = await call(agent0, '/api/auth/agent-token', { scopes: ['lead.*'], label: 'rolling bot', limits: { requests_per_minute: 0, writes_per_minute: 0 } }, admin);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const bot = issued.body.token as string;
    agent0.destroy();

    const acknowledged = new Map<string, string>(); // lead id → its last acknowledged title
    const failures: string[] = [];
    let requests = 0;
    let running = true;
    const workers = Array.from({ length: 6 }, async (_, worker) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      let own: string | undefined;
      try {
        for (let n = 0; running; n++) {
          const step = n % 5;
          const what = `worker ${worker} step ${n}`;
          try {
            let answer: Answer;
            if (step === 0 || own === undefined) {
              answer = await call(agent, '/api/lead/create', { title: `w${worker}-${n}` }, admin);
              if (answer.status === 200) acknowledged.set((own = answer.body.value.id as string), `w${worker}-${n}`);
            } else if (step === 1) {
              answer = await call(agent, '/api/lead/update', { id: own, title: `w${worker}-${n}-updated` }, admin);
              if (answer.status === 200) acknowledged.set(own, `w${worker}-${n}-updated`);
            } else if (step === 2) {
              answer = await call(agent, '/api/lead/get', { id: own }, admin);
            } else if (step === 3) {
              answer = await call(agent, '/api/lead/search', { filter: [{ field: 'title', op: 'contains', value: `w${worker}-` }], limit: 5 }, admin);
            } else {
              answer = await call(agent, '/mcp', { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'lead__get', arguments: { id: own } } }, bot, { accept: 'application/json, text/event-stream' });
              if (answer.status === 200 && answer.body.result?.isError) answer = { status: 500, body: answer.body };
            }
            requests += 1;
            if (answer.status !== 200) failures.push(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
          } catch (error) {
            failures.push(`${what}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
          }
        }
      } finally {
        agent.destroy();
      }
    });

    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const name of ['a', 'b']) {
      const old = instances.get(name)!;
      expect(await stopInstance(old), old.output()).toBe(0);
      await until(`HAProxy marks ${name} down`, async () => (await serverState(socket, name)).startsWith('DOWN'));
      await serve(name, old.port, database!.url);
      await until(`HAProxy marks the new ${name} up`, async () => (await serverState(socket, name)) === 'UP');
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    running = false;
    await Promise.all(workers);

    // HAProxy's log lines for requests that did not end normally (termination state other than ----), to say where a failure came from.
    const unusual = haproxyLog.split('\n').filter((line) => / [A-Za-z-]{4} \d/.test(line) && !/ ---- \d/.test(line));
    expect(failures, unusual.join('\n')).toEqual([]);
    expect(requests).toBeGreaterThan(100);
    const client = new pg.Client({ connectionString: database!.url });
    await client.connect();
    try {
      const rows = (await client.query<{ id: string; title: string }>('select id, title from lead')).rows;
      const stored = new Map(rows.map((row) => [row.id, row.title]));
      const lost = [...acknowledged].filter(([id, title]) => stored.get(id) !== title);
      expect(lost).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
