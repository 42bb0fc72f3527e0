/**
 * Files after an erasure (commands/erase.ts): a personal file field's file is personal data — its
 * name, and its bytes. Once the erasure has emptied the record's fields and rewritten its history
 * and plans, a file of an erased value that nothing refers to any more (no record's file field, no
 * history entry, no pending plan: a colleague's record holding the same file keeps it) is
 * forgotten at once: its name becomes the erased marker, no one may attach it again (not even its
 * uploader), and it is due for the sweep (sweep.ts), which removes its row and, once no other file
 * has the same bytes, its content at its next pass.
 */
import type { Knex } from 'knex';
import type { RecordService } from '../commands/types.ts';
import type { ErasedValues } from '../erased.ts';
import { HISTORY_TABLE } from '../history/store.ts';
import { PLAN_TABLE } from '../plans/store.ts';
import { FILES_TABLE } from './store.ts';

/** What an erased file's row says of it: no name, no uploader, and an upload time every sweep is past. */
export const ERASED_FILE = { name: '[erased]', uploaded_by: 'erased', uploaded_at: '0001-01-01T00:00:00.000Z' } as const;

/** A file id in a stored file value (`FileRef`: `{"id", "name", "size", "type", "sha256"}`), or a list of them. */
const FILE_REF_ID = /"id":"([0-9A-HJKMNP-TV-Z]{26})"/g;

/** Forgets the files among the erased values that nothing refers to now; answers how many. */
export async function eraseFiles(db: Knex, erasure: { readonly service: RecordService; readonly values: ErasedValues }): Promise<number> {
  const ids = new Set<string>();
  for (const text of erasure.values.all()) {
    if (text.includes('"sha256":"')) for (const match of text.matchAll(FILE_REF_ID)) ids.add(match[1]!);
  }
  let erased = 0;
  for (const id of ids) {
    if (await stillReferred(db, erasure.service, id)) continue;
    erased += await db(FILES_TABLE).where({ id }).whereNot('uploaded_by', ERASED_FILE.uploaded_by).update(ERASED_FILE);
  }
  return erased;
}

/** Whether a record's file field (or a line's), a history entry or a pending plan still holds the file. */
async function stillReferred(db: Knex, service: RecordService, id: string): Promise<boolean> {
  const pattern = `%"${id}"%`;
  const holds = async (table: string, columns: readonly string[], where?: Record<string, unknown>) => {
    if (columns.length === 0) return false;
    const query = db(table).first(db.raw('1 as held')).where((inner) => {
      for (const column of columns) inner.orWhere(column, 'like', pattern);
    });
    if (where) query.andWhere(where);
    return (await query) !== undefined;
  };
  for (const model of service.models.values()) {
    if (await holds(model.meta.table.name, model.meta.fields.filter((field) => field.kind === 'file').map((field) => field.name))) return true;
    for (const list of model.lines.values()) {
      if (await holds(list.meta.table.name, list.meta.fields.filter((field) => field.kind === 'file').map((field) => field.name))) return true;
    }
  }
  return (await holds(HISTORY_TABLE, ['changes'])) || (await holds(PLAN_TABLE, ['input'], { status: 'pending' }));
}
