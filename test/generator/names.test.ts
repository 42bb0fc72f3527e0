/** Table tests for the small naming helpers the generator's output depends on. */
import { describe, expect, it } from 'vitest';
import { camelCase, defaultLabel, IDENTIFIER, inSentence, maskLabelOf, pascalCase, plural, withArticle } from '../../generator/names.ts';
import { closest, levenshtein } from '../../generator/suggest.ts';

describe('names', () => {
  it.each([
    ['expected_revenue', 'Expected revenue'],
    ['tax_id', 'Tax id'],
    ['lead', 'Lead'],
  ])('defaultLabel(%s) = %s', (name, label) => expect(defaultLabel(name)).toBe(label));

  it.each([
    ['Name', 'NAME'],
    ['Expected revenue', 'EXPECTED_REVENUE'],
    ['E-mail', 'E_MAIL'],
    ['Full  name', 'FULL_NAME'],
    ['Straße', 'STRASSE'],
  ])('maskLabelOf(%s) = %s', (label, mask) => expect(maskLabelOf(label)).toBe(mask));

  it.each([
    ['lead', 'lead', 'Lead'],
    ['lead_item', 'leadItem', 'LeadItem'],
    ['q_2', 'q_2', 'Q_2'],
    ['q2_target', 'q2Target', 'Q2Target'],
  ])('camelCase/pascalCase(%s)', (name, camel, pascal) => {
    expect(camelCase(name)).toBe(camel);
    expect(pascalCase(name)).toBe(pascal);
  });

  it.each([
    ['lead', true],
    ['expected_revenue', true],
    ['q2', true],
    ['Lead', false],
    ['lead__x', false],
    ['lead_', false],
    ['_lead', false],
    ['2lead', false],
    ['lead-x', false],
  ])('IDENTIFIER accepts %s: %s', (name, ok) => expect(IDENTIFIER.test(name)).toBe(ok));

  it('English phrases', () => {
    expect([plural('lead'), plural('party'), plural('tax'), plural('day'), plural('invoice')]).toEqual(['leads', 'parties', 'taxes', 'days', 'invoices']);
    expect([withArticle('lead'), withArticle('invoice')]).toEqual(['a lead', 'an invoice']);
    expect([inSentence('Lead'), inSentence('VAT rate')]).toEqual(['lead', 'VAT rate']);
  });

  it('did-you-mean', () => {
    expect(levenshtein('prty', 'party')).toBe(1);
    expect(closest('prty', ['lead', 'party'])).toBe('party');
    expect(closest('employee', ['lead', 'party'])).toBeUndefined();
  });
});
