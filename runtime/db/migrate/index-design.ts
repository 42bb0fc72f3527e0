/**
 * Indexes as the planner and apply see them: a structured design, so that further kinds (several
 * columns, unique, other methods) are more data here and in apply's DDL, not new planner branches.
 * Today every index is derived from an entry of `TableMeta.indexes`, a single column name, and is
 * named `rms_idx_<table>_<column>`, the name databases migrated by earlier releases hold.
 */
import type { TableMeta } from '../../registry.ts';

export interface IndexDesign {
  /** The index's name in the database; unique per database on PostgreSQL. */
  readonly name: string;
  readonly table: string;
  /** Indexed columns, in index order. */
  readonly columns: readonly string[];
  readonly unique: boolean;
}

/** The index a `TableMeta.indexes` entry declares. */
export function indexDesign(table: string, declared: string): IndexDesign {
  return { name: `rms_idx_${table}_${declared}`, table, columns: [declared], unique: false };
}

/** Every index a table design declares, in declaration order. */
export function indexesOf(table: TableMeta): IndexDesign[] {
  return table.indexes.map((declared) => indexDesign(table.name, declared));
}

export function sameIndex(a: IndexDesign, b: IndexDesign): boolean {
  return a.name === b.name && a.table === b.table && a.unique === b.unique && a.columns.join('\0') === b.columns.join('\0');
}

export function includesIndex(indexes: readonly IndexDesign[], index: IndexDesign): boolean {
  return indexes.some((candidate) => sameIndex(candidate, index));
}

/** How messages name what an index covers: `lead.stage`, or `lead (stage, expected_revenue)`. */
export function indexedColumns(owner: string, index: IndexDesign): string {
  return index.columns.length === 1 ? `${owner}.${index.columns[0]}` : `${owner} (${index.columns.join(', ')})`;
}
