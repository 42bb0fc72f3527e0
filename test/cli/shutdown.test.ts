/**
 * `rmsgen serve` stopping on SIGTERM under load, as behind a load balancer that health-checks
 * `/healthz`: `/healthz` answers 503 at once; the clients, like a balancer, stop sending once they
 * see it; every request sent meanwhile, on connections old and new and on a keep-alive connection
 * that was idle when the signal came, gets its whole answer (never a reset), answers from then on
 * close their connections, the process exits 0, and every acknowledged write is in the database.
 * On SQLite, and on PostgreSQL under RMS_TEST_PG_URL. Loopback only; the load stops by itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_CLI } from '../helpers/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { PG_URL } from '../helpers/pg-env.ts';
import { envWithoutServeVariables } from '../helpers/serve-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-shutdown-'));
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

const PASSWORD = 'shutdown-test-password';

interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

function serve(dbUrl: string): Promise<Served> {
  const child = spawn(process.execPath, [FIXTURE_CLI, 'serve', '--port', '0', '--db', dbUrl, '--shutdown-timeout', '10000'], {
    cwd: dir,
    env: { ...envWithoutServeVariables(), RMS_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 30_000);
    child.stdout!.on('data', () => {
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => out, exited });
      }
    });
  });
}

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: any;
}

/** A POST with node:http on `agent`, so that the test sees connection errors as they are. */
function post(url: string, path: string, body: unknown, agent: Agent | false, token?: string): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(token ? { authorization: `Bearer ${token}` } : {}) } },
      (res) => {
        let received = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (received += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(received) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

function healthz(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(`${url}/healthz`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    })
      .on('error', reject)
      .end();
  });
}

async function storedTitles(dbUrl: string, dbFile: string | undefined): Promise<Set<string>> {
  if (dbFile) {
    const db = new Database(dbFile, { readonly: true, fileMustExist: true });
    try {
      return new Set(db.prepare('select title from lead').pluck().all() as string[]);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    return new Set((await client.query<{ title: string }>('select title from lead')).rows.map((row) => row.title));
  } finally {
    await client.end();
  }
}

const targets: [string, () => Promise<{ url: string; file?: string }>][] = [
  ['SQLite', async () => ({ url: `sqlite:${join(dir, 'shutdown.sqlite')}`, file: join(dir, 'shutdown.sqlite') })],
];
if (PG_URL) {
  targets.push([
    'PostgreSQL',
    async () => {
      const database = await createTestDatabase(PG_URL!, 'rms_shutdown');
      databases.push(database);
      return { url: database.url };
    },
  ]);
}

describe.each(targets)('rmsgen serve on SIGTERM under load (%s)', (_name, database) => {
  it('answers 503 on /healthz at once, finishes every request it took, closes connections after their answers, keeps every acknowledged write, exits 0', async () => {
    const db = await database();
    const served = await serve(db.url);
    const token = (await post(served.url, '/api/auth/login', { username: 'admin', password: PASSWORD }, false)).body.token as string;

    const acknowledged: string[] = [];
    const failures: string[] = [];
    let down = false;
    let closedAnswers = 0;
    const workers = Array.from({ length: 6 }, async (_, worker) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let n = 0; !down; n++) {
          const title = `w${worker}-${n}`;
          try {
            const answer = await post(served.url, '/api/lead/create', { title }, agent, token);
            if (answer.status === 200) acknowledged.push(title);
            else failures.push(`${title}: ${answer.status} ${JSON.stringify(answer.body)}`);
            if (answer.connection === 'close') closedAnswers += 1;
          } catch (error) {
            failures.push(`${title}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
          }
        }
      } finally {
        agent.destroy();
      }
    });

    // A keep-alive connection that is idle when the signal comes, and sends once it has come.
    const idleAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await post(served.url, '/api/lead/create', { title: 'idle-before' }, idleAgent, token)).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 700));
    const beforeSignal = acknowledged.length;
    expect(beforeSignal).toBeGreaterThan(10);
    served.child.kill('SIGTERM');
    const signalled = performance.now();

    // The load balancer's health check: every 50 ms, on a connection of its own.
    let unhealthyAfter = Number.POSITIVE_INFINITY;
    for (;;) {
      const status = await healthz(served.url);
      if (status === 503) {
        unhealthyAfter = performance.now() - signalled;
        break;
      }
      expect(status).toBe(200);
      if (performance.now() - signalled > 2_000) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const idle = await post(served.url, '/api/lead/create', { title: 'idle-after' }, idleAgent, token);
    down = true;
    await Promise.all(workers);
    idleAgent.destroy();

    expect(unhealthyAfter).toBeLessThan(1_000);
    expect(idle).toMatchObject({ status: 200, connection: 'close' });
    expect(failures).toEqual([]);
    expect(closedAnswers).toBeGreaterThan(0);
    expect(await served.exited).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(10_000);
    expect(served.output()).toContain('SIGTERM: shutting down\n');
    // Not a terminal: one JSON line per request.
    expect(served.output()).toMatch(/^\{"time":"[^"]+","level":"info","request_id":"[^"]+","method":"POST","path":"\/api\/lead\/create",/m);

    const titles = await storedTitles(db.url, db.file);
    const lost = [...acknowledged, 'idle-before', 'idle-after'].filter((title) => !titles.has(title));
    expect(lost).toEqual([]);
  });
});
