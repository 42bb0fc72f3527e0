/**
 * SQL written once, at start, for the queries every command runs (token lookup, the statements of
 * each model's generated queries, the audit insert). Building a query with knex costs more than
 * running it on SQLite; these strings are portable (standard double-quoted identifiers, `?`
 * placeholders that knex numbers for PostgreSQL) and run through `db.raw`, in the caller's
 * transaction when `db` is one, except the selects that SQLite serves on its read-only connection
 * (see `selectRows`).
 */
import type { Knex } from 'knex';
import { badRequest } from '../errors.ts';
import { uniqueIndexName } from './migrate/index-design.ts';
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
 * otherwise as `runSelect` does.
 */
export async function selectRows<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  const reader = sqliteReaderOf(db);
  if (reader) return reader.all(sql, bindings) as Row[];
  return runSelect<Row>(db, sql, bindings);
}

/** The first row of a `select` written in SQL, or undefined. */
export async function selectFirst<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row | undefined> {
  return (await selectRows<Row>(db, sql, bindings))[0];
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
 * A model's unique fields as a write's errors name them: by the unique index's name (PostgreSQL)
 * or by `table.column` (SQLite) → the field's path, `invoice.number`.
 */
export type UniqueFields = ReadonlyMap<string, string>;

export function uniqueFields(table: string, fields: readonly string[]): UniqueFields {
  const names = new Map<string, string>();
  for (const field of fields) {
    const path = `${table}.${field}`;
    names.set(uniqueIndexName(table, [field]), path);
    names.set(path, path);
  }
  return names;
}

/**
 * Runs an `insert`, `update` or `delete` written in SQL, in the transaction when `db` is one. A
 * value the database refuses as a duplicate of a unique field is `400 <model>.<field> must be unique`.
 */
export async function runWrite(db: Knex, sql: string, bindings: readonly unknown[], unique?: UniqueFields): Promise<void> {
  try {
    await db.raw(sql, bindings as Knex.RawBinding[]);
  } catch (error) {
    const path = unique && duplicateOf(error, unique);
    if (path) throw badRequest(`${path} must be unique`);
    throw error;
  }
}

/** The unique field a database error says was repeated, if it is one of `unique`. */
function duplicateOf(error: unknown, unique: UniqueFields): string | undefined {
  const { code, constraint, message } = (error ?? {}) as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505' && typeof constraint === 'string') return unique.get(constraint);
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string') {
    const failed = /UNIQUE constraint failed: (.+)$/.exec(message)?.[1]?.split(', ') ?? [];
    return failed.map((column) => unique.get(column)).find((path) => path !== undefined);
  }
  return undefined;
}
