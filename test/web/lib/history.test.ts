/** Table tests of the web app's history helpers: times in words, which changes show and which revert, fragments. */
import { describe, expect, it } from 'vitest';
import { joinWords, optionLabel, relativeTime } from '../../../web/src/lib/format.ts';
import { entryKind, revertFields, sameValue, shownChanges, withheldName } from '../../../web/src/lib/history.ts';
import { fragmentId, matchRoute, paths } from '../../../web/src/lib/router.ts';
import type { FieldInfo, HistoryEntryInfo, ModelInfo } from '../../../web/src/lib/types.ts';

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

describe('relativeTime', () => {
  const now = Date.parse('2031-05-10T12:00:00.000Z');
  const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString();
  it.each([
    [0, 'just now'],
    [44, 'just now'],
    [-30, 'just now'],
    [46, '1 minute ago'],
    [3 * 60, '3 minutes ago'],
    [3 * 60 + 29, '3 minutes ago'],
    [44 * 60, '44 minutes ago'],
    [50 * 60, '1 hour ago'],
    [5 * 3600, '5 hours ago'],
    [23 * 3600, '1 day ago'],
    [3 * 86_400, '3 days ago'],
    [40 * 86_400, '1 month ago'],
    [400 * 86_400, '1 year ago'],
    [-5 * 60, 'in 5 minutes'],
  ])('%s s ago reads %s', (seconds, text) => expect(relativeTime(ago(seconds), now)).toBe(text));

  it('leaves a text that is no time as it is', () => expect(relativeTime('yesterday', now)).toBe('yesterday'));
});

describe('joinWords', () => {
  it.each([
    [[], ''],
    [['Title'], 'Title'],
    [['Title', 'Hot'], 'Title and Hot'],
    [['Title', 'Hot', 'Notes'], 'Title, Hot and Notes'],
  ])('%j → %s', (words, text) => expect(joinWords(words)).toBe(text));
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

describe('fragments', () => {
  it('links to a history entry and to a plan', () => {
    expect(paths.change('lead', 'L 1', '01ABC')).toBe('/records/lead/L%201#change-01ABC');
    expect(paths.plan('01PLAN')).toBe('/approvals#plan-01PLAN');
    expect(matchRoute(new URL(paths.change('lead', 'L1', 'X'), 'http://x').pathname)).toEqual({ page: 'record', model: 'lead', id: 'L1' });
  });

  it.each([
    ['#change-01ABC', 'change-', '01ABC'],
    ['#change-', 'change-', null],
    ['', 'change-', null],
    ['#plan-01P', 'change-', null],
    ['#plan-01P', 'plan-', '01P'],
    ['#change-%E0%A4%A', 'change-', null],
  ])('fragmentId(%j, %j) = %j', (hash, prefix, id) => expect(fragmentId(hash, prefix)).toBe(id));
});
