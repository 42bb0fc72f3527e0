/** The values the API speaks in: field kinds, defaults, filters and order, a record. */

/**
 * The kinds a field can have: SPEC 2.2's, then `decimal` (a number with a fixed count of decimals),
 * `datetime` (an instant, ISO 8601), `email`, `url`, `phone` (text of that form) and `multiselect`
 * (an array of distinct options), `file` (uploaded files: one, or a list with `multiple`).
 */
export type FieldKind = 'text' | 'longtext' | 'number' | 'money' | 'date' | 'bool' | 'select' | 'ref' | 'decimal' | 'datetime' | 'email' | 'url' | 'phone' | 'multiselect' | 'file';

/**
 * A file as a file field holds it (and `POST /api/files` answers it): its id, its name as uploaded
 * (sanitised), its size in bytes, its media type (detected from its content where the content
 * says) and the SHA-256 of its content in lower-case hex.
 */
export interface FileRef {
  readonly id: string;
  readonly name: string;
  readonly size: number;
  readonly type: string;
  readonly sha256: string;
}

/** A field's value when a record is created without it: a constant, or the day or instant of the write. */
export type FieldDefault = { readonly value: unknown } | 'today' | 'now';

/** What an action sets a field to: a constant, the day or instant it runs, or one of its inputs. */
export type ActionSet = { readonly value: unknown } | 'today' | 'now' | { readonly input: string };

import type { CommandKind } from '../command-kinds.ts';

/** SPEC 2.5: generated commands, plus `action` for a model's workflow actions; declared with what each kind is. */
export type { CommandKind };

/** SPEC 4.5: the operators of a `list`/`search` filter condition. */
export const FILTER_OPERATORS = ['eq', 'ne', 'contains', 'in', 'gt', 'gte', 'lt', 'lte', 'is_null'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** One condition of the `filter` of `list`/`search` (and of `GET /api/audit`). */
export interface FilterCondition {
  readonly field: string;
  readonly op: FilterOperator;
  readonly value?: unknown;
}

/** One key of the `order` of `list`/`search`. */
export interface OrderKey {
  readonly field: string;
  readonly dir: 'asc' | 'desc';
}

/** A record as commands answer it: its `id` and the fields the caller reads (personal ones masked for agents). */
export type RecordValue = { readonly id: string } & Readonly<Record<string, unknown>>;

