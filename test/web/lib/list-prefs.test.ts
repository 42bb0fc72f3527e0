/** Table tests of web/src/lib/list-prefs.ts: list columns and sort. */
import { describe, expect, it } from 'vitest';
import { columnOrder, defaultColumns, listColumns, parseSort, sortText } from '../../../web/src/lib/list-prefs.ts';
import type { FieldInfo, ModelInfo } from '../../../web/src/lib/types.ts';
import { field } from '../../helpers/web-models.ts';

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
