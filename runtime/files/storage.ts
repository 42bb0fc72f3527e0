/**
 * Where files' content lives, by SHA-256: on disk (`--files disk:<dir>`, `<dir>/<2 hex>/<sha256>`)
 * or in the database (`--files db`, chunks in `rms_file_chunks`, so that every instance on one
 * PostgreSQL sees every file with nothing else to run). An upload is first streamed to a
 * temporary file (upload.ts); `keep` moves it in — on disk by a rename, so a crash never leaves a
 * half file under a content name — and `read` streams a range back. Names given by clients never
 * reach the file system: only hashes do.
 */
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { parseDatabaseUrl } from '../db/connect.ts';
import { CHUNK_BYTES, FILE_CHUNKS_TABLE, FILES_TABLE } from './store.ts';
import { youngGarbageCollector } from './young-garbage.ts';

/** `--files`: a directory, or the database. */
export type FileStorageChoice = { readonly kind: 'disk'; readonly dir: string } | { readonly kind: 'db' };

/**
 * Where files go when `--files` says nothing: beside a SQLite database file, in `files/` of its
 * folder (`data/files` for the default `data/rms.sqlite`); in PostgreSQL (and an in-memory SQLite)
 * the database itself, so that every instance sees every file.
 */
export function defaultFileStorage(dbUrl: string): FileStorageChoice {
  const target = parseDatabaseUrl(dbUrl);
  if (target.dialect === 'sqlite' && target.location !== ':memory:') return { kind: 'disk', dir: join(dirname(target.location), 'files') };
  return { kind: 'db' };
}

export interface FileStorage {
  readonly choice: FileStorageChoice;
  /** Where uploads are streamed to before their hash is known. */
  readonly tempDir: string;
  /** Takes the temporary file in as the content of `sha256` (removing the temporary file). */
  keep(tempPath: string, sha256: string, size: number): Promise<void>;
  /** Bytes `start` to `end` (inclusive) of the content. */
  read(sha256: string, start: number, end: number): Readable;
  /**
   * Removes the content unless a file row holds it, checked as it removes (nothing when there is
   * none): an upload of the same bytes inserts its row before it keeps them (upload.ts), so that
   * a removal racing it either sees the row or is undone by `keep`.
   */
  remove(sha256: string): Promise<void>;
}

const SHA256 = /^[0-9a-f]{64}$/;

function checkedHash(sha256: string): string {
  // Hashes are the server's own; a path is never built from anything else.
  if (!SHA256.test(sha256)) throw new Error(`not a sha256: ${sha256.slice(0, 80)}`);
  return sha256;
}

export async function openFileStorage(choice: FileStorageChoice, db: Knex): Promise<FileStorage> {
  return choice.kind === 'disk' ? diskStorage(choice, db) : databaseStorage(choice, db);
}

/** Whether a file row holds the content. */
async function held(db: Knex, sha256: string): Promise<boolean> {
  return (await db(FILES_TABLE).where({ sha256 }).first('id')) !== undefined;
}

async function diskStorage(choice: Extract<FileStorageChoice, { kind: 'disk' }>, db: Knex): Promise<FileStorage> {
  const tempDir = join(choice.dir, 'tmp');
  await mkdir(tempDir, { recursive: true, mode: 0o700 });
  const pathOf = (sha256: string) => join(choice.dir, checkedHash(sha256).slice(0, 2), sha256);
  return {
    choice,
    tempDir,
    async keep(tempPath, sha256) {
      const target = pathOf(sha256);
      await mkdir(join(choice.dir, sha256.slice(0, 2)), { recursive: true, mode: 0o700 });
      // Same bytes, same name: a rename over an existing copy changes nothing a reader could see.
      await rename(tempPath, target);
    },
    read(sha256, start, end): ReadStream {
      return createReadStream(pathOf(sha256), { start, end });
    },
    async remove(sha256) {
      if (await held(db, sha256)) return;
      // Set aside, then looked at again: an upload of the same bytes may have inserted its row
      // meanwhile (and perhaps kept its copy already, the same bytes): then they are put back.
      const path = pathOf(sha256);
      const aside = `${path}.removing-${process.pid}`;
      try {
        await rename(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      if (await held(db, sha256)) await rename(aside, path);
      else await rm(aside, { force: true });
    },
  };
}

async function databaseStorage(choice: Extract<FileStorageChoice, { kind: 'db' }>, db: Knex): Promise<FileStorage> {
  // A folder of this process's own (0700, made new): a shared one that another user of the
  // machine made first could have a temporary file swapped between its hash and `keep`.
  const tempDir = await mkdtemp(join(tmpdir(), 'rmsgen-uploads-'));
  return {
    choice,
    tempDir,
    async keep(tempPath, sha256, size) {
      try {
        const count = Math.ceil(size / CHUNK_BYTES);
        const present = (await db(FILE_CHUNKS_TABLE).where({ sha256: checkedHash(sha256) }).count({ n: '*' }).first()) as { n: number | string } | undefined;
        if (Number(present?.n ?? 0) === count) return;
        // A chunk at a time: memory stays one chunk whatever the size; all or none (one transaction).
        // The same bytes uploaded at the same moment write the same chunks: the second copy of a
        // chunk is skipped, not a conflict.
        const handle = await open(tempPath, 'r');
        const garbage = youngGarbageCollector();
        try {
          await db.transaction(async (trx) => {
            for (let seq = 0; seq < count; seq++) {
              const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, size - seq * CHUNK_BYTES));
              await handle.read(buffer, 0, buffer.length, seq * CHUNK_BYTES);
              garbage.add(buffer.length);
              await trx(FILE_CHUNKS_TABLE).insert({ sha256, seq, data: buffer }).onConflict(['sha256', 'seq']).ignore();
            }
          });
        } finally {
          await handle.close();
        }
      } finally {
        await rm(tempPath, { force: true });
      }
    },
    read(sha256, start, end) {
      const hash = checkedHash(sha256);
      async function* chunks(): AsyncGenerator<Buffer> {
        for (let seq = Math.floor(start / CHUNK_BYTES); seq <= Math.floor(end / CHUNK_BYTES); seq++) {
          const row = (await db(FILE_CHUNKS_TABLE).where({ sha256: hash, seq }).first('data')) as { data: Buffer | Uint8Array } | undefined;
          if (!row) throw new Error(`file content ${hash} lacks chunk ${seq}`);
          const data = Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data);
          const from = seq === Math.floor(start / CHUNK_BYTES) ? start % CHUNK_BYTES : 0;
          const to = seq === Math.floor(end / CHUNK_BYTES) ? (end % CHUNK_BYTES) + 1 : data.length;
          yield data.subarray(from, to);
        }
      }
      return Readable.from(chunks());
    },
    async remove(sha256) {
      const hash = checkedHash(sha256);
      await db(FILE_CHUNKS_TABLE).where({ sha256: hash }).whereNotExists(db(FILES_TABLE).select(db.raw('1')).where({ sha256: hash })).delete();
    },
  };
}

/** A new temporary file's path and its write stream (exclusive: never an existing file). */
export function temporaryFile(storage: FileStorage, name: string): { path: string; stream: ReturnType<typeof createWriteStream> } {
  const path = join(storage.tempDir, name);
  return { path, stream: createWriteStream(path, { flags: 'wx', mode: 0o600 }) };
}
