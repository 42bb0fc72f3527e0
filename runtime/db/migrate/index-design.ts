/**
 * Indexes as the planner and apply see them: a structured design derived from a table design's
 * `indexes` and `search`, per dialect. Kinds are data here and DDL in apply, never planner branches.
 *
 * - A field name (refs, governed selects) is the single-column index earlier releases made too,
 *   `rms_idx_<table>_<column>`.
 * - A declared index (`index`, `indexes`) covers its fields and then `id`, so that an order on them
 *   with the tie-break by id reads the index in order: `rms_ix_<table>_<fields>`. Orders put empty
 *   values last in both directions (`NULLS LAST`); SQLite reads one index either way, PostgreSQL
 *   only one way, so there a declared index whose last field may be empty gets a second one,
 *   descending with empty values last (`…_desc`).
 * - A unique field is a unique index on it, `rms_uq_<table>_<field>`; empty values never collide.
 * - A `search` field has a trigram index that `contains` uses: on SQLite an FTS5 table
 *   (`rms_fts_<table>_<field>`, kept by triggers), on PostgreSQL a pg_trgm GIN index on its
 *   lowered value (`rms_trgm_<table>_<field>`).
 * - On PostgreSQL a model's table has an index of its ids byte by byte (`rms_ix_<table>_id`), for
 *   a scan in the default order.
 */
import type { Dialect } from '../connect.ts';
import type { DeclaredIndex, TableMeta } from '../../registry.ts';
import { indexName, searchIdsTable, searchIndexName, uniqueIndexName } from '../index-names.ts';

export { searchIdsTable };

export interface IndexDesign {
  /** The index's name in the database; unique per database on PostgreSQL. */
  readonly name: string;
  readonly table: string;
  /** Indexed columns, in index order. */
  readonly columns: readonly string[];
  readonly unique: boolean;
  /** Columns the index keeps descending with empty values last (PostgreSQL's second index of a declared one). */
  readonly descending?: readonly string[];
  /**
   * PostgreSQL: text columns the index orders by code point (`COLLATE "C"`), as orders do (they
   * sort text the same way on both databases); the index serves an order only in its collation.
   */
  readonly bytewise?: readonly string[];
  /** `search`: a trigram index of its one column. */
  readonly method?: 'search';
  /** A partial index: only the rows whose columns hold these constants. */
  readonly where?: Readonly<Record<string, string | number | boolean>>;
}

/** The designs one `TableMeta.indexes` entry gives (two on PostgreSQL for an ordered index on a field that may be empty). */
export function indexDesigns(table: TableMeta, declared: string | DeclaredIndex, dialect: Dialect): IndexDesign[] {
  if (typeof declared === 'string') return [{ name: `rms_idx_${table.name}_${declared}`, table: table.name, columns: [declared], unique: false }];
  if (declared.unique) {
    return [{ name: uniqueIndexName(table.name, declared.fields, declared.where), table: table.name, columns: declared.fields, unique: true, ...(declared.where ? { where: declared.where } : {}) }];
  }
  const columns = [...declared.fields, 'id'];
  const last = declared.fields[declared.fields.length - 1]!;
  const lastColumn = table.columns.find((column) => column.name === last);
  if (dialect !== 'postgres') return [{ name: indexName('rms_ix', table.name, declared.fields), table: table.name, columns, unique: false }];
  // The fields before the last are filtered on with `=` (the table's collation); the last and the
  // id are ordered on, as orders compare text, byte by byte.
  const textual = lastColumn?.type === 'text' || lastColumn?.type === 'id';
  const bytewise = textual ? [last, 'id'] : ['id'];
  const ordered: IndexDesign = { name: indexName('rms_ix', table.name, declared.fields), table: table.name, columns, unique: false, bytewise };
  if (lastColumn?.notNull === true) return [ordered];
  return [ordered, { ...ordered, name: indexName('rms_ix', table.name, declared.fields, '_desc'), descending: [last] }];
}

/** The trigram index of a `search` field. */
export function searchDesign(table: string, field: string, dialect: Dialect): IndexDesign {
  return { name: searchIndexName(table, field, dialect), table, columns: [field], unique: false, method: 'search' };
}

/**
 * PostgreSQL, a model's table: its ids byte by byte, the order every list ends with (its primary
 * key keeps the database's collation, which serves no such order). A page in the default order
 * then reads the index and stops after the page, instead of sorting the table (200,000 orders:
 * 155-215 ms a page without it, found by a probe); a `contains` on a term most rows hold reads the
 * table in this order too (the planner chooses, by the trigram index's statistics). A line list's
 * table is never listed: it has none.
 */
function idOrderDesign(table: TableMeta): IndexDesign {
  return { name: indexName('rms_ix', table.name, ['id']), table: table.name, columns: ['id'], unique: false, bytewise: ['id'] };
}

/**
 * Every index a table design declares, in declaration order, then its search indexes (and, on
 * PostgreSQL, a model's table's id order: `listed` is false for a line list's table).
 */
export function indexesOf(table: TableMeta, dialect: Dialect, listed = true): IndexDesign[] {
  const search = (table.search ?? []).map((field) => searchDesign(table.name, field, dialect));
  const idOrder = dialect === 'postgres' && listed ? [idOrderDesign(table)] : [];
  return [...table.indexes.flatMap((declared) => indexDesigns(table, declared, dialect)), ...search, ...idOrder];
}

export function sameIndex(a: IndexDesign, b: IndexDesign): boolean {
  return (
    a.name === b.name &&
    a.table === b.table &&
    a.unique === b.unique &&
    a.method === b.method &&
    a.columns.join('\0') === b.columns.join('\0') &&
    (a.descending ?? []).join('\0') === (b.descending ?? []).join('\0') &&
    (a.bytewise ?? []).join('\0') === (b.bytewise ?? []).join('\0') &&
    JSON.stringify(a.where ?? null) === JSON.stringify(b.where ?? null)
  );
}

export function includesIndex(indexes: readonly IndexDesign[], index: IndexDesign): boolean {
  return indexes.some((candidate) => sameIndex(candidate, index));
}

/** How messages name what an index covers: `lead.stage`, or `lead (stage, expected_revenue)` — the fields, without the `id` an ordered index ends with. */
export function indexedColumns(owner: string, index: IndexDesign): string {
  const fields = index.columns.length > 1 && index.columns[index.columns.length - 1] === 'id' ? index.columns.slice(0, -1) : index.columns;
  const descending = index.descending && index.descending.length > 0 ? ', descending' : '';
  return fields.length === 1 ? `${owner}.${fields[0]}${descending && ` (descending)`}` : `${owner} (${fields.join(', ')}${descending})`;
}

/** `index on lead.party`, `unique index on invoice.number`, `search index on lead.title`: what change lines name. */
export function describeIndex(index: IndexDesign): string {
  const kind = index.method === 'search' ? 'search index' : index.unique ? 'unique index' : 'index';
  return `${kind} on ${indexedColumns(index.table, index)}`;
}
