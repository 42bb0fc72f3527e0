/** Table tests of web/src/lib/form.ts: form drafts and the input they make. */
import { describe, expect, it } from 'vitest';
import { collectInput, fromDraft, toDraft } from '../../../web/src/lib/form.ts';
import { field } from '../../helpers/web-models.ts';

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
    expect(collectInput(fields, { title: ' ', amount: 'ten' }).errors).toEqual({ title: 'Title is required', amount: 'Amount must be an amount like 12.34' });
  });
});
