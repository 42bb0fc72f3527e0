/** Form drafts: what an input holds while people type, and the JSON it becomes when sent. */
import { amountProblem, moneyInputText, parseAmount, parseInteger } from './format.ts';
import type { FieldInfo } from './types.ts';

/** Text inputs hold strings; a checkbox holds a boolean (null: never set). */
export type Draft = string | boolean | null;
export type Drafts = Record<string, Draft>;
export type FieldErrors = Record<string, string>;

export function toDraft(field: FieldInfo, value: unknown): Draft {
  if (field.kind === 'bool') return typeof value === 'boolean' ? value : null;
  if (value === null || value === undefined) return '';
  if (field.kind === 'money') return typeof value === 'number' ? moneyInputText(value, field.currency) : String(value);
  return String(value);
}

export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** A draft as the JSON value to send (null for empty), or why it cannot be sent. */
export function fromDraft(field: FieldInfo, draft: Draft | undefined): Parsed {
  if (field.kind === 'bool') return { ok: true, value: typeof draft === 'boolean' ? draft : null };
  const text = typeof draft === 'string' ? draft : '';
  if (text.trim() === '') return { ok: true, value: null };
  switch (field.kind) {
    case 'money': {
      // People type amounts in major units (950.00 is 950 euros); the API takes minor units.
      const amount = parseAmount(text, field.currency);
      return amount.ok ? { ok: true, value: amount.value } : { ok: false, error: amountProblem(field.label, amount.problem, field.currency) };
    }
    case 'number': {
      const value = parseInteger(text);
      return value === undefined ? { ok: false, error: `${field.label} must be a whole number` } : { ok: true, value };
    }
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? { ok: true, value: text.trim() } : { ok: false, error: `${field.label} must be a date (YYYY-MM-DD)` };
    case 'text':
    case 'select':
    case 'ref':
      return { ok: true, value: text.trim() };
    default:
      return { ok: true, value: text };
  }
}

/**
 * The body of a create (`original` undefined: every non-empty field) or an update (only the
 * fields that changed, null to empty one), with the problems found before sending.
 */
export function collectInput(fields: readonly FieldInfo[], drafts: Drafts, original?: Readonly<Record<string, unknown>>): { input: Record<string, unknown>; errors: FieldErrors } {
  const input: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const field of fields) {
    if (field.governed || !(field.name in drafts)) continue;
    const parsed = fromDraft(field, drafts[field.name]);
    if (!parsed.ok) {
      errors[field.name] = parsed.error;
      continue;
    }
    if (parsed.value === null && field.required) {
      errors[field.name] = `${field.label} is required`;
      continue;
    }
    if (original === undefined) {
      if (parsed.value !== null) input[field.name] = parsed.value;
    } else if (!sameValue(original[field.name], parsed.value)) {
      input[field.name] = parsed.value;
    }
  }
  return { input, errors };
}

function sameValue(a: unknown, b: unknown): boolean {
  return (a ?? null) === (b ?? null);
}
