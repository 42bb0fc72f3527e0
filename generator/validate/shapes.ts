/**
 * Shape checks. The loader runs TypeScript without type checking, so any shape may arrive; these
 * zod schemas say what each part of a definition must look like, and `parseShape` turns zod's
 * issues into problems (`"required" must be true or false (got "yes")`, `unknown key "colour"`).
 * Every leaf carries a "must be …" message; the key path is added in front of it.
 */
import { z } from 'zod';
import type { FieldKind } from '../define.ts';
import { choiceHint, describeValue } from './hints.ts';
import type { LocatedReport, Report } from './problem-list.ts';

const str = z.string({ error: 'must be a string' });
const nonEmpty = str.min(1, { error: 'must not be empty' });
const bool = z.boolean({ error: 'must be true or false' });
const strList = z.array(str, { error: 'must be a list of strings' });
const record = z.record(z.string(), z.unknown(), { error: 'must be an object' });

/** ISO 4217: three capital letters. */
const currency = str.regex(/^[A-Z]{3}$/, { error: 'must be an ISO 4217 currency code of three capital letters, e.g. "EUR"' });

export const moduleShape = z.strictObject({
  label: nonEmpty.optional(),
  description: str.optional(),
  dependsOn: strList.optional(),
  currency: currency.optional(),
  models: record,
  roles: z.record(z.string(), record, { error: 'must be an object of roles, each { <model>: "*" | [commands] }' }).optional(),
});

/** A function of the module file (a computed field's, a rule's check). */
const fn = z.custom<(record: never) => unknown>((value) => typeof value === 'function', { error: 'must be a function' });

/** Field names a model part lists (a rule's, a unique index's): at least one. */
const fieldList = z.array(str, { error: 'must be a list of field names' }).min(1, { error: 'must name at least one field' });

const ruleShape = z.strictObject({ fields: fieldList, message: nonEmpty, check: fn });

const uniqueShape = z.union(
  [
    fieldList,
    z.strictObject({
      fields: fieldList,
      where: z.record(z.string(), z.union([str, z.number(), bool]), { error: 'must be an object of field: value' }).optional(),
    }),
  ],
  { error: 'must be a list of field names, or { fields, where }' },
);

export const modelShape = z.strictObject({
  label: nonEmpty.optional(),
  description: str.optional(),
  title: str.optional(),
  fields: record,
  lines: record.optional(),
  actions: record.optional(),
  indexes: z.array(z.array(str, { error: 'must be a list of field names' }), { error: 'must be a list of field lists, e.g. [["stage", "expected_revenue"]]' }).optional(),
  unique: z.array(uniqueShape, { error: "must be a list of unique indexes, e.g. [['customer', 'number']]" }).optional(),
  locked_in: z
    .union([strList, z.strictObject({ field: nonEmpty, states: strList })], { error: "must be a list of states, or { field, states }" })
    .optional(),
  rules: z.array(ruleShape, { error: 'must be a list of rules, each { fields, message, check }' }).optional(),
  list: strList.optional(),
});

const count = z.int({ error: 'must be a whole number of 0 or more' }).min(0, { error: 'must be a whole number of 0 or more' });

export const lineListShape = z.strictObject({
  label: nonEmpty.optional(),
  description: str.optional(),
  min: count.optional(),
  max: z.int({ error: 'must be a whole number of 1 or more' }).min(1, { error: 'must be a whole number of 1 or more' }).optional(),
  fields: record,
});

// `kind` is checked before the shape (with its own message), so its literal here never fails; it
// is in the shape so that the parsed field is tagged by kind. `default` is checked against the
// field's kind and checks by the reader (with the runtime's own builders), so any value passes here.
const fieldBase = {
  kind: str,
  label: nonEmpty.optional(),
  description: str.optional(),
  required: bool.optional(),
  personal: bool.optional(),
  read: strList.optional(),
  write: strList.optional(),
  agents: z.enum(['visible', 'hidden'], { error: "must be 'visible' or 'hidden'" }).optional(),
  index: bool.optional(),
  unique: bool.optional(),
  default: z.unknown().optional(),
  computed: fn.optional(),
};

