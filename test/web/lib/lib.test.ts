/** Table tests of the web app's small pure functions: money and numbers, form drafts, error fields, routes, CSV, list columns. */
import { describe, expect, it } from 'vitest';
import { errorField, fieldMessage, isMissingRecord, ApiError } from '../../../web/src/lib/api.ts';
import { collectInput, fromDraft, toDraft } from '../../../web/src/lib/form.ts';
import { CSV_BOM, parseCsv, toCsv } from '../../../web/src/lib/csv.ts';
import { fetchAllRows } from '../../../web/src/lib/export.ts';
import { formatAmount, formatMoney, moneyInputText, optionLabel, parseInteger, parseMoney, valueText } from '../../../web/src/lib/format.ts';
import { defaultColumns, listColumns, parseSort, sortText } from '../../../web/src/lib/list-prefs.ts';
import { defaultMapping, exportHeader, exportRow, importCell, importInput } from '../../../web/src/lib/records-csv.ts';
import { matchRoute } from '../../../web/src/lib/router.ts';
import type { FieldInfo, ModelInfo } from '../../../web/src/lib/types.ts';

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
    ['/records/lead/import', { page: 'import', model: 'lead' }],
    ['/records/lead/01ABC', { page: 'record', model: 'lead', id: '01ABC' }],
    ['/records/lead/01ABC/edit', { page: 'edit', model: 'lead', id: '01ABC' }],
    ['/approvals', { page: 'approvals' }],
    ['/agent-tokens', { page: 'tokens' }],
    ['/audit', { page: 'audit' }],
    ['/records/lead/01ABC/what', { page: 'not-found' }],
    ['/elsewhere', { page: 'not-found' }],
  ])('%s', (path, route) => expect(matchRoute(path)).toEqual(route));
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

describe('CSV', () => {
  it('quotes what needs quoting (RFC 4180) and ends records with CRLF', () => {
    expect(toCsv([['a', 'b,c', 'say "hi"', 'two\nlines', ' padded', '']])).toBe('a,"b,c","say ""hi""","two\nlines"," padded",\r\n');
  });

  it('reads back what it writes, with the line each record starts on', () => {
    const records = [
      ['Title', 'Notes'],
      ['One', 'first\r\nsecond'],
      ['Two, "quoted"', ''],
      ['', 'only notes'],
    ];
    const parsed = parseCsv(CSV_BOM + toCsv(records));
    expect(parsed).toEqual({
      ok: true,
      separator: ',',
      records: [
        { line: 1, cells: ['Title', 'Notes'] },
        { line: 2, cells: ['One', 'first\r\nsecond'] },
        { line: 4, cells: ['Two, "quoted"', ''] },
        { line: 5, cells: ['', 'only notes'] },
      ],
    });
  });

  it('takes LF and CR line ends, semicolons, blank lines and a missing final line end', () => {
    expect(parseCsv('a;b\n\n1;"x;y"\r2;3')).toEqual({
      ok: true,
      separator: ';',
      records: [
        { line: 1, cells: ['a', 'b'] },
        { line: 3, cells: ['1', 'x;y'] },
        { line: 4, cells: ['2', '3'] },
      ],
    });
  });

  it('names the line of a quote that never ends', () => {
    expect(parseCsv('a,b\n1,"open\n2,3\n')).toEqual({ ok: false, error: 'A quoted field that starts on line 2 never ends.' });
  });
});

