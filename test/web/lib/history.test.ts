/** Table tests of web/src/lib/history.ts: history entries: what each change shows and what a revert writes. */
import { describe, expect, it } from 'vitest';
import { sameValue, withheldName } from '../../../web/src/lib/changes.ts';
import { entryKind, revertFields, revertLists, shownChanges, shownLineChanges, undoneLines } from '../../../web/src/lib/history.ts';
import type { ModelInfo, HistoryEntryInfo } from '../../../web/src/lib/types.ts';
import { field, order } from '../../helpers/web-models.ts';

const lead: ModelInfo = {
  name: 'lead',
  module: 'crm',
  label: 'Lead',
  description: '',
  title_field: 'title',
  commands: ['get', 'history', 'update', 'revert'],
  denied: [],
  fields: [field('title', 'text'), field('stage', 'select', { options: ['new', 'won'], governed: true }), field('expected_revenue', 'money'), field('hot', 'bool'), field('notes', 'longtext')],
  actions: [],
  lines: [],
  rules: [],
};

const entry = (command: string, changes: HistoryEntryInfo['changes'], extra: Partial<HistoryEntryInfo> = {}): HistoryEntryInfo => ({
  change_id: 'C1',
  at: '2031-01-01T00:00:00.000Z',
  command,
  by: { kind: 'person', username: 'admin', agent_label: null },
  plan_id: null,
  changes,
  ...extra,
});

describe('history entries', () => {
  it('names the kind of change by its command', () => {
    expect(['lead.create', 'lead.update', 'lead.delete', 'lead.qualify'].map((command) => entryKind(entry(command, {})))).toEqual(['create', 'update', 'delete', 'action']);
  });

  it('shows changes in the field order, without empty-to-empty lines', () => {
    const deleted = entry('lead.delete', { notes: { from: null, to: null }, hot: { from: true, to: null }, title: { from: 'Gone', to: null } });
    expect(shownChanges(lead, deleted).map((change) => [change.name, change.from, change.to])).toEqual([
      ['title', 'Gone', null],
      ['hot', true, null],
    ]);
  });

  it('reverts an update’s non-governed fields only', () => {
    expect(revertFields(lead, entry('lead.update', { stage: { from: 'new', to: 'won' }, title: { from: 'A', to: 'B' } }))).toEqual(['title']);
    expect(revertFields(lead, entry('lead.update', { stage: { from: 'new', to: 'won' } }))).toEqual([]);
    expect(revertFields(lead, entry('lead.update', {}))).toEqual([]);
    for (const command of ['lead.create', 'lead.delete', 'lead.qualify', 'party.update']) {
      expect(revertFields(lead, entry(command, { title: { from: 'A', to: 'B' } }))).toEqual([]);
    }
    // A revert is an update too: it can be reverted in turn.
    expect(revertFields(lead, entry('lead.update', { hot: { from: true, to: false } }, { reverts: 'C0' }))).toEqual(['hot']);
  });

  it('compares values with empty as one', () => {
    expect(sameValue(null, undefined)).toBe(true);
    expect(sameValue('', null)).toBe(true);
    expect(sameValue(0, null)).toBe(false);
    expect(sameValue(false, null)).toBe(false);
    expect(sameValue(1200, 1200)).toBe(true);
  });

  it('names a withheld field by its name', () => {
    expect(withheldName('party.tax_id')).toBe('Tax id');
    expect(withheldName('invoice.internal_note')).toBe('Internal note');
  });
});

describe('a list’s change in history, plans and reverts', () => {
  const entry: HistoryEntryInfo = {
    change_id: 'C1',
    at: '2026-11-26T10:00:00.000Z',
    command: 'order.update',
    by: { kind: 'person', username: 'admin', agent_label: null },
    plan_id: null,
    changes: {
      deliver_by: { from: null, to: '2026-12-01' },
      items: { added: [{ id: 'L3', description: 'Bolt' }], removed: [], changed: [{ id: 'L1', changes: { quantity: { from: 2, to: 3 } } }] },
      gone: { added: [], removed: [], changed: [] },
    },
  };

  it('tells field changes from line changes', () => {
    expect(shownChanges(order, entry).map((change) => change.name)).toEqual(['deliver_by']);
    expect(shownLineChanges(order, entry).map((change) => [change.name, change.list?.label])).toEqual([['items', 'Items']]);
  });

  it('an update’s lines are reverted with its fields; an action’s are not', () => {
    expect([revertFields(order, entry), revertLists(order, entry)]).toEqual([['deliver_by'], ['items']]);
    expect(revertLists(order, { ...entry, command: 'order.confirm' })).toEqual([]);
  });

  it('undoing a change removes what it added, adds back what it removed, and puts back what it changed', () => {
    expect(undoneLines({ added: [{ id: 'L3' }], removed: [{ id: 'L9' }], changed: [{ id: 'L1', changes: { quantity: { from: 2, to: 3 } } }] })).toEqual({
      added: [{ id: 'L9' }],
      removed: [{ id: 'L3' }],
      changed: [{ id: 'L1', changes: { quantity: { from: 3, to: 2 } } }],
    });
  });

  it('undoing a change that moved lines puts back their order; a change of order alone is shown', () => {
    const moved = { added: [], removed: [], changed: [], order: { from: ['L1', 'L2'], to: ['L2', 'L1'] } };
    expect(undoneLines(moved)).toEqual({ added: [], removed: [], changed: [], order: { from: ['L2', 'L1'], to: ['L1', 'L2'] } });
    expect(shownLineChanges(order, { ...entry, changes: { items: moved } }).map((change) => change.name)).toEqual(['items']);
    expect(revertLists(order, { ...entry, changes: { items: moved } })).toEqual(['items']);
  });

});
