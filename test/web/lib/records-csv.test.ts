/** Table tests of web/src/lib/records-csv.ts: records as CSV: export (all pages, each kind, a line list's file) and import mapping. */
import { beforeEach, describe, expect, it } from 'vitest';
import { fetchAllRows } from '../../../web/src/lib/export.ts';
import { setAppLocale } from '../../../web/src/lib/locale.ts';
import {
  defaultMapping,
  defuseFormula,
  exportCell,
  exportHeader,
  exportRow,
  importBlocker,
  importCell,
  importFields,
  importInput,
  linesHeader,
  linesRows,
  isFormulaLike,
  resolveRef,
  undoDefuse,
  unmatchedColumns,
  type RefLookup,
} from '../../../web/src/lib/records-csv.ts';
import type { FieldInfo, ModelInfo } from '../../../web/src/lib/types.ts';
import { field, items, order, stored } from '../../helpers/web-models.ts';

// The app's locale is the browser's unless the service declares one: these tables pin it.
beforeEach(() => setAppLocale('en-US'));

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

  it('writes a file field as its files\' ids, which import reads again', () => {
    const one = field('scan', 'file');
    const many = field('attachments', 'file', { multiple: true });
    const file = (id: string) => ({ id, name: `${id}.pdf`, size: 10, type: 'application/pdf', sha256: 'a'.repeat(64) });
    expect(exportCell(one, file('01M8FILEAAAAAAAAAAAAAAAAAA'))).toBe('01M8FILEAAAAAAAAAAAAAAAAAA');
    expect(exportCell(many, [file('01M8FILEAAAAAAAAAAAAAAAAAA'), file('01M8FILEBBBBBBBBBBBBBBBBBB')])).toBe('01M8FILEAAAAAAAAAAAAAAAAAA, 01M8FILEBBBBBBBBBBBBBBBBBB');
    expect(exportCell(many, [])).toBe('');
    expect(importCell(many, exportCell(many, [file('01M8FILEAAAAAAAAAAAAAAAAAA'), file('01M8FILEBBBBBBBBBBBBBBBBBB')]))).toEqual({ ok: true, value: ['01M8FILEAAAAAAAAAAAAAAAAAA', '01M8FILEBBBBBBBBBBBBBBBBBB'] });
    expect(importCell(one, exportCell(one, file('01M8FILEAAAAAAAAAAAAAAAAAA')))).toEqual({ ok: true, value: '01M8FILEAAAAAAAAAAAAAAAAAA' });
    expect(importCell(one, 'A, B')).toEqual({ ok: false, error: 'Scan: “A, B” names 2 files; the field holds one' });
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

describe('a line list’s CSV file', () => {
  it('writes one row per line, the record’s id and title first', () => {
    expect(linesHeader(order, items)).toEqual(['Order ID', 'Number', 'Line', 'Description', 'Quantity', 'Unit price', 'Amount']);
    expect(linesRows(order, items, [stored, { id: 'O2', number: '=HYPERLINK("x")', items: [{ id: 'L9', description: 'Nut', quantity: 0.5, unit_price: 10, amount: 5 }] }, { id: 'O3', number: 'AB-3' }])).toEqual([
      ['O1', 'AB-1000', '1', 'Widget', '2', '5.00', '10.00'],
      ['O1', 'AB-1000', '2', 'Gadget', '1', '5.00', '5.00'],
      ['O2', `'=HYPERLINK("x")`, '1', 'Nut', '0.5', '0.10', '0.05'],
    ]);
  });
});
