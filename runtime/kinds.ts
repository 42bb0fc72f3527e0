/**
 * zod builders for field kinds (SPEC 2.2) and for the list/search input (SPEC 4.5).
 * Generated schemas call these with the field's path (`lead.title`) so that every
 * refusal carries the SPEC error text without the runtime translating zod issues.
 */
import { z } from 'zod';
import { FILTER_OPERATORS, type FilterOperator } from './api-shapes.ts';
import { withArticle } from './words.ts';

// Declared with the API's shapes, which the web app imports too; re-exported for the runtime's importers.
export { FILTER_OPERATORS, type FilterOperator };

export const LIMITS = {
  filterConditions: 50,
  orderKeys: 5,
  minLimit: 1,
  maxLimit: 5000,
  inValues: 1000,
} as const;

/** Picks the message for a missing value (`undefined` or `null`) or a wrong one. */
function message(path: string, wrong: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined || issue.input === null ? `${path} is required` : `${path} ${wrong}`);
}

const SAFE = { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };

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
function textOf(path: string, maxLength: number) {
  return storableText(z.string({ error: message(path, 'must be a string') }).min(1, { error: `${path} is required` }), path, maxLength);
}

/** An id a caller sends: a non-empty string that fits the columns ids are stored in. */
function idOf(name: string, wrong = 'must be a string') {
  return storableText(z.string({ error: message(name, wrong) }).min(1, { error: `${name} is required` }), name, MAX_ID_LENGTH);
}

const NOT_A_DATE = 'must be a real calendar date YYYY-MM-DD';
const NOT_A_DATETIME = 'must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z';

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
function checkedText<T extends z.ZodType<string>>(schema: T, path: string, options: TextOptions): T {
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
function ranged<T extends z.ZodType<number | string>>(schema: T, path: string, options: RangeOptions<number | string>): T {
  let checked: z.ZodType<number | string> = schema;
  const { min, max } = options;
  if (min !== undefined) checked = checked.refine((value) => value >= min, { error: `${path} must be at least ${min}` });
  if (max !== undefined) checked = checked.refine((value) => value <= max, { error: `${path} must be at most ${max}` });
  return checked as T;
}

/** An email address: something@somewhere.tld, no spaces, at most 254 characters (what mail systems take). */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/u;
const MAX_EMAIL_LENGTH = 254;

/** A phone number as people write it: digits, spaces and `+-()`, with 6 to 20 digits. */
const PHONE = /^[0-9 +\-()]+$/;

function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** How many decimals a JSON number is written with (`1.25` → 2, `1e-7` → 7). */
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
  const shift = offset === 'Z' ? 0 : (offset!.startsWith('-') ? -1 : 1) * (Number(offset!.slice(1, 3)) * 60 + Number(offset!.slice(4, 6)));
  const utc = new Date(local.getTime() - shift * 60_000);
  if (Number.isNaN(utc.getTime())) return undefined;
  const year4 = utc.getUTCFullYear();
  if (year4 < 1 || year4 > 9999) return undefined;
  return utc.toISOString();
}

