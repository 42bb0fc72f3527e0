/**
 * Field values between JSON and the database: how each kind is stored, read back, and checked
 * when it appears as a filter value. Tables are `Record<FieldKind, …>` so a new kind fails the
 * build until it is handled here.
 */
import { z } from 'zod';
import type { Dialect } from '../db/connect.ts';
import { badRequest } from '../errors.ts';
import { kinds } from '../kinds.ts';
import type { FieldKind, FieldMeta } from '../registry.ts';

/** A field as the query layer sees it; `id` is one too. */
export interface QueryField {
  readonly name: string;
  readonly kind: FieldKind | 'id';
  /** `<model>.<field>`, used in error texts. */
  readonly path: string;
  readonly options?: readonly string[];
  readonly target?: string;
}

type ToDb = (value: unknown) => unknown;
type FromDb = (value: unknown) => unknown;

const identity = (value: unknown) => value;

/** How a JSON value is bound as a parameter. SQLite has no boolean type: true/false are 1/0. */
export function toDbConverter(kind: FieldKind | 'id', dialect: Dialect): ToDb {
  if (kind === 'bool' && dialect === 'sqlite') return (value) => (value === null || value === undefined ? null : value ? 1 : 0);
  return identity;
}

const fromDb: Record<FieldKind | 'id', FromDb> = {
  id: identity,
  text: identity,
  longtext: identity,
  select: identity,
  ref: identity,
  // PostgreSQL returns bigint as a string; SQLite returns a number.
  number: (value) => (value === null || value === undefined ? null : Number(value)),
  money: (value) => (value === null || value === undefined ? null : Number(value)),
  // SQLite stores 0/1; PostgreSQL returns booleans.
  bool: (value) => (value === null || value === undefined ? null : value === true || value === 1 || value === '1' || value === 't' || value === 'true'),
  date: (value) => (value === null || value === undefined ? null : value instanceof Date ? formatDate(value) : String(value)),
};

export function fromDbConverter(kind: FieldKind | 'id'): FromDb {
  return fromDb[kind];
}

function formatDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A row-to-record converter for a fixed list of fields: `id` plus each field, null when empty. */
export function compileRowReader(fields: readonly FieldMeta[]): (row: Record<string, unknown>) => Record<string, unknown> {
  const names = fields.map((field) => field.name);
  const converters = fields.map((field) => fromDb[field.kind]);
  const count = names.length;
  return (row) => {
    const record: Record<string, unknown> = { id: row.id };
    for (let i = 0; i < count; i++) {
      const value = row[names[i]!];
      record[names[i]!] = value === undefined || value === null ? null : converters[i]!(value);
    }
    return record;
  };
}

/** A schema that checks one value of the field (as a filter value), with SPEC-style error texts. */
export function filterValueSchema(field: QueryField): z.ZodType {
  switch (field.kind) {
    case 'id':
      return kinds.ref(field.path, field.path.split('.')[0]!);
    case 'text':
    case 'longtext':
      // Any string: empty values are stored as NULL, so `eq ""` simply matches nothing.
      return z.string({ error: `${field.path} must be a string` });
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
  }
}

/** Parses with a zod schema and turns the first issue into a 400 with its message. */
export function parseOr400<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw badRequest(result.error.issues[0]?.message ?? 'invalid input');
}
