/**
 * A record's line lists (order lines) in a form: each line's drafts, adding, removing and moving
 * lines, the arrays `create` and `update` send (an update sends a list whole: a line with its `id`
 * is kept and changed, one without is added, one left out is removed), and what a list's change is
 * (lines added, removed, changed), for plans and history alike.
 */
import { sameValue } from './changes.ts';
import { defaultDraft, draftValue, fromDraft, isEditable, toDraft, type Drafts, type FieldErrors } from './form.ts';
import { plural } from './format.ts';
import type { LineListInfo, LinesChangeInfo, ModelInfo, RecordValue } from './types.ts';

/** One line while it is edited: a key of its own (lines move), its id once stored, and its inputs. */
export interface LineDraft {
  readonly key: string;
  readonly id?: string;
  readonly drafts: Drafts;
}

/** Each line list's lines, by the list's name. */
export type ListDrafts = Readonly<Record<string, readonly LineDraft[]>>;

/** Problems of one line: by field, and of the line as a whole (`order.items[0].id is not a line of this order`). */
export interface LineErrors {
  readonly fields: FieldErrors;
  readonly line?: string;
}

/** Problems of a form's line lists: of a list as a whole (how many lines), and per line, by the line's key. */
export interface ListErrors {
  readonly lists: Readonly<Record<string, string>>;
  readonly lines: Readonly<Record<string, Readonly<Record<string, LineErrors>>>>;
}

export const NO_LIST_ERRORS: ListErrors = { lists: {}, lines: {} };

let lastKey = 0;
function nextKey(): string {
  lastKey += 1;
  return `line-${lastKey}`;
}

/** A record's lines of `list` (as `get` answers them), as drafts. */
export function lineDrafts(list: LineListInfo, lines: unknown): LineDraft[] {
  if (!Array.isArray(lines)) return [];
  return lines.map((line: Record<string, unknown>) => ({
    key: nextKey(),
    ...(typeof line.id === 'string' ? { id: line.id } : {}),
    drafts: Object.fromEntries(list.fields.map((field) => [field.name, toDraft(field, line[field.name])])),
  }));
}

/** A new line: each field at its default. */
export function blankLine(list: LineListInfo, now: Date = new Date()): LineDraft {
  return { key: nextKey(), drafts: Object.fromEntries(list.fields.filter(isEditable).map((field) => [field.name, defaultDraft(field, now)])) };
}

/** The new record's lists: `min` lines each (at least one line to start with), at their defaults. */
export function startingLines(model: ModelInfo, now: Date = new Date()): Record<string, LineDraft[]> {
  return Object.fromEntries(model.lines.map((list) => [list.name, Array.from({ length: Math.max(1, list.min) }, () => blankLine(list, now))]));
}

/** The lines with the one at `index` moved `by` places (−1 up, +1 down); unchanged past either end. */
export function moveLine<T>(lines: readonly T[], index: number, by: number): T[] {
  const to = index + by;
  if (index < 0 || index >= lines.length || to < 0 || to >= lines.length) return [...lines];
  const moved = [...lines];
  const [line] = moved.splice(index, 1);
  moved.splice(to, 0, line!);
  return moved;
}

/** `Items needs at least 1 line`, `Items has at most 500 lines`: the server's words, with the list's label. */
export function countProblem(list: LineListInfo, count: number): string | undefined {
  if (count < list.min) return `${list.label} needs at least ${plural(list.min, 'line')}`;
  if (count > list.max) return `${list.label} has at most ${plural(list.max, 'line')}`;
  return undefined;
}

/**
 * The line lists as the input of a create (`original` undefined: every list, each line's non-empty
 * fields) or an update (each list that changed, whole: a kept line as its `id` and the fields the
 * person changed, so that someone else's change of its other fields meanwhile stands; a new line
 * without an id; a removed one left out), with the problems found before sending.
 */
