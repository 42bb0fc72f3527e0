/**
 * Table tests of line lists in the web app: drafts of lines, moving them, what `create` and
 * `update` send, the problems found before sending, where the server's refusals go, what a list's
 * change is (plans, history, reverts), a line list's CSV file and the locked states.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { placeError } from '../../web/src/lib/form-errors.ts';
import { optionLabel } from '../../web/src/lib/format.ts';
import { revertFields, revertLists, shownChanges, shownLineChanges, undoneLines } from '../../web/src/lib/history.ts';
import { blankLine, collectLines, countProblem, diffLines, draftRecord, lineDrafts, moveLine, startingLines, type LineDraft } from '../../web/src/lib/lines.ts';
import { setAppLocale } from '../../web/src/lib/locale.ts';
import { lockedState } from '../../web/src/lib/meta.ts';
import { linesHeader, linesRows } from '../../web/src/lib/records-csv.ts';
import type { FieldInfo, HistoryEntryInfo, LineListInfo, ModelInfo, RecordValue } from '../../web/src/lib/types.ts';

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

const items: LineListInfo = {
  name: 'items',
  label: 'Items',
  description: '',
  min: 1,
  max: 3,
  fields: [
    field('description', 'text', { required: true, length: 200 }),
    field('quantity', 'decimal', { scale: 3, required: true, min: 0.001 }),
    field('unit_price', 'money', { required: true, min: 0 }),
    field('amount', 'money', { computed: true }),
  ],
  denied: ['order.items.note'],
};

const order: ModelInfo = {
  name: 'order',
  module: 'sales',
  label: 'Order',
  description: '',
  title_field: 'number',
  commands: ['get', 'create', 'update', 'history', 'revert'],
  denied: [],
  fields: [
    field('number', 'text', { required: true }),
    field('deliver_by', 'date'),
    field('total', 'money', { computed: true }),
    field('status', 'select', { governed: true, options: ['draft', 'confirmed', 'done', 'cancelled'] }),
  ],
  actions: [],
  lines: [items],
  rules: [{ fields: ['deliver_by'], message: 'deliver by must be on or after the order date' }],
  locked_in: { field: 'status', states: ['done', 'cancelled'] },
};

const stored: RecordValue = {
  id: 'O1',
  number: 'AB-1000',
  deliver_by: null,
  total: 1500,
  status: 'draft',
  items: [
    { id: 'L1', description: 'Widget', quantity: 2, unit_price: 500, amount: 1000 },
    { id: 'L2', description: 'Gadget', quantity: 1, unit_price: 500, amount: 500 },
  ],
};

beforeEach(() => setAppLocale('en-US'));

/** The drafts of `record`'s items, with one field of one line changed. */
function editedLines(record: RecordValue, edit?: (lines: LineDraft[]) => LineDraft[]): Record<string, LineDraft[]> {
  const lines = lineDrafts(items, record.items);
  return { items: edit ? edit(lines) : lines };
}
const withDraft = (line: LineDraft, name: string, value: string): LineDraft => ({ ...line, drafts: { ...line.drafts, [name]: value } });

describe('line drafts', () => {
  it('reads a record’s lines as the inputs show them, keeping their ids', () => {
    const [first] = lineDrafts(items, stored.items);
    expect(first).toMatchObject({ id: 'L1', drafts: { description: 'Widget', quantity: '2', unit_price: '5.00', amount: '10.00' } });
  });

  it('starts a new record with its least lines (one at least), each at its defaults', () => {
    const lines = startingLines({ ...order, lines: [{ ...items, min: 2, fields: [field('quantity', 'decimal', { scale: 3, default: { value: 1 } })] }] });
    expect(lines.items!.map((line) => line.drafts)).toEqual([{ quantity: '1' }, { quantity: '1' }]);
    expect(startingLines({ ...order, lines: [{ ...items, min: 0 }] }).items).toHaveLength(1);
    expect(blankLine(items).drafts).toEqual({ description: '', quantity: '', unit_price: '' });
  });

  it.each([
    [['a', 'b', 'c'], 1, -1, ['b', 'a', 'c']],
    [['a', 'b', 'c'], 1, 1, ['a', 'c', 'b']],
    [['a', 'b', 'c'], 0, -1, ['a', 'b', 'c']],
    [['a', 'b', 'c'], 2, 1, ['a', 'b', 'c']],
    [['a'], 0, 1, ['a']],
  ])('moveLine(%j, %s, %s) = %j', (lines, index, by, moved) => expect(moveLine(lines, index, by)).toEqual(moved));

  it.each([
    [0, 'Items needs at least 1 line'],
    [1, undefined],
    [3, undefined],
    [4, 'Items has at most 3 lines'],
  ])('%s lines: %s', (count, problem) => expect(countProblem(items, count)).toBe(problem));
});

