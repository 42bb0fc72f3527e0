/**
 * A record's history (`<model>.history`) as people read it: what kind of change an entry is, which
 * of its fields to show, whether it can be reverted (`<model>.revert`) and what that puts back.
 */
import { run } from './api.ts';
import { isEmptyValue } from './changes.ts';
import { changesLines, isLinesChange } from './lines.ts';
import { fieldOf } from './meta.ts';
import type { FieldChangeInfo, FieldInfo, HistoryEntryInfo, LineListInfo, LinesChangeInfo, ModelInfo, SearchAnswer } from './types.ts';

export type EntryKind = 'create' | 'update' | 'delete' | 'action';

/** `lead.create` → create; `lead.qualify` → action (an `update` that moved a governed field is still an update). */
export function entryKind(entry: HistoryEntryInfo): EntryKind {
  const name = entry.command.slice(entry.command.indexOf('.') + 1);
  return name === 'create' || name === 'update' || name === 'delete' ? name : 'action';
}

export interface ShownChange {
  readonly name: string;
  readonly field: FieldInfo | undefined;
  readonly from: unknown;
  readonly to: unknown;
}

/**
 * The changes worth a line, in the model's field order: a delete lists every field, also those
 * that were empty already; an empty-to-empty line says nothing.
 */
export function shownChanges(model: ModelInfo, entry: HistoryEntryInfo): ShownChange[] {
  const order = new Map(model.fields.map((field, index) => [field.name, index]));
  return Object.entries(entry.changes)
    .filter((pair): pair is [string, FieldChangeInfo] => !isLinesChange(pair[1]))
    .filter(([, change]) => !(isEmptyValue(change.from) && isEmptyValue(change.to)))
    .sort(([a], [b]) => (order.get(a) ?? Number.MAX_SAFE_INTEGER) - (order.get(b) ?? Number.MAX_SAFE_INTEGER))
    .map(([name, change]) => ({ name, field: fieldOf(model, name), from: change.from, to: change.to }));
}

/** A line list's change in an entry: its lines added, removed and changed. */
export interface ShownLinesChange {
  readonly name: string;
  /** The list as the reader knows it; undefined for one meta does not describe. */
  readonly list: LineListInfo | undefined;
  readonly change: LinesChangeInfo;
}

/** The line lists an entry changed, in the model's order. */
export function shownLineChanges(model: ModelInfo, entry: HistoryEntryInfo): ShownLinesChange[] {
  const order = new Map(model.lines.map((list, index) => [list.name, index]));
  return Object.entries(entry.changes)
    .filter((pair): pair is [string, LinesChangeInfo] => isLinesChange(pair[1]) && changesLines(pair[1]))
    .sort(([a], [b]) => (order.get(a) ?? Number.MAX_SAFE_INTEGER) - (order.get(b) ?? Number.MAX_SAFE_INTEGER))
    .map(([name, change]) => ({ name, list: model.lines.find((list) => list.name === name), change }));
}

/** What undoing a list's change does: removes the lines it added, adds back those it removed, puts back what it changed and the order. */
export function undoneLines(change: LinesChangeInfo): LinesChangeInfo {
  return {
    added: change.removed,
    removed: change.added,
    changed: change.changed.map((line) => ({ id: line.id, changes: Object.fromEntries(Object.entries(line.changes).map(([name, field]) => [name, { from: field.to, to: field.from }])) })),
    ...(change.order ? { order: { from: change.order.to, to: change.order.from } } : {}),
  };
}

/** The line lists a revert of `entry` puts back: those an `update` changed (a revert restores lines too). */
export function revertLists(model: ModelInfo, entry: HistoryEntryInfo): string[] {
  if (entry.command !== `${model.name}.update`) return [];
  return shownLineChanges(model, entry)
    .filter((change) => change.list !== undefined)
    .map((change) => change.name);
}

/**
 * The fields a revert of `entry` puts back: what an `update` changed besides governed fields
 * (those only move by actions). Empty when the entry cannot be reverted: a create, a delete, an
 * action, or an update of governed fields only. The server decides in the end (a field the
 * reader does not see also refuses it).
 */
export function revertFields(model: ModelInfo, entry: HistoryEntryInfo): string[] {
  if (entry.command !== `${model.name}.update`) return [];
  return shownChanges(model, entry)
    .filter((change) => change.field !== undefined && !change.field.governed)
    .map((change) => change.name);
}

/** Entries a page of the record page's history shows. */
export const HISTORY_PAGE = 10;
/** Entries read at once while looking for one change. */
const SCAN_PAGE = 200;

/**
 * Where a change is in a record's history (newest first), reading it page by page: its entry and
 * index, or null when the record's history does not hold it.
 */
export async function findChange(model: string, id: string, changeId: string): Promise<{ entry: HistoryEntryInfo; index: number; total: number } | null> {
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const answer = await run<SearchAnswer<HistoryEntryInfo>>(model, 'history', { id, limit: SCAN_PAGE, offset });
    const at = answer.rows.findIndex((entry) => entry.change_id === changeId);
    if (at >= 0) return { entry: answer.rows[at]!, index: offset + at, total: answer.total };
    if (answer.rows.length < SCAN_PAGE || offset + SCAN_PAGE >= answer.total) return null;
  }
}