/** A count of lines in words: `1 line`, `2 lines`. */
function lineCount(count: number): string {
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

export const kinds = {
  text: (path: string, options: TextOptions = {}) => checkedText(textOf(path, options.maxLength ?? TEXT_LIMITS.text), path, options),
  longtext: (path: string, options: TextOptions = {}) => checkedText(textOf(path, options.maxLength ?? TEXT_LIMITS.longtext), path, options),
  email: (path: string, options: TextOptions = {}) =>
    checkedText(textOf(path, options.maxLength ?? MAX_EMAIL_LENGTH).refine((value) => EMAIL.test(value) && value.length <= MAX_EMAIL_LENGTH, { error: `${path} must be an email address` }), path, options),
  url: (path: string, options: TextOptions = {}) => checkedText(textOf(path, options.maxLength ?? TEXT_LIMITS.text).refine(isHttpUrl, { error: `${path} must be a URL` }), path, options),
  phone: (path: string, options: TextOptions = {}) =>
    checkedText(
      textOf(path, options.maxLength ?? TEXT_LIMITS.text).refine(
        (value) => {
          const digits = value.replace(/[^0-9]/g, '').length;
          return PHONE.test(value) && digits >= 6 && digits <= 20;
        },
        { error: `${path} must be a phone number` },
      ),
      path,
      options,
    ),
  number: (path: string, options: RangeOptions<number> = {}) =>
    ranged(
      z.int({ error: message(path, 'must be an integer') }).min(SAFE.min, { error: `${path} must be a safe integer` }).max(SAFE.max, { error: `${path} must be a safe integer` }),
      path,
      options,
    ),
  money: (path: string, options: RangeOptions<number> = {}) =>
    ranged(
      z
        .int({ error: message(path, 'must be an integer amount in minor units (12.34 is 1234)') })
        .min(SAFE.min, { error: `${path} must be a safe integer` })
        .max(SAFE.max, { error: `${path} must be a safe integer` }),
      path,
      options,
    ),
  /** Exact: at most `scale` decimals, and the value × 10^scale a safe integer (how it is stored). */
  decimal: (path: string, options: DecimalOptions) =>
    ranged(
      z
        .number({ error: message(path, 'must be a number') })
        .refine((value) => Number.isFinite(value), { error: `${path} must be a number` })
        .refine((value) => decimalPlaces(value) <= options.scale, { error: `${path} has at most ${options.scale} decimal places` })
        .refine((value) => Number.isSafeInteger(Math.round(value * 10 ** options.scale)), { error: `${path} is too large` }),
      path,
      options,
    ),
  // Years 0001 to 9999: the format allows 0000, which PostgreSQL's date does not hold (there is no year 0).
  date: (path: string, options: RangeOptions<string> = {}) =>
    ranged(z.iso.date({ error: message(path, NOT_A_DATE) }).refine((value) => !value.startsWith('0000'), { error: `${path} ${NOT_A_DATE}` }), path, options),
  /** In: ISO 8601 with an offset; out: the UTC instant with milliseconds (`utcInstant`). */
  datetime: (path: string, options: RangeOptions<string> = {}) =>
    ranged(
      z
        .string({ error: message(path, NOT_A_DATETIME) })
        .transform((value, ctx) => {
          const instant = utcInstant(value);
          if (instant === undefined) ctx.addIssue({ code: 'custom', message: `${path} ${NOT_A_DATETIME}`, input: value });
          return instant ?? value;
        }),
      path,
      { ...(options.min !== undefined ? { min: utcInstant(options.min) ?? options.min } : {}), ...(options.max !== undefined ? { max: utcInstant(options.max) ?? options.max } : {}) },
    ),
  bool: (path: string) => z.boolean({ error: message(path, 'must be true or false') }),
  select: <const O extends readonly [string, ...string[]]>(path: string, options: O) =>
    z.enum(options, { error: message(path, `must be one of: ${options.join(', ')}`) }),
  /** Distinct options; out in the options' declared order; `[]` is empty (null). */
  multiselect: <const O extends readonly [string, ...string[]]>(path: string, options: O) =>
    z
      .array(z.enum(options, { error: `${path} must list options of: ${options.join(', ')}` }), { error: message(path, `must be a list of options of: ${options.join(', ')}`) })
      .superRefine((values, ctx) => {
        const twice = values.find((value, i) => values.indexOf(value) !== i);
        if (twice !== undefined) ctx.addIssue({ code: 'custom', message: `${path} lists ${twice} twice`, input: values });
      })
      .transform((values) => (values.length === 0 ? null : options.filter((option) => values.includes(option)))),
  ref: (path: string, target: string) => idOf(path, `must be the id of ${withArticle(target)}`),
  /**
   * A line list in a create or an update: an array of lines (`lineObject`), `min` to `max` of
   * them. A line's errors name it by its index, as zod's issue path has it:
   * `order.items[2].quantity is required` (its fields' schemas say `order.items[].quantity`).
   */
  lines: <S extends z.ZodRawShape>(path: string, fields: S, options: LinesOptions) => {
    const line = lineObject(path, fields, options.ids);
    // An update's element with an id changes that line: it gives only the fields it changes.
    const change = options.ids ? line.partial() : line;
    const unindexed = `${path}[]`;
    return z
      .array(z.unknown(), { error: (issue) => (issue.input === undefined ? `${path} needs at least ${lineCount(options.min)}` : `${path} must be a list of lines`) })
      .min(options.min, { error: `${path} needs at least ${lineCount(options.min)}` })
      .max(options.max, { error: `${path} has at most ${lineCount(options.max)}` })
      .transform((items, ctx) => {
        const parsed: z.output<typeof line>[] = [];
        items.forEach((item, index) => {
          const hasId = typeof item === 'object' && item !== null && 'id' in item && (item as { id: unknown }).id !== undefined && (item as { id: unknown }).id !== null;
          const result = (hasId ? change : line).safeParse(item);
          if (result.success) parsed.push(result.data as z.output<typeof line>);
          else {
            for (const issue of result.error.issues) {
              ctx.addIssue({ code: 'custom', message: issue.message.replaceAll(unindexed, `${path}[${index}]`), path: [index, ...issue.path], input: item });
            }
          }
        });
        return parsed;
      });
  },
} as const;

/** The `id` of the record a command works on. */
export const recordId = idOf('id');

/** The id of a plan in a path (`/api/plans/<plan id>`). */
export const planId = idOf('plan id');

/** `unrecognized_keys` → `unknown field <model>.<key>`; used as the error of every generated record input object. */
export function unknownFieldError(model: string) {
  return (issue: { code?: string; keys?: readonly string[] }) =>
    issue.code === 'unrecognized_keys' ? `unknown field ${model}.${issue.keys?.[0] ?? ''}` : `input must be a JSON object`;
}

const filterCondition = z.strictObject(
  {
    field: z.string({ error: 'filter field must be a string' }),
    op: z.enum(FILTER_OPERATORS, { error: (issue) => `unknown operator ${String((issue as { input?: unknown }).input)}` }),
    value: z.unknown().optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys[0]} in filter condition` : 'filter condition must be an object') },
);

const orderKey = z.strictObject(
  {
    field: z.string({ error: 'order field must be a string' }),
    dir: z.enum(['asc', 'desc'], { error: 'order dir must be asc or desc' }).optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys[0]} in order key` : 'order key must be an object') },
);

