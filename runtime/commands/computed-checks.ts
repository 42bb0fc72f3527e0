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

/**
 * 400 for a computed value its field cannot hold exactly: money and numbers are safe integers, a
 * decimal at most 15 digits (MAX_DECIMAL_UNITS), as every value written is (kinds.ts). A sum of
 * large amounts would otherwise be stored rounded, or as a float the API then refuses to filter by.
 */
export function refuseUnstorableComputed(model: CompiledModel, computed: { readonly record: Readonly<Record<string, unknown>>; readonly lines: Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>> }): void {
  const outOfRange = (field: FieldMeta, value: unknown) => {
    if (!field.computed || typeof value !== 'number') return false;
    if (field.kind === 'decimal') return Math.abs(decimalUnits(value, field.scale ?? 0)) > MAX_DECIMAL_UNITS;
    return (field.kind === 'money' || field.kind === 'number') && !Number.isSafeInteger(Math.round(value));
  };
  const TOO_LARGE = 'is too large: the computed value is past what the field holds exactly';
  const name = model.meta.name;
  // Lines first, as they are computed first: a line's value past it is why a sum of them is.
  for (const list of model.lines.values()) {
    (computed.lines[list.meta.name] ?? []).forEach((line, index) => {
      for (const field of list.meta.fields) {
        const path = `${name}.${list.meta.name}[${index}].${field.name}`;
        if (outOfRange(field, line[field.name])) throw badRequest(`${path} ${TOO_LARGE}`);
        const problem = computedValueProblem(field, path, line[field.name]);
        if (problem !== undefined) throw badRequest(problem);
      }
    });
  }
  for (const field of model.meta.fields) {
    if (outOfRange(field, computed.record[field.name])) throw new HttpError(400, `${name}.${field.name} ${TOO_LARGE}`, { fields: [field.name] });
    const problem = computedValueProblem(field, `${name}.${field.name}`, computed.record[field.name]);
    if (problem !== undefined) throw new HttpError(400, problem, { fields: [field.name] });
  }
}

/**
 * Why a computed value is not one its field takes, or undefined: a computed function is typed by
 * its kind's JavaScript type only (a string for a date), so what it gives is held to the checks a
 * written value meets — a real date, an email address, the field's options, length, pattern,
 * range — before it is stored: the field's value schema, built as the generated input schemas
 * build it (runtime/value-schemas.ts). The value itself is not said (it may be made of personal ones).
 */
function computedValueProblem(field: FieldMeta, path: string, value: unknown): string | undefined {
  if (!field.computed || value === null || value === undefined) return undefined;
  const schema = computedValueSchema(field);
  if (schema === undefined || schema.safeParse(value).success) return undefined;
  // Refused: the message names the value's place (a line's has its index), so it comes from a
  // schema built for that path now, not from the one kept per field.
  const message = fieldValueSchema(field, path)?.safeParse(value).error?.issues[0]?.message;
  return `${message ?? `${path} is not a value of its kind`} (the value its computed function gave)`;
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
