/**
 * SQL written once, at start, for the queries every command runs (token lookup, the statements of
 * each model's generated queries, the audit insert). Building a query with knex costs more than
 * running it on SQLite; these strings are portable (standard double-quoted identifiers, `?`
 * placeholders that knex numbers for PostgreSQL) and run through `db.raw`, in the caller's
 * transaction when `db` is one, except the selects that SQLite serves on its read-only connection
 * (see `selectRows`).
 */
import type { Knex } from 'knex';
import { badRequest, rememberStatement } from '../errors.ts';
import type { UniqueMeta } from '../registry.ts';
import { uniqueIndexName } from './index-names.ts';
import { dialectOf, sqliteReaderOf } from './connect.ts';

/** A double-quoted SQL identifier (SQLite and PostgreSQL both read it so). */
export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A comma-separated list of double-quoted identifiers. */
export function sqlIdentifiers(names: readonly string[]): string {
  return names.map(sqlIdentifier).join(', ');
}

/** `?, ?, …`: `count` placeholders, for a row's values or an `in (…)` list. */
export function sqlPlaceholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

/**
 * `insert into <table> (<columns>) values (?, …), …` for a number of rows, each text written once:
 * the multi-row inserts of the audit, history and outbox rows, which run prepared, one statement per
 * row count (see `runStatement`).
 */
export function rowsInsertSql(table: string, columns: readonly string[]): (rows: number) => string {
  const head = `insert into ${sqlIdentifier(table)} (${sqlIdentifiers(columns)}) values `;
  const row = `(${sqlPlaceholders(columns.length)})`;
  const byRows: string[] = [];
  return (rows) => (byRows[rows] ??= head + Array.from({ length: rows }, () => row).join(', '));
}

/**
 * Runs a `select` written in SQL. With the database itself (not a transaction) on SQLite it runs
 * on the read-only connection, which sees what is committed (see `attachReader` in connect.ts);
 * otherwise as `runSelect` does.
 */
export async function selectRows<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  const reader = sqliteReaderOf(db);
  if (reader) return reader.all(sql, bindings) as Row[];
  return runSelect<Row>(db, sql, bindings);
}

/**
 * The first row of a `select` written in SQL, or undefined. These are the lookups every request
 * makes (its token, a record by id): on PostgreSQL they run as prepared statements (see `runPreparedStatement`).
 */
export async function selectFirst<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row | undefined> {
  const reader = sqliteReaderOf(db);
  if (reader) return reader.all(sql, bindings)[0] as Row | undefined;
  if (dialectOf(db) === 'postgres') return (await runPreparedStatement<Row>(db, sql, bindings))[0];
  return (await runSelect<Row>(db, sql, bindings))[0];
}

/** Values bound to one SQLite statement's `in (…)` at most (SQLite's limit on variables is 32,766). */
const SQLITE_IN_CHUNK = 400;

/**
 * The rows of `sql` (a select ending in `where … and`, or `where`) with one more condition,
 * `column` among `values`. PostgreSQL: one prepared statement whatever the number of values
 * (`column = any(?)`, the values bound as one array), so that these lookups are parsed once per
 * connection like `selectFirst`'s. SQLite: `column in (?, …)` on the read-only connection (as
 * `selectRows`), in chunks.
 */
export async function selectIn<Row>(db: Knex, sql: string, column: string, bindings: readonly unknown[], values: readonly unknown[]): Promise<Row[]> {
  if (values.length === 0) return [];
  if (dialectOf(db) === 'postgres') return runPreparedStatement<Row>(db, `${sql} ${column} = any(?)`, [...bindings, values]);
  const rows: Row[] = [];
  for (let i = 0; i < values.length; i += SQLITE_IN_CHUNK) {
    const chunk = values.slice(i, i + SQLITE_IN_CHUNK);
    rows.push(...(await selectRows<Row>(db, `${sql} ${column} in (${sqlPlaceholders(chunk.length)})`, [...bindings, ...chunk])));
  }
  return rows;
}

/** Prepared statements by SQL text; past this many, statements run unnamed (pg keeps each one per connection). */
const MAX_PREPARED = 200;
const preparedStatements = new Map<string, { readonly name: string; readonly text: string }>();

/**
 * PostgreSQL: runs a statement written once (a fixed text, values bound) by name, so that each
 * connection parses and plans it once rather than on every call — for a lookup by key that is
 * most of the server's work — and without knex's query builder and runner. In the transaction
 * when `db` is one (knex hands out the transaction's connection). Errors are pg's own, as knex's.
 */
export async function runPreparedStatement<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  let statement = preparedStatements.get(sql);
  if (statement === undefined) {
    if (preparedStatements.size >= MAX_PREPARED) return runSelect<Row>(db, sql, bindings);
    let n = 0;
    statement = { name: `rms_${preparedStatements.size + 1}`, text: sql.replace(/\?/g, () => `$${++n}`) };
    preparedStatements.set(sql, statement);
  }
  const client = db.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(connection: PgConnection): Promise<unknown> | unknown };
  const connection = await client.acquireConnection();
  try {
    const result = await connection.query({ name: statement.name, text: statement.text, values: bindings as unknown[] });
    return result.rows as Row[];
  } finally {
    await client.releaseConnection(connection);
  }
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs a `select` written in SQL through knex, in the transaction when `db` is one: never on
 * SQLite's read-only connection, so it may lock rows (`for update` on PostgreSQL) and call the
 * functions only the pooled connection defines (`rms_lower`). better-sqlite3 answers the rows,
 * pg a result holding them.
 */