describe('records as CSV', () => {
  const fields = [
    field('title', 'text', { required: true }),
    field('amount', 'money', { currency: 'EUR' }),
    field('count', 'number'),
    field('hot', 'bool'),
    field('due', 'date'),
    field('stage', 'select', { options: ['new', 'closed_won'] }),
    field('party', 'ref', { target: 'party' }),
    field('notes', 'longtext'),
  ];

  it('writes values that import reads again, and defuses spreadsheet formulas', () => {
    const row = exportRow(fields, { id: 'R1', title: '=SUM(A1)', amount: 123450, count: 3, hot: false, due: '2025-03-31', stage: 'closed_won', party: 'P1', notes: null });
    expect(row).toEqual(['R1', "'=SUM(A1)", '1234.50', '3', 'false', '2025-03-31', 'closed_won', 'P1', '']);
    expect(exportHeader(fields).slice(0, 3)).toEqual(['ID', 'Title', 'Amount (EUR)']);
    const { input, errors } = importInput(row.slice(1), fields.map((candidate) => candidate.name), fields);
    expect(errors).toEqual([]);
    expect(input).toEqual({ title: '=SUM(A1)', amount: 123450, count: 3, hot: false, due: '2025-03-31', stage: 'closed_won', party: 'P1' });
  });

  it.each([
    ['amount', '1,234.50', 123450],
    ['amount', '€1,234.50', 123450],
    ['amount', '99 EUR', 9900],
    ['hot', 'Yes', true],
    ['hot', '0', false],
    ['stage', 'Closed won', 'closed_won'],
    ['stage', 'NEW', 'new'],
    ['title', '  spaced  ', 'spaced'],
    ['notes', 'keeps\nlines ', 'keeps\nlines '],
    ['count', '', undefined],
  ])('importCell(%s, %j) = %j', (name, cell, value) => expect(importCell(fields.find((candidate) => candidate.name === name)!, cell)).toEqual({ ok: true, value }));

  it.each([
    ['amount', '12.345', 'Amount: “12.345” is not an amount like 1,234.50'],
    ['count', '2.5', 'Count: “2.5” is not a whole number'],
    ['hot', 'maybe', 'Hot: “maybe” is not yes or no (true/false, yes/no, 1/0)'],
    ['due', '31/03/2025', 'Due: “31/03/2025” is not a date like 2025-03-31'],
    ['stage', 'lost', 'Stage: “lost” is not one of New, Closed won'],
  ])('importCell(%s, %j) fails: %s', (name, cell, error) => expect(importCell(fields.find((candidate) => candidate.name === name)!, cell)).toEqual({ ok: false, error }));

  it('maps columns to fields by name or label, each field once', () => {
    expect(defaultMapping(['TITLE', 'Amount (EUR)', 'due-date', 'Due', 'due', 'Extra'], fields)).toEqual(['title', 'amount', null, 'due', null, null]);
  });

  it('fetches every page until one comes back short', async () => {
    const all = Array.from({ length: 5 }, (_, index) => ({ id: `r${index}` }));
    const asked: number[] = [];
    const progress: number[] = [];
    const rows = await fetchAllRows(
      async (offset, limit) => {
        asked.push(offset);
        return { rows: all.slice(offset, offset + limit), total: null };
      },
      (done) => progress.push(done),
      2,
    );
    expect(rows.map((row) => row.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(asked).toEqual([0, 2, 4]);
    expect(progress).toEqual([2, 4, 5]);
  });

  it('stops at the total when the answer gives one', async () => {
    const asked: number[] = [];
    await fetchAllRows(
      async (offset) => {
        asked.push(offset);
        return { rows: [{ id: `a${offset}` }, { id: `b${offset}` }], total: 4 };
      },
      () => {},
      2,
    );
    expect(asked).toEqual([0, 2]);
  });
});

describe('list columns', () => {
  const model = (fields: readonly FieldInfo[], extra: Partial<ModelInfo> = {}): ModelInfo => ({
    name: 'lead',
    module: 'crm',
    label: 'Lead',
    description: '',
    title_field: 'title',
    commands: ['search'],
    denied: [],
    fields,
    actions: [],
    ...extra,
  });
  const lead = model([
    field('title', 'text', { required: true }),
    field('party', 'ref', { target: 'party' }),
    field('stage', 'select', { governed: true, options: ['new'] }),
    field('revenue', 'money'),
    field('probability', 'number'),
    field('close_date', 'date'),
    field('hot', 'bool'),
    field('notes', 'longtext'),
    field('reason', 'text'),
  ]);

  it('picks one field of each key kind first, never long text, in the model’s order', () => {
    expect(defaultColumns(lead)).toEqual(['party', 'stage', 'revenue', 'close_date']);
    expect(listColumns(lead, undefined).map((column) => column.name)).toEqual(['title', 'party', 'stage', 'revenue', 'close_date']);
  });

  it('prefers required fields within a kind', () => {
    const invoice = model([field('number', 'text'), field('lead', 'ref'), field('party', 'ref', { required: true }), field('due', 'date'), field('issued', 'date', { required: true }), field('total', 'money')], { title_field: 'number' });
    // Round one: money, the required date, the required ref; round two: the other date (before the other ref).
    expect(defaultColumns(invoice)).toEqual(['party', 'due', 'issued', 'total']);
  });

  it('follows the module’s list hint, among the fields the person reads', () => {
    expect(defaultColumns(model(lead.fields, { list: ['hot', 'revenue', 'withheld'] }))).toEqual(['revenue', 'hot']);
  });

  it('shows what the person chose, dropping names that are gone', () => {
    expect(listColumns(lead, ['notes', 'gone', 'hot']).map((column) => column.name)).toEqual(['title', 'hot', 'notes']);
  });

  it('sorts only by fields the person reads in clear', () => {
    expect(parseSort('-revenue', lead.fields)).toEqual({ field: 'revenue', dir: 'desc' });
    expect(parseSort('secret', lead.fields)).toBeNull();
    expect(sortText({ field: 'hot', dir: 'asc' })).toBe('hot');
  });
});
