/** Table tests of web/src/lib/format.ts: money, integers, option labels, relative times and word lists. */
import { beforeEach, describe, expect, it } from 'vitest';
import { amountProblem, inDeclaredOrder, formatAmount, formatDate, formatMoney, minorDigits, moneyInputText, parseAmount, parseInteger, valueText, joinWords, relativeTime } from '../../../web/src/lib/format.ts';
import { appLocale, setAppLocale } from '../../../web/src/lib/locale.ts';
import { field } from '../../helpers/web-models.ts';

// The app's locale is the browser's unless the service declares one: these tables pin it.
beforeEach(() => setAppLocale('en-US'));

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
    ['950.00', 95000],
    ['950', 95000],
    ['.5', 50],
    ['12.', 1200],
    ['1,234.56', 123456],
    ['1,200.50', 120050],
    ['1 234.56', 123456],
    ["1'234.56", 123456],
    [' 7 ', 700],
    ['-0.01', -1],
    ['\u22125', -500],
    ['+3', 300],
    ['', null],
    ['   ', null],
    ['9007199254740991', undefined],
    ['90071992547409.91', 9007199254740991],
  ])('parseAmount(%j) in en-US = %s minor units', (text, minor) => expect(parseAmount(text)).toEqual(minor === undefined ? { ok: false, problem: 'not-an-amount' } : { ok: true, value: minor }));

  it.each([
    ['12.345', 'EUR'],
    ['950.001', undefined],
    ['1.5', 'JPY'],
    ['0.0001', 'BHD'],
    ['950.000', 'EUR'],
  ])('parseAmount(%j, %s) refuses more decimals than the currency has, never rounding', (text, currency) =>
    expect(parseAmount(text, currency)).toEqual({ ok: false, problem: 'too-many-decimals' }),
  );

  it.each(['abc', '1.2.3', '.', '12,34.5', '1..2', '--5', '5-', '1e3', '$5', '1,234,5'])('parseAmount(%j) is not an amount', (text) =>
    expect(parseAmount(text)).toEqual({ ok: false, problem: 'not-an-amount' }),
  );

  it.each([
    // [text, locale, currency, minor units]
    ['1.234,56', 'de-DE', 'EUR', 123456],
    ['950,00', 'de-DE', 'EUR', 95000],
    ['950.00', 'de-DE', 'EUR', 95000],
    ['1.500', 'de-DE', 'EUR', 150000],
    ['1,5', 'de-DE', 'EUR', 150],
    ['1 234,56', 'fr-FR', 'EUR', 123456],
    ['1\u202f234,56', 'fr-FR', 'EUR', 123456],
    ['1,500', 'en-US', 'USD', 150000],
    ['1,50', 'en-US', 'USD', 150],
    ['1,234', 'en-US', 'JPY', 1234],
    ['1.234', 'de-DE', 'JPY', 1234],
    ['12.345', 'en-US', 'BHD', 12345],
    ['12,345', 'de-DE', 'BHD', 12345],
  ])('parseAmount(%j) in %s for %s = %s minor units', (text, locale, currency, minor) => expect(parseAmount(text, currency, locale)).toEqual({ ok: true, value: minor }));

  it.each([
    [0, '0.00'],
    [5, '0.05'],
    [1234, '12.34'],
    [123456789, '1,234,567.89'],
    [-1250, '-12.50'],
  ])('formatMoney(%s) = %s', (minor, text) => expect(formatMoney(minor)).toBe(text));

  it('round-trips through the input text, in every locale and with each currency’s decimals', () => {
    for (const locale of ['en-US', 'de-DE', 'fr-FR', 'de-CH', 'ja-JP']) {
      setAppLocale(locale);
      for (const currency of [undefined, 'EUR', 'JPY', 'BHD']) {
        for (const minor of [0, 1, 99, 100, 123456, -42, 9007199254740991]) expect(parseAmount(moneyInputText(minor, currency), currency)).toEqual({ ok: true, value: minor });
      }
    }
  });

  it.each([
    ['EUR', 2],
    ['JPY', 0],
    ['BHD', 3],
    [undefined, 2],
    ['XYZ1', 2],
  ])('minorDigits(%s) = %s', (currency, digits) => expect(minorDigits(currency)).toBe(digits));

  it('says what is wrong with a typed amount beside the field', () => {
    expect(amountProblem('Rent', 'not-an-amount', 'EUR')).toBe('Rent must be an amount like 1234.50');
    expect(amountProblem('Rent', 'too-many-decimals', 'EUR')).toBe('Rent takes at most 2 decimals (EUR); nothing is rounded');
    expect(amountProblem('Rent', 'too-many-decimals', 'JPY')).toBe('Rent takes no decimals (JPY has none); nothing is rounded');
    expect(amountProblem('Rent', 'not-an-amount', 'EUR', 'de-DE')).toBe('Rent must be an amount like 1234,50');
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
    [1234, 'JPY', '¥1,234'],
    [12345, 'BHD', 'BHD\u00a012.345'],
  ])('formatAmount(%s, %s) = %s', (minor, currency, text) => expect(formatAmount(minor, currency)).toBe(text));

  it.each([
    ['de-DE', '1.234,50\u00a0€', '31. März 2025'],
    ['en-GB', '€1,234.50', '31 Mar 2025'],
    ['fr-FR', '1\u202f234,50\u00a0€', '31 mars 2025'],
  ])('writes amounts and dates in the app’s locale (%s)', (locale, amount, date) => {
    setAppLocale(locale);
    expect(appLocale()).toBe(locale);
    expect(formatAmount(123450, 'EUR')).toBe(amount);
    expect(formatDate('2025-03-31')).toBe(date);
  });

  it('ignores a locale the browser does not know', () => {
    setAppLocale('xx-invalid-locale-zz');
    expect(appLocale()).toBe(new Intl.NumberFormat().resolvedOptions().locale);
  });

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

describe('select options', () => {
  it.each([
    [['ended', 'draft'], ['draft', 'ended']],
    [['active', 'draft', 'ended'], ['draft', 'active', 'ended']],
    [['ended', 'legacy', 'draft'], ['draft', 'ended', 'legacy']],
  ])('keeps the declared order (draft, active, ended), not the order given: %j', (values, ordered) => {
    expect(inDeclaredOrder(field('state', 'select', { options: ['draft', 'active', 'ended'] }), values)).toEqual(ordered);
  });
});
