/** Table tests of the web app's small pure functions: money and numbers, form drafts, error fields, routes. */
import { describe, expect, it } from 'vitest';
import { errorField, fieldMessage, isMissingRecord, ApiError } from '../../web/src/lib/api.ts';
import { collectInput, fromDraft, toDraft } from '../../web/src/lib/form.ts';
import { formatMoney, moneyInputText, optionLabel, parseInteger, parseMoney } from '../../web/src/lib/format.ts';
import { matchRoute } from '../../web/src/lib/router.ts';
import type { FieldInfo } from '../../web/src/lib/types.ts';

const field = (name: string, kind: FieldInfo['kind'], extra: Partial<FieldInfo> = {}): FieldInfo => ({
  name,
  kind,
  label: optionLabel(name),
  description: '',
  required: false,
  personal: false,
  masked: false,
  governed: false,
  ...extra,
});

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

describe('server errors by field', () => {
  const names = ['title', 'close_date', 'party'];
  it.each([
    ['lead.title is required', 'title'],
    ['lead.close_date must be a real calendar date YYYY-MM-DD', 'close_date'],
    ['lead.party: no party with id 7', 'party'],
    ['unknown field lead.nope', undefined],
    ['party.name is required', undefined],
    ['lead 7 is referred to by invoice 9', undefined],
  ])('%j → %s', (message, name) => expect(errorField(message, 'lead', names)).toBe(name));

  it('names the field by its label', () => {
    expect(fieldMessage('lead.close_date must be a real calendar date YYYY-MM-DD', 'lead', { name: 'close_date', label: 'Close date' })).toBe('Close date must be a real calendar date YYYY-MM-DD');
  });

  it('knows a missing record when it sees one', () => {
    expect(isMissingRecord(new ApiError(404, 'not found'))).toBe(true);
    expect(isMissingRecord(new ApiError(400, 'lead 01ABC not found'))).toBe(true);
    expect(isMissingRecord(new ApiError(400, 'lead.title is required'))).toBe(false);
  });
});

describe('routes', () => {
  it.each([
    ['/', { page: 'home' }],
    ['/records/lead', { page: 'list', model: 'lead' }],
    ['/records/lead/new', { page: 'create', model: 'lead' }],
    ['/records/lead/01ABC', { page: 'record', model: 'lead', id: '01ABC' }],
    ['/records/lead/01ABC/edit', { page: 'edit', model: 'lead', id: '01ABC' }],
    ['/approvals', { page: 'approvals' }],
    ['/agent-tokens', { page: 'tokens' }],
    ['/audit', { page: 'audit' }],
    ['/records/lead/01ABC/what', { page: 'not-found' }],
    ['/elsewhere', { page: 'not-found' }],
  ])('%s', (path, route) => expect(matchRoute(path)).toEqual(route));
});
