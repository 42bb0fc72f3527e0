/**
 * What inspection learns about the database, as plain data the planner reads, and the questions
 * about stored data the planner may ask. Structure (which tables exist, their columns) is read
 * up front; data (row counts, values) only when the planner asks, so that a table where nothing
 * changed is never scanned.
 */
import type { Dialect } from '../connect.ts';

export interface InspectedDatabase {
  readonly dialect: Dialect;
  /** The inspected tables that exist, by name; an inspected table missing here does not exist. */
  readonly tables: ReadonlyMap<string, InspectedTable>;
  /**
   * The names of the indexes the database holds, usable ones only (and SQLite's search tables):
   * an index is added when its name is missing here. Absent: judged by the recorded designs.
   */
  readonly indexNames?: ReadonlySet<string>;
}

export interface InspectedTable {
  /** Its columns, in the database's order. */
  readonly columns: readonly string[];
  /** How many rows it holds, once asked. */
  readonly rows?: number;
  /** Per column asked about: how many rows hold a value in it. */
  readonly filled: ReadonlyMap<string, number>;
  /** Per column asked about: up to five values it holds outside the options asked about. */
  readonly valuesOutside: ReadonlyMap<string, readonly ValueCount[]>;
  /** Per column asked about: which of the values asked about it holds. */
  readonly valuesUsed: ReadonlyMap<string, readonly ValueCount[]>;
  /** Per column list asked about (joined by `,`): up to five values several rows hold in them. */
  readonly duplicates?: ReadonlyMap<string, readonly ValueCount[]>;
}

/** A stored value and how many rows hold it. */
export type ValueCount = readonly [value: string, rows: number];

/** A fact about stored data the planner needs; inspect answers it into the table's InspectedTable. */
export type DataQuestion =
  | { readonly kind: 'rows'; readonly table: string }
  | { readonly kind: 'filled'; readonly table: string; readonly column: string }
  | { readonly kind: 'values-outside'; readonly table: string; readonly column: string; readonly options: readonly string[] }
  | { readonly kind: 'values-used'; readonly table: string; readonly column: string; readonly values: readonly string[]; readonly list?: boolean }
  | { readonly kind: 'duplicates'; readonly table: string; readonly columns: readonly string[] };

export function inspectedTable(columns: readonly string[]): InspectedTable {
  return { columns, filled: new Map(), valuesOutside: new Map(), valuesUsed: new Map() };
}
