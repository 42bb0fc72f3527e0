/** Values by field kind: how they are shown (in the app's locale), and how what people type becomes JSON. */
import { appLocale, localeFormat, numberMarks } from './locale.ts';
import type { FieldInfo } from './types.ts';

/** How many decimals a currency's amounts have (EUR 2, JPY 0, BHD 3): 2 without a currency, or for a code Intl does not know. */
export function minorDigits(currency?: string): number {
  if (!currency) return 2;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Minor units as a plain decimal: 123450 → "1234.50" (2 digits), "123450" (0 digits). Integer arithmetic only, so no float rounding. */
function decimalText(minor: number, digits: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = String(Math.abs(Math.trunc(minor)));
  if (digits === 0) return `${sign}${abs}`;
  const padded = abs.padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/**
 * Intl formats a decimal string exactly (a number would be rounded past 2^53), though its types
 * only name numbers.
 */
const exactly = (decimal: string) => decimal as unknown as number;

/** 123456 → "1,234.56" in en-US ("1.234,56" in de-DE); -5 → "-0.05"; with the currency's decimals. */
export function formatMoney(minor: number, currency?: string): string {
  const digits = minorDigits(currency);
  const format = localeFormat(`money-${digits}`, (locale) => new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  return format.format(exactly(decimalText(minor, digits)));
}

/**
 * A money field's value for reading, in the app's locale: with its currency when the field has
 * one (123456 in EUR → "€1,234.56" in en-US, "1.234,56 €" in de-DE), else as `formatMoney`.
 */
export function formatAmount(minor: number, currency?: string): string {
  if (!currency) return formatMoney(minor);
  const format = localeFormat(`currency-${currency}`, (locale) => {
    try {
      return new Intl.NumberFormat(locale, { style: 'currency', currency });
    } catch {
      return null; // not an ISO 4217 code this browser knows: the code is written after the amount
    }
  });
  if (!format) return `${formatMoney(minor, currency)} ${currency}`;
  return format.format(exactly(decimalText(minor, minorDigits(currency))));
}

/** The money input's text for a value: 1234 → "12.34" ("12,34" in de-DE; no grouping, so it reads back). */
export function moneyInputText(minor: number | null | undefined, currency?: string, locale: string = appLocale()): string {
  if (minor === null || minor === undefined) return '';
  return decimalText(minor, minorDigits(currency)).replace('.', numberMarks(locale).decimal);
}

/** What a typed amount is: minor units (null for empty), or why it is none. */
export type AmountParse = { readonly ok: true; readonly value: number | null } | { readonly ok: false; readonly problem: 'not-an-amount' | 'too-many-decimals' };

/** `1,234` and `1.234.567`: a mark followed by groups of exactly three digits. */
function groupedBy(text: string, mark: string): boolean {
  return new RegExp(`^\\d{1,3}(?:\\${mark}\\d{3})+$`).test(text);
}

/** A number as typed, split at its decimal mark: its sign, whole digits and decimal digits; null when it is not a number. */
interface TypedNumber {
  readonly negative: boolean;
  readonly whole: string;
  readonly fraction: string;
}

/**
 * A number as a person types it (`950.00`, `950`, `1,200.50`; `1.200,50` in a decimal-comma
 * locale). Spaces and apostrophes group digits. With both `.` and `,` in it, the last one is the
 * decimal mark; with one of them only, it is the decimal mark when it is the locale's, else
 * grouping when it is followed by groups of three digits (`1.500` in de-DE), else the decimal mark
 * when it comes once (`950.00` in de-DE). Empty: 'empty'.
 */
function typedNumber(text: string, locale: string): TypedNumber | 'empty' | null {
  const clean = text.replace(/[\s'’]/g, '').replace(/^\u2212/, '-');
  if (clean === '') return 'empty';
  const match = /^([+-]?)([\d.,]*)$/.exec(clean);
  const body = match?.[2] ?? '';
  if (!match || !/\d/.test(body)) return null;
  const count = (mark: string) => body.split(mark).length - 1;
  const splitAt = (mark: string) => [body.slice(0, body.lastIndexOf(mark)), body.slice(body.lastIndexOf(mark) + 1)] as const;
  let whole = body;
  let fraction = '';
  if (count('.') > 0 && count(',') > 0) {
    const mark = body.lastIndexOf('.') > body.lastIndexOf(',') ? '.' : ',';
    [whole, fraction] = splitAt(mark);
    const group = mark === '.' ? ',' : '.';
    if (!groupedBy(whole, group)) return null;
    whole = whole.split(group).join('');
  } else if (count('.') > 0 || count(',') > 0) {
    const mark = count('.') > 0 ? '.' : ',';
    if (mark === numberMarks(locale).decimal && count(mark) === 1) [whole, fraction] = splitAt(mark);
    else if (groupedBy(body, mark)) whole = body.split(mark).join('');
    else if (count(mark) === 1) [whole, fraction] = splitAt(mark);
    else return null;
  }
  if (!/^\d*$/.test(whole) || !/^\d*$/.test(fraction)) return null;
  return { negative: match[1] === '-', whole, fraction };
}

/** The typed number as an integer of `digits` decimals (12.5 with 2 → 1250), or why it is none. */
function scaledInteger(text: string, digits: number, locale: string): AmountParse {
  const typed = typedNumber(text, locale);
  if (typed === 'empty') return { ok: true, value: null };
  if (typed === null) return { ok: false, problem: 'not-an-amount' };
  if (typed.fraction.length > digits) return { ok: false, problem: 'too-many-decimals' };
  const scaled = BigInt(typed.whole || '0') * 10n ** BigInt(digits) + BigInt(typed.fraction.padEnd(digits, '0') || '0');
  if (scaled > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, problem: 'not-an-amount' };
  const value = Number(scaled);
  return { ok: true, value: typed.negative && value !== 0 ? -value : value };
}

/**
 * An amount as a person types it, in major units (see `typedNumber`), as integer minor units of
 * `currency`. More decimals than the currency has is refused, never rounded.
 */
export function parseAmount(text: string, currency?: string, locale: string = appLocale()): AmountParse {
  return scaledInteger(text, minorDigits(currency), locale);
}

/**
 * A decimal field's value as typed (see `typedNumber`: `2.5`, `1,250.125`; `2,5` in de-DE), as
 * the JSON number sent: at most `scale` decimals (more is refused, never rounded), and the value ×
 * 10^scale a safe integer, as the server stores it.
 */
export function parseDecimal(text: string, scale: number, locale: string = appLocale()): AmountParse {
  const scaled = scaledInteger(text, scale, locale);
  if (!scaled.ok || scaled.value === null) return scaled;
  // From its decimal text, so that the number is the one written (0.1, not 0.1000000000000000055…).
  return { ok: true, value: Number(decimalText(scaled.value, scale)) };
}

/** A decimal's value in its input: plain, no grouping, the locale's decimal mark (2.5 → "2,5" in de-DE). */
export function decimalInputText(value: number | null | undefined, locale: string = appLocale()): string {
  if (value === null || value === undefined) return '';
  return plainNumber(value).replace('.', numberMarks(locale).decimal);
}

/** A number written out without exponent or grouping (1e-6 → "0.000001"), as CSV and inputs take it. */
export function plainNumber(value: number): string {
  return value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}

/** A decimal value for reading, in the app's locale, with up to `scale` decimals (1250.5 → "1,250.5"). */
export function formatDecimal(value: number, scale = 2): string {
  return localeFormat(`decimal-${scale}`, (locale) => new Intl.NumberFormat(locale, { maximumFractionDigits: scale })).format(value);
}

/** Why a typed amount of `label` was refused, in words. */
export function amountProblem(label: string, problem: 'not-an-amount' | 'too-many-decimals', currency?: string, locale: string = appLocale()): string {
  const digits = minorDigits(currency);
  if (problem === 'not-an-amount') return `${label} must be an amount like ${moneyInputText(123450, currency, locale)}`;
  if (digits === 0) return `${label} takes no decimals (${currency} has none); nothing is rounded`;
  return `${label} takes at most ${digits} decimals${currency ? ` (${currency})` : ''}; nothing is rounded`;
}

/** "42" → 42, "" → null; undefined when it is not a whole number. */
export function parseInteger(text: string): number | null | undefined {
  const clean = text.trim().replace(/[,\s]/g, '');
  if (clean === '') return null;
  if (!/^-?\d+$/.test(clean)) return undefined;
  const value = Number(clean);
  return Number.isSafeInteger(value) ? value : undefined;
}

const dateFormat = () => localeFormat('date', (locale) => new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }));
const dateTimeFormat = () => localeFormat('date-time', (locale) => new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }));
const timestampFormat = () =>
  localeFormat('timestamp', (locale) => new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' }));
const integerFormat = () => localeFormat('integer', (locale) => new Intl.NumberFormat(locale, { useGrouping: true, maximumFractionDigits: 0 }));

/** An ISO timestamp to the second, in the app's locale and the reader's time zone ("Mar 12, 2025, 08:09:42 AM"). */
export function formatTimestamp(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : timestampFormat().format(time);
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

/** "2025-03-12" → "Mar 12, 2025" (in the app's locale: "12 Mar 2025" in en-GB, "12. März 2025" in de-DE). */
export function formatDate(value: string): string {
  const time = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(time) ? value : dateFormat().format(time);
}

/** An ISO timestamp in the app's locale and the reader's time zone. */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '';
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : dateTimeFormat().format(time);
}

/** The reader's time zone (the browser's), which datetimes are shown and typed in. */
export function readerTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
}

const zonedFormat = () =>
  localeFormat(`date-time-zone-${readerTimeZone()}`, (locale) =>
    new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }),
  );

