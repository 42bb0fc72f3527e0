/**
 * The field kinds' builders refuse what a database cannot store, with the API's error texts: NUL
 * characters and lone surrogates in any text or id, text past its kind's length (counted in
 * characters, as PostgreSQL counts them), ids past their columns, dates outside 0001–9999.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { MAX_ID_LENGTH, TEXT_LIMITS, characterCount, indexedTextMaxLength, kinds, planId, recordId, revertInput, textProblem } from '../../runtime/kinds.ts';

function firstError(schema: z.ZodType, input: unknown): string | undefined {
  const result = schema.safeParse(input);
  return result.success ? undefined : result.error.issues[0]?.message;
}

describe('textProblem', () => {
  it.each<[string, string, number, string | undefined]>([
    ['plain text', 'Big deal', 10, undefined],
    ['empty', '', 10, undefined],
    ['a NUL', 'a\u0000b', 10, 'must not contain NUL characters'],
    ['only a NUL', '\u0000', 10, 'must not contain NUL characters'],
    ['a lone high surrogate', 'a\ud800', 10, 'must be valid Unicode text'],
    ['a lone low surrogate', '\udc00a', 10, 'must be valid Unicode text'],
    ['swapped halves', '\ude00\ud83d', 10, 'must be valid Unicode text'],
    ['a pair', '😀', 1, undefined],
    ['at the length', 'x'.repeat(10), 10, undefined],
    ['past it', 'x'.repeat(11), 10, 'must be at most 10 characters'],
    ['emoji at the length (20 UTF-16 units)', '😀'.repeat(10), 10, undefined],
    ['emoji past it', '😀'.repeat(11), 10, 'must be at most 10 characters'],
    ['a NUL is named before the length', `${'x'.repeat(20)}\u0000`, 10, 'must not contain NUL characters'],
  ])('%s', (_name, value, maxLength, problem) => {
    expect(textProblem(value, maxLength)).toBe(problem);
  });

  it('counts characters as PostgreSQL does', () => {
    expect(characterCount('')).toBe(0);
    expect(characterCount('abc')).toBe(3);
    expect(characterCount('Ærø 東京 🚀')).toBe(8);
    expect(characterCount('\ud800\ud800')).toBe(2);
    expect(characterCount('\ud83d\ude00\ud83d')).toBe(2);
  });
});

describe('field kinds', () => {
  it.each<[string, z.ZodType, unknown, string | undefined]>([
    ['text', kinds.text('lead.title'), 'x'.repeat(TEXT_LIMITS.text), undefined],
    ['text too long', kinds.text('lead.title'), 'x'.repeat(TEXT_LIMITS.text + 1), 'lead.title must be at most 10000 characters'],
    ['text with NUL', kinds.text('lead.title'), 'a\u0000', 'lead.title must not contain NUL characters'],
    ['text empty', kinds.text('lead.title'), '', 'lead.title is required'],
    ['indexed text', kinds.text('party.tax_id', { maxLength: 500 }), '東'.repeat(500), undefined],
    ['indexed text too long', kinds.text('party.tax_id', { maxLength: 500 }), '東'.repeat(501), 'party.tax_id must be at most 500 characters'],
    ['longtext', kinds.longtext('lead.notes'), 'n'.repeat(TEXT_LIMITS.longtext), undefined],
    ['longtext too long', kinds.longtext('lead.notes'), 'n'.repeat(TEXT_LIMITS.longtext + 1), 'lead.notes must be at most 1000000 characters'],
    ['longtext with a lone surrogate', kinds.longtext('lead.notes'), '\udfff', 'lead.notes must be valid Unicode text'],
    ['date', kinds.date('lead.close_date'), '2026-12-31', undefined],
    ['the first day', kinds.date('lead.close_date'), '0001-01-01', undefined],
    ['the last day', kinds.date('lead.close_date'), '9999-12-31', undefined],
    ['year 0', kinds.date('lead.close_date'), '0000-01-01', 'lead.close_date must be a real calendar date YYYY-MM-DD'],
    ['year 0, a leap day', kinds.date('lead.close_date'), '0000-02-29', 'lead.close_date must be a real calendar date YYYY-MM-DD'],
    ['year 10000', kinds.date('lead.close_date'), '10000-01-01', 'lead.close_date must be a real calendar date YYYY-MM-DD'],
    ['ref', kinds.ref('lead.party', 'party'), 'p'.repeat(MAX_ID_LENGTH), undefined],
    ['ref too long', kinds.ref('lead.party', 'party'), 'p'.repeat(MAX_ID_LENGTH + 1), 'lead.party must be at most 64 characters'],
    ['ref with NUL', kinds.ref('lead.party', 'party'), 'p\u0000', 'lead.party must not contain NUL characters'],
    ['ref not a string', kinds.ref('lead.party', 'party'), 7, 'lead.party must be the id of a party'],
    ['ref empty', kinds.ref('lead.party', 'party'), '', 'lead.party is required'],
    ['record id', recordId, 'r'.repeat(64), undefined],
    ['record id too long', recordId, 'r'.repeat(65), 'id must be at most 64 characters'],
    ['record id with NUL', recordId, '\u0000', 'id must not contain NUL characters'],
    ['record id with a lone surrogate', recordId, 'a\ud800', 'id must be valid Unicode text'],
    ['record id not a string', recordId, 5, 'id must be a string'],
    ['plan id too long', planId, 'q'.repeat(65), 'plan id must be at most 64 characters'],
    ['change id too long', revertInput('lead'), { id: 'l1', change_id: 'c'.repeat(65) }, 'change_id must be at most 64 characters'],
    ['change id with NUL', revertInput('lead'), { id: 'l1', change_id: 'c\u0000' }, 'change_id must not contain NUL characters'],
  ])('%s', (_name, schema, input, expected) => {
    expect(firstError(schema, input)).toBe(expected);
  });

  it('an index row holds 500 characters of text, shared by the text fields of one index', () => {
    expect([1, 2, 3, 4].map(indexedTextMaxLength)).toEqual([500, 250, 166, 125]);
    // At 4 bytes a character, what one index row gets of text stays well under PostgreSQL's 2704 bytes.
    expect(4 * TEXT_LIMITS.indexed + MAX_ID_LENGTH * 4).toBeLessThan(2704);
  });
});
