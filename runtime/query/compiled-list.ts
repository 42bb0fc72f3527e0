/**
 * The shapes of a compiled `list`/`search` (SPEC 4.5): what the query compiler (list-query.ts)
 * makes of a call's filter, order and page, and what a model's generated queries run. Types only,
 * importing nothing of the runtime's but the API's shapes, so that the registry (which declares
 * the generated queries' signatures) and the query layer both depend on them, and not on each
 * other.
 */
import type { z } from 'zod';
import type { FieldKind } from '../api-shapes.ts';

/** A field as the query layer sees it; `id` is one too. */
export interface QueryField {
  readonly name: string;
  readonly kind: FieldKind | 'id';
  /** `<model>.<field>`, used in error texts. */
  readonly path: string;
  readonly options?: readonly string[];
  readonly target?: string;
  /** A decimal's count of decimals. */
  readonly scale?: number;
}

export interface CompiledQueryField extends QueryField {
  /** Quoted column, e.g. `"title"`. */
  readonly column: string;
  /**
   * The column as `eq`, `ne` and `in` compare it: itself, or on PostgreSQL `"description" COLLATE "C"`
   * where the field's index is built byte by byte (`bytewiseEqualFields` in list-query.ts).
   */
  readonly equality: string;
  /** SQLite, a `search: true` field: the statements of its trigram index that `contains` uses (see contains.ts). */
  readonly searchIndex?: SearchIndexSql;
  /** Expression used for comparisons and ordering (PostgreSQL: byte order, as on SQLite; a select: its option's place). */
  readonly sortable: string;
  /** A JSON value as `sortable` compares it (a select's option → its place). */
  readonly sortValue: (value: unknown) => unknown;
  readonly nullable: boolean;
  readonly value: z.ZodType;
  readonly toDb: (value: unknown) => unknown;
  readonly text: boolean;
  readonly ordered: boolean;
}

/** A model's fields compiled once for the query layer, per dialect. */
export interface ModelQuery {
  readonly model: string;
  /** The model's table, for conditions that refer to its rows. */
  readonly table: string;
  readonly dialect: 'sqlite' | 'postgres';
  readonly fields: ReadonlyMap<string, CompiledQueryField>;
  /** Each line list's table and fields, for filters on line fields (`items.description`). */
  readonly lines: ReadonlyMap<string, { readonly table: string; readonly fields: ReadonlyMap<string, CompiledQueryField> }>;
}

/** The last row of a keyset page, which the next page starts after (see `cursor.ts`). */
export interface Keyset {
  /** Order keys, each with the direction and the last row's value (null when empty). */
  readonly keys: readonly { readonly field: CompiledQueryField; readonly desc: boolean; readonly value: unknown }[];
  readonly id: string;
}

export interface SqlFragment {
  readonly sql: string;
  readonly bindings: readonly unknown[];
  /** A `contains` that can go through a search index or not: the two plans `selectList` and `countList` choose between. */
  readonly searched?: SearchedContains;
}

/** SQL of a search field's trigram index (SQLite's FTS5 table), each taking the needle as one bound MATCH phrase. */
export interface SearchIndexSql {
  /** A condition: the row is among those whose indexed value holds the needle's trigrams. */
  readonly candidates: string;
  /**
   * Selects `common`: whether at least about `wanted` × (the table's rows) / `scanRows` indexed
   * values hold the needle, so that a scan fills a page of `wanted` rows within `scanRows` rows.
   * It counts matches only up to that bound. Binds `wanted`, `scanRows`, then the phrase.
   */
  readonly probe: string;
  /** Selects `n`, how many indexed values hold the needle. */
  readonly count: string;
}

/** A `contains` on a search field with a needle the index serves: the ways to test and count it. */
export interface SearchedContains {
  /** The exact test alone: what a scan in the page's order checks, stopping after the page. */
  readonly scan: SqlFragment;
  /** Whether a scan fills a page of `wanted` rows within `scanRows` rows (see `SearchIndexSql.probe`). */
  readonly probe: (wanted: number, scanRows: number) => SqlFragment;
  /** How many rows hold the needle, from the index alone: exact, as the index's phrase match is the substring test. */
  readonly count: SqlFragment;
}

export interface CompiledList {
  /** Conditions, combined with AND (the filter; a keyset's start is not among them: a search's total counts every match). */
  readonly where: readonly SqlFragment[];
  readonly orderBy: string;
  /** Whether the order's keys (the id's, last, among them) go different ways: no index reads them in that order at once. */
  readonly mixedDirections: boolean;
  readonly limit: number | undefined;
  readonly offset: number | undefined;
  /** Keyset paging (`after`): the order's keys, for the cursor of the page's last row; and where the page starts. */
  readonly keyset?: {
    readonly keys: readonly { readonly field: CompiledQueryField; readonly desc: boolean }[];
    /** The row the page starts after; absent for the first page. */
    readonly after?: Keyset;
  };
}

/** What `openListPages` (query/list-pages.ts) answers: a list without a limit, read a page at a time. */
export interface ListPages<Row> {
  /** How many rows the conditions select, counted in the rows' snapshot, when asked for (a search's `total`). */
  readonly total: number | undefined;
  /**
   * The rows in the list's order, a page at a time. The read (its snapshot, its connection) ends
   * after the last page, or when a loop over them stops: whoever opens the pages loops over them.
   */
  readonly pages: AsyncGenerator<Row[], void, undefined>;
}