/** A datetime field's value (an instant) for reading: in the app's locale and the reader's time zone, naming the zone ("Nov 26, 2026, 03:30 PM GMT+1"). */
export function formatInstant(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : zonedFormat().format(time);
}

const pad2 = (value: number) => String(value).padStart(2, '0');

/**
 * An instant as a `datetime-local` input shows it, in the reader's time zone:
 * `2026-11-26T14:30:00Z` → `2026-11-26T15:30` in Berlin (seconds only when there are some).
 */
export function localDateTimeText(value: string | null | undefined): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const seconds = date.getSeconds() !== 0 ? `:${pad2(date.getSeconds())}` : '';
  return `${String(date.getFullYear()).padStart(4, '0')}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())}T${pad2(date.getHours())}:${pad2(date.getMinutes())}${seconds}`;
}

/**
 * What a `datetime-local` input holds (`2026-11-26T15:30`, the reader's wall clock) as ISO 8601 with
 * the reader's offset at that moment (`2026-11-26T15:30:00+01:00`), which the server takes; null
 * when it is not a date and time. A wall time a clock change skips is moved as the browser moves it.
 */
export function instantFromLocal(text: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  if (hour! > 23 || minute! > 59 || second! > 59) return null;
  const date = new Date(year!, month! - 1, day!, hour!, minute!, second!);
  date.setFullYear(year!); // years 0–99 would otherwise mean 1900–1999
  if (Number.isNaN(date.getTime()) || date.getMonth() !== month! - 1) return null;
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = `${sign}${pad2(Math.floor(Math.abs(offset) / 60))}:${pad2(Math.abs(offset) % 60)}`;
  return `${String(date.getFullYear()).padStart(4, '0')}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())}T${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}${zone}`;
}

