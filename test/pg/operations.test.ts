/**
 * What an operator relies on when running on PostgreSQL: migrations that take turns (in one
 * process and as two `rmsgen migrate` processes) and that can run while an instance serves;
 * `/healthz` answering 503 while the database is unreachable and 200 again once it is back; the
 * pool size and statement timeout taking effect; `contains` folding Unicode case even on a
 * database created with the C locale; masking tokens issued by concurrent requests, `search`
 * (a REPEATABLE READ snapshot) included, staying one number per value.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Knex } from 'knex';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../fixtures/generated/registry.ts';
import { openDatabase } from '../../runtime/db/connect.ts';
import { migrate } from '../../runtime/db/migrate.ts';
import type { Registry } from '../../runtime/registry.ts';
import { SYSTEM_TABLES } from '../../runtime/system-table-list.ts';
import { WORKER_LOCK_APPLICATION } from '../../runtime/webhooks/worker-lock.ts';
import { FIXTURE_CLI } from '../helpers/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { PG_SKIP_NOTE, PG_URL } from '../helpers/pg-env.ts';

const ROOT = join(import.meta.dirname, '../..');
/** The real CLI, serving the fixture modules (test/helpers/fixtures.ts). */
const CLI = FIXTURE_CLI;

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
});

async function database(prefix = 'rms_ops'): Promise<TestDatabase> {
  const created = await createTestDatabase(PG_URL!, prefix);
  cleanup.push(() => created.drop());
  return created;
}

function knex(url: string, options: Parameters<typeof openDatabase>[1] = {}): Knex {
  const db = openDatabase(url, options);
  cleanup.push(() => db.destroy());
  return db;
}

async function server(dbUrl: string): Promise<TestServer> {
  const started = await startTestServer({ dbUrl });
  cleanup.push(() => started.close());
  return started;
}

/** A registry whose `lead` has one more optional text field, `region`. */
function withRegion(base: Registry): Registry {
  const lead = base.models.lead!;
  return {
    ...base,
    models: {
      ...base.models,
      lead: {
        ...lead,
        fields: [...lead.fields, { name: 'region', kind: 'text', label: 'Region', description: '', required: false, personal: false, governed: false, hiddenFromAgents: false, computed: false }],
        table: { ...lead.table, columns: [...lead.table.columns, { name: 'region', type: 'text', notNull: false }] },
      },
    },
  };
}

