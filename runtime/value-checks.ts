/**
 * The checks a value of a field kind passes, apart from the zod builders that use them (kinds.ts):
 * the service's limits, text the databases can store, ranges, the forms of email, URL, phone and
 * datetime values, exact decimals, and a line of a line list.
 */
import { z } from 'zod';
export const LIMITS = {
  filterConditions: 50,
  orderKeys: 5,
  minLimit: 1,
  maxLimit: 5000,
  inValues: 1000,
} as const;

/** Picks the message for a missing value (`undefined` or `null`) or a wrong one. */
export function message(path: string, wrong: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined || issue.input === null ? `${path} is required` : `${path} ${wrong}`);
}

export const SAFE = { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };

/**
 * The longest text a field takes, in characters (Unicode code points, as PostgreSQL's `varchar`
 * counts them). Both databases would store more; these keep a body of one field from filling a
 * table, and keep indexed values within what PostgreSQL indexes.
 */
export const TEXT_LIMITS = {
  /** A `text` field: a name, a title, a line. */
  text: 10_000,
  /** A `longtext` field: notes, a description; about what a request body (1 MB) carries. */
  longtext: 1_000_000,
  /**
   * The text fields of one btree index together (a `unique` or `index` field, an `indexes` entry):
   * PostgreSQL refuses an index row over 2704 bytes, and a character is up to 4 bytes in UTF-8, so
   * 500 characters (2000 bytes) leave room for the index's other columns and the record id.
   */
  indexed: 500,
} as const;

/** Ids are stored in columns of 64 characters (the ids rmsgen makes have 26). */
export const MAX_ID_LENGTH = 64;

/** The most characters each text field of a btree index over `textFields` text fields may hold (see `TEXT_LIMITS.indexed`). */
export function indexedTextMaxLength(textFields: number): number {
  return Math.floor(TEXT_LIMITS.indexed / Math.max(1, textFields));
}

/** Characters as PostgreSQL counts them: a surrogate pair (an emoji, say) is one. */
export function characterCount(value: string): number {
  let count = value.length;
  for (let i = 0; i < value.length - 1; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/**
 * What is wrong with a string as stored text, as the end of an error text (`<name> <problem>`), or
 * undefined. PostgreSQL cannot store NUL in text, and JSON may carry a lone surrogate (`"\ud800"`),
 * which UTF-8 cannot hold (it would come back altered): both are refused, on either database, as
 * is text longer than `maxLength` characters.
 */
export function textProblem(value: string, maxLength: number): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (!value.isWellFormed()) return 'must be valid Unicode text';
  if (value.length > maxLength && characterCount(value) > maxLength) return `must be at most ${maxLength} characters`;
  return undefined;
}

/** A string schema refusing what `textProblem` finds, with `name` in the error text. */
export function storableText<T extends z.ZodString>(schema: T, name: string, maxLength: number) {
  return schema.superRefine((value, ctx) => {
    const problem = textProblem(value, maxLength);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `${name} ${problem}`, input: value });
  });
}

/** A non-empty string of storable text (see `textProblem`). */
export function textOf(path: string, maxLength: number) {
  return storableText(z.string({ error: message(path, 'must be a string') }).min(1, { error: `${path} is required` }), path, maxLength);
}

/** An id a caller sends: a non-empty string that fits the columns ids are stored in. */
export function idOf(name: string, wrong = 'must be a string') {
  return storableText(z.string({ error: message(name, wrong) }).min(1, { error: `${name} is required` }), name, MAX_ID_LENGTH);
}

export const NOT_A_DATE = 'must be a real calendar date YYYY-MM-DD';
export const NOT_A_DATETIME = 'must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z';

/**
 * A text kind's options: `maxLength`, the most the storage takes (the generator passes
 * `indexedTextMaxLength` for an indexed field); `length`, the most the module allows (its own
 * error); `pattern`, a regular expression the whole value must match.
 */
export interface TextOptions {
  readonly maxLength?: number;
  readonly length?: number;
  readonly pattern?: string;
}

/** The least and most value of a number, decimal, money (minor units), date or datetime field. */
export interface RangeOptions<T> {
  readonly min?: T;
  readonly max?: T;
}

/** A decimal: its count of decimals (0–6), and its range. */
export interface DecimalOptions extends RangeOptions<number> {
  readonly scale: number;
}

/**
 * A module's `pattern` as the runtime matches it: anchored (the whole value must match), with
 * Unicode semantics. The generator compiles it the same way to refuse a pattern that does not.
 */