export function collectLines(model: ModelInfo, lists: ListDrafts, original?: RecordValue): { input: Record<string, unknown[]>; errors: ListErrors } {
  const input: Record<string, unknown[]> = {};
  const listErrors: Record<string, string> = {};
  const lineErrors: Record<string, Record<string, LineErrors>> = {};
  for (const list of model.lines) {
    const lines = lists[list.name] ?? [];
    const editable = list.fields.filter(isEditable);
    const storedLines = linesIn(original?.[list.name]);
    const stored = new Map(storedLines.map((line) => [String(line.id), line]));
    const sent: Record<string, unknown>[] = [];
    let changed = original === undefined || lines.length !== storedLines.length;
    lines.forEach((line, index) => {
      const before = line.id === undefined ? undefined : stored.get(line.id);
      const value: Record<string, unknown> = line.id === undefined ? {} : { id: line.id };
      const errors: FieldErrors = {};
      for (const field of editable) {
        const parsed = fromDraft(field, line.drafts[field.name]);
        if (!parsed.ok) errors[field.name] = parsed.error;
        else if (parsed.value === null && field.required) errors[field.name] = `${field.label} is required`;
        else if (before ? !sameValue(before[field.name], parsed.value) : parsed.value !== null) value[field.name] = parsed.value;
      }
      if (Object.keys(errors).length > 0) (lineErrors[list.name] ??= {})[line.key] = { fields: errors };
      // A new line, a changed one, or one in another place changes the list.
      if (!before || Object.keys(value).length > 1 || storedLines[index]?.id !== line.id) changed = true;
      sent.push(value);
    });
    const count = countProblem(list, lines.length);
    if (count !== undefined) listErrors[list.name] = count;
    if (changed) input[list.name] = sent;
  }
  return { input, errors: { lists: listErrors, lines: lineErrors } };
}

/** Whether a form's lists hold no problem. */
export function hasListErrors(errors: ListErrors): boolean {
  return Object.keys(errors.lists).length > 0 || Object.values(errors.lines).some((byLine) => Object.keys(byLine).length > 0);
}

/**
 * The record as it would be saved, for its computed fields while people type: `base` (the stored
 * record, or nothing for a new one) with what the inputs hold now (null where empty, undefined where
 * not yet a value: see `draftValue`), each list's lines in their order.
 */
export function draftRecord(model: ModelInfo, drafts: Drafts, lists: ListDrafts, base?: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const field of model.fields) record[field.name] = field.name in drafts && isEditable(field) ? draftValue(field, drafts[field.name]) : (base?.[field.name] ?? null);
  if (base?.id !== undefined) record.id = base.id;
  for (const list of model.lines) {
    const stored = Array.isArray(base?.[list.name]) ? (base![list.name] as Record<string, unknown>[]) : [];
    record[list.name] = (lists[list.name] ?? []).map((line) => {
      const before = stored.find((candidate) => line.id !== undefined && candidate.id === line.id);
      const value: Record<string, unknown> = line.id === undefined ? {} : { id: line.id };
      for (const field of list.fields) value[field.name] = field.name in line.drafts && isEditable(field) ? draftValue(field, line.drafts[field.name]) : (before?.[field.name] ?? null);
      return value;
    });
  }
  return record;
}

/** A list's lines in a record or an input, as objects (anything else: none). */
function linesIn(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((line): line is Record<string, unknown> => typeof line === 'object' && line !== null) : [];
}

/**
 * What sending `proposed` (a list as an update or a plan carries it) would do to the `current`
 * lines: lines without an id (or with one that is not a current line) are added, current lines
 * left out are removed, and each kept line's fields that would change, from → to.
 */
export function diffLines(list: LineListInfo, current: unknown, proposed: unknown): LinesChangeInfo {
  const before = linesIn(current);
  const after = linesIn(proposed);
  const byId = new Map(before.map((line) => [String(line.id), line]));
  const kept = new Set<string>();
  const added: RecordValue[] = [];
  const changed: { id: string; changes: Record<string, { from: unknown; to: unknown }> }[] = [];
  for (const line of after) {
    const stored = typeof line.id === 'string' ? byId.get(line.id) : undefined;
    if (!stored) {
      added.push({ ...line, id: typeof line.id === 'string' ? line.id : '' });
      continue;
    }
    kept.add(String(stored.id));
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const field of list.fields) {
      if (field.name in line && !sameValue(stored[field.name], line[field.name])) changes[field.name] = { from: stored[field.name] ?? null, to: line[field.name] ?? null };
    }
    if (Object.keys(changes).length > 0) changed.push({ id: String(stored.id), changes });
  }
  const removed = before.filter((line) => !kept.has(String(line.id))).map((line) => ({ ...line, id: String(line.id) }));
  return { added, removed, changed };
}

/** Whether a list's change does anything. */
export function changesLines(change: LinesChangeInfo): boolean {
  return change.added.length > 0 || change.removed.length > 0 || change.changed.length > 0 || change.order !== undefined;
}

/** A history entry's or a plan's change of a line list, told from a field's change by its shape. */
export function isLinesChange(change: unknown): change is LinesChangeInfo {
  return typeof change === 'object' && change !== null && Array.isArray((change as LinesChangeInfo).added) && Array.isArray((change as LinesChangeInfo).removed) && Array.isArray((change as LinesChangeInfo).changed);
}
