/**
 * Opens the database named by a URL: a SQLite file (the embedded default) or PostgreSQL.
 * Everything above this file talks to knex and keeps SQL portable; dialect differences that
 * cannot be avoided go through `dialectOf`.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import knexFactory, { type Knex } from 'knex';
import type Pg from 'pg';
import { rememberStatement } from '../errors.ts';

// Each driver is loaded when a database of its kind is opened (knex does the same for its own
// use): a SQLite server never loads pg, a PostgreSQL one never loads better-sqlite3.
const requireDriver = createRequire(import.meta.url);
const loadPg = (): typeof Pg => requireDriver('pg') as typeof Pg;
export const loadBetterSqlite3 = (): typeof BetterSqlite3 => requireDriver('better-sqlite3') as typeof BetterSqlite3;

export const DEFAULT_DB_URL = 'sqlite:./data/rms.sqlite';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseTarget {
  readonly dialect: Dialect;
  /** The SQLite file path (absolute) or `:memory:`; the PostgreSQL connection string. */
  readonly location: string;
}

/**
 * Accepts `sqlite:<path>`, `sqlite://<path>`, `file:<path>`, a bare path ending in `.sqlite`/`.db`,
 * `:memory:`, and `postgres://` / `postgresql://` URLs.
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const trimmed = url.trim();
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return { dialect: 'postgres', location: trimmed };
  if (trimmed === ':memory:' || trimmed === 'sqlite::memory:') return { dialect: 'sqlite', location: ':memory:' };
  const sqlite = /^(?:sqlite:(?:\/\/)?|file:(?:\/\/)?)(.+)$/i.exec(trimmed);
  if (sqlite) return { dialect: 'sqlite', location: resolve(sqlite[1]!) };
  if (/\.(sqlite3?|db)$/i.test(trimmed)) return { dialect: 'sqlite', location: resolve(trimmed) };
  throw new Error(`unsupported database URL (use sqlite:<file> or postgres://user:pass@host:port/db)`);
}

/** The knex client's dialect. */
export function dialectOf(db: Knex): Dialect {
  const client = String((db.client as { config?: { client?: unknown } }).config?.client ?? '');
  return client === 'pg' || client === 'postgres' || client === 'postgresql' ? 'postgres' : 'sqlite';
}

export interface OpenOptions {
  /** PostgreSQL pool size (default 10). SQLite always pools one connection (plus a read-only one for lookups, see `attachReader`). */
  readonly poolSize?: number;
  /** PostgreSQL statement timeout in milliseconds (default 30000). */
  readonly statementTimeoutMs?: number;
}

export function openDatabase(url: string, options: OpenOptions = {}): Knex {
  const db = openKnex(url, options);
  // The log names the statement of a database error, which its message (it may quote values) cannot.
  db.on('query-error', (error: unknown, query: { sql?: unknown }) => rememberStatement(error, query.sql));
  return db;
}

function openKnex(url: string, options: OpenOptions): Knex {
  const target = parseDatabaseUrl(url);
  if (target.dialect === 'postgres') {
    const statementTimeout = options.statementTimeoutMs ?? 30_000;
    const pgTypeParser = pgTypeParserOf(loadPg());
    return knexFactory({
      client: 'pg',
      // An error names the statement with its placeholders, never the values bound to them: an
      // error may be logged, and values may be personal (runtime/errors.ts, describeUnexpectedError).
      compileSqlOnError: false,
      connection: { connectionString: target.location, types: { getTypeParser: pgTypeParser } },
      pool: {
        min: 0,
        max: options.poolSize ?? 10,
        afterCreate(connection: { query: (sql: string, cb: (err: Error | null) => void) => void }, done: (err: Error | null, c: unknown) => void) {
          connection.query(`SET statement_timeout = ${Math.max(0, Math.floor(statementTimeout))}`, (err) => done(err, connection));
        },
      },
    });
  }
  if (target.location !== ':memory:') createPrivately(target.location);
  const reader: ReaderSlot = {};
  const db = knexFactory({
    client: 'better-sqlite3',
    compileSqlOnError: false,
    connection: { filename: target.location },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: SqliteConnection, done: (err: Error | null, c: unknown) => void) {
        try {
          connection.pragma('journal_mode = WAL');
          connection.pragma('synchronous = NORMAL');
          // SQLite checkpoints inside the commit that takes the log past this many pages. At its
          // default (1,000 pages, 4 MiB) a `create_many` of 1,000 leads (about 800 pages) paid a
          // checkpoint in nearly every commit, 15 of its 24 ms, and the pages every write touches
          // (indexes' upper levels, the search tables' structure) were copied each time. 10,000
          // (40 MiB of log at most) measured 1.24–1.39 times the rate on create_many, and single
          // creates (groups of ~30 pages a write) within the noise (docs/performance.md, 18.).
          connection.pragma('wal_autocheckpoint = 10000');
          connection.pragma('busy_timeout = 5000');
          // A write runs in a savepoint of its group's transaction (write-groups.ts), and SQLite keeps
          // the pages a savepoint changes in a sub-journal: past 64 KiB (a lead's create changes
          // about thirty pages) in a temporary file, unless temporary storage is memory. Measured:
          // its inserts took two to four times as long with the file. Sorts that outgrow the page
          // cache (an index built on a large table by a migration) hold memory while they run too.
          connection.pragma('temp_store = MEMORY');
          connection.pragma('foreign_keys = ON');
          // Deleted and overwritten content is zeroed, not left in free space, so that an erased
          // value (commands/erase.ts) is gone from the file, not only from its rows.
          connection.pragma('secure_delete = ON');
          defineFunctions(connection);
          cacheStatements(connection);
          // An in-memory database exists only on its own connection: a second one would be empty.
          if (target.location !== ':memory:') attachReader(connection, target.location, reader);
          done(null, connection);
        } catch (err) {
          done(err as Error, connection);
        }
      },
    },
  });
  readers.set(db, reader);
  return db;
}