export function patternRegExp(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`, 'u');
}

/** Adds a module's `length` and `pattern` to a text schema. */
export function checkedText<T extends z.ZodType<string>>(schema: T, path: string, options: TextOptions): T {
  let checked: z.ZodType<string> = schema;
  if (options.length !== undefined) {
    const length = options.length;
    checked = checked.refine((value) => characterCount(value) <= length, { error: `${path} must be at most ${length} characters` });
  }
  if (options.pattern !== undefined) {
    const pattern = patternRegExp(options.pattern);
    checked = checked.refine((value) => pattern.test(value), { error: `${path} does not match the required pattern` });
  }
  return checked as T;
}

/** Adds `min` and `max` (compared as the schema's output: numbers, or ISO strings, which compare in time order). */
export function ranged<T extends z.ZodType<number | string>>(schema: T, path: string, options: RangeOptions<number | string>): T {
  let checked: z.ZodType<number | string> = schema;
  const { min, max } = options;
  if (min !== undefined) checked = checked.refine((value) => value >= min, { error: `${path} must be at least ${min}` });
  if (max !== undefined) checked = checked.refine((value) => value <= max, { error: `${path} must be at most ${max}` });
  return checked as T;
}

// The forms of email, phone and URL values, checked alike by the web app: declared with the API's shapes.
export { EMAIL, MAX_EMAIL_LENGTH, PHONE, isHttpUrl } from './shapes/values.ts';

/** How many decimals a JSON number is written with (`1.25` → 2, `1e-7` → 7). */
/**
 * The most units of 10^-scale a decimal holds: 15 digits in all. A JSON number of 15 significant
 * digits reads back exactly as written; one of 16 or 17 may not (9007199254740.991 parses as
 * 9007199254740.99), and the service would store another value than the one sent.
 */
export const MAX_DECIMAL_UNITS = 999_999_999_999_999;

/**
 * A decimal's value in units of 10^-scale, from the digits the number is written with (its
 * shortest form), not by multiplying: 9007199254740.991 × 1000 in floating point is
 * 9007199254740990.2, while its digits say 9007199254740991. Digits past `scale` round half away
 * from zero (a computed value; an input has at most `scale`).
 */
export function decimalUnits(value: number, scale: number): number {
  const [mantissa, exponent] = String(value).split('e') as [string, string | undefined];
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = (negative ? mantissa.slice(1) : mantissa).split('.') as [string, string | undefined];
  const digits = whole + fraction;
  // Where the point falls in `digits` once moved `scale` (and the exponent) places to the right.
  const point = whole.length + scale + Number(exponent ?? 0);
  const kept = point <= 0 ? '0' : digits.length >= point ? digits.slice(0, point) : digits + '0'.repeat(point - digits.length);
  const dropped = point <= 0 ? `${'0'.repeat(-point)}${digits}` : digits.slice(point);
  const units = Number(kept) + (dropped !== '' && dropped[0]! >= '5' ? 1 : 0);
  return negative && units !== 0 ? -units : units;
}

export function decimalPlaces(value: number): number {
  if (Number.isInteger(value)) return 0;
  const [digits, exponent] = String(value).split('e');
  const fraction = digits!.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/** ISO 8601 with an offset: date, `T`, hours and minutes, optional seconds and fraction, `Z` or `±hh:mm`. */
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A datetime as the service keeps it, or undefined when the text is not one: the instant in UTC,
 * `YYYY-MM-DDTHH:MM:SS.sssZ` (so that stored values sort in time order), years 0001 to 9999.
 */
export function utcInstant(value: string): string | undefined {
  const match = DATETIME.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '00', fraction = '', offset] = match;
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const local = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}.${(fraction + '000').slice(0, 3)}Z`);
  if (Number.isNaN(local.getTime()) || local.toISOString().slice(0, 10) !== `${year}-${month}-${day}`) return undefined;
  // An offset is at most 23:59 either way (RFC 3339; real ones stop at 14:00).
  if (offset !== 'Z' && (Number(offset!.slice(1, 3)) > 23 || Number(offset!.slice(4, 6)) > 59)) return undefined;
  const shift = offset === 'Z' ? 0 : (offset!.startsWith('-') ? -1 : 1) * (Number(offset!.slice(1, 3)) * 60 + Number(offset!.slice(4, 6)));
  const utc = new Date(local.getTime() - shift * 60_000);
  if (Number.isNaN(utc.getTime())) return undefined;
  const year4 = utc.getUTCFullYear();
  if (year4 < 1 || year4 > 9999) return undefined;
  return utc.toISOString();
}

/** A count of lines in words: `1 line`, `2 lines`. */
export function lineCount(count: number): string {
  return count === 1 ? '1 line' : `${count} lines`;
}

/** How many lines a list takes; `ids`: each line may carry the `id` of a line it keeps (an update's list). */
export interface LinesOptions {
  readonly min: number;
  readonly max: number;
  readonly ids?: boolean;
}

/**
 * One line of a line list `path` (`order.items`): its fields (their schemas built with the path
 * `order.items[].<field>`, which `kinds.lines` completes with the line's index), and with `ids`
 * the `id` of a line it keeps.
 */
export function lineObject<S extends z.ZodRawShape>(path: string, fields: S, ids = false) {
  const at = `${path}[]`;
  const id = ids ? { id: idOf(`${at}.id`).optional() } : {};
  return z.strictObject(
    { ...id, ...fields },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field ${at}.${(issue as { keys?: readonly string[] }).keys?.[0] ?? ''}` : `${at} must be an object`) },
  );
}
