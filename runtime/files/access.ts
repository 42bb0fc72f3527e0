/**
 * Who may read a file: a caller that may read (in clear) a file field of a live record holding it
 * — the record's `get` right, the field's `read` roles, not withheld from it (`agents: 'hidden'`),
 * not masked for it (an agent and a personal field). A deleted record holds nothing; an upload no
 * record holds is readable by no one. Records hold their files' JSON in the field's column, so the
 * holder is found by the file's id in those columns (ids are the server's own: `FILE_ID`).
 */
import type { Knex } from 'knex';
import { auditActor, writeAudit } from '../audit/store.ts';
import type { Caller } from '../caller.ts';
import type { RecordService } from '../commands/types.ts';
import type { FieldMeta } from '../registry.ts';
import { rightsOf } from '../rights.ts';
import type { FileRef } from '../api-shapes.ts';

/** A file id as the service makes them (Crockford base32, 26 characters): nothing else is looked up. */
export const FILE_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** Where a caller may read the file: the record (the owner, for a line's field) and its field. */
export interface FileHolder {
  readonly model: string;
  readonly recordId: string;
  /** `<field>` or `<lines>.<field>`. */
  readonly field: string;
}

/** Whether a stored file field's value (one file or a list) holds the file. */
export function holdsFile(value: unknown, fileId: string): boolean {
  if (value === null || value === undefined) return false;
  const parsed = typeof value === 'string' ? (JSON.parse(value) as FileRef | FileRef[]) : (value as FileRef | FileRef[]);
  return Array.isArray(parsed) ? parsed.some((file) => file.id === fileId) : parsed.id === fileId;
}

/** The first place the caller may read the file at, or undefined (then it may not read it). */
export async function readableHolder(service: RecordService, caller: Caller, fileId: string, db: Knex = service.db): Promise<FileHolder | undefined> {
  if (!FILE_ID.test(fileId)) return undefined;
  const rights = rightsOf(service.registry, caller);
  const pattern = `%"id":"${fileId}"%`;
  for (const [name, model] of service.models) {
    if (!rights.commands.has(`${name}.get`)) continue;
    const fieldRights = rights.models[name]!;
    const fields = model.meta.fields.filter((field) => field.kind === 'file' && fieldRights.clearNames.has(field.name));
    const found = await firstHolding(db, model.meta.table.name, 'id', fields, pattern, fileId);
    if (found) return { model: name, recordId: found.id, field: found.field };
    for (const [listName, list] of model.lines) {
      const lineRights = fieldRights.lines[listName]!;
      const lineFields = list.meta.fields.filter((field) => field.kind === 'file' && lineRights.clearNames.has(field.name));
      const line = await firstHolding(db, list.meta.table.name, 'owner', lineFields, pattern, fileId);
      if (line) return { model: name, recordId: line.id, field: `${listName}.${line.field}` };
    }
  }
  return undefined;
}

async function firstHolding(db: Knex, table: string, idColumn: string, fields: readonly FieldMeta[], pattern: string, fileId: string): Promise<{ id: string; field: string } | undefined> {
  if (fields.length === 0) return undefined;
  const rows = (await db(table)
    .select(idColumn, ...fields.map((field) => field.name))
    .where((query) => {
      for (const field of fields) query.orWhere(field.name, 'like', pattern);
    })
    .limit(20)) as Record<string, unknown>[];
  for (const row of rows) {
    // LIKE finds candidates; the parsed value decides (a name is JSON-escaped, so it cannot imitate an id).
    const field = fields.find((candidate) => holdsFile(row[candidate.name], fileId));
    if (field) return { id: String(row[idColumn]), field: field.name };
  }
  return undefined;
}

/**
 * The audit row of a download (`GET /api/files/<id>` or MCP `resources/read`): `<model>.download_file`
 * of the record that holds the file, or of the pending plan that would attach it (`planId`).
 */
export async function auditDownload(db: Knex, caller: Caller, fileId: string, place: { readonly model: string; readonly recordId: string | null; readonly field: string; readonly planId?: string }): Promise<void> {
  const { model, recordId, field, planId } = place;
  await writeAudit(db, { ...auditActor(caller), command: `${model}.download_file`, access: 'read', recordId, ...(planId ? { planId } : {}), outcome: 'executed', status: 200, input: { file_id: fileId, field } });
}
