/** Form drafts: what an input holds while people type, and the JSON it becomes when sent. */
import {
  amountProblem,
  decimalInputText,
  formatAmount,
  formatDecimal,
  inDeclaredOrder,
  instantFromLocal,
  localDateTimeText,
  localToday,
  moneyInputText,
  parseAmount,
  parseDecimal,
  parseInteger,
} from './format.ts';
import { sameValue } from './changes.ts';
// As the server checks an email address, a URL and a phone number, so that its words come before sending.
import { EMAIL, isHttpUrl, PHONE } from '../../../runtime/api-shapes.ts';
import { filesOf } from './files.ts';
import type { FieldInfo, FileRef } from './types.ts';

/** Text inputs hold strings; a checkbox holds a boolean (null: never set); a multiselect the options ticked; a file field its files. */
export type Draft = string | boolean | readonly string[] | readonly FileRef[] | null;
export type Drafts = Record<string, Draft>;
export type FieldErrors = Record<string, string>;

export function toDraft(field: FieldInfo, value: unknown): Draft {
  if (field.kind === 'bool') return typeof value === 'boolean' ? value : null;
  if (field.kind === 'multiselect') return Array.isArray(value) ? inDeclaredOrder(field, value.map(String)) : [];
  if (field.kind === 'file') return filesOf(value);
  if (value === null || value === undefined) return '';
  if (field.kind === 'money') return typeof value === 'number' ? moneyInputText(value, field.currency) : String(value);
  if (field.kind === 'decimal') return typeof value === 'number' ? decimalInputText(value) : String(value);
  if (field.kind === 'datetime') return typeof value === 'string' ? localDateTimeText(value) : '';
  return String(value);
}

/**
 * What a new record's input starts with: the field's default (`today` and `now` in the reader's
 * time zone, as the person would type them), else empty.
 */
export function defaultDraft(field: FieldInfo, now: Date = new Date()): Draft {
  const preset = field.default;
  if (preset === undefined) return toDraft(field, undefined);
  if (preset === 'today') return field.kind === 'date' ? localToday(now) : toDraft(field, undefined);
  if (preset === 'now') return field.kind === 'datetime' ? localDateTimeText(now.toISOString()) : toDraft(field, undefined);
  return toDraft(field, preset.value);
}

/** Whether the person writes this field in a form: not governed (actions move it), not computed, and their role may write it. */
export function isEditable(field: FieldInfo): boolean {
  return !field.governed && !field.computed && field.writable !== false;
}

export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** A draft as the JSON value to send (null for empty), or why it cannot be sent; then the field's own checks (`checkValue`). */
export function fromDraft(field: FieldInfo, draft: Draft | undefined): Parsed {
  const parsed = parseDraft(field, draft);
  if (!parsed.ok || parsed.value === null) return parsed;
  const problem = checkValue(field, parsed.value);
  return problem === undefined ? parsed : { ok: false, error: problem };
}

/** A draft as the JSON value it stands for, without the field's own checks (a filter's value may lie outside them). */
export function parseDraft(field: FieldInfo, draft: Draft | undefined): Parsed {
  if (field.kind === 'bool') return { ok: true, value: typeof draft === 'boolean' ? draft : null };
  if (field.kind === 'file') {
    // The server takes file ids: a list with `multiple`, else one.
    const ids = filesOf(draft).map((file) => file.id);
    return { ok: true, value: ids.length === 0 ? null : field.multiple ? ids : ids[0] };
  }
  if (field.kind === 'multiselect') {
    const chosen = (Array.isArray(draft) ? draft : []) as readonly string[];
    // In the declared order, whatever order they were ticked in; none is empty.
    return { ok: true, value: chosen.length === 0 ? null : inDeclaredOrder(field, chosen).filter((option) => field.options?.includes(option) ?? true) };
  }
  const text = typeof draft === 'string' ? draft : '';
  if (text.trim() === '') return { ok: true, value: null };
  switch (field.kind) {
    case 'money': {
      // People type amounts in major units (950.00 is 950 euros); the API takes minor units.
      const amount = parseAmount(text, field.currency);
      return amount.ok ? { ok: true, value: amount.value } : { ok: false, error: amountProblem(field.label, amount.problem, field.currency) };
    }
    case 'decimal': {
      const scale = field.scale ?? 2;
      const number = parseDecimal(text, scale);
      if (number.ok) return { ok: true, value: number.value };
      return { ok: false, error: number.problem === 'too-many-decimals' ? `${field.label} has at most ${scale} decimal places` : `${field.label} must be a number` };
    }
    case 'number': {
      const value = parseInteger(text);
      return value === undefined ? { ok: false, error: `${field.label} must be a whole number` } : { ok: true, value };
    }
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? { ok: true, value: text.trim() } : { ok: false, error: `${field.label} must be a date (YYYY-MM-DD)` };
    case 'datetime': {
      const instant = instantFromLocal(text);
      return instant === null ? { ok: false, error: `${field.label} must be a date and time` } : { ok: true, value: instant };
    }
    case 'email': {
      const value = text.trim();
      return EMAIL.test(value) && value.length <= 254 ? { ok: true, value } : { ok: false, error: `${field.label} must be an email address` };
    }
    case 'url': {
      const value = text.trim();
      return isHttpUrl(value) ? { ok: true, value } : { ok: false, error: `${field.label} must be a URL` };
    }
    case 'phone': {
      const value = text.trim();
      const digits = value.replace(/[^0-9]/g, '').length;
      return PHONE.test(value) && digits >= 6 && digits <= 20 ? { ok: true, value } : { ok: false, error: `${field.label} must be a phone number` };
    }
    case 'text':
    case 'select':
    case 'ref':
      return { ok: true, value: text.trim() };
    default:
      return { ok: true, value: text };
  }
}

