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
 * A non-empty string of well-formed Unicode. JSON may carry a lone surrogate (`"\ud800"`), which
 * UTF-8 storage cannot hold: it would come back altered, so it is refused instead.
 */
function textOf(path: string) {
  return z
    .string({ error: message(path, 'must be a string') })
    .min(1, { error: `${path} is required` })
    .refine((value) => value.isWellFormed(), { error: `${path} must be valid Unicode text` });
}

export const kinds = {
  text: textOf,
  longtext: textOf,
  number: (path: string) =>
    z.int({ error: message(path, 'must be an integer') }).min(SAFE.min, { error: `${path} must be a safe integer` }).max(SAFE.max, { error: `${path} must be a safe integer` }),
  money: (path: string) =>
    z
      .int({ error: message(path, 'must be an integer amount in minor units (12.34 is 1234)') })
      .min(SAFE.min, { error: `${path} must be a safe integer` })
      .max(SAFE.max, { error: `${path} must be a safe integer` }),
  date: (path: string) => z.iso.date({ error: message(path, 'must be a real calendar date YYYY-MM-DD') }),
  bool: (path: string) => z.boolean({ error: message(path, 'must be true or false') }),
  select: <const O extends readonly [string, ...string[]]>(path: string, options: O) =>
    z.enum(options, { error: message(path, `must be one of: ${options.join(', ')}`) }),
  ref: (path: string, target: string) =>
    z.string({ error: message(path, `must be the id of ${withArticle(target)}`) }).min(1, { error: `${path} is required` }),
} as const;

/** The `id` of the record a command works on. */
export const recordId = z.string({ error: message('id', 'must be a string') }).min(1, { error: 'id is required' });

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
    { id: recordId, change_id: z.string({ error: message('change_id', 'must be a string') }).min(1, { error: 'change_id is required' }) },
    { error: unknownFieldError(model) },
  );
}
