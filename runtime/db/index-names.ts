/**
 * Names of the indexes and search tables the runtime keeps, in one place: the migration planner
 * creates them under these names (migrate/index-design.ts), writes recognise a unique index's name
 * in a duplicate's error (statements.ts), and `contains` queries a search table by its name
 * (query/list-query.ts).
 */
import { createHash } from 'node:crypto';
import type { Dialect } from './connect.ts';

/** PostgreSQL cuts identifiers at 63 bytes: longer names end in a hash so that two never meet. */
const MAX_NAME = 63;

/** `<prefix>_<table>_<columns>[suffix]`, shortened with a hash past PostgreSQL's identifier length. */
export function indexName(prefix: string, table: string, columns: readonly string[], suffix = ''): string {
  const name = `${prefix}_${table}_${columns.join('_')}${suffix}`;
  if (Buffer.byteLength(name) <= MAX_NAME) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** The name of the unique index of these fields (over the records `where` holds, when given). */
export function uniqueIndexName(table: string, fields: readonly string[], where?: Readonly<Record<string, unknown>>): string {
  if (!where) return indexName('rms_uq', table, fields);
  const condition = createHash('sha256').update(JSON.stringify(Object.entries(where))).digest('hex').slice(0, 8);
  return indexName('rms_uq', table, fields, `_where_${condition}`);
}

/** The trigram index of a `search` field: an FTS5 table on SQLite, a GIN index on PostgreSQL. */
export function searchIndexName(table: string, field: string, dialect: Dialect): string {
  return indexName(dialect === 'postgres' ? 'rms_trgm' : 'rms_fts', table, [field]);
}

/** SQLite: the table numbering a searched table's ids for its search tables (FTS5 keys rows by integer). */
export function searchIdsTable(table: string): string {
  return `rms_ftsid_${table}`;
}
