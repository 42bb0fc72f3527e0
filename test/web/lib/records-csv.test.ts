/** Table tests of web/src/lib/records-csv.ts: records as CSV: export (all pages) and import mapping. */
import { describe, expect, it } from 'vitest';
import { fetchAllRows } from '../../../web/src/lib/export.ts';
import { defaultMapping, exportHeader, exportRow, importCell, importInput } from '../../../web/src/lib/records-csv.ts';
import { field } from '../../helpers/web-models.ts';

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
