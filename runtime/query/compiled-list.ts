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
  /** `contains` goes through the field's trigram index (`search: true`): the SQL that finds candidates, then the exact test. */
  readonly searchCandidates?: string;
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
}

export interface CompiledList {
  /** Conditions, combined with AND (the filter; a keyset's start is not among them: a search's total counts every match). */
  readonly where: readonly SqlFragment[];
  readonly orderBy: string;
  readonly limit: number | undefined;
  readonly offset: number | undefined;
  /** Keyset paging (`after`): the order's keys, for the cursor of the page's last row; and where the page starts. */
  readonly keyset?: {
    readonly keys: readonly { readonly field: CompiledQueryField; readonly desc: boolean }[];
    /** The row the page starts after; absent for the first page. */
    readonly after?: Keyset;
  };
}
