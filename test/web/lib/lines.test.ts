/**
 * Table tests of web/src/lib/lines.ts: line lists in a form: drafts of lines, moving them, what
 * `create` and `update` send, the problems found before sending, the record as it will be saved,
 * and what a list's change is (plans, history, reverts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { blankLine, collectLines, countProblem, diffLines, draftRecord, lineDrafts, moveLine, startingLines, type LineDraft } from '../../../web/src/lib/lines.ts';
import { setAppLocale } from '../../../web/src/lib/locale.ts';
import type { RecordValue } from '../../../web/src/lib/types.ts';
import { field, items, order, stored } from '../../helpers/web-models.ts';

beforeEach(() => setAppLocale('en-US'));

/** The drafts of `record`'s items, changed by `edit`. */
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

  it('an update sends a changed list whole: kept lines as their ids and what changed, new ones without ids, removed ones left out', () => {
    const lines = editedLines(stored, ([first, second]) => [withDraft(second!, 'quantity', '3'), withDraft(withDraft(withDraft(blankLine(items), 'description', 'Bolt'), 'quantity', '10'), 'unit_price', '0.25')]);
    expect(collectLines(order, lines, stored).input).toEqual({
      items: [
        { id: 'L2', quantity: 3 },
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
    expect(collectLines(order, lines, stored).input).toEqual({ items: [{ id: 'L2' }, { id: 'L1' }] });
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
  it('takes what the inputs hold (null while empty, undefined while not yet a value), the rest from the stored record, lines in their order', () => {
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
        { id: 'L1', description: 'Widget', quantity: undefined, unit_price: 500, amount: 1000 },
      ],
    });
  });
});

describe('a plan’s lines against the record’s', () => {
  it('a plan’s list against the record’s lines now: a line with an unknown id is added, fields it leaves out are not changes', () => {
    expect(diffLines(items, stored.items, [{ id: 'L1', quantity: 2 }, { id: 'nope', description: 'X' }])).toEqual({
      added: [{ id: 'nope', description: 'X' }],
      removed: [{ id: 'L2', description: 'Gadget', quantity: 1, unit_price: 500, amount: 500 }],
      changed: [],
    });
    expect(diffLines(items, undefined, [{ description: 'New' }])).toEqual({ added: [{ id: '', description: 'New' }], removed: [], changed: [] });
  });
});
