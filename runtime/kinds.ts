/**
 * zod builders for field kinds (SPEC 2.2) and for the list/search input (SPEC 4.5).
 * Generated schemas call these with the field's path (`lead.title`) so that every
 * refusal carries the SPEC error text without the runtime translating zod issues.
 */
import { z } from 'zod';
import { FILTER_OPERATORS, type FilterOperator } from './api-shapes.ts';
import { withArticle } from './words.ts';
import {
  EMAIL,
  LIMITS,
  MAX_EMAIL_LENGTH,
  NOT_A_DATE,
  NOT_A_DATETIME,
  PHONE,
  SAFE,
  TEXT_LIMITS,
  checkedText,
  decimalPlaces,
  decimalUnits,
  MAX_DECIMAL_UNITS,
  idOf,
  isHttpUrl,
  lineCount,
  lineObject,
  message,
  ranged,
  textOf,
  utcInstant,
  type DecimalOptions,
  type LinesOptions,
  type RangeOptions,
  type TextOptions,
} from './value-checks.ts';

// Declared with the API's shapes, which the web app imports too; re-exported for the runtime's importers.
export { FILTER_OPERATORS, type FilterOperator };
// The checks live in value-checks.ts; the runtime and the generated schemas import them from here.
export {
  LIMITS,
  MAX_ID_LENGTH,
  TEXT_LIMITS,
  characterCount,
  decimalPlaces,
  indexedTextMaxLength,
  lineObject,
  patternRegExp,
  storableText,
  textProblem,
  utcInstant,
  type DecimalOptions,
  type LinesOptions,
  type RangeOptions,
  type TextOptions,
} from './value-checks.ts';

/** A file field's options (generator: `multiple`). */
export interface FileOptions {
  readonly multiple?: boolean;
}

/** The most files one `multiple` file field holds. */
export const MAX_FILES_PER_FIELD = 100;

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
  /** Exact: at most `scale` decimals, and the value × 10^scale (how it is stored) at most 15 digits: see MAX_DECIMAL_UNITS. */
  decimal: (path: string, options: DecimalOptions) =>
    ranged(
      z
        .number({ error: message(path, 'must be a number') })
        .refine((value) => Number.isFinite(value), { error: `${path} must be a number` })
        .refine((value) => decimalPlaces(value) <= options.scale, { error: `${path} has at most ${options.scale} decimal places` })
        .refine((value) => Math.abs(decimalUnits(value, options.scale)) <= MAX_DECIMAL_UNITS, { error: `${path} is too large` }),
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
   * A file field's input: the id of an uploaded file (`POST /api/files`), or with `multiple` a list
   * of them, each once (`[]` is empty). A file as `get` answers it (`{"id", …}`) counts as its id,
   * so a record read can be written back. Whether the id names a file the caller may attach, and
   * whether that file fits the field's `accept` and `max_size`, is checked when it is attached
   * (commands/attach-files.ts): out, the ids.
   */
  file: (path: string, options: FileOptions = {}) => {
    const wrong = options.multiple ? 'must be a list of file ids' : 'must be the id of an uploaded file';
    // An empty id names no file: the field is not missing, its value is wrong (and inside a list, so is null).
    const id = (error: string | ReturnType<typeof message>) =>
      z
        .union([z.string(), z.looseObject({ id: z.string() })], { error })
        .transform((value) => (typeof value === 'string' ? value : value.id))
        .refine((value) => value !== '', { error: `${path} ${wrong}` })
        .pipe(idOf(path, wrong));
    if (!options.multiple) return id(message(path, wrong));
    return z
      .array(id(`${path} ${wrong}`), { error: message(path, wrong) })
      .max(MAX_FILES_PER_FIELD, { error: `${path} holds at most ${MAX_FILES_PER_FIELD} files` })
      .superRefine((ids, ctx) => {
        const twice = ids.find((id, i) => ids.indexOf(id) !== i);
        if (twice !== undefined) ctx.addIssue({ code: 'custom', message: `${path} lists file ${twice} twice`, input: ids });
      })
      .transform((ids) => (ids.length === 0 ? null : ids));
  },
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
    op: z.enum(FILTER_OPERATORS, {
      error: (issue) => {
        const given = (issue as { input?: unknown }).input;
        return given === undefined ? `filter op is missing: one of ${FILTER_OPERATORS.join(', ')}` : `unknown operator ${String(given)}`;
      },
    }),
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

/** The most records one bulk command takes: `create_many`'s records, and those `update_many`, `delete_many` change. */
export const BULK_LIMITS = { createMany: 1_000, changeMany: 10_000, agentMaxAffected: 100 } as const;

/** The most records one bulk command of an agent may change or create: its token's own cap, else the default. */
export function agentMaxAffected(own: number | null | undefined): number {
  return own ?? BULK_LIMITS.agentMaxAffected;
}

const dryRun = z.boolean({ error: 'dry_run must be true or false' }).optional();

/** Input of `<model>.create_many`: the records, each checked by the runtime as `<model>.create` checks its input. */
export function createManyInput(model: string) {
  const error = `records must be an array of 1 to ${BULK_LIMITS.createMany} records`;
  return z.strictObject(
    { records: z.array(z.unknown(), { error }).min(1, { error }).max(BULK_LIMITS.createMany, { error }), dry_run: dryRun },
    { error: unknownFieldError(model) },
  );
}

/** The selection of `update_many` and `delete_many`: a filter (as `list` takes it), record ids, or both; how many it may change. */
function selection() {
  const idsError = `ids must be an array of 1 to ${BULK_LIMITS.changeMany} record ids`;
  const maxError = `max_affected must be an integer from 1 to ${BULK_LIMITS.changeMany}`;
  return {
    filter: z
      .array(filterCondition, { error: 'filter must be an array' })
      .max(LIMITS.filterConditions, { error: `filter may have at most ${LIMITS.filterConditions} conditions` })
      .optional(),
    ids: z.array(recordId, { error: idsError }).min(1, { error: idsError }).max(BULK_LIMITS.changeMany, { error: idsError }).optional(),
    max_affected: z
      .int({ error: (issue) => (issue.input === undefined ? 'max_affected is required' : maxError) })
      .min(1, { error: maxError })
      .max(BULK_LIMITS.changeMany, { error: maxError }),
    dry_run: dryRun,
  };
}

/** Input of `<model>.update_many`: the selection and `set`, checked by the runtime as `<model>.update` checks its fields. */
export function updateManyInput(model: string) {
  return z.strictObject(
    { ...selection(), set: z.record(z.string(), z.unknown(), { error: 'set must be an object of field values' }) },
    { error: unknownFieldError(model) },
  );
}

/** Input of `<model>.revert_batch`: the `batch_id` of an `update_many` (from its answer or its records' history). */
export function revertBatchInput(model: string) {
  return z.strictObject({ batch_id: idOf('batch_id'), dry_run: dryRun }, { error: unknownFieldError(model) });
}

/**
 * Input of `<model>.<action>_many`: the selection, and the action's inputs (`input`, the same for
 * every record), checked by the runtime as `<model>.<action>` checks them.
 */
export function actionManyInput(model: string) {
  return z.strictObject(
    { ...selection(), input: z.record(z.string(), z.unknown(), { error: 'input must be an object of the action\'s inputs' }).optional() },
    { error: unknownFieldError(model) },
  );
}

/** Input of `<model>.delete_many`: the selection. */
export function deleteManyInput(model: string) {
  return z.strictObject(selection(), { error: unknownFieldError(model) });
}
