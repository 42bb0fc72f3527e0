/**
 * Table tests of how the web app handles the field kinds decimal, datetime, email, url, phone and
 * multiselect, and every kind's checks: typed text → JSON (in the app's locale and the reader's time
 * zone), JSON → text and links, `min`/`max`/`length`/`pattern` in the server's words, defaults, which
 * fields a form writes, filter operators, and CSV cells.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collectInput, defaultDraft, fromDraft, isEditable, parseDraft, toDraft } from '../../web/src/lib/form.ts';
import {
  decimalInputText,
  formatDecimal,
  formatInstant,
  instantFromLocal,
  linkHref,
  localDateTimeText,
  localToday,
  optionLabel,
  parseDecimal,
  plainNumber,
  valueText,
} from '../../web/src/lib/format.ts';
import { setAppLocale } from '../../web/src/lib/locale.ts';
import { exportCell, importBlocker, importCell, importFields } from '../../web/src/lib/records-csv.ts';
import type { FieldInfo, ModelInfo } from '../../web/src/lib/types.ts';

const field = (name: string, kind: FieldInfo['kind'], extra: Partial<FieldInfo> = {}): FieldInfo => ({
  name,
  kind,
  label: optionLabel(name),
  description: '',
  required: false,
  personal: false,
  masked: false,
  governed: false,
  computed: false,
  writable: true,
  ...extra,
});

// Datetimes are typed and shown in the reader's time zone: these tables pin one with a clock change.
const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Europe/Berlin';
});
afterAll(() => {
  process.env.TZ = zone;
});
beforeEach(() => setAppLocale('en-US'));

describe('decimal', () => {
  it.each([
    // [text, scale, locale, value]
    ['2.5', 3, 'en-US', 2.5],
    ['2', 3, 'en-US', 2],
    ['0.001', 3, 'en-US', 0.001],
    ['1,250.125', 3, 'en-US', 1250.125],
    ['-0.5', 2, 'en-US', -0.5],
    ['0.1', 1, 'en-US', 0.1],
    ['2,5', 3, 'de-DE', 2.5],
    ['1.250,125', 3, 'de-DE', 1250.125],
    ['1.500', 3, 'de-DE', 1500],
    ['12', 0, 'en-US', 12],
    ['', 2, 'en-US', null],
  ])('parseDecimal(%j, scale %s) in %s = %s', (text, scale, locale, value) => expect(parseDecimal(text, scale, locale)).toEqual({ ok: true, value }));

  it.each([
    ['2.5001', 3, 'too-many-decimals'],
    ['0.5', 0, 'too-many-decimals'],
    ['abc', 2, 'not-an-amount'],
    ['1.2.3', 2, 'not-an-amount'],
    ['1e3', 2, 'not-an-amount'],
  ])('parseDecimal(%j, scale %s) is refused: %s, never rounded', (text, scale, problem) => expect(parseDecimal(text, scale, 'en-US')).toEqual({ ok: false, problem }));

  it('sends the number as written, with no float noise', () => {
    const parsed = parseDecimal('0.3', 2, 'en-US');
    expect(JSON.stringify(parsed.ok && parsed.value)).toBe('0.3');
  });

  it.each([
    [2.5, 'en-US', '2.5'],
    [2.5, 'de-DE', '2,5'],
    [1250.125, 'en-US', '1250.125'],
    [0.000001, 'en-US', '0.000001'],
  ])('decimalInputText(%s) in %s = %j (no grouping, so it reads back)', (value, locale, text) => expect(decimalInputText(value, locale)).toBe(text));

  it('round-trips through the input text in every locale', () => {
    for (const locale of ['en-US', 'de-DE', 'fr-FR', 'de-CH']) {
      for (const value of [0, 0.001, 2.5, -12.125, 1234567.5, 999999999.999]) expect(parseDecimal(decimalInputText(value, locale), 3, locale)).toEqual({ ok: true, value });
    }
  });

  it.each([
    [1250.5, 3, '1,250.5'],
    [2, 3, '2'],
    [0.125, 2, '0.13'],
  ])('formatDecimal(%s, scale %s) = %s', (value, scale, text) => expect(formatDecimal(value, scale)).toBe(text));

  it('writes plain numbers for CSV', () => {
    expect([plainNumber(0.000001), plainNumber(1234567.5), plainNumber(-2)]).toEqual(['0.000001', '1234567.5', '-2']);
  });
});

describe('datetime', () => {
  it.each([
    ['2026-11-26T15:30', '2026-11-26T15:30:00+01:00'],
    ['2026-07-01T09:05', '2026-07-01T09:05:00+02:00'],
    ['2026-07-01T09:05:07', '2026-07-01T09:05:07+02:00'],
    ['0099-01-01T00:00', '0099-01-01T00:00:00+00:53'],
  ])('instantFromLocal(%j) in Berlin = %j', (text, iso) => expect(instantFromLocal(text)).toBe(iso));

  it.each(['', '2026-02-30T10:00', '2026-11-26', '26.11.2026 15:30', '2026-11-26T25:00'])('instantFromLocal(%j) is not a date and time', (text) => expect(instantFromLocal(text)).toBeNull());

  it.each([
    ['2026-11-26T14:30:00.000Z', '2026-11-26T15:30'],
    ['2026-07-01T07:05:07.000Z', '2026-07-01T09:05:07'],
    [null, ''],
  ])('localDateTimeText(%j) in Berlin = %j', (iso, text) => expect(localDateTimeText(iso)).toBe(text));

  it('shows an instant in the app locale with the reader’s time zone named', () => {
    expect(formatInstant('2026-11-26T14:30:00.000Z')).toBe('Nov 26, 2026, 03:30 PM GMT+1');
    setAppLocale('de-DE');
    expect(formatInstant('2026-07-01T07:05:00.000Z')).toBe('1. Juli 2026, 09:05 MESZ');
  });

  it('a wall time the clock change skips is moved as the browser moves it', () => expect(instantFromLocal('2026-03-29T02:30')).toBe('2026-03-29T03:30:00+02:00'));

  it('a typed time and the instant it is sent as are the same instant', () => {
    const sent = instantFromLocal('2026-03-29T03:30');
    expect(Date.parse(sent!)).toBe(Date.parse('2026-03-29T01:30:00Z'));
    expect(localDateTimeText(new Date(Date.parse(sent!)).toISOString())).toBe('2026-03-29T03:30');
  });
});

describe('links', () => {
  it.each([
    ['email', 'ana@example.com', 'mailto:ana@example.com'],
    ['email', 'ana @example.com', undefined],
    ['email', 'ana@example.com?subject=x', undefined],
    ['email', 'javascript:alert(1)//@x.y', undefined],
    ['url', 'https://example.com/a?b=1', 'https://example.com/a?b=1'],
    ['url', 'http://example.com', 'http://example.com/'],
    ['url', 'javascript:alert(1)', undefined],
    ['url', 'JavaScript:alert(document.cookie)', undefined],
    ['url', ' javascript:alert(1)', undefined],
    ['url', 'data:text/html,<script>alert(1)</script>', undefined],
    ['url', 'vbscript:msgbox(1)', undefined],
    ['url', '//evil.example/', undefined],
    ['url', 'example.com', undefined],
    ['phone', '+44 20 7946 0958', 'tel:+442079460958'],
    ['phone', '(555) 010-9999', 'tel:5550109999'],
    ['phone', 'PHONE_1', undefined],
    ['text', 'https://example.com', undefined],
  ] as const)('linkHref(%s, %j) = %s: only mailto, tel and http(s) are links', (kind, value, href) => expect(linkHref(kind, value)).toBe(href));
});

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

describe('CSV cells of the new kinds', () => {
  it.each([
    [field('quantity', 'decimal', { scale: 3 }), 1250.125, '1250.125'],
    [field('quantity', 'decimal', { scale: 3 }), 0.000001, '0.000001'],
    [field('delivered_at', 'datetime'), '2026-11-26T14:30:00.000Z', '2026-11-26T14:30:00.000Z'],
    [field('tags', 'multiselect', { options: ['rush', 'gift', 'export'] }), ['export', 'rush'], 'rush, export'],
    [field('contact_email', 'email'), 'ana@example.com', 'ana@example.com'],
    [field('website', 'url'), 'https://example.com', 'https://example.com'],
    [field('phone', 'phone'), '+44 20 7946 0958', '+44 20 7946 0958'],
    [field('phone', 'phone'), '=HYPERLINK("x")', `'=HYPERLINK("x")`],
  ] as const)('exportCell(%o, %j) = %j', (info, value, cell) => expect(exportCell(info, value)).toBe(cell));

  it.each([
    [field('quantity', 'decimal', { scale: 3 }), '1,250.125', { ok: true, value: 1250.125 }],
    [field('quantity', 'decimal', { scale: 3 }), '2.5001', { ok: false, error: 'Quantity: “2.5001” has more than 3 decimals; nothing is rounded' }],
    [field('quantity', 'decimal', { scale: 3 }), 'two', { ok: false, error: 'Quantity: “two” is not a number like 1,234.500' }],
    [field('delivered_at', 'datetime'), '2026-11-26T14:30:00.000Z', { ok: true, value: '2026-11-26T14:30:00.000Z' }],
    [field('delivered_at', 'datetime'), '2026-11-26T15:30:00+01:00', { ok: true, value: '2026-11-26T15:30:00+01:00' }],
    [field('delivered_at', 'datetime'), '2026-11-26 15:30', { ok: false, error: 'Delivered at: “2026-11-26 15:30” is not a date and time with its offset, like 2025-03-31T14:30:00Z' }],
    [field('tags', 'multiselect', { options: ['rush', 'gift', 'export'] }), 'export, RUSH; Gift', { ok: true, value: ['rush', 'gift', 'export'] }],
    [field('tags', 'multiselect', { options: ['rush', 'gift', 'export'] }), 'rush, fragile', { ok: false, error: 'Tags: “fragile” is not one of Rush, Gift, Export' }],
    [field('website', 'url'), "'=1+1", { ok: true, value: '=1+1' }],
  ] as const)('importCell(%o, %j) = %j', (info, cell, parsed) => expect(importCell(info, cell)).toEqual(parsed));

  it('round-trips each kind through export and import', () => {
    const cases: [FieldInfo, unknown][] = [
      [field('quantity', 'decimal', { scale: 3 }), -12.125],
      [field('delivered_at', 'datetime'), '2026-11-26T14:30:00.000Z'],
      [field('tags', 'multiselect', { options: ['rush', 'gift', 'export'] }), ['rush', 'export']],
      [field('phone', 'phone'), '+44 20 7946 0958'],
      [field('contact_email', 'email'), 'ana@example.com'],
    ];
    for (const [info, value] of cases) expect(importCell(info, exportCell(info, value))).toEqual({ ok: true, value });
  });
});

describe('importing a model with lines', () => {
  const model = (min: number): ModelInfo => ({
    name: 'order',
    module: 'sales',
    label: 'Order',
    description: '',
    title_field: 'number',
    commands: ['create'],
    denied: [],
    fields: [field('number', 'text'), field('total', 'money', { computed: true }), field('credit_limit', 'money', { writable: false })],
    actions: [],
    lines: [{ name: 'items', label: 'Items', description: '', min, max: 500, fields: [field('description', 'text')], denied: [] }],
    rules: [],
  });

  it('says why a model whose lines are required cannot be imported', () => {
    expect(importBlocker(model(1), 'Orders')).toBe(
      'Orders cannot be imported from CSV: each order needs at least one line of items, and an import creates orders without their lines. Create them here with New order, or through the API, which takes the lines with the order.',
    );
    expect(importBlocker(model(0), 'Orders')).toBeUndefined();
  });

  it('imports only the fields a person writes', () => expect(importFields(model(0)).map((info) => info.name)).toEqual(['number']));
});
