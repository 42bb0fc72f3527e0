/** Table tests of web/src/lib/format.ts: money, integers, option labels, relative times and word lists. */
import { describe, expect, it } from 'vitest';
import { formatAmount, formatMoney, moneyInputText, parseInteger, parseMoney, valueText, joinWords, relativeTime } from '../../../web/src/lib/format.ts';
import { field } from '../../helpers/web-models.ts';

describe('money', () => {
  it.each([
    [0, '0.00'],
    [5, '0.05'],
    [1234, '12.34'],
    [123456789, '1,234,567.89'],
    [-1250, '-12.50'],
  ])('formatMoney(%s) = %s', (minor, text) => expect(formatMoney(minor)).toBe(text));

  it.each([
    ['12.34', 1234],
    ['12.3', 1230],
    ['12', 1200],
    ['.5', 50],
    ['1,234.56', 123456],
    [' 7 ', 700],
    ['-0.01', -1],
    ['', null],
    ['12.345', undefined],
    ['abc', undefined],
    ['1.2.3', undefined],
    ['.', undefined],
    ['99999999999999999', undefined],
  ])('parseMoney(%j) = %s', (text, minor) => expect(parseMoney(text)).toBe(minor));

  it('round-trips through the input text', () => {
    for (const minor of [0, 1, 99, 100, 123456, -42]) expect(parseMoney(moneyInputText(minor))).toBe(minor);
  });
});

describe('integers', () => {
  it.each([
    ['42', 42],
    ['-3', -3],
    ['1,000', 1000],
    ['', null],
    ['4.5', undefined],
    ['1e3', undefined],
  ])('parseInteger(%j) = %s', (text, value) => expect(parseInteger(text)).toBe(value));
});

describe('money with a currency', () => {
  it.each([
    [120000, 'EUR', '€1,200.00'],
    [-5, 'USD', '-$0.05'],
    [123456789012345, 'EUR', '€1,234,567,890,123.45'],
    [1234, undefined, '12.34'],
    [1234, 'XYZ1', '12.34 XYZ1'],
  ])('formatAmount(%s, %s) = %s', (minor, currency, text) => expect(formatAmount(minor, currency)).toBe(text));

  it('shows the currency wherever a value is written out', () => {
    expect(valueText(field('amount', 'money', { currency: 'EUR' }), 99)).toBe('€0.99');
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2031-05-10T12:00:00.000Z');
  const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString();
  it.each([
    [0, 'just now'],
    [44, 'just now'],
    [-30, 'just now'],
    [46, '1 minute ago'],
    [3 * 60, '3 minutes ago'],
    [3 * 60 + 29, '3 minutes ago'],
    [44 * 60, '44 minutes ago'],
    [50 * 60, '1 hour ago'],
    [5 * 3600, '5 hours ago'],
    [23 * 3600, '1 day ago'],
    [3 * 86_400, '3 days ago'],
    [40 * 86_400, '1 month ago'],
    [400 * 86_400, '1 year ago'],
    [-5 * 60, 'in 5 minutes'],
  ])('%s s ago reads %s', (seconds, text) => expect(relativeTime(ago(seconds), now)).toBe(text));

  it('leaves a text that is no time as it is', () => expect(relativeTime('yesterday', now)).toBe('yesterday'));
});

describe('joinWords', () => {
  it.each([
    [[], ''],
    [['Title'], 'Title'],
    [['Title', 'Hot'], 'Title and Hot'],
    [['Title', 'Hot', 'Notes'], 'Title, Hot and Notes'],
  ])('%j → %s', (words, text) => expect(joinWords(words)).toBe(text));
});
