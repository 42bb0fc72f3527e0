/**
 * PostgreSQL for tests: when `RMS_TEST_PG_URL` names a server (see `scripts/pg-cluster.sh`), test
 * servers run on a fresh database created there and dropped afterwards. Also a read-only stand-in
 * for the better-sqlite3 handle `TestServer.inspect` hands to tests, so checks of what was stored
 * run unchanged on both databases.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';

/** The server URL to make test databases on, or undefined to test on SQLite. */
export function testPostgresUrl(): string | undefined {
  const url = process.env.RMS_TEST_PG_URL;
  return url === undefined || url.trim() === '' ? undefined : url.trim();
}

export interface TestDatabase {
  /** URL of the new database. */
  readonly url: string;
  readonly name: string;
  /** Drops the database, cutting any connection still open to it. Idempotent. */
  drop(): Promise<void>;
}

/** Creates an empty database on the server `serverUrl` names, with a unique name. */
export async function createTestDatabase(serverUrl: string, prefix = 'rms_test'): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(5).toString('hex')}`;
  await adminQuery(serverUrl, `create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    name,
    drop() {
      dropped ??= adminQuery(serverUrl, `drop database if exists "${name}" with (force)`);
      return dropped;
    },
  };
}

/**
 * Empty databases for the tests of one file, on the database the run is on: with RMS_TEST_PG_URL a
 * PostgreSQL database of their own each, else a new SQLite file each in a temp folder. `url()`
 * makes one; `removeAll()` (in `afterAll`, once the file's connections are closed) drops them and
 * the folder.
 */
export function emptyDatabases(name: string): { url(): Promise<string>; removeAll(): Promise<void> } {
  const pgServer = testPostgresUrl();
  const dir = mkdtempSync(join(tmpdir(), `rmsgen-${name}-`));
  const made: TestDatabase[] = [];
  let files = 0;
  return {
    async url() {
      if (pgServer === undefined) return `sqlite:${join(dir, `${files++}.sqlite`)}`;
      const database = await createTestDatabase(pgServer);
      made.push(database);
      return database.url;
    },
    async removeAll() {
      for (const database of made) await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs statements (DDL for a test's fault injection, say) on the database at `url`. */
export async function executeOn(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  // CREATE DATABASE copies template1 and fails when another session copies it at that moment:
  // several test workers create databases at once, so retry briefly.
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: serverUrl });
    try {
      await client.connect();
      await client.query(sql);
      return;
    } catch (error) {
      if (attempt >= 5 || !/being accessed by other users/.test(String((error as Error).message))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/**
 * Runs one query synchronously in a child process (tests call `inspect` synchronously) and returns
 * the rows as better-sqlite3 would: booleans as 1/0, bigint and numeric as numbers, dates as text.
 */
const QUERY_SCRIPT = `
import pg from 'pg';
const { url, sql, args } = JSON.parse(await new Promise((resolve) => {
  let text = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => (text += chunk));
  process.stdin.on('end', () => resolve(text));
}));
const asNumber = (value) => Number(value);
for (const oid of [20, 1700]) pg.types.setTypeParser(oid, asNumber);
pg.types.setTypeParser(1082, (value) => value);
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  await client.query('set default_transaction_read_only = on');
  const result = await client.query(sql, args);
  const rows = result.rows.map((row) =>
    Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'boolean' ? (value ? 1 : 0) : value])),
  );
  process.stdout.write(JSON.stringify(rows));
} finally {
  await client.end();
}
`;

function querySync(url: string, sql: string, args: readonly unknown[]): Record<string, unknown>[] {
  let n = 0;
  // better-sqlite3 placeholders are `?`; PostgreSQL's are `$1, $2 …`.
  const text = sql.replace(/\?/g, () => `$${++n}`);
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', QUERY_SCRIPT], {
    input: JSON.stringify({ url, sql: text, args }),
    cwd: process.cwd(),
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  return JSON.parse(out) as Record<string, unknown>[];
}

/**
 * A read-only stand-in for a better-sqlite3 `Database` over a PostgreSQL database: `prepare(sql)`
 * with `get` and `all` (what tests use to check stored values). Anything else throws.
 */
export function postgresInspector(url: string): Database.Database {
  const statement = (sql: string) => ({
    get: (...args: unknown[]) => querySync(url, sql, args)[0],
    all: (...args: unknown[]) => querySync(url, sql, args),
  });
  const handle = {
    prepare: statement,
    close() {},
  };
  return new Proxy(handle, {
    get(target, key) {
      if (key in target) return target[key as keyof typeof target];
      if (typeof key === 'symbol' || key === 'then') return undefined;
      throw new Error(`inspect on PostgreSQL supports prepare(sql).get/all only, not ${String(key)}`);
    },
  }) as unknown as Database.Database;
}