const length = z.int({ error: 'must be a whole number of 1 or more' }).min(1, { error: 'must be a whole number of 1 or more' });
const textChecks = { length: length.optional(), pattern: str.optional() };
const integer = z.int({ error: 'must be an integer' });
const finite = z.number({ error: 'must be a number' }).refine(Number.isFinite, { error: 'must be a number' });
const scale = z.int({ error: 'must be a whole number from 0 to 6' }).min(0, { error: 'must be a whole number from 0 to 6' }).max(6, { error: 'must be a whole number from 0 to 6' });

/** Shape per kind, so that a new kind must be handled here. */
export const FIELD_SHAPES = {
  text: z.strictObject({ ...fieldBase, kind: z.literal('text'), search: bool.optional(), ...textChecks }),
  longtext: z.strictObject({ ...fieldBase, kind: z.literal('longtext'), search: bool.optional(), ...textChecks }),
  number: z.strictObject({ ...fieldBase, kind: z.literal('number'), min: integer.optional(), max: integer.optional() }),
  money: z.strictObject({ ...fieldBase, kind: z.literal('money'), currency: currency.optional(), min: integer.optional(), max: integer.optional() }),
  date: z.strictObject({ ...fieldBase, kind: z.literal('date'), min: str.optional(), max: str.optional() }),
  bool: z.strictObject({ ...fieldBase, kind: z.literal('bool') }),
  select: z.strictObject({ ...fieldBase, kind: z.literal('select'), options: strList, governed: bool.optional() }),
  ref: z.strictObject({ ...fieldBase, kind: z.literal('ref'), to: nonEmpty }),
  decimal: z.strictObject({ ...fieldBase, kind: z.literal('decimal'), scale: scale.optional(), min: finite.optional(), max: finite.optional() }),
  datetime: z.strictObject({ ...fieldBase, kind: z.literal('datetime'), min: str.optional(), max: str.optional() }),
  email: z.strictObject({ ...fieldBase, kind: z.literal('email'), ...textChecks }),
  url: z.strictObject({ ...fieldBase, kind: z.literal('url'), ...textChecks }),
  phone: z.strictObject({ ...fieldBase, kind: z.literal('phone'), ...textChecks }),
  multiselect: z.strictObject({ ...fieldBase, kind: z.literal('multiselect'), options: strList }),
  file: z.strictObject({ ...fieldBase, kind: z.literal('file'), multiple: bool.optional(), accept: strList.optional(), max_size: str.optional() }),
} satisfies Record<FieldKind, z.ZodObject>;

/** What a field says that an action's input does not: where it is stored, who sees it, how it is worked out. */
const NOT_FOR_ACTION_INPUTS: readonly string[] = ['read', 'write', 'agents', 'index', 'unique', 'default', 'computed', 'governed', 'search', 'currency'];

function inputShape<S extends z.ZodObject>(shape: S): S {
  const kept = Object.fromEntries(Object.entries(shape.shape).filter(([key]) => !NOT_FOR_ACTION_INPUTS.includes(key)));
  return z.strictObject(kept) as unknown as S;
}

/**
 * An action's input per kind: a field's shape without what only a stored field has. Typed as the
 * field's shape (the keys it lacks are optional there), so that an input reads as a field.
 */
export const INPUT_SHAPES: typeof FIELD_SHAPES = Object.fromEntries(
  Object.entries(FIELD_SHAPES).map(([kind, shape]) => [kind, inputShape(shape)]),
) as unknown as typeof FIELD_SHAPES;

export const actionShape = z.strictObject({
  description: nonEmpty.optional(),
  field: str.optional(),
  from: z.union([nonEmpty, z.array(nonEmpty).min(1)], { error: 'must be a state or a non-empty list of states' }),
  to: nonEmpty,
  required: strList.optional(),
  input: record.optional(),
  set: record.optional(),
  needs_approval: bool.optional(),
});

