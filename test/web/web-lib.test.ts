/** Table tests of the web app's small pure functions: money and numbers, form drafts, error fields, routes, CSV, list columns. */
import { beforeEach, describe, expect, it } from 'vitest';
import { errorField, fieldMessage, isMissingRecord, ApiError } from '../../web/src/lib/api.ts';
import { collectInput, fromDraft, toDraft } from '../../web/src/lib/form.ts';
import { CSV_BOM, parseCsv, toCsv } from '../../web/src/lib/csv.ts';
import { fetchAllRows } from '../../web/src/lib/export.ts';
import { amountProblem, inDeclaredOrder, formatAmount, formatDate, formatMoney, minorDigits, moneyInputText, optionLabel, parseAmount, parseInteger, valueText } from '../../web/src/lib/format.ts';
import { appLocale, setAppLocale } from '../../web/src/lib/locale.ts';
import { columnOrder, defaultColumns, listColumns, parseSort, sortText } from '../../web/src/lib/list-prefs.ts';
import {
  defaultMapping,
  defuseFormula,
  exportCell,
  exportHeader,
  exportRow,
  importCell,
  importInput,
  isFormulaLike,
  resolveRef,
  undoDefuse,
  unmatchedColumns,
  type RefLookup,
} from '../../web/src/lib/records-csv.ts';
import { matchRoute } from '../../web/src/lib/router.ts';
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

