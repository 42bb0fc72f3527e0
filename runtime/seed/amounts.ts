/**
 * Numbers, money and decimals of a plausible size by what the field's name says (a rent of
 * hundreds to thousands, an expected revenue of thousands to hundreds of thousands, a probability
 * of 0 to 100, rooms 1 to 6), within the field's `min`/`max` and a decimal's `scale`. The sizes by
 * name change here and nowhere else.
 */
import type { FieldMeta } from '../registry.ts';
import { DAY_MS } from './dates.ts';
import { hasToken, numericBound, within } from './field-names.ts';
import type { Context, Make } from './value-context.ts';

/** Amounts in major units, from the smallest to the largest, rounded to a step: by what the name says. */
const MONEY_RANGES: readonly { readonly name: RegExp; readonly min: number; readonly max: number; readonly step: number }[] = [
  { name: /^rents?$/, min: 400, max: 3_000, step: 10 },
  { name: /^(deposit|bond|caution)s?$/, min: 500, max: 6_000, step: 50 },
  { name: /^(salary|salaries|wages?|pay)$/, min: 1_500, max: 9_000, step: 50 },
  { name: /^(revenue|turnover|budget|value|worth|valuation|capital)s?$/, min: 1_000, max: 250_000, step: 100 },
  { name: /^(price|cost|fee|charge|rate|tax|vat|discount|tip)s?$/, min: 5, max: 2_000, step: 1 },
  { name: /^(amount|total|balance|sum|due|paid|payment|subtotal|credit|debit|limit)s?$/, min: 50, max: 20_000, step: 1 },
];
const MONEY_DEFAULT = { min: 10, max: 5_000, step: 1 };

/** Money in minor units: whole amounts, spread evenly over the orders of magnitude of their range (within the field's min and max). */
export function moneyMaker(field: FieldMeta): Make {
  const range = MONEY_RANGES.find((candidate) => hasToken(field, candidate.name)) ?? MONEY_DEFAULT;
  const [low, high] = within(range.min * 100, range.max * 100, numericBound(field.min), numericBound(field.max));
  const step = range.step * 100;
  const clamp = (value: number) => Math.min(Math.floor(high), Math.max(Math.ceil(low), value));
  if (low <= 0) return (_n, random) => clamp(Math.round((low + random.fraction() * (high - low)) / step) * step);
  const from = Math.log(low);
  const span = Math.log(high) - from;
  return (_n, random) => clamp(Math.max(low, Math.round(Math.exp(from + random.fraction() * span) / step) * step));
}

/** Whole numbers from `min` to `max` (inclusive), by what the name says. */
const NUMBER_RANGES: readonly { readonly name: RegExp; readonly min: number; readonly max: number }[] = [
  { name: /^(probability|prob|percent|percentage|pct|share|ratio|progress|completion)$/, min: 0, max: 100 },
  { name: /^(rooms?|bedrooms?|bathrooms?)$/, min: 1, max: 6 },
  { name: /^(floors?|storeys?|stories|level)$/, min: 0, max: 12 },
  { name: /^age$/, min: 18, max: 80 },
  { name: /^(area|sqm|m2|sqft|surface)$/, min: 20, max: 250 },
  { name: /^months?$/, min: 1, max: 36 },
  { name: /^(days?|nights?)$/, min: 1, max: 90 },
  { name: /^hours?$/, min: 1, max: 40 },
  { name: /^(rating|score|stars|priority)$/, min: 1, max: 5 },
  { name: /^(qty|quantity|quantities|count|seats|capacity|units|employees|headcount|people|guests|items|pieces|copies)$/, min: 1, max: 50 },
];

function numberRangeOf(field: FieldMeta, context: Context): { min: number; max: number } {
  if (hasToken(field, /^(year|built)$/)) {
    const year = new Date(context.today * DAY_MS).getUTCFullYear();
    return { min: year - 40, max: year };
  }
  return NUMBER_RANGES.find((candidate) => hasToken(field, candidate.name)) ?? { min: 0, max: 100 };
}

export function numberMaker(field: FieldMeta, context: Context): Make {
  const range = numberRangeOf(field, context);
  const [low, high] = within(range.min, range.max, numericBound(field.min), numericBound(field.max));
  const [from, to] = [Math.ceil(low), Math.max(Math.ceil(low), Math.floor(high))];
  return (_n, random) => from + random.below(to - from + 1);
}

/** A decimal within the name's range and the field's min and max, with as many decimals as its scale allows. */
export function decimalMaker(field: FieldMeta): Make {
  const scale = field.scale ?? 2;
  const units = 10 ** scale;
  const range = NUMBER_RANGES.find((candidate) => hasToken(field, candidate.name)) ?? { min: 0, max: 100 };
  const [low, high] = within(range.min, range.max, numericBound(field.min), numericBound(field.max));
  // In units of the last decimal, so that the value has no more decimals than the scale and stays within the bounds.
  const from = Math.ceil(low * units - 1e-9);
  const to = Math.max(from, Math.floor(high * units + 1e-9));
  return (_n, random) => (from + random.below(to - from + 1)) / units;
}
