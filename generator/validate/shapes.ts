/**
 * Shape checks. The loader runs TypeScript without type checking, so any shape may arrive; these
 * zod schemas say what each part of a definition must look like, and `parseShape` turns zod's
 * issues into problems (`"required" must be true or false (got "yes")`, `unknown key "colour"`).
 * Every leaf carries a "must be …" message; the key path is added in front of it.
 */
import { z } from 'zod';
import type { FieldKind } from '../define.ts';
import type { ProblemReport } from '../problems.ts';
import { choiceHint, describeValue } from './hints.ts';
import type { Report } from './problem-list.ts';

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

export const modelShape = z.strictObject({
  label: nonEmpty.optional(),
  description: str.optional(),
  title: str.optional(),
  fields: record,
  actions: record.optional(),
  indexes: z.array(z.array(str, { error: 'must be a list of field names' }), { error: 'must be a list of field lists, e.g. [["stage", "expected_revenue"]]' }).optional(),
  list: strList.optional(),
});

// `kind` is checked before the shape (with its own message), so its literal here never fails; it
// is in the shape so that the parsed field is tagged by kind.
const fieldBase = {
  kind: str,
  label: nonEmpty.optional(),
  description: str.optional(),
  required: bool.optional(),
  personal: bool.optional(),
  read: strList.optional(),
  agents: z.enum(['visible', 'hidden'], { error: "must be 'visible' or 'hidden'" }).optional(),
  index: bool.optional(),
  unique: bool.optional(),
};

function plainFieldShape<K extends FieldKind>(kind: K) {
  return z.strictObject({ ...fieldBase, kind: z.literal(kind) });
}

/** Shape per kind, so that a new kind must be handled here. */
export const FIELD_SHAPES = {
  text: z.strictObject({ ...fieldBase, kind: z.literal('text'), search: bool.optional() }),
  longtext: z.strictObject({ ...fieldBase, kind: z.literal('longtext'), search: bool.optional() }),
  number: plainFieldShape('number'),
  money: z.strictObject({ ...fieldBase, kind: z.literal('money'), currency: currency.optional() }),
  date: plainFieldShape('date'),
  bool: plainFieldShape('bool'),
  select: z.strictObject({ ...fieldBase, kind: z.literal('select'), options: strList, governed: bool.optional() }),
  ref: z.strictObject({ ...fieldBase, kind: z.literal('ref'), to: nonEmpty }),
} satisfies Record<FieldKind, z.ZodObject>;

export const actionShape = z.strictObject({
  description: nonEmpty,
  field: str.optional(),
  from: z.union([nonEmpty, z.array(nonEmpty).min(1)], { error: 'must be a state or a non-empty list of states' }),
  to: nonEmpty,
  required: strList.optional(),
  needs_approval: bool.optional(),
});

export type ModuleShape = z.output<typeof moduleShape>;
export type ModelShape = z.output<typeof modelShape>;
/** A field definition of the right shape, tagged by kind. */
export type FieldShape = { [K in FieldKind]: z.output<(typeof FIELD_SHAPES)[K]> }[FieldKind];
export type ActionShape = z.output<typeof actionShape>;

/** What to write when a key is missing. */
const MISSING_HINTS: Readonly<Record<string, string>> = {
  models: 'add models: { <name>: { fields: {...} } }',
  fields: "add fields: { <name>: { kind: 'text' } }",
  options: "add options: ['first', 'second']",
  to: "add to: '<target model>'",
  description: "add description: 'What the action does'",
  from: "add from: '<state>' or from: ['<state>', ...]",
};

/** The value if it has the shape; otherwise undefined, with one problem per zod issue reported. */
export function parseShape<S extends z.ZodObject>(shape: S, value: unknown, report: Report): z.output<S> | undefined {
  const result = shape.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  for (const problem of describeIssues(result.error, Object.keys(shape.shape))) report(problem);
  return undefined;
}

function describeIssues(error: z.ZodError, allowedKeys: readonly string[]): ProblemReport[] {
  const problems: ProblemReport[] = [];
  for (const issue of error.issues) {
    const at = keyPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ code: 'unknown-key', message: `unknown key "${key}"${at ? ` in ${at}` : ''}`, fix: choiceHint(key, allowedKeys, 'valid keys') });
      }
      continue;
    }
    const input = (issue as { input?: unknown }).input;
    if (issue.code === 'invalid_type' && input === undefined) {
      const last = issue.path[issue.path.length - 1];
      problems.push({ code: 'missing-key', message: `missing "${at}"`, fix: MISSING_HINTS[String(last)] });
      continue;
    }
    problems.push({ code: 'invalid-value', message: `"${at}" ${issue.message}`, detail: input === undefined ? undefined : `got ${describeValue(input)}` });
  }
  return problems;
}

function keyPath(path: readonly PropertyKey[]): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`)).join('');
}