describe('select options', () => {
  it.each([
    [['ended', 'draft'], ['draft', 'ended']],
    [['active', 'draft', 'ended'], ['draft', 'active', 'ended']],
    [['ended', 'legacy', 'draft'], ['draft', 'ended', 'legacy']],
  ])('keeps the declared order (draft, active, ended), not the order given: %j', (values, ordered) => {
    expect(inDeclaredOrder(field('state', 'select', { options: ['draft', 'active', 'ended'] }), values)).toEqual(ordered);
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
    ['amount', '12.345', 'Amount: “12.345” has more than 2 decimals (EUR); nothing is rounded'],
    ['amount', '950.001', 'Amount: “950.001” has more than 2 decimals (EUR); nothing is rounded'],
    ['amount', 'ten', 'Amount: “ten” is not an amount like 1,234.50'],
    ['count', '2.5', 'Count: “2.5” is not a whole number'],
    ['hot', 'maybe', 'Hot: “maybe” is not yes or no (true/false, yes/no, 1/0)'],
    ['due', '31/03/2025', 'Due: “31/03/2025” is not a date like 2025-03-31'],
    ['stage', 'lost', 'Stage: “lost” is not one of New, Closed won'],
  ])('importCell(%s, %j) fails: %s', (name, cell, error) => expect(importCell(fields.find((candidate) => candidate.name === name)!, cell)).toEqual({ ok: false, error }));

  it('maps columns to fields by name or label, each field once', () => {
    expect(defaultMapping(['TITLE', 'Amount (EUR)', 'due-date', 'Due', 'due', 'Extra'], fields)).toEqual(['title', 'amount', null, 'due', null, null]);
  });

  it('matches names and labels whatever their case, spaces and punctuation, and names every column that matches nothing', () => {
    const party = [field('name', 'text'), field('email', 'text', { label: 'Email' }), field('phone', 'text', { label: 'Phone' }), field('tax_id', 'text', { label: 'Tax ID' })];
    const headers = ['Name', 'E-mail', 'Phone number', 'TAX-ID', '', 'Notes'];
    const mapping = defaultMapping(headers, party);
    expect(mapping).toEqual(['name', 'email', null, 'tax_id', null, null]);
    expect(unmatchedColumns(headers, mapping)).toEqual(['Phone number', '(column 5)', 'Notes']);
    expect(unmatchedColumns(headers, ['name', 'email', 'phone', 'tax_id', null, null])).toEqual(['(column 5)', 'Notes']);
  });

  it.each([
    // [text, formula-like: gets an apostrophe on export]
    ['=SUM(A1)', true],
    ['=1+1', true],
    [' =1+1', true],
    ['\u00a0=1+1', true],
    ['\u3000=1+1', true],
    ['\u200b=1+1', true],
    ['＝1+1', true],
    ['＋cmd|calc', true],
    ['@SUM(A1)', true],
    ['+SUM(A1)', true],
    ['-A1', true],
    ['-2+3+cmd|\' /C calc\'!A0', true],
    ['+1+HYPERLINK("x")', true],
    ['\tx', true],
    ['\rx', true],
    ['+44 20 7946 0958', false],
    ['+1 (555) 010-9999', false],
    ['+49 30/1234-567', false],
    ['-12.50', false],
    ['-', true],
    ['+', true],
    ['plain text', false],
    ['a=b', false],
    ['sales@acme.example', false],
    ["'quoted", false],
  ])('isFormulaLike(%j) = %s', (text, formula) => {
    expect(isFormulaLike(text)).toBe(formula);
    expect(exportCell(fields[0]!, text)).toBe(formula ? `'${text}` : text);
  });

  it.each(['=SUM(A1)', ' =1+1', '\u00a0=1+1', '＝1+1', '+44 20 7946 0958', '-12.50', "'=x", "''=x", "'+44 1", "'plain", 'plain', '-A1', "'", '@x'])(
    'round-trips %j through export and import',
    (text) => {
      expect(undoDefuse(defuseFormula(text))).toBe(text);
      expect(importCell(fields[7]!, exportCell(fields[7]!, text))).toEqual({ ok: true, value: text });
    },
  );

  it('takes off the apostrophe older exports put before a phone number', () => {
    expect(importCell(fields[0]!, "'+44 20 7946 0958")).toEqual({ ok: true, value: '+44 20 7946 0958' });
  });

  it.each([
    ['JPY', '1234', 1234, '1234'],
    ['BHD', '12.345', 12345, '12.345'],
    ['EUR', '1,234.50', 123450, '1234.50'],
  ])('reads and writes %s amounts with the currency’s decimals', (currency, cell, minor, written) => {
    const amount = field('amount', 'money', { currency });
    expect(importCell(amount, cell)).toEqual({ ok: true, value: minor });
    expect(exportCell(amount, minor)).toBe(written);
  });

  it.each([
    ['JPY', '1234.5', 'Amount: “1234.5” has decimals (JPY); nothing is rounded'],
    ['BHD', '1.2345', 'Amount: “1.2345” has more than 3 decimals (BHD); nothing is rounded'],
    [undefined, '950.001', 'Amount: “950.001” has more than 2 decimals; nothing is rounded'],
  ])('refuses fractions of a %s minor unit by row', (currency, cell, error) => {
    expect(importCell(field('amount', 'money', currency ? { currency } : {}), cell)).toEqual({ ok: false, error });
  });

  it('writes amounts as the export does whatever the app’s locale', () => {
    setAppLocale('de-DE');
    expect(exportCell(fields[1]!, 123450)).toBe('1234.50');
    expect(importCell(fields[1]!, '1234.50')).toEqual({ ok: true, value: 123450 });
  });

  describe('refs by id or title', () => {
    const unit = {
      name: 'unit',
      module: 'rentals',
      label: 'Unit',
      description: '',
      title_field: 'code',
      commands: ['search'],
      denied: [],
      fields: [field('code', 'text', { label: 'Code' })],
      actions: [],
      lines: [],
      rules: [],
    } satisfies ModelInfo;
    const unitField = field('unit', 'ref', { target: 'unit' });
    const lookup: RefLookup = { target: unit, ids: new Set(['U1', 'U2', 'U3']), byTitle: new Map([['A-1', ['U1']], ['B-2', ['U2', 'U3']]]) };

    it.each([
      ['U2', { ok: true, value: 'U2' }],
      ['A-1', { ok: true, value: 'U1' }],
      ['B-2', { ok: false, error: 'Unit: “B-2” is the code of 2 unit records; use the id of the one you mean' }],
      ['C-3', { ok: false, error: 'Unit: no unit has the id or code “C-3”' }],
    ])('resolveRef(%j)', (value, result) => expect(resolveRef(unitField, value, lookup)).toEqual(result));

    it('sends a value as an id when the target cannot be looked up', () => {
      expect(resolveRef(unitField, 'C-3', undefined)).toEqual({ ok: true, value: 'C-3' });
    });

    it('resolves the refs of a row and reports every problem of it', () => {
      const rowFields = [field('title', 'text'), unitField];
      expect(importInput(['Flat', 'A-1'], ['title', 'unit'], rowFields, new Map([['unit', lookup]]))).toEqual({ input: { title: 'Flat', unit: 'U1' }, errors: [] });
      expect(importInput(['Flat', 'B-2'], ['title', 'unit'], rowFields, new Map([['unit', lookup]])).errors).toEqual(['Unit: “B-2” is the code of 2 unit records; use the id of the one you mean']);
    });
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
    lines: [],
    rules: [],
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

  it.each([
    [['hot', 'revenue', 'withheld'], ['hot', 'revenue']],
    [['close_date', 'party', 'stage'], ['close_date', 'party', 'stage']],
    [['reason', 'title', 'party'], ['reason', 'party']],
  ])('follows the module’s list hint %j in its order, among the fields the person reads', (list, columns) => {
    const hinted = model(lead.fields, { list });
    expect(defaultColumns(hinted)).toEqual(columns);
    expect(listColumns(hinted, undefined).map((column) => column.name)).toEqual(['title', ...columns]);
  });

  it('shows chosen columns in the hint’s order first, then the others in the model’s order', () => {
    const hinted = model(lead.fields, { list: ['close_date', 'party'] });
    expect(listColumns(hinted, ['notes', 'party', 'hot', 'close_date']).map((column) => column.name)).toEqual(['title', 'close_date', 'party', 'hot', 'notes']);
    expect(columnOrder(hinted).map((column) => column.name)).toEqual(['close_date', 'party', 'stage', 'revenue', 'probability', 'hot', 'notes', 'reason']);
  });

  it('shows what the person chose, dropping names that are gone', () => {
    expect(listColumns(lead, ['notes', 'gone', 'hot']).map((column) => column.name)).toEqual(['title', 'hot', 'notes']);
  });

  it('sorts only by fields the person reads', () => {
    expect(parseSort('-revenue', lead.fields)).toEqual({ field: 'revenue', dir: 'desc' });
    expect(parseSort('secret', lead.fields)).toBeNull();
    expect(sortText({ field: 'hot', dir: 'asc' })).toBe('hot');
  });
});
