/** Table tests of web/src/lib/history.ts: history entries: what each change shows and what a revert writes. */
import { describe, expect, it } from 'vitest';
import { sameValue, withheldName } from '../../../web/src/lib/changes.ts';
import { entryKind, revertFields, shownChanges } from '../../../web/src/lib/history.ts';
import type { ModelInfo, HistoryEntryInfo } from '../../../web/src/lib/types.ts';
import { field } from '../../helpers/web-models.ts';

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
