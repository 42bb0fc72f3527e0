/**
 * What a field's name says about its values, for `rmsgen seed`: the words of the name (a
 * `expected_revenue` is a revenue, a `move_in` date a start), and how the range a name suggests is
 * kept within the field's own `min` and `max` (the field's checks win over what the name says).
 */
import type { FieldMeta } from '../registry.ts';

/** The words of a field's name: `expected_revenue` → `expected`, `revenue`. */
function tokensOf(field: FieldMeta): string[] {
  return field.name.toLowerCase().split('_');
}

export function hasToken(field: FieldMeta, pattern: RegExp): boolean {
  return tokensOf(field).some((token) => pattern.test(token));
}

/**
 * `[low, high]` kept within the field's `min`/`max`: where they overlap the name's range, the
 * overlap; else a span as wide as the name's from the bound given (both bounds: between them).
 */
export function within(low: number, high: number, min: number | undefined, max: number | undefined): [number, number] {
  const [from, to] = [Math.max(low, min ?? -Infinity), Math.min(high, max ?? Infinity)];
  if (from <= to) return [from, to];
  if (min !== undefined && max !== undefined) return [min, max];
  const span = high - low;
  if (min !== undefined) return [min, min + span];
  return [max! >= 0 ? Math.max(0, max! - span) : max! - span, max!];
}

export function numericBound(value: number | string | undefined): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