describe('what create and update send', () => {
  it('a create sends every list, each line’s filled fields, no ids and no computed fields', () => {
    const lines = { items: [withDraft(withDraft(withDraft(blankLine(items), 'description', 'Widget'), 'quantity', '2.5'), 'unit_price', '1,200.50')] };
    expect(collectLines(order, lines)).toEqual({ input: { items: [{ description: 'Widget', quantity: 2.5, unit_price: 120050 }] }, errors: { lists: {}, lines: {} } });
  });

  it('an update leaves out a list that did not change', () => {
    expect(collectLines(order, editedLines(stored), stored).input).toEqual({});
  });

  it('an update sends a changed list whole: kept lines with their ids, new ones without, removed ones left out', () => {
    const lines = editedLines(stored, ([first, second]) => [withDraft(second!, 'quantity', '3'), withDraft(withDraft(withDraft(blankLine(items), 'description', 'Bolt'), 'quantity', '10'), 'unit_price', '0.25')]);
    expect(collectLines(order, lines, stored).input).toEqual({
      items: [
        { id: 'L2', description: 'Gadget', quantity: 3, unit_price: 500 },
        { description: 'Bolt', quantity: 10, unit_price: 25 },
      ],
    });
    expect(diffLines(items, stored.items, collectLines(order, lines, stored).input.items)).toEqual({
      added: [{ id: '', description: 'Bolt', quantity: 10, unit_price: 25 }],
      removed: [{ id: 'L1', description: 'Widget', quantity: 2, unit_price: 500, amount: 1000 }],
      changed: [{ id: 'L2', changes: { quantity: { from: 1, to: 3 } } }],
    });
  });

  it('a reorder alone is a change', () => {
    const lines = editedLines(stored, (drafts) => moveLine(drafts, 1, -1));
    expect(collectLines(order, lines, stored).input.items!.map((line) => (line as { id: string }).id)).toEqual(['L2', 'L1']);
  });

  it('finds each line’s problems beside its fields, and the list’s', () => {
    const lines = editedLines(stored, ([first, second]) => [withDraft(withDraft(first!, 'description', ''), 'quantity', '0'), withDraft(second!, 'unit_price', '1.999'), blankLine(items), blankLine(items)]);
    const { errors } = collectLines(order, lines, stored);
    const [l1, l2, l3] = lines.items!;
    expect(errors.lists).toEqual({ items: 'Items has at most 3 lines' });
    expect(errors.lines.items).toEqual({
      [l1!.key]: { fields: { description: 'Description is required', quantity: 'Quantity must be at least 0.001' } },
      [l2!.key]: { fields: { unit_price: 'Unit price takes at most 2 decimals; nothing is rounded' } },
      [l3!.key]: { fields: { description: 'Description is required', quantity: 'Quantity is required', unit_price: 'Unit price is required' } },
      [lines.items![3]!.key]: { fields: { description: 'Description is required', quantity: 'Quantity is required', unit_price: 'Unit price is required' } },
    });
  });

  it('an empty list of a model that needs lines is refused before sending', () => {
    expect(collectLines(order, { items: [] }).errors.lists).toEqual({ items: 'Items needs at least 1 line' });
  });
});

describe('the record as it will be saved, for computed fields while typing', () => {
  it('takes what the inputs hold (null while not valid), the rest from the stored record, lines in their order', () => {
    const drafts = { number: 'AB-1000', deliver_by: '' };
    const lines = editedLines(stored, ([first, second]) => [withDraft(second!, 'quantity', '4'), withDraft(first!, 'quantity', 'x')]);
    expect(draftRecord(order, drafts, lines, stored)).toEqual({
      id: 'O1',
      number: 'AB-1000',
      deliver_by: null,
      total: 1500,
      status: 'draft',
      items: [
        { id: 'L2', description: 'Gadget', quantity: 4, unit_price: 500, amount: 500 },
        { id: 'L1', description: 'Widget', quantity: null, unit_price: 500, amount: 1000 },
      ],
    });
  });
});

describe('where the server’s refusals go', () => {
  it.each([
    ['order.items[2].quantity is required', undefined, { kind: 'line', list: 'items', index: 2, field: 'quantity', message: 'Quantity is required' }],
    ['order.items[1].quantity must be at least 0.001', undefined, { kind: 'line', list: 'items', index: 1, field: 'quantity', message: 'Quantity must be at least 0.001' }],
    ['order.items[0].id is not a line of this order', undefined, { kind: 'line', list: 'items', index: 0, message: 'Line 1: id is not a line of this order' }],
    ['order.items needs at least 1 line', undefined, { kind: 'list', list: 'items', message: 'Items needs at least 1 line' }],
    ['order.items has at most 500 lines', undefined, { kind: 'list', list: 'items', message: 'Items has at most 500 lines' }],
    ['order: deliver by must be on or after the order date', { error: 'x', fields: ['deliver_by'] }, { kind: 'rule', fields: ['deliver_by'], message: 'Deliver by must be on or after the order date' }],
    ['order.number must be unique', undefined, { kind: 'field', field: 'number', message: 'Number must be unique' }],
    ['order.total is computed', undefined, { kind: 'field', field: 'total', message: 'Total is computed' }],
    ['order.itemsx is odd', undefined, undefined],
    ['order is done and cannot be changed', undefined, undefined],
  ] as const)('%j → %o', (message, body, place) => expect(placeError(order, message, body)).toEqual(place));
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

  it('a plan’s list against the record’s lines now: a line with an unknown id is added, fields it leaves out are not changes', () => {
    expect(diffLines(items, stored.items, [{ id: 'L1', quantity: 2 }, { id: 'nope', description: 'X' }])).toEqual({
      added: [{ id: 'nope', description: 'X' }],
      removed: [{ id: 'L2', description: 'Gadget', quantity: 1, unit_price: 500, amount: 500 }],
      changed: [],
    });
    expect(diffLines(items, undefined, [{ description: 'New' }])).toEqual({ added: [{ id: '', description: 'New' }], removed: [], changed: [] });
  });
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

describe('locked states', () => {
  it.each([
    ['draft', null],
    ['done', { field: 'status', state: 'done' }],
    ['cancelled', { field: 'status', state: 'cancelled' }],
  ])('an order that is %s: %o', (status, locked) => expect(lockedState(order, { ...stored, status })).toEqual(locked));

  it('a model without locked states, or a state the person may not read, is not locked', () => {
    expect(lockedState({ ...order, locked_in: undefined }, { ...stored, status: 'done' })).toBeNull();
    const { status: _, ...withoutStatus } = stored;
    expect(lockedState(order, withoutStatus)).toBeNull();
  });
});
