/**
 * The seed's text for a field's `pattern`: every drawn value and every numbered value matches the
 * pattern as the runtime anchors it, numbered values never repeat (and continue past what a
 * pattern's end holds only when it is open), a value too long for a length falls back to the
 * shortest. (What it cannot make the parser refuses: pattern-parser.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { patternRegExp } from '../../../runtime/kinds.ts';
import { patternText } from '../../../runtime/seed/pattern.ts';
import { Random } from '../../../runtime/seed/random.ts';

const random = new Random();

/** Values drawn for records 1 to `count`. */
function drawn(pattern: string, count: number, maxLength?: number): string[] {
  const text = patternText(pattern);
  return Array.from({ length: count }, (_, i) => {
    random.reset(7, i + 1, 3);
    return text.draw(random, maxLength);
  });
}

function numbered(pattern: string, numbers: readonly number[]): string[] {
  const text = patternText(pattern);
  return numbers.map((n) => {
    random.reset(7, n, 3);
    return text.numbered(n, random);
  });
}

describe('patternText', () => {
  it.each([
    // pattern, capacity of numbered values, shortest value's length
    ['[A-Z]{2}-[0-9]{4,}', Infinity, 7],
    ['INV-\\d{6}', 1_000_000, 10],
    ['(?:INV|CRN)-\\d{6}', 2_000_000, 10],
    ['^[a-z]+@[a-z]+\\.(com|org)$', Infinity, 7],
    ['\\+?[0-9 ]{6,12}', 214_358_881, 6],
    ['[^@\\s]+', Infinity, 1],
    ['.{3,10}', 95 ** 8, 3],
    ['A|B', 2, 1],
    ['[A-F0-9]{8}', 4_294_967_296, 8],
    ['(?<year>20[0-9]{2})/[0-9]+', Infinity, 6],
    ['[\\w.-]+', Infinity, 1],
    ['x*', 1, 0],
    ['\\u00e9t[ée]\\x41{1,3}', 2, 4],
    ['[A-Z][a-z]{2,}( [A-Z][a-z]+)?', Infinity, 3],
    ['\\d{3}-\\d{3}-\\d{4}', 10_000_000_000, 12],
  ])('%s: drawn and numbered values match; numbered ones never repeat', (pattern, capacity, shortest) => {
    const anchored = patternRegExp(pattern);
    const text = patternText(pattern);
    expect(text.capacity).toBe(capacity);
    expect(text.shortest).toBe(shortest);
    const draws = drawn(pattern, 300);
    expect(draws.filter((value) => !anchored.test(value))).toEqual([]);
    // Drawn values vary (a pattern with choices is not one value).
    if (capacity > 1) expect(new Set(draws).size).toBeGreaterThan(1);
    const numbers = [...Array.from({ length: Math.min(capacity, 3000) }, (_, i) => i + 1), ...[99_999, 1_000_000, 9_999_999].filter((n) => n <= capacity)];
    const values = numbered(pattern, numbers);
    expect(values.filter((value) => !anchored.test(value))).toEqual([]);
    expect(new Set(values).size).toBe(numbers.length);
  });

  it('writes the number into the end of the pattern and draws a prefix of fixed length', () => {
    expect(numbered('[A-Z]{2}-[0-9]{4,}', [1, 2, 10_000]).map((value) => value.slice(3))).toEqual(['0001', '0002', '10000']);
    expect(numbered('[A-Z]{2}-[0-9]{4,}', [1, 2, 3]).map((value) => value.slice(0, 2))).not.toEqual(['AA', 'AA', 'AA']);
    // A prefix of several lengths would make the number's place unclear: it is the same for every record.
    expect(new Set(numbered('[a-z]+@[a-z]+\\.(com|org)', [1, 2, 3, 4]).map((value) => value.split('@')[0]))).toEqual(new Set(['a']));
  });

  it('a drawn value longer than the length asked for falls back to the shortest', () => {
    const values = drawn('[A-Z]{2}-[0-9]{4,}', 50, 8);
    expect(values.filter((value) => value.length > 8)).toEqual([]);
    // Some drawn values are longer than 8, and come out as the shortest.
    expect(values.filter((value) => value === 'AA-0000').length).toBeGreaterThan(10);
    expect(values.filter((value) => value !== 'AA-0000').length).toBeGreaterThan(10);
  });

  it('refuses a number past what the pattern holds', () => {
    expect(() => patternText('A|B').numbered(3, random)).toThrow(new RangeError('pattern A|B holds numbers 1 to 2, not 3'));
  });
});
