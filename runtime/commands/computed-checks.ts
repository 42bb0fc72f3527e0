/**
 * What a write's computed values must be before they are stored (documents.ts computes them): a
 * value its field holds exactly, and one its field would take from a caller. A computed function
 * is typed by its kind's JavaScript type only, so either can fail where the module is wrong.
 */
import type { z } from 'zod';
import { HttpError, badRequest } from '../errors.ts';
import { kinds } from '../kinds.ts';
import type { FieldMeta } from '../registry.ts';
import { decimalUnits, MAX_DECIMAL_UNITS, type RangeOptions } from '../value-checks.ts';
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
 * range — before it is stored. The value itself is not said (it may be made of personal ones).
 */
function computedValueProblem(field: FieldMeta, path: string, value: unknown): string | undefined {
  if (!field.computed || value === null || value === undefined) return undefined;
  const schema = computedValueSchema(field, path);
  if (schema === undefined) return undefined;
  const result = schema.safeParse(value);
  return result.success ? undefined : `${result.error.issues[0]?.message ?? `${path} is not a value of its kind`} (the value its computed function gave)`;
}

const computedSchemas = new WeakMap<FieldMeta, Map<string, z.ZodType | undefined>>();

/** The checks a written value of the field meets, as a schema (kept per field and path). */
function computedValueSchema(field: FieldMeta, path: string): z.ZodType | undefined {
  let byPath = computedSchemas.get(field);
  if (!byPath) computedSchemas.set(field, (byPath = new Map()));
  if (byPath.has(path)) return byPath.get(path);
  const text = { ...(field.length !== undefined ? { length: field.length } : {}), ...(field.pattern !== undefined ? { pattern: field.pattern } : {}) };
  const range = { ...(field.min !== undefined ? { min: field.min } : {}), ...(field.max !== undefined ? { max: field.max } : {}) };
  const options = field.options as readonly [string, ...string[]] | undefined;
  let schema: z.ZodType | undefined;
  switch (field.kind) {
    case 'text':
    case 'longtext':
    case 'email':
    case 'url':
    case 'phone':
      schema = kinds[field.kind](path, text);
      break;
    case 'number':
    case 'money':
      schema = kinds[field.kind](path, range as RangeOptions<number>);
      break;
    case 'decimal':
      schema = kinds.decimal(path, { scale: field.scale ?? 0, ...(range as RangeOptions<number>) });
      break;
    case 'date':
    case 'datetime':
      schema = kinds[field.kind](path, range as RangeOptions<string>);
      break;
    case 'bool':
      schema = kinds.bool(path);
      break;
    case 'select':
      schema = options ? kinds.select(path, options) : undefined;
      break;
    case 'multiselect':
      schema = options ? kinds.multiselect(path, options) : undefined;
      break;
    default:
      schema = undefined;
  }
  byPath.set(path, schema);
  return schema;
}