/** Today in the reader's time zone, `YYYY-MM-DD` (a date field's default `today`, typed by a person). */
export function localToday(now: Date = new Date()): string {
  return `${String(now.getFullYear()).padStart(4, '0')}-${pad2(now.getMonth() + 1)}-${pad2(now.getDate())}`;
}

/**
 * Where a value of a link kind goes, or undefined when it must not be a link: an email address as
 * `mailto:`, a phone number as `tel:` (digits and a leading +), a URL only when it is `http:` or
 * `https:` — never `javascript:`, `data:` or anything else a click would run.
 */
export function linkHref(kind: FieldInfo['kind'], value: string): string | undefined {
  if (kind === 'email') return /^[^\s@:/?#]+@[^\s@/?#]+$/u.test(value) ? `mailto:${value}` : undefined;
  if (kind === 'phone') {
    const digits = value.replace(/[^0-9+]/g, '').replace(/(?!^)\+/g, '');
    return /\d{3,}/.test(digits) ? `tel:${digits}` : undefined;
  }
  if (kind === 'url') {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Options of a select as the module declares them (`draft, active, ended` is a workflow; sorted
 * by name it would mislead), any value it does not declare after them.
 */
export function inDeclaredOrder(field: FieldInfo | undefined, values: readonly string[]): string[] {
  const declared = field?.options ?? [];
  return [...declared.filter((option) => values.includes(option)), ...values.filter((value) => !declared.includes(value))];
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
      return typeof value === 'number' ? integerFormat().format(value) : String(value);
    case 'decimal':
      return typeof value === 'number' ? formatDecimal(value, field.scale) : String(value);
    case 'date':
      return typeof value === 'string' ? formatDate(value) : String(value);
    case 'datetime':
      return typeof value === 'string' ? formatInstant(value) : String(value);
    case 'bool':
      return value === true ? 'Yes' : value === false ? 'No' : String(value);
    case 'select':
      return typeof value === 'string' ? optionLabel(value) : String(value);
    case 'multiselect':
      return Array.isArray(value) ? inDeclaredOrder(field, value.map(String)).map(optionLabel).join(', ') : String(value);
    case 'file': {
      const names = (Array.isArray(value) ? value : [value]).map((file) => (typeof file === 'object' && file !== null && 'name' in file ? String((file as { name: unknown }).name) : String(file)));
      return names.join(', ');
    }
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}