function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe.skipIf(!PG_URL)(`PostgreSQL operations${PG_SKIP_NOTE}`, () => {
  it('two migrations at once take turns: both succeed, one creates, the other finds it done', async () => {
    const { url } = await database();
    const [first, second] = [knex(url), knex(url)];
    const results = await Promise.all([first, second].map((db) => migrate(db, registry, { systemTables: SYSTEM_TABLES })));
    const changes = results.map((result) => result.changes.length).sort((a, b) => a - b);
    expect(changes[0]).toBe(0);
    expect(changes[1]).toBeGreaterThan(0);
    expect(results.flatMap((result) => result.changes)).toContain('created table lead');
  });

  it('two `rmsgen migrate` processes at once both succeed', async () => {
    const { url } = await database();
    const runs = await Promise.all([runCli(['migrate', '--db', url]), runCli(['migrate', '--db', url])]);
    for (const run of runs) expect(run.code, run.out).toBe(0);
    const outputs = runs.map((run) => run.out).sort();
    expect(outputs[0]).toMatch(/created table lead/);
    expect(outputs[1]).toMatch(/schema is up to date/);
  });

  it('a migration that adds a field runs while an instance serves, and no request fails', async () => {
    const { url } = await database();
    const srv = await server(url);
    const token = await srv.login();
    let stop = false;
    const statuses: number[] = [];
    // Bounded: at most 400 requests per worker, stopped as soon as the migration is done.
    const traffic = Array.from({ length: 4 }, async (_, worker) => {
      for (let i = 0; i < 400 && !stop; i++) {
        const created = await srv.command(token, 'lead.create', { title: `w${worker}-${i}` });
        statuses.push(created.status);
        statuses.push((await srv.command(token, 'lead.search', { filter: [{ field: 'title', op: 'contains', value: `w${worker}` }], limit: 5 })).status);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const migrator = knex(url);
    const result = await migrate(migrator, withRegion(registry), { systemTables: SYSTEM_TABLES });
    await new Promise((resolve) => setTimeout(resolve, 200));
    stop = true;
    await Promise.all(traffic);
    expect(result.changes).toEqual(['added column lead.region']);
    expect(statuses.length).toBeGreaterThan(8);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(Object.keys(await migrator('lead').columnInfo())).toContain('region');
    // The instance, built for the old definitions, keeps working on the extended table.
    expect((await srv.command(token, 'lead.list', { limit: 1 })).status).toBe(200);
  });

  it('/healthz answers 503 while the database refuses connections and 200 once it is back', async () => {
    const { url, name } = await database();
    const srv = await server(url);
    expect((await srv.request('GET', '/healthz')).status).toBe(200);
    await adminQuery(`alter database "${name}" allow_connections false`);
    try {
      await adminQuery(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`);
      const started = Date.now();
      const down = await srv.request('GET', '/healthz');
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ ok: false, database: 'down' });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await adminQuery(`alter database "${name}" allow_connections true`);
    }
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = (await srv.request('GET', '/healthz')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    const token = await srv.login();
    expect((await srv.command(token, 'lead.list', {})).status).toBe(200);
  });

  it('applies the pool size and the statement timeout', async () => {
    const { url } = await database();
    const db = knex(url, { poolSize: 3, statementTimeoutMs: 200 });
    expect((db.client as { pool: { max: number } }).pool.max).toBe(3);
    await expect(db.raw('select pg_sleep(1)')).rejects.toMatchObject({ code: '57014' });
    const unlimited = knex(url, { statementTimeoutMs: 0 });
    await expect(unlimited.raw('select pg_sleep(0.3)')).resolves.toBeDefined();
  });

  it('`serve --statement-timeout` cuts a statement that waits too long, `--pool-size` caps connections', async () => {
    const { url, name } = await database();
    // Migrate first so the instance starts quickly; then only the instance is connected to the database.
    const migrator = openDatabase(url);
    await migrate(migrator, registry, { systemTables: SYSTEM_TABLES });
    await migrator.destroy();
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', url, '--pool-size', '2', '--statement-timeout', '700'], {
      cwd: ROOT,
      env: { ...process.env, RMS_ADMIN_PASSWORD: 'ops-test-password' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.push(async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    });
    let out = '';
    child.stderr.on('data', (chunk) => (out += chunk));
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}`)), 30_000);
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('exit', () => reject(new Error(`serve exited:\n${out}`)));
    });
    const post = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const token = (await post('/api/auth/login', { username: 'admin', password: 'ops-test-password' })).body.token as string;
    const lead = (await post('/api/lead/create', { title: 'locked' }, token)).body.value.id as string;

    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => post('/api/lead/create', { title: `burst ${i}` }, token)));
    expect(burst.map((res) => res.status)).toEqual(Array(20).fill(200));
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    // The pool's connections, and beside them the webhook worker's lock on one of its own (made as the worker starts).
    const count = () =>
      client.query<{ n: number; lock: number }>(
        'select count(*) filter (where application_name is distinct from $2)::int as n, count(*) filter (where application_name = $2)::int as lock from pg_stat_activity where datname = $1',
        [name, WORKER_LOCK_APPLICATION],
      );
    let connections = await count();
    for (let tries = 0; connections.rows[0]!.lock === 0 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      connections = await count();
    }
    await client.end();
    expect(connections.rows[0]!.n).toBeGreaterThanOrEqual(1);
    expect(connections.rows[0]!.n).toBeLessThanOrEqual(2);
    expect(connections.rows[0]!.lock).toBe(1);

    // A row lock held here: the instance's `qualify` waits for it until its statement timeout.
    const db = knex(url);
    await db.transaction(async (trx) => {
      await trx('lead').where('id', lead).forUpdate().first();
      const started = Date.now();
      const qualify = await post('/api/lead/qualify', { id: lead }, token);
      expect(qualify.status).toBe(500);
      expect(Date.now() - started).toBeLessThan(10_000);
    });
    expect(out).toMatch(/statement timeout/);
    // Without the lock the same command goes through.
    expect((await post('/api/lead/qualify', { id: lead }, token)).status).toBe(200);
  });

  it('contains folds Unicode case on a database created with the C locale too', async () => {
    const name = `rms_ops_c_${process.pid}_${Date.now()}`;
    await adminQuery(`create database "${name}" template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
    cleanup.push(() => adminQuery(`drop database if exists "${name}" with (force)`));
    const target = new URL(PG_URL!);
    target.pathname = `/${name}`;
    const srv = await server(target.toString());
    const token = await srv.login();
    for (const name of ['ÉCOLE Normale', 'Ecole', 'ΟΔΟΣ']) expect((await srv.command(token, 'party.create', { name })).status).toBe(200);
    const found = async (value: string) =>
      (await srv.command(token, 'party.list', { filter: [{ field: 'name', op: 'contains', value }] })).body.value.map((row: { name: string }) => row.name);
    expect(await found('école')).toEqual(['ÉCOLE Normale']);
    expect(await found('οδος')).toEqual(['ΟΔΟΣ']);
    expect(await found('ECOLE')).toEqual(['Ecole']);
  });

  it('masking tokens issued by concurrent requests stay one number per value, search included', async () => {
    const { url } = await database();
    const srv = await server(url);
    const admin = await srv.login();
    const agent = (await srv.request('POST', '/api/auth/agent-token', { scopes: ['party.*'], label: 'race-bot' }, admin)).body.token as string;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await srv.command(admin, 'party.create', { name: `Person ${i}`, email: `p${i}@example.org` })).body.value.id);
    // Every get issues new tokens for the same agent and labels at the same moment.
    const gets = await Promise.all(ids.map((id) => srv.command(agent, 'party.get', { id })));
    expect(gets.map((res) => res.status)).toEqual(Array(20).fill(200));
    const names = gets.map((res) => res.body.value.name as string);
    expect(new Set(names).size).toBe(20);
    for (let i = 0; i < 20; i++) ids.push((await srv.command(admin, 'party.create', { name: `Later ${i}`, email: `l${i}@example.org` })).body.value.id);
    // Searches that all need tokens for the same new values, each in its own snapshot.
    const searches = await Promise.all(Array.from({ length: 8 }, () => srv.command(agent, 'party.search', { order: [{ field: 'id' }] })));
    expect(searches.map((res) => res.status)).toEqual(Array(8).fill(200));
    const seen = searches.map((res) => JSON.stringify(res.body.value.rows.map((row: { name: string; email: string }) => [row.name, row.email])));
    expect(new Set(seen).size).toBe(1);
    const rows = JSON.parse(seen[0]!) as [string, string][];
    expect(new Set(rows.map(([name]) => name)).size).toBe(40);
    expect(rows.slice(0, 20).map(([name]) => name)).toEqual(names);
  });
});
