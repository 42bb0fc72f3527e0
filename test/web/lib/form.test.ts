/** Table tests of web/src/lib/form.ts: form drafts and the input they make; each kind's checks in the server's words; defaults; which fields a form writes. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setAppLocale } from '../../../web/src/lib/locale.ts';
import { collectInput, computedValue, defaultDraft, draftValue, fromDraft, isEditable, parseDraft, toDraft } from '../../../web/src/lib/form.ts';
import { localToday, valueText } from '../../../web/src/lib/format.ts';
import type { FieldInfo } from '../../../web/src/lib/types.ts';
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

  it('file fields: drafts hold the files, the input their ids (one, or a list), and an update sends them only when they changed', () => {
    const a = { id: '01AAAAAAAAAAAAAAAAAAAAAAAA', name: 'a.pdf', size: 10, type: 'application/pdf', sha256: 'a'.repeat(64) };
    const b = { ...a, id: '01BBBBBBBBBBBBBBBBBBBBBBBB', name: 'b.png', type: 'image/png' };
    const many = field('attachments', 'file', { multiple: true });
    const one = field('contract', 'file');
    expect(toDraft(many, [a, b])).toEqual([a, b]);
    expect(toDraft(one, a)).toEqual([a]);
    expect(toDraft(one, 'CONTRACT_1')).toEqual([]);
    expect(fromDraft(many, [a, b])).toEqual({ ok: true, value: [a.id, b.id] });
    expect(fromDraft(one, [a])).toEqual({ ok: true, value: a.id });
    expect(fromDraft(many, [])).toEqual({ ok: true, value: null });
    const original = { id: 'x', attachments: [a, b], contract: a };
    expect(collectInput([many, one], { attachments: [a, b], contract: [a] }, original)).toEqual({ input: {}, errors: {} });
    expect(collectInput([many, one], { attachments: [b], contract: [] }, original)).toEqual({ input: { attachments: [b.id], contract: null }, errors: {} });
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

// Datetimes are typed and shown in the reader's time zone: pinned to one with a clock change, and
// restored at once (test files share their worker's process).
const zone = process.env.TZ;
const inBerlin = () => {
  beforeAll(() => {
    process.env.TZ = 'Europe/Berlin';
  });
  afterAll(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });
};

describe('multiselect', () => {
  const tags = field('tags', 'multiselect', { options: ['rush', 'gift', 'export'] });

  it('keeps the declared order whatever order options were ticked in', () => {
    expect(fromDraft(tags, ['export', 'rush'])).toEqual({ ok: true, value: ['rush', 'export'] });
    expect(valueText(tags, ['gift', 'rush'])).toBe('Rush, Gift');
    expect(toDraft(tags, ['export', 'gift'])).toEqual(['gift', 'export']);
  });

  it('sends none ticked as empty', () => {
    expect(fromDraft(tags, [])).toEqual({ ok: true, value: null });
    expect(toDraft(tags, null)).toEqual([]);
  });

  it('is required with none ticked', () => {
    expect(collectInput([{ ...tags, required: true }], { tags: [] }).errors).toEqual({ tags: 'Tags is required' });
  });
});

describe('a field’s checks, in the server’s words with the label', () => {
  inBerlin();

  it.each([
    [field('quantity', 'decimal', { scale: 3, min: 0.001 }), '0', 'Quantity must be at least 0.001'],
    [field('quantity', 'decimal', { scale: 3 }), '2.5001', 'Quantity has at most 3 decimal places'],
    [field('quantity', 'decimal', { scale: 3 }), 'two', 'Quantity must be a number'],
    [field('discount_pct', 'decimal', { scale: 2, min: 0, max: 100 }), '100.01', 'Discount pct must be at most 100'],
    [field('unit_price', 'money', { min: 0 }), '-1', 'Unit price must be at least 0.00'],
    [field('unit_price', 'money', { min: 100, currency: 'EUR' }), '0.99', 'Unit price must be at least €1.00'],
    [field('seats', 'number', { max: 10 }), '11', 'Seats must be at most 10'],
    [field('deliver_by', 'date', { min: '2026-01-01' }), '2025-12-31', 'Deliver by must be at least 2026-01-01'],
    [field('delivered_at', 'datetime', { max: '2026-01-01T00:00:00Z' }), '2026-01-01T01:00:01', 'Delivered at must be at most 2026-01-01T00:00:00Z'],
    [field('description', 'text', { length: 5 }), '123456', 'Description must be at most 5 characters'],
    [field('number', 'text', { pattern: '[A-Z]{2}-[0-9]{4,}' }), 'AB-12', 'Number does not match the required pattern'],
    [field('number', 'text', { pattern: '[A-Z]{2}-[0-9]{4,}' }), 'xAB-1234', 'Number does not match the required pattern'],
    [field('contact_email', 'email'), 'ana@', 'Contact email must be an email address'],
    [field('contact_email', 'email', { length: 10 }), 'ana@example.com', 'Contact email must be at most 10 characters'],
    [field('website', 'url'), 'javascript:alert(1)', 'Website must be a URL'],
    [field('website', 'url'), 'example.com', 'Website must be a URL'],
    [field('phone', 'phone'), '12 34', 'Phone must be a phone number'],
    [field('phone', 'phone'), '+44 20 7946 0958 ext 1', 'Phone must be a phone number'],
    [field('delivered_at', 'datetime'), '2026-02-30T10:00', 'Delivered at must be a date and time'],
  ] as const)('%o refuses %j: %s', (info, text, error) => expect(fromDraft(info, text)).toEqual({ ok: false, error }));

  it.each([
    [field('quantity', 'decimal', { scale: 3, min: 0.001 }), '0.001', 0.001],
    [field('discount_pct', 'decimal', { scale: 2, min: 0, max: 100 }), '100', 100],
    [field('description', 'text', { length: 2 }), '😀😀', '😀😀'],
    [field('number', 'text', { pattern: '[A-Z]{2}-[0-9]{4,}' }), 'AB-1234', 'AB-1234'],
    [field('contact_email', 'email'), ' ana@example.com ', 'ana@example.com'],
    [field('website', 'url'), 'https://example.com', 'https://example.com'],
    [field('phone', 'phone'), '+44 20 7946 0958', '+44 20 7946 0958'],
    [field('delivered_at', 'datetime'), '2026-11-26T15:30', '2026-11-26T15:30:00+01:00'],
    [field('note', 'text', { pattern: '(' }), 'anything', 'anything'],
  ] as const)('%o takes %j as %j', (info, text, value) => expect(fromDraft(info, text)).toEqual({ ok: true, value }));

  it('filters take values past a field’s checks (a range below its min)', () => {
    expect(parseDraft(field('quantity', 'decimal', { scale: 3, min: 1 }), '0.5')).toEqual({ ok: true, value: 0.5 });
  });
});

describe('defaults and what a form writes', () => {
  inBerlin();

  const now = new Date('2026-11-26T23:30:00Z'); // already the 27th in Berlin

  it.each([
    [field('discount_pct', 'decimal', { scale: 2, default: { value: 0 } }), '0'],
    [field('discount_pct', 'decimal', { scale: 2, default: { value: 12.5 } }), '12.5'],
    [field('ordered_on', 'date', { default: 'today' }), '2026-11-27'],
    [field('delivered_at', 'datetime', { default: 'now' }), '2026-11-27T00:30'],
    [field('kind', 'select', { options: ['a', 'b'], default: { value: 'b' } }), 'b'],
    [field('tags', 'multiselect', { options: ['rush', 'gift'], default: { value: ['gift', 'rush'] } }), ['rush', 'gift']],
    [field('paid', 'bool', { default: { value: true } }), true],
    [field('unit_price', 'money', { default: { value: 1250 } }), '12.50'],
    [field('notes', 'text'), ''],
  ] as const)('%o starts a new record at %j', (info, draft) => expect(defaultDraft(info, now)).toEqual(draft));

  it('localToday is the reader’s day', () => expect(localToday(now)).toBe('2026-11-27'));

  it('never sends a computed field, one the role may not write, or a governed one', () => {
    const fields = [field('title', 'text'), field('total', 'money', { computed: true }), field('credit_limit', 'money', { writable: false }), field('status', 'select', { governed: true, options: ['draft'] })];
    expect(fields.map(isEditable)).toEqual([true, false, false, false]);
    expect(collectInput(fields, { title: 'A', total: '5', credit_limit: '100', status: 'draft' })).toEqual({ input: { title: 'A' }, errors: {} });
    expect(collectInput(fields, { title: 'B', total: '5', credit_limit: '100' }, { id: 'x', title: 'A', total: 1, credit_limit: 2 })).toEqual({ input: { title: 'B' }, errors: {} });
  });
});

describe('computed fields while typing', () => {
  it('an input that is not yet a value is unknown, an empty one empty', () => {
    const quantity = field('quantity', 'decimal', { scale: 3 });
    expect([draftValue(quantity, '2.5'), draftValue(quantity, ''), draftValue(quantity, '2.5001'), draftValue(quantity, 'x')]).toEqual([2.5, null, undefined, undefined]);
  });

  it.each([
    [field('amount', 'money'), 1234.5, 1235],
    [field('amount', 'money'), Number.NaN, null],
    [field('amount', 'money'), Number.POSITIVE_INFINITY, null],
    [field('amount', 'money'), undefined, null],
    [field('share', 'decimal', { scale: 2 }), 1 / 3, 0.33],
    [field('count', 'number'), 2.5, 3],
    [field('label', 'text'), 'A', 'A'],
  ] as const)('%o: a function’s %s is shown as the server stores it, %s', (info, value, shown) => expect(computedValue(info, value)).toBe(shown));
});
