/**
 * Dates and instants for `rmsgen seed`, as day numbers counted from the day the seed spreads
 * them around (today unless told another): within a year of it, by what the name says (a birth
 * date decades back, an issue date rarely ahead), an end after its start, a due date weeks after
 * its issue date, an instant at a minute of the working day, within the field's bounds.
 */
import type { FieldMeta } from '../registry.ts';
import { hasToken, within } from './field-names.ts';
import type { Random } from './random.ts';
import type { Context, Make, SeedValues } from './value-context.ts';

export const DAY_MS = 86_400_000;
export const MINUTE_MS = 60_000;

/** The last day a date can hold (years 0001–9999). */
export const LAST_DAY = Math.floor(Date.parse('9999-12-31T00:00:00Z') / DAY_MS);

/** Today (UTC) as `YYYY-MM-DD`: the day seeded dates are spread around unless told another. */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/** A date that opens a span: an end or due date in the same model follows it. */
export const START_DATE = /^(start|starts|started|begin|begins|from|issue|issued|opened|signed|ordered|checkin|movein|effective)$/;
const END_DATE = /^(end|ends|ended|until|to|due|by|expiry|expires|expiration|checkout|moveout)$/;

/** The date field this one follows (an end after its start), if it is an end and the model has a start. */
export function startFieldOf(context: Context, field: FieldMeta): FieldMeta | undefined {
  if (!hasToken(field, END_DATE)) return undefined;
  return context.fields.find((candidate) => candidate !== field && candidate.kind === 'date' && hasToken(candidate, START_DATE));
}

/** The field's bounds as day numbers. */
export function dayBounds(field: FieldMeta): [number | undefined, number | undefined] {
  return [typeof field.min === 'string' ? dayNumber(field.min) : undefined, typeof field.max === 'string' ? dayNumber(field.max) : undefined];
}

/** A day from `from` to `to`, within the field's bounds (see `within`). */
export function dayIn(random: Random, from: number, to: number, bounds: [number | undefined, number | undefined]): number {
  const [low, high] = within(from, to, bounds[0], bounds[1]);
  return Math.ceil(low) + random.below(Math.max(0, Math.floor(high) - Math.ceil(low)) + 1);
}

/** The days a date's value is drawn from (before its bounds): by what the name says, after the start it follows. */
function daySpan(field: FieldMeta, context: Context): (random: Random, values: SeedValues) => [number, number] {
  const { today } = context;
  if (hasToken(field, /^(birth|birthday|born|dob|birthdate)$/)) return () => [today - 365 * 80, today - 365 * 18];
  const start = startFieldOf(context, field);
  if (start) {
    // Weeks after an issue date for a due date (or a deadline: `deliver_by`); months to two years after a start for an end.
    const [min, max] = hasToken(field, /^(due|by)$/) ? [14, 60] : [180, 730];
    return (random, values) => {
      const from = values[start.name];
      const base = typeof from === 'string' ? dayNumber(from) : today - 365 + random.below(731);
      return [base + min, base + max];
    };
  }
  // A span opens in the past year, or soon: an issue date is rarely far ahead.
  if (hasToken(field, START_DATE)) return () => [today - 365, today + 30];
  return () => [today - 365, today + 365];
}

export function dateMaker(field: FieldMeta, context: Context): Make {
  const span = daySpan(field, context);
  const bounds = dayBounds(field);
  return (_n, random, values) => {
    const [from, to] = span(random, values);
    return dayOf(dayIn(random, from, to, bounds));
  };
}

/** An instant on a day drawn as a date's, at a minute of the working day, within the field's bounds. */
export function datetimeMaker(field: FieldMeta, context: Context): Make {
  const span = daySpan(field, context);
  const [min, max] = instantBounds(field);
  const bounds: [number | undefined, number | undefined] = [min === undefined ? undefined : Math.ceil(min / DAY_MS), max === undefined ? undefined : Math.floor(max / DAY_MS)];
  return (_n, random, values) => {
    const [from, to] = span(random, values);
    return clampedInstant(instantOf(dayIn(random, from, to, bounds), random), min, max);
  };
}

/** A datetime field's bounds in milliseconds. */
export function instantBounds(field: FieldMeta): [number | undefined, number | undefined] {
  return [typeof field.min === 'string' ? Date.parse(field.min) : undefined, typeof field.max === 'string' ? Date.parse(field.max) : undefined];
}

/** The instant, moved within the bounds when its minute of the day falls outside them. */
export function clampedInstant(instant: string, min: number | undefined, max: number | undefined): string {
  if (min === undefined && max === undefined) return instant;
  return new Date(Math.min(max ?? Infinity, Math.max(min ?? -Infinity, Date.parse(instant)))).toISOString();
}

/** `YYYY-MM-DDTHH:MM:SS.000Z` at a minute of the working day (08:00–18:00 UTC). */
export function instantOf(day: number, random: Random): string {
  return new Date(day * DAY_MS + (8 * 60 + random.below(10 * 60)) * MINUTE_MS).toISOString();
}

/** `YYYY-MM-DD` of a day number (remembered: a seed writes the same few thousand days over and over, and formatting a date is slow). */
export function dayOf(day: number): string {
  let text = DAYS.get(day);
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (DAYS.size < 100_000) DAYS.set(day, text);
  }
  return text;
}

const DAYS = new Map<number, string>();

export function dayNumber(date: string): number {
  return Math.floor(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / DAY_MS);
}