export type ModuleShape = z.output<typeof moduleShape>;
export type ModelShape = z.output<typeof modelShape>;
export type LineListShape = z.output<typeof lineListShape>;
export type RuleShape = z.output<typeof ruleShape>;
export type UniqueShape = z.output<typeof uniqueShape>;
/** A field definition of the right shape, tagged by kind. */
export type FieldShape = { [K in FieldKind]: z.output<(typeof FIELD_SHAPES)[K]> }[FieldKind];
export type ActionShape = z.output<typeof actionShape>;

/** What to write when a key is missing: by the key, or by the list it is in and the key (`rules.fields`). */
const MISSING_HINTS: Readonly<Record<string, string>> = {
  models: 'add models: { <name>: { fields: {...} } }',
  fields: "add fields: { <name>: { kind: 'text' } }",
  options: "add options: ['first', 'second']",
  to: "add to: '<target model>'",
  description: "add description: 'What the action does'",
  from: "add from: '<state>' or from: ['<state>', ...]",
  'rules.fields': "add fields: ['<field>', ...], the fields the rule is about",
  'rules.message': "add message: '<what is wrong>', said after '<model>: '",
  'rules.check': 'add check: (record) => <true when the record may be written>',
  'unique.fields': "add fields: ['<field>', ...]",
  'locked_in.states': "add states: ['<state>', ...]",
  'locked_in.field': "add field: '<governed select>'",
};

/** The line of the part of a definition at a key path (relative to what is parsed), where known. */
export type Locate = (path: readonly PropertyKey[]) => number | undefined;

/**
 * The value if it has the shape; otherwise undefined, with one problem per zod issue reported
 * (at its line when `locate` knows it).
 */
export function parseShape<S extends z.ZodObject>(
  shape: S,
  value: unknown,
  report: Report,
  options: { readonly locate?: Locate; readonly hints?: Readonly<Record<string, string>> } = {},
): z.output<S> | undefined {
  const result = shape.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  for (const problem of describeIssues(result.error, Object.keys(shape.shape), options.hints ?? MISSING_HINTS, options.locate)) report(problem);
  return undefined;
}

/** What to write when a key of an action is missing (its `to` is a state, not a ref's target). */
export const ACTION_HINTS: Readonly<Record<string, string>> = { ...MISSING_HINTS, to: "add to: '<state>'" };

function describeIssues(error: z.ZodError, allowedKeys: readonly string[], hints: Readonly<Record<string, string>>, locate: Locate | undefined): LocatedReport[] {
  const problems: LocatedReport[] = [];
  for (const issue of error.issues) {
    const at = keyPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ code: 'unknown-key', message: `unknown key "${key}"${at ? ` in ${at}` : ''}`, fix: choiceHint(key, allowedKeys, 'valid keys'), line: locate?.([...issue.path, key]) });
      }
      continue;
    }
    const input = (issue as { input?: unknown }).input;
    // A key with no value where one is needed is missing, whatever check it failed (a type, a function, one of several forms).
    if ((issue.code === 'invalid_type' || issue.code === 'custom' || issue.code === 'invalid_union') && input === undefined) {
      const names = issue.path.filter((part) => typeof part === 'string').map(String);
      const hint = hints[names.slice(-2).join('.')] ?? hints[names.at(-1) ?? ''];
      problems.push({ code: 'missing-key', message: `missing "${at}"`, fix: hint, line: locate?.(issue.path) });
      continue;
    }
    problems.push({ code: 'invalid-value', message: `"${at}" ${issue.message}`, detail: input === undefined ? undefined : `got ${describeValue(input)}`, line: locate?.(issue.path) });
  }
  return problems;
}

function keyPath(path: readonly PropertyKey[]): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`)).join('');
}
