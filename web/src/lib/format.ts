/** Values by field kind: how they are shown, and how what people type becomes JSON. */
import type { FieldInfo } from './types.ts';

const grouping = new Intl.NumberFormat('en-US', { useGrouping: true, maximumFractionDigits: 0 });

/** 123456 → "1,234.56"; -5 → "-0.05". Integer arithmetic only, so no float rounding. */
export function formatMoney(minor: number): string {
  const negative = minor < 0;
  const abs = Math.abs(Math.trunc(minor));
  const units = Math.floor(abs / 100);
  const cents = String(abs % 100).padStart(2, '0');
  return `${negative ? '-' : ''}${grouping.format(units)}.${cents}`;
}

const currencyFormats = new Map<string, Intl.NumberFormat | null>();

function currencyFormat(currency: string): Intl.NumberFormat | null {
  let format = currencyFormats.get(currency);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
    } catch {
      format = null; // not an ISO 4217 code this browser knows: the code is written after the amount
    }
    currencyFormats.set(currency, format);
  }
  return format;
}

/**
 * A money field's value for reading: with its currency when the field has one (123456 in EUR →
 * "€1,234.56"), else as `formatMoney`. The amount goes to Intl as a decimal string, which it
 * formats exactly (no float rounding of large amounts).
 */
export function formatAmount(minor: number, currency?: string): string {
  if (!currency) return formatMoney(minor);
  const format = currencyFormat(currency);
  if (!format) return `${formatMoney(minor)} ${currency}`;
  return format.format(formatMoney(minor).replace(/,/g, '') as unknown as number);
}

/** The money input's text for a value: 1234 → "12.34" (no grouping, so it parses back). */
export function moneyInputText(minor: number | null | undefined): string {
  if (minor === null || minor === undefined) return '';
  return formatMoney(minor).replace(/,/g, '');
}

/** "12.34" → 1234, "1,000" → 100000, "" → null; undefined when it is not an amount. */
export function parseMoney(text: string): number | null | undefined {
  const clean = text.trim().replace(/[,\s]/g, '');
  if (clean === '') return null;
  const match = /^(-?)(\d*)(?:\.(\d{0,2}))?$/.exec(clean);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return undefined;
  const units = Number(match[2] || '0');
  const cents = Number((match[3] ?? '').padEnd(2, '0'));
  const value = units * 100 + cents;
  if (!Number.isSafeInteger(value)) return undefined;
  return match[1] ? -value : value;
}

/** "42" → 42, "" → null; undefined when it is not a whole number. */
export function parseInteger(text: string): number | null | undefined {
  const clean = text.trim().replace(/[,\s]/g, '');
  if (clean === '') return null;
  if (!/^-?\d+$/.test(clean)) return undefined;
  const value = Number(clean);
  return Number.isSafeInteger(value) ? value : undefined;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

const timestampFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** An ISO timestamp to the second, in the reader's locale and time zone ("Mar 12, 2025, 08:09:42 AM"). */
export function formatTimestamp(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : timestampFormat.format(time);
}

const relativeFormat = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/**
 * How long ago an ISO timestamp was, in words ("just now", "3 minutes ago", "2 days ago"); the
 * surrounding text is English, so these words are too. A time in the future (a server clock a
 * little ahead) reads "just now" or "in 2 minutes".
 */
export function relativeTime(value: string, now: number = Date.now()): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) return value;
  const seconds = Math.round((time - now) / 1000);
  if (Math.abs(seconds) < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 45) return relativeFormat.format(minutes, 'minute');
  const hours = Math.round(seconds / 3600);
  if (Math.abs(hours) < 22) return relativeFormat.format(hours, 'hour');
  const days = Math.round(seconds / 86_400);
  if (Math.abs(days) < 26) return relativeFormat.format(days, 'day');
  const months = Math.round(days / 30.44);
  if (Math.abs(months) < 11) return relativeFormat.format(months, 'month');
  return relativeFormat.format(Math.max(1, Math.abs(Math.round(days / 365.25))) * Math.sign(days), 'year');
}

/** "A", "A and B", "A, B and C". */
export function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** "2025-03-12" → "Mar 12, 2025" (in the reader's locale). */
export function formatDate(value: string): string {
  const time = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(time) ? value : dateFormat.format(time);
}

/** An ISO timestamp in the reader's locale and time zone. */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '';
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : dateTimeFormat.format(time);
}

/** Option values are identifiers (`closed_won`); show them as words. */
export function optionLabel(option: string): string {
  const words = option.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A value as plain text (no links), for lists of inputs and titles. */
export function valueText(field: FieldInfo | undefined, value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (!field) return typeof value === 'string' ? value : JSON.stringify(value);
  switch (field.kind) {
    case 'money':
      return typeof value === 'number' ? formatAmount(value, field.currency) : String(value);
    case 'number':
      return typeof value === 'number' ? grouping.format(value) : String(value);
    case 'date':
      return typeof value === 'string' ? formatDate(value) : String(value);
    case 'bool':
      return value === true ? 'Yes' : value === false ? 'No' : String(value);
    case 'select':
      return typeof value === 'string' ? optionLabel(value) : String(value);
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}
