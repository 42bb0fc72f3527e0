/** The value checks' arithmetic (runtime/value-checks.ts): a decimal's units from its digits, a datetime's offset. */
import { describe, expect, it } from 'vitest';
import { decimalUnits, MAX_DECIMAL_UNITS, utcInstant } from '../../runtime/value-checks.ts';

describe('decimalUnits', () => {
  it.each([
    [1.5, 2, 150],
    [-1.25, 2, -125],
    [0, 3, 0],
    [12, 3, 12000],
    [123.456, 3, 123456],
    [999999999999.999, 3, MAX_DECIMAL_UNITS],
    // Floating-point multiplication says 100.49999… and 267.49999…: the digits say 100.5 and 267.5.
    [1.005, 2, 101],
    [2.675, 2, 268],
    [-2.675, 2, -268],
    [0.0005, 3, 1],
    [-0.0004, 3, 0],
    [1.23e-5, 7, 123],
    [1.5e-7, 3, 0],
    [1e21, 0, 1e21],
    [9007199254740.99, 3, 9007199254740990],
  ])('%d at scale %d is %d units', (value, scale, units) => {
    expect(decimalUnits(value, scale)).toBe(units);
  });
});

describe('utcInstant', () => {
  it.each([
    ['2026-11-26T14:30:00+23:59', '2026-11-25T14:31:00.000Z'],
    ['2026-11-26T14:30:00-23:59', '2026-11-27T14:29:00.000Z'],
    ['2026-11-26T14:30:00+24:00', undefined],
    ['2026-11-26T14:30:00+05:60', undefined],
    ['2026-11-26T14:30:00Z', '2026-11-26T14:30:00.000Z'],
  ])('%s is %s', (text, instant) => {
    expect(utcInstant(text)).toBe(instant);
  });
});
