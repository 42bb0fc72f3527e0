/** Table tests of web/src/lib/form.ts: form drafts and the input they make. */
import { beforeEach, describe, expect, it } from 'vitest';
import { setAppLocale } from '../../../web/src/lib/locale.ts';
import { collectInput, fromDraft, toDraft } from '../../../web/src/lib/form.ts';
import { field } from '../../helpers/web-models.ts';

// The app's locale is the browser's unless the service declares one: these tables pin it.
beforeEach(() => setAppLocale('en-US'));

describe('form drafts', () => {
  const fields = [field('title', 'text', { required: true }), field('amount', 'money'), field('hot', 'bool'), field('stage', 'select', { governed: true, options: ['new', 'won'] }), field('due', 'date')];

  it('turns values into drafts and back', () => {
    expect(toDraft(fields[1]!, 1234)).toBe('12.34');
    expect(toDraft(fields[2]!, null)).toBeNull();
    expect(fromDraft(fields[1]!, '12.34')).toEqual({ ok: true, value: 1234 });
    expect(fromDraft(fields[4]!, '2025-02-30x')).toMatchObject({ ok: false });
  });

  it('sends every non-empty field on create, skipping governed ones', () => {
    expect(collectInput(fields, { title: 'A', amount: '1', hot: null, stage: 'won', due: '' })).toEqual({ input: { title: 'A', amount: 100 }, errors: {} });
  });

  it('sends only changes on update, null to empty a field', () => {
    const original = { id: 'x', title: 'A', amount: 100, hot: true, stage: 'new', due: '2030-01-01' };
    expect(collectInput(fields, { title: 'A', amount: '2', hot: true, due: '' }, original)).toEqual({ input: { amount: 200, due: null }, errors: {} });
  });

  it('reports required and malformed fields before sending', () => {
    expect(collectInput(fields, { title: ' ', amount: 'ten' }).errors).toEqual({ title: 'Title is required', amount: 'Amount must be an amount like 1234.50' });
  });

  it.each([
    ['950.00', { ok: true, value: 95000 }],
    ['950', { ok: true, value: 95000 }],
    ['1,200.50', { ok: true, value: 120050 }],
    ['950.001', { ok: false, error: 'Amount takes at most 2 decimals; nothing is rounded' }],
  ])('takes the amount a person means: %j', (text, parsed) => expect(fromDraft(fields[1]!, text)).toEqual(parsed));

  it('reads and writes money drafts in the app’s locale', () => {
    setAppLocale('de-DE');
    const euros = field('rent', 'money', { currency: 'EUR' });
    expect(toDraft(euros, 95000)).toBe('950,00');
    expect(fromDraft(euros, '1.200,50')).toEqual({ ok: true, value: 120050 });
    expect(fromDraft(euros, '950.00')).toEqual({ ok: true, value: 95000 });
  });
});