/** Characters as the server counts them: code points (an emoji is one). */
function characterCount(text: string): number {
  return [...text].length;
}

/** A bound as people read it: an amount with its currency's decimals, a decimal or date in the app's locale. */
function boundText(field: FieldInfo, bound: number | string): string {
  if (typeof bound === 'number' && field.kind === 'money') return formatAmount(bound, field.currency);
  if (typeof bound === 'number' && field.kind === 'decimal') return formatDecimal(bound, field.scale);
  return String(bound);
}

/**
 * The field's `min`, `max`, `length` and `pattern`, checked before sending with the server's words
 * (`<label> must be at least 0.001`, `… must be at most 200 characters`, `… does not match the
 * required pattern`); undefined when the value passes. The server checks again.
 */
export function checkValue(field: FieldInfo, value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'string') {
    const comparable = field.kind === 'datetime' && typeof value === 'string' ? Date.parse(value) : value;
    const bound = (limit: number | string) => (field.kind === 'datetime' && typeof limit === 'string' ? Date.parse(limit) : limit);
    if (field.min !== undefined && comparable < bound(field.min)) return `${field.label} must be at least ${boundText(field, field.min)}`;
    if (field.max !== undefined && comparable > bound(field.max)) return `${field.label} must be at most ${boundText(field, field.max)}`;
  }
  if (typeof value === 'string') {
    if (field.length !== undefined && characterCount(value) > field.length) return `${field.label} must be at most ${field.length} characters`;
    if (field.pattern !== undefined) {
      let pattern: RegExp | undefined;
      try {
        pattern = new RegExp(`^(?:${field.pattern})$`, 'u');
      } catch {
        pattern = undefined; // one this browser cannot read: the server decides
      }
      if (pattern && !pattern.test(value)) return `${field.label} does not match the required pattern`;
    }
  }
  return undefined;
}

/**
 * The body of a create (`original` undefined: every non-empty field) or an update (only the
 * fields that changed, null to empty one), with the problems found before sending. Fields the
 * person does not write (governed, computed, not theirs to write) are never sent.
 */
export function collectInput(fields: readonly FieldInfo[], drafts: Drafts, original?: Readonly<Record<string, unknown>>): { input: Record<string, unknown>; errors: FieldErrors } {
  const input: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const field of fields) {
    if (!isEditable(field) || !(field.name in drafts)) continue;
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

/**
 * A draft as a value for working out computed fields while people type: what it would be sent as
 * (null while empty), or undefined while it is not a value of its kind, so that what is worked out
 * from it is unknown (a number from it is NaN) rather than a guess.
 */
export function draftValue(field: FieldInfo, draft: Draft | undefined): unknown {
  const parsed = parseDraft(field, draft);
  return parsed.ok ? parsed.value : undefined;
}

/**
 * A computed field's value as the server stores what its function gives (runtime/commands/
 * documents.ts): a decimal rounded to its scale, money and numbers to integers, anything not a
 * finite number or missing as empty.
 */
export function computedValue(field: FieldInfo, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (field.kind === 'decimal' && typeof value === 'number') return Math.round(value * 10 ** (field.scale ?? 0)) / 10 ** (field.scale ?? 0);
  if ((field.kind === 'money' || field.kind === 'number') && typeof value === 'number') return Math.round(value);
  return value;
}
