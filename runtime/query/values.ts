/**
 * Field values between JSON and the database: how each kind is stored, read back, and checked
 * when it appears as a filter value. Tables are `Record<FieldKind, …>` so a new kind fails the
 * build until it is handled here. The generated queries (`generated/<module>/<model>.queries.ts`)
 * convert their rows with `fromDb` and `toDb`; filters convert their values with `toDbConverter`.
 */
import { z } from 'zod';
import type { Dialect } from '../db/connect.ts';
import { badRequest } from '../errors.ts';
import { decimalUnits } from '../value-checks.ts';
import { TEXT_LIMITS, kinds, storableText } from '../kinds.ts';
import type { FieldKind, FileRef } from '../api-shapes.ts';
import type { FileColumnReader } from '../registry.ts';
import { StoredJson } from './stored-json.ts';
import type { QueryField } from './compiled-list.ts';

type ToDb = (value: unknown) => unknown;

const identity = (value: unknown) => value;

/** JSON values that the drivers cannot bind as they are. Every other kind is bound unchanged. */
export const toDb = {
  /** SQLite has no boolean type: true/false are stored as 1/0 there. */
  bool(value: boolean | null | undefined, dialect: Dialect): boolean | number | null {
    if (value === null || value === undefined) return null;
    return dialect === 'sqlite' ? (value ? 1 : 0) : value;
  },
  /** A decimal is stored exactly, as an integer: the value × 10^scale (validation kept it a safe integer). */
  decimal(value: number | null | undefined, scale: number): number | null {
    if (value === null || value === undefined) return null;
    return decimalUnits(value, scale);
  },
  /** A multiselect is stored as the JSON array of its options, in their declared order; empty as NULL. */
  multiselect(value: readonly string[] | null | undefined): string | null {
    if (value === null || value === undefined || value.length === 0) return null;
    return JSON.stringify(value);
  },
  /** A file field is stored as the JSON of its file (`FileRef`), or of its list of files; empty as NULL. */
  file(value: FileRef | readonly FileRef[] | null | undefined): string | null {
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return null;
    return JSON.stringify(value);
  },
};

/** How a JSON value of the kind is bound as a parameter (a filter value, a cursor's, a token's); `scale` for a decimal. */
export function toDbConverter(kind: FieldKind | 'id', dialect: Dialect, scale = 0): ToDb {
  if (kind === 'bool') return (value) => toDb.bool(value as boolean | null | undefined, dialect);
  if (kind === 'decimal') return (value) => toDb.decimal(value as number | null | undefined, scale);
  if (kind === 'multiselect') return (value) => toDb.multiselect(value as readonly string[] | null | undefined);
  return identity;
}

const isEmpty = (value: unknown): value is null | undefined => value === null || value === undefined;

/**
 * A column's value as the driver returns it → the JSON value of the field, per kind; null when
 * empty. Text kinds come back as they were stored.
 */
export const fromDb = {
  id: (value: unknown): string => value as string,
  text: (value: unknown): string | null => (isEmpty(value) ? null : (value as string)),
  longtext: (value: unknown): string | null => (isEmpty(value) ? null : (value as string)),
  select: (value: unknown): string | null => (isEmpty(value) ? null : (value as string)),
  ref: (value: unknown): string | null => (isEmpty(value) ? null : (value as string)),
  // PostgreSQL returns bigint as a string; SQLite returns a number.
  number: (value: unknown): number | null => (isEmpty(value) ? null : Number(value)),
  money: (value: unknown): number | null => (isEmpty(value) ? null : Number(value)),
  // SQLite stores 0/1; PostgreSQL returns booleans.
  bool: (value: unknown): boolean | null =>
    isEmpty(value) ? null : value === true || value === 1 || value === '1' || value === 't' || value === 'true',
  date: (value: unknown): string | null => (isEmpty(value) ? null : value instanceof Date ? formatDate(value) : String(value)),
  /** The stored integer ÷ 10^scale: the number with its decimals (PostgreSQL's bigint comes as a string). */
  decimal: (value: unknown, scale = 0): number | null => (isEmpty(value) ? null : Number(value) / 10 ** scale),
  /** Stored as the UTC instant `YYYY-MM-DDTHH:MM:SS.sssZ`. */
  datetime: (value: unknown): string | null => (isEmpty(value) ? null : value instanceof Date ? value.toISOString() : String(value)),
  email: (value: unknown): string | null => (isEmpty(value) ? null : (value as string)),
  url: (value: unknown): string | null => (isEmpty(value) ? null : (value as string)),
  phone: (value: unknown): string | null => (isEmpty(value) ? null : (value as string)),
  /** The JSON array of the options, in their declared order; empty: null. */
  multiselect: (value: unknown): string[] | null => (isEmpty(value) ? null : (JSON.parse(String(value)) as string[])),
  /** The JSON of the file, or of the list of files. */
  file: (value: unknown): FileRef | FileRef[] | null => (isEmpty(value) ? null : (JSON.parse(String(value)) as FileRef | FileRef[])),
} satisfies Record<FieldKind | 'id', (value: unknown, scale?: number) => unknown>;

/**
 * A file column read for an answer that nothing else reads (a person's `get` over REST): its stored
 * text, written into the answer as it is (stored-json.ts), not parsed. Only `jsonText` and
 * JSON.stringify may read such a record's file values: typed as files, they are not.
 */
export const fileTextForAnswer: FileColumnReader = (value) => (isEmpty(value) ? null : (new StoredJson(String(value)) as unknown as FileRef[]));

function formatDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A schema that checks one value of the field (as a filter value), with SPEC-style error texts. */
export function filterValueSchema(field: QueryField): z.ZodType {
  switch (field.kind) {
    case 'id':
      return kinds.ref(field.path, field.path.split('.')[0]!);
    case 'text':
    case 'longtext':
      // Any text the field could hold, `""` too: empty values are stored as NULL, so `eq ""`
      // simply matches nothing. NUL and lone surrogates are refused as in the field's values:
      // neither database could compare them (an FTS5 query ends at a NUL).
      return storableText(z.string({ error: `${field.path} must be a string` }), field.path, TEXT_LIMITS[field.kind]);
    case 'number':
      return kinds.number(field.path);
    case 'money':
      return kinds.money(field.path);
    case 'date':
      return kinds.date(field.path);
    case 'bool':
      return kinds.bool(field.path);
    case 'select':
      return kinds.select(field.path, field.options as readonly [string, ...string[]]);
    case 'ref':
      return kinds.ref(field.path, field.target ?? 'record');
    case 'email':
    case 'url':
    case 'phone':
      // Any text, as for text fields: `contains` looks for part of an address, a number.
      return storableText(z.string({ error: `${field.path} must be a string` }), field.path, TEXT_LIMITS.text);
    case 'decimal':
      return kinds.decimal(field.path, { scale: field.scale ?? 0 });
    case 'datetime':
      return kinds.datetime(field.path);
    case 'file':
      // A file field is filtered only with is_null, which takes no value of the field.
      return z.never({ error: `${field.path}: file fields are filtered only with is_null` });
    case 'multiselect':
      // One option: what `contains` and `in` look for (`eq`/`ne` take the whole list: see list-query.ts).
      return kinds.select(field.path, field.options as readonly [string, ...string[]]);
  }
}

/** Parses with a zod schema and turns the first issue into a 400 with its message. */
export function parseOr400<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw badRequest(result.error.issues[0]?.message ?? 'invalid input');
}
