/**
 * SQL written once, at start, for the queries every command runs (token lookup, a record by id,
 * the audit insert). Building a query with knex costs more than running it on SQLite; these
 * strings are portable (standard double-quoted identifiers, `?` placeholders that knex numbers
 * for PostgreSQL) and run through `db.raw`, in the caller's transaction when `db` is one, except
 * the selects that SQLite serves on its read-only connection (see `selectRows`).
 */
import type { Knex } from 'knex';
import { sqliteReaderOf } from './connect.ts';

/** A double-quoted SQL identifier (SQLite and PostgreSQL both read it so). */
export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A comma-separated list of double-quoted identifiers. */
export function sqlIdentifiers(names: readonly string[]): string {
  return names.map(sqlIdentifier).join(', ');
}

/**
 * Runs a `select` written in SQL. With the database itself (not a transaction) on SQLite it runs
 * on the read-only connection, which sees what is committed (see `attachReader` in connect.ts);
 * otherwise through knex, where better-sqlite3 answers the rows and pg a result holding them.
 */
export async function selectRows<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  const reader = sqliteReaderOf(db);
  if (reader) return reader.all(sql, bindings) as Row[];
  const result: unknown = await db.raw(sql, bindings as Knex.RawBinding[]);
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

/** The first row of a `select` written in SQL, or undefined. */
export async function selectFirst<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row | undefined> {
  return (await selectRows<Row>(db, sql, bindings))[0];
}
