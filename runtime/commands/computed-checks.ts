/**
 * What a write's computed values must be before they are stored (documents.ts computes them): a
 * value its field holds exactly, and one its field would take from a caller. A computed function
 * is typed by its kind's JavaScript type only, so either can fail where the module is wrong.
 */
import type { z } from 'zod';
import { HttpError, badRequest } from '../errors.ts';
import type { FieldMeta } from '../registry.ts';
import { decimalUnits, MAX_DECIMAL_UNITS } from '../value-checks.ts';
import { valueSchema } from '../value-schemas.ts';
import type { CompiledModel } from './types.ts';

/** A record and its lines, each list under its name. */
interface Values {
  readonly record: Readonly<Record<string, unknown>>;
  readonly lines: Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>;
}

/**
 * 400 for a computed value its field cannot hold: not a finite number (NaN, an infinity: a
 * function's division by zero), or past what it holds exactly — money and numbers are safe
 * integers, a decimal at most 15 digits (MAX_DECIMAL_UNITS), as every value written is (kinds.ts):
 * a sum of large amounts would otherwise be stored rounded, or as a float the API then refuses to
 * filter by — or not a value its field takes (`computedValueProblem`). `given` is what the
 * functions gave, `computed` the same as stored (documents.ts, `normalised`); each of its computed
 * values becomes what the field's schema makes of it, as a written value does: a multiselect in
 * its options' order (none: empty), a datetime as its UTC instant.
 */
export function refuseUnstorableComputed(model: CompiledModel, given: Values, computed: { readonly record: Record<string, unknown>; readonly lines: Readonly<Record<string, readonly Record<string, unknown>[]>> }): void {
  const name = model.meta.name;
  const check = (field: FieldMeta, path: string, givenValue: unknown, values: Record<string, unknown>, named: readonly string[] | undefined) => {
    if (!field.computed) return;
    const refuse = (message: string) => new HttpError(400, message, named ? { fields: named } : undefined);
    if (typeof givenValue === 'number' && !Number.isFinite(givenValue)) throw refuse(`${path} is not a finite number (the value its computed function gave)`);
    if (outOfRange(field, values[field.name])) throw refuse(`${path} ${TOO_LARGE}`);
    const checked = computedValueProblem(field, path, values[field.name]);
    if ('problem' in checked) throw refuse(checked.problem);
    values[field.name] = checked.value;
  };
  // Lines first, as they are computed first: a line's value past it is why a sum of them is.
  for (const list of model.lines.values()) {
    const givenLines = given.lines[list.meta.name] ?? [];
    (computed.lines[list.meta.name] ?? []).forEach((line, index) => {
      for (const field of list.meta.fields) check(field, `${name}.${list.meta.name}[${index}].${field.name}`, givenLines[index]?.[field.name], line, undefined);
    });
  }
  for (const field of model.meta.fields) check(field, `${name}.${field.name}`, given.record[field.name], computed.record, [field.name]);
}

const TOO_LARGE = 'is too large: the computed value is past what the field holds exactly';

function outOfRange(field: FieldMeta, value: unknown): boolean {
  if (typeof value !== 'number') return false;
  if (field.kind === 'decimal') return Math.abs(decimalUnits(value, field.scale ?? 0)) > MAX_DECIMAL_UNITS;
  return (field.kind === 'money' || field.kind === 'number') && !Number.isSafeInteger(Math.round(value));
}

/**
 * A computed value as its field takes it, or why it does not: a computed function is typed by
 * its kind's JavaScript type only (a string for a date), so what it gives is held to the checks a
 * written value meets — a real date, an email address, the field's options, length, pattern,
 * range — before it is stored: the field's value schema, built as the generated input schemas
 * build it (runtime/value-schemas.ts). The value itself is not said (it may be made of personal ones).
 */
function computedValueProblem(field: FieldMeta, path: string, value: unknown): { readonly value: unknown } | { readonly problem: string } {
  if (value === null || value === undefined) return { value: null };
  const schema = computedValueSchema(field);
  if (schema === undefined) return { value };
  const result = schema.safeParse(value);
  if (result.success) return { value: result.data ?? null };
  // Refused: the message names the value's place (a line's has its index), so it comes from a
  // schema built for that path now, not from the one kept per field.
  const message = fieldValueSchema(field, path)?.safeParse(value).error?.issues[0]?.message;
  return { problem: `${message ?? `${path} is not a value of its kind`} (the value its computed function gave)` };
}

/** One schema per field, kept: it checks a value wherever the field is (the path is said only on refusal). */
const computedSchemas = new WeakMap<FieldMeta, z.ZodType | undefined>();

function computedValueSchema(field: FieldMeta): z.ZodType | undefined {
  if (!computedSchemas.has(field)) computedSchemas.set(field, fieldValueSchema(field, field.name));
  return computedSchemas.get(field);
}

/**
 * The checks a written value of the field meets; none for a ref or a file (a computed function
 * does not make those), or a choice without options.
 */
function fieldValueSchema(field: FieldMeta, path: string): z.ZodType | undefined {
  if (field.kind === 'ref' || field.kind === 'file') return undefined;
  if ((field.kind === 'select' || field.kind === 'multiselect') && !field.options) return undefined;
  const { length, pattern, min, max, scale, options } = field;
  return valueSchema(path, field.kind, { length, pattern, min, max, scale: scale ?? 0, options });
}
