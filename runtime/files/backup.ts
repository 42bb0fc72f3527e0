/**
 * Files on disk in `rmsgen backup` and `restore` (docs/operations.md): the content files of a
 * `--files disk:<dir>` storage copied beside the database's backup, to `<backup>.files/`, after
 * the database (a backup then names only content its copy holds: content is only ever added under
 * a new name, or removed once nothing refers to it), and back into the storage on restore. Names
 * are hashes; nothing is overwritten.
 */
import { constants, copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = /^[0-9a-f]{2}$/;
const CONTENT = /^[0-9a-f]{64}$/;

export interface CopiedFiles {
  readonly files: number;
  readonly bytes: number;
}

/** Copies every content file of `from` (a disk storage's folder, or a backup's) into `to`, skipping those `to` has. */
export function copyContentFiles(from: string, to: string): CopiedFiles {
  let files = 0;
  let bytes = 0;
  if (!existsSync(from)) return { files, bytes };
  for (const prefix of readdirSync(from).filter((name) => PREFIX.test(name))) {
    for (const name of readdirSync(join(from, prefix)).filter((entry) => CONTENT.test(entry) && entry.startsWith(prefix))) {
      const target = join(to, prefix, name);
      if (existsSync(target)) continue;
      mkdirSync(join(to, prefix), { recursive: true, mode: 0o700 });
      copyFileSync(join(from, prefix, name), target, constants.COPYFILE_EXCL);
      files++;
      bytes += statSync(target).size;
    }
  }
  return { files, bytes };
}

/** Where a database backup's files go: beside it. */
export function backupFilesDir(backupFile: string): string {
  return `${backupFile}.files`;
}