export async function runSelect<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  const result: unknown = await db.raw(sql, bindings as Knex.RawBinding[]);
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

/**
 * What a write's duplicate means, by the unique index it broke: its name (PostgreSQL) or its
 * columns as SQLite names them (`order.customer, order.number`) → the refusal's text.
 */
export type UniqueFields = ReadonlyMap<string, string>;

/**
 * A unique index over several fields or some records, as its refusal names it (`where` as the
 * module wrote it); `indexWhere`: the index's condition as its columns hold the values (a
 * decimal's integer, a datetime's UTC form), which names the index, when it differs from `where`.
 */
export interface UniqueIndex extends UniqueMeta {
  readonly indexWhere?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * The unique indexes of a table as writes' errors name them: each unique field
 * (`<model>.<field> must be unique`), each composite unique (`<model>: <f1>, <f2> must be unique`)
 * and each unique over some records (`<model>: <fields> must be unique among <values> records`).
 */
export function uniqueFields(table: string, fields: readonly string[], composite: readonly UniqueIndex[] = []): UniqueFields {
  const messages = new Map<string, string>();
  const add = (unique: UniqueIndex, message: string) => {
    messages.set(uniqueIndexName(table, unique.fields, unique.indexWhere ?? unique.where), message);
    const columns = unique.fields.map((field) => `${table}.${field}`).join(', ');
    if (!messages.has(columns)) messages.set(columns, message);
  };
  for (const field of fields) add({ fields: [field] }, `${table}.${field} must be unique`);
  for (const unique of composite) {
    const among = unique.where ? ` among ${Object.values(unique.where).join(', ')} records` : '';
    add(unique, `${table}: ${unique.fields.join(', ')} must be unique${among}`);
  }
  return messages;
}

/**
 * Runs a statement written once, with plain values bound (none of knex's binding syntax: no
 * arrays, `??` or booleans), in the transaction when `db` is one; answers the rows it returns
 * (`returning`), none otherwise. For the writes every request makes beside its command (its audit
 * row, an agent's rate counters): on SQLite straight on the pooled connection as a cached
 * prepared statement (profile of an agent's lead.get under load: knex's runner around these two
 * short statements cost more than SQLite running them), on PostgreSQL as a prepared statement.
 */
export async function runStatement<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  if (dialectOf(db) === 'postgres') return runPreparedStatement<Row>(db, sql, bindings);
  const client = db.client as { acquireConnection(): Promise<SqliteWriter>; releaseConnection(connection: SqliteWriter): unknown };
  const connection = await client.acquireConnection();
  try {
    const statement = connection.prepare(sql);
    if (statement.reader) return statement.all(bindings) as Row[];
    statement.run(bindings);
    return [];
  } catch (error) {
    rememberStatement(error, sql);
    throw error;
  } finally {
    await client.releaseConnection(connection);
  }
}

interface SqliteWriter {
  prepare(sql: string): { readonly reader: boolean; run(bindings: readonly unknown[]): unknown; all(bindings: readonly unknown[]): unknown[] };
}

/**
 * Runs an `insert` (of one row or many: a bulk command's, the history's and the outbox's), an
 * `update` or a `delete` written in SQL, in the transaction when `db` is one. A value the database
 * refuses as a duplicate of a unique field is `400 <model>.<field> must be unique`. On SQLite as
 * `runStatement` does, without knex: around the record's one insert, knex's raw query, its runner
 * and its formatting of the bindings cost about a twentieth of a create (profile of lead.create
 * under load, 2026-11-27), and for thousands of bound values more than the insert itself. The
 * values are bound as knex would have bound them: true/false as 1/0, a Date as its milliseconds;
 * an undefined value is refused as knex refuses it.
 */
export async function runWrite(db: Knex, sql: string, bindings: readonly unknown[], unique?: UniqueFields): Promise<void> {
  try {
    if (dialectOf(db) === 'sqlite') await runStatement(db, sql, bindings.map((value) => sqliteBinding(value, sql)));
    else await db.raw(sql, bindings as Knex.RawBinding[]);
  } catch (error) {
    const refusal = unique && duplicateOf(error, unique);
    if (refusal) throw badRequest(refusal);
    throw error;
  }
}

/** A value as knex's better-sqlite3 client binds it. */
function sqliteBinding(value: unknown, sql: string): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new Error(`Undefined binding(s) detected for: ${sql}`);
  return value;
}

/** The refusal of the unique index a database error says was broken, if it is one of `unique`. */
export function duplicateOf(error: unknown, unique: UniqueFields): string | undefined {
  const { code, constraint, message } = (error ?? {}) as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505' && typeof constraint === 'string') return unique.get(constraint);
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string') {
    const failed = /UNIQUE constraint failed: (.+)$/.exec(message)?.[1];
    if (failed === undefined) return undefined;
    return unique.get(failed) ?? failed.split(', ').map((column) => unique.get(column)).find((text) => text !== undefined);
  }
  return undefined;
}