const LIMIT_ERROR = `limit must be an integer from ${LIMITS.minLimit} to ${LIMITS.maxLimit}`;
const pageLimit = z.int({ error: LIMIT_ERROR }).min(LIMITS.minLimit, { error: LIMIT_ERROR }).max(LIMITS.maxLimit, { error: LIMIT_ERROR }).optional();
const pageOffset = z.int({ error: 'offset must be an integer of 0 or more' }).min(0, { error: 'offset must be an integer of 0 or more' }).optional();

/**
 * Input of `list` and `search`. Field names and values are checked by the runtime against the
 * caller's readable fields; this checks the structure and the limits.
 */
export const listInput = z.strictObject(
  {
    filter: z
      .array(filterCondition, { error: 'filter must be an array' })
      .max(LIMITS.filterConditions, { error: `filter may have at most ${LIMITS.filterConditions} conditions` })
      .optional(),
    order: z
      .array(orderKey, { error: 'order must be an array' })
      .max(LIMITS.orderKeys, { error: `order may have at most ${LIMITS.orderKeys} keys` })
      .optional(),
    limit: pageLimit,
    offset: pageOffset,
    /** Keyset paging (an extension): `""` for the first page, then the `next` of the page before. */
    after: z.string({ error: 'after must be a string' }).max(4096, { error: 'after must be "" or the next of the page before' }).optional(),
    /**
     * An extension for agents: conditions on fields masked for them (`eq` or `in`) whose values
     * are masking tokens they were given; combined with `filter` by AND. See list-query.ts.
     */
    token_filter: z
      .array(filterCondition, { error: 'token_filter must be an array' })
      .max(LIMITS.filterConditions, { error: `token_filter may have at most ${LIMITS.filterConditions} conditions` })
      .optional(),
    /** Line lists to answer with each record (`get` answers them all; `list` and `search` only these). */
    include: z.array(z.string({ error: 'include must be an array of line list names' }), { error: 'include must be an array of line list names' }).max(20, { error: 'include must be an array of line list names' }).optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys[0]}` : 'input must be a JSON object') },
);
export type ListInput = z.infer<typeof listInput>;

/** Input of `<model>.history`: the record's id (one that was deleted too) and a page of its entries, newest first. */
export function historyInput(model: string) {
  return z.strictObject({ id: recordId, limit: pageLimit, offset: pageOffset }, { error: unknownFieldError(model) });
}

/** Input of `<model>.revert`: the record and the change (a `change_id` of its history) whose fields to put back. */
export function revertInput(model: string) {
  return z.strictObject(
    { id: recordId, change_id: idOf('change_id') },
    { error: unknownFieldError(model) },
  );
}
