/**
 * An edit form sends a line list, and a file field, whole: the list it shows becomes the record's
 * (a line left out is removed). Lines or files someone else added since the form was opened are
 * not in it, so saving would remove them without a word. Before saving, the form reads the record
 * again and names what was added meanwhile to the lists and file fields it is about to send; it
 * then does not save. (A write between that read and the save can still be lost: the window is a
 * request's, not a form's.)
 */
import type { FileRef, ModelInfo, RecordValue } from './types.ts';

/** What others added since `opened` to the lists and file fields `body` would replace, worded for the person; empty when nothing. */
export function addedSince(model: ModelInfo, opened: RecordValue, current: RecordValue, body: Readonly<Record<string, unknown>>): string[] {
  const added: string[] = [];
  for (const list of model.lines) {
    if (!(list.name in body)) continue;
    const count = newIds(idsOf(opened[list.name]), idsOf(current[list.name]));
    if (count > 0) added.push(`${count === 1 ? 'a line' : `${count} lines`} in ${list.label}`);
  }
  for (const field of model.fields) {
    if (field.kind !== 'file' || !(field.name in body)) continue;
    const count = newIds(idsOf(opened[field.name]), idsOf(current[field.name]));
    if (count > 0) added.push(`${count === 1 ? 'a file' : `${count} files`} in ${field.label}`);
  }
  return added;
}

/** The ids of a line list's lines or of a file field's files (one file, or a list of them). */
function idsOf(value: unknown): Set<string> {
  const items = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  return new Set(items.map((item) => (item as { id?: unknown } | FileRef).id).filter((id): id is string => typeof id === 'string'));
}

function newIds(before: ReadonlySet<string>, now: ReadonlySet<string>): number {
  let count = 0;
  for (const id of now) if (!before.has(id)) count++;
  return count;
}