/**
 * The database file holds password hashes and every personal value: it is made readable by the
 * server's user only (0600), in folders made for it 0700. SQLite gives its `-wal` and `-shm` files
 * the mode of the database file, so they are private too. A file or folder that exists keeps its
 * mode: the operator chose it.
 */
function createPrivately(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
}

/** Runs a read-only `select` on SQLite, synchronously; values are bound as better-sqlite3 binds them. */
export interface SqliteReader {
  all(sql: string, bindings: readonly unknown[]): unknown[];
}

interface ReaderSlot {
  current?: SqliteReader;
  /** The database's file, which `openSqliteReadConnection` opens again. */
  filename?: string;
}

const readers = new WeakMap<Knex, ReaderSlot>();

/**
 * The read-only connection that comes with a SQLite database opened by `openDatabase`, or
 * undefined (PostgreSQL, `:memory:`, a transaction, a closed database). See `attachReader`.
 */
export function sqliteReaderOf(db: Knex): SqliteReader | undefined {
  return readers.get(db)?.current;
}

/**
 * Every request looks up its token and most read a record by id, outside any transaction. On the
 * one pooled connection those reads would queue behind whatever write transaction holds it, and
 * each would pay for knex's pool and query runner, which cost more than the lookup itself. A
 * second, read-only connection to the same file serves them instead: in WAL mode a reader never
 * waits for the writer and sees every change committed before it starts (a revoked token is
 * refused on the very next request). It lives and dies with the pooled connection.
 */
function attachReader(connection: SqliteConnection, filename: string, slot: ReaderSlot): void {
  const Database = loadBetterSqlite3();
  const reader = new Database(filename, { readonly: true, fileMustExist: true });
  reader.pragma('busy_timeout = 5000');
  defineFunctions(reader);
  cacheStatements(reader);
  slot.current = {
    all: (sql, bindings) => reader.prepare(sql).all(...bindings),
  };
  slot.filename = filename;
  const close = connection.close.bind(connection);
  connection.close = () => {
    slot.current = undefined;
    slot.filename = undefined;
    reader.close();
    return close();
  };
}

/**
 * A read-only connection of its own to the SQLite database `db` opened by `openDatabase`, which the
 * caller closes; undefined where `sqliteReaderOf` has none. A statement read a page at a time
 * (query/list-pages.ts) keeps its connection busy, and its snapshot, until its last row: on the
 * shared read-only connection it would refuse every other read meanwhile.
 */
export function openSqliteReadConnection(db: Knex): BetterSqlite3.Database | undefined {
  const filename = readers.get(db)?.filename;
  if (filename === undefined) return undefined;
  const Database = loadBetterSqlite3();
  const connection = new Database(filename, { readonly: true, fileMustExist: true });
  connection.pragma('busy_timeout = 5000');
  defineFunctions(connection);
  return connection;
}

const PG_DATE_OID = 1082;

/**
 * `date` columns come back as the `YYYY-MM-DD` text they hold (pg's default builds a local-time
 * Date, which shifts with the server's time zone). Everything else keeps pg's parsers.
 */
function pgTypeParserOf(pg: typeof Pg): (oid: number, format?: string) => (value: string) => unknown {
  return (oid, format) => {
    if (oid === PG_DATE_OID) return (value: string) => value;
    return (pg.types.getTypeParser as (oid: number, format?: string) => (value: string) => unknown)(oid, format);
  };
}

/** The functions our SQL calls, on each SQLite connection (the read-only one serves lists and searches too). */
function defineFunctions(connection: Pick<SqliteConnection, 'function'>): void {
  // SQLite's lower() and LIKE fold ASCII only; `contains` must be case-insensitive for all of Unicode.
  connection.function('rms_lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
}

/** knex's savepoint statements, which name each savepoint anew (`trx123`): never kept (see `cacheStatements`). */
const SAVEPOINT_STATEMENT = /^(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT) trx\d+;?$/;

/** Statements kept per SQLite connection; past this the cache starts over. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * knex prepares every query anew; on SQLite preparing costs about as much as running a simple
 * lookup. The SQL of the hot paths repeats (values are always bound), so the connection keeps its
 * prepared statements by SQL text. Safe because better-sqlite3 runs `all`/`run` to completion
 * synchronously (a statement is never in use twice) and SQLite re-prepares a statement by itself
 * when the schema changes.
 */
function cacheStatements(connection: Pick<SqliteConnection, 'prepare'>): void {
  const prepare = connection.prepare.bind(connection);
  const cache = new Map<string, unknown>();
  connection.prepare = (sql: string) => {
    // Kept, they would fill the cache and have it start over every few hundred writes.
    if (SAVEPOINT_STATEMENT.test(sql)) return prepare(sql);
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
      cache.set(sql, statement);
    }
    return statement;
  };
}

interface SqliteConnection {
  prepare(sql: string): unknown;
  close(): unknown;
  pragma(source: string): unknown;
  function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): unknown;
}
