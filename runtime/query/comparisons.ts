/**
 * What conditions compare as, besides the value itself: which kinds are text, which text fields
 * compare byte by byte on PostgreSQL, and datetimes finer than what is stored (list-query.ts).
 */
import type { Dialect } from '../db/connect.ts';
import { indexesOf } from '../db/migrate/index-design.ts';
import type { FieldMeta, TableMeta } from '../registry.ts';
import type { QueryField, SqlFragment } from './compiled-list.ts';

/** Kinds whose values are text: compared byte by byte; `contains` looks inside them. */
export const TEXT_KINDS: ReadonlySet<QueryField['kind']> = new Set(['text', 'longtext', 'email', 'url', 'phone']);

/**
 * PostgreSQL: the text fields whose every index leading with them is built byte by byte
 * (`COLLATE "C"`, as index-design.ts designs a declared index of the field alone, to serve
 * orders). `eq`, `ne` and `in` compare them in that collation too, so that the index serves them
 * as well (text equal in the database's collation is equal byte by byte): compared in the
 * database's collation, a line's description `eq` read every line (194-328 ms at 600,000 lines,
 * found by a probe).
 */
export function bytewiseEqualFields(table: TableMeta, metas: readonly FieldMeta[], dialect: Dialect): ReadonlySet<string> {
  if (dialect !== 'postgres') return new Set();
  const inDatabaseCollation = new Set<string>();
  const bytewise = new Set<string>();
  for (const index of indexesOf(table, dialect)) {
    if (index.method === 'search') continue;
    const first = index.columns[0]!;
    (index.bytewise?.includes(first) ? bytewise : inDatabaseCollation).add(first);
  }
  return new Set(metas.filter((field) => TEXT_KINDS.has(field.kind) && bytewise.has(field.name) && !inDatabaseCollation.has(field.name)).map((field) => field.name));
}

export const NOTHING: SqlFragment = { sql: '1 = 0', bindings: [] };
export const EVERYTHING: SqlFragment = { sql: '1 = 1', bindings: [] };

/** Whether a datetime as written says more than its milliseconds: a fraction of a second with a digit other than 0 past the third. */
export function finerThanMilliseconds(value: unknown): boolean {
  return typeof value === 'string' && /T\d{2}:\d{2}:\d{2}\.\d{3}\d*[1-9]/.test(value);
}
