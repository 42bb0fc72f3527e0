/**
 * What the service knows of each uploaded file (`rms_files`): its id, content hash, name, size,
 * type, who uploaded it and when. The content is the storage's (storage.ts), by hash: two uploads
 * of the same bytes keep one copy. Records hold files as `FileRef`s (their JSON in the field's
 * column), so reading a record never reads this table.
 */
import type { Knex } from 'knex';
import type { FileRef } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import { createTableIfMissing } from '../db/system-tables.ts';

export const FILES_TABLE = 'rms_files';
/** The content of files in the database (`--files db`): by hash, in chunks of `CHUNK_BYTES`. */
export const FILE_CHUNKS_TABLE = 'rms_file_chunks';
export const CHUNK_BYTES = 256 * 1024;

export async function ensureFileTables(db: Knex): Promise<void> {
  await createTableIfMissing(db, FILES_TABLE, (table) => {
    table.string('id', 64).primary();
    table.string('sha256', 64).notNullable().index('rms_files_sha256');
    table.string('name', 1000).notNullable();
    table.bigInteger('size').notNullable();
    table.string('type', 255).notNullable();
    /** `person:<user id>` or `agent:<agent token id>`: who may attach it before any record holds it. */
    table.string('uploaded_by', 100).notNullable();
    /** ISO 8601 UTC; an upload no record holds is removed a day after. */
    table.string('uploaded_at', 32).notNullable().index('rms_files_uploaded_at');
  });
  await createTableIfMissing(db, FILE_CHUNKS_TABLE, (table) => {
    table.string('sha256', 64).notNullable();
    table.integer('seq').notNullable();
    table.binary('data').notNullable();
    table.primary(['sha256', 'seq']);
  });
}

/** A file as `rms_files` holds it. */
export interface StoredFile extends FileRef {
  readonly uploadedBy: string;
  readonly uploadedAt: string;
}

/** Who uploaded: the key `uploaded_by` holds. An agent's uploads are its token's, not its creator's. */
export function uploaderKey(caller: Caller): string {
  return caller.kind === 'person' ? `person:${caller.userId}` : `agent:${caller.tokenId}`;
}

export async function insertFile(db: Knex, file: StoredFile): Promise<void> {
  await db(FILES_TABLE).insert({ id: file.id, sha256: file.sha256, name: file.name, size: file.size, type: file.type, uploaded_by: file.uploadedBy, uploaded_at: file.uploadedAt });
}

function fromRow(row: Record<string, unknown>): StoredFile {
  return {
    id: String(row.id),
    name: String(row.name),
    size: Number(row.size),
    type: String(row.type),
    sha256: String(row.sha256),
    uploadedBy: String(row.uploaded_by),
    uploadedAt: String(row.uploaded_at),
  };
}

export async function findFile(db: Knex, id: string): Promise<StoredFile | undefined> {
  const row = (await db(FILES_TABLE).where({ id }).first()) as Record<string, unknown> | undefined;
  return row === undefined ? undefined : fromRow(row);
}

/** The files with these ids (those that exist), by id. */
export async function findFiles(db: Knex, ids: readonly string[]): Promise<Map<string, StoredFile>> {
  if (ids.length === 0) return new Map();
  const rows = (await db(FILES_TABLE).whereIn('id', [...ids])) as Record<string, unknown>[];
  return new Map(rows.map((row) => [String(row.id), fromRow(row)]));
}

/** A file as a record holds it. */
export function fileRef(file: FileRef): FileRef {
  return { id: file.id, name: file.name, size: file.size, type: file.type, sha256: file.sha256 };
}

/** Files uploaded before `before` (ISO 8601), oldest first, a page at a time: the sweep's candidates. */
export async function filesUploadedBefore(db: Knex, before: string, afterId: string, limit: number): Promise<StoredFile[]> {
  const rows = (await db(FILES_TABLE).where('uploaded_at', '<', before).andWhere('id', '>', afterId).orderBy('id').limit(limit)) as Record<string, unknown>[];
  return rows.map(fromRow);
}

/**
 * Deletes a file's row — with `before`, only if it was still last uploaded or attached before
 * then (a file attached since the sweep read what refers to files is kept: `touchFiles`); whether
 * it did.
 */
export async function deleteFileRow(db: Knex, id: string, before?: string): Promise<boolean> {
  const row = db(FILES_TABLE).where({ id });
  if (before !== undefined) row.andWhere('uploaded_at', '<', before);
  return (await row.delete()) > 0;
}

/**
 * Marks files as attached now, in the write's transaction: `uploaded_at` is when a file was last
 * uploaded or attached, so that a sweep that read what refers to files before the write commits
 * does not remove one the write holds.
 */
export async function touchFiles(db: Knex, ids: readonly string[], at: string): Promise<void> {
  if (ids.length > 0) await db(FILES_TABLE).whereIn('id', [...ids]).andWhere('uploaded_at', '<', at).update({ uploaded_at: at });
}
