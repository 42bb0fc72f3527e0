/**
 * `rmsgen backup` and `rmsgen restore` of a SQLite database (docs/operations.md).
 *
 * A backup is a consistent copy of a live database, taken through SQLite's online backup API
 * while servers keep serving: every page is copied in one step, which reads one snapshot (in WAL
 * mode a reader, so writers go on), so each transaction is in the copy whole or not at all. It is
 * written next to its target under another name and renamed once complete and checked, so a
 * backup that fails leaves no file that looks like one.
 *
 * A restore refuses to replace a database that holds tables unless told to (`force`), checks the
 * copy (SQLite's quick check, rmsgen's tables), brings its schema to this build the way `serve`
 * would (additive; a real conflict refuses, and the target is left as it was), and only then
 * writes it over the target, again through the backup API, so the target's own WAL is dealt with
 * by SQLite.
 *
 * PostgreSQL has its own tools for both (pg_dump, point-in-time recovery); these commands refuse it.
 */
import { closeSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { loadBetterSqlite3, parseDatabaseUrl } from './connect.ts';

/** A refusal the operator can act on (the CLI prints it and exits 1). */
export class BackupRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupRefusedError';
  }
}

/** Why PostgreSQL is refused, and what to use instead. */
export const POSTGRES_BACKUP_REFUSAL =
  'rmsgen backup and restore work on SQLite files; back a PostgreSQL database up with pg_dump (a consistent copy of a live database: pg_dump --format=custom) or point-in-time recovery (a base backup with pg_basebackup and WAL archiving), and restore it with pg_restore or by recovery: docs/operations.md, "Backups and restore", says how step by step';

/** Tables every rmsgen database holds: what tells a backup of one from another SQLite file. */
const RMSGEN_TABLES = ['rms_people', 'rms_audit'];

/** The SQLite file of a database URL; PostgreSQL refused. */
export function sqliteFileOf(url: string): string {
  const target = parseDatabaseUrl(url);
  if (target.dialect === 'postgres') throw new BackupRefusedError(POSTGRES_BACKUP_REFUSAL);
  if (target.location === ':memory:') throw new BackupRefusedError('an in-memory database cannot be backed up or restored: give a file');
  return target.location;
}

export interface BackupResult {
  readonly file: string;
  readonly bytes: number;
  readonly tables: number;
}

/**
 * Copies the live database in `sourceFile` to `targetFile`, which must not exist. The copy is one
 * snapshot of the database (see the top of this file), checked before it takes its name.
 */
export async function backupDatabase(sourceFile: string, targetFile: string): Promise<BackupResult> {
  if (!existsSync(sourceFile)) throw new BackupRefusedError(`no database at ${sourceFile}`);
  if (existsSync(targetFile)) throw new BackupRefusedError(`${targetFile} exists: a backup never overwrites a file; choose a new name`);
  if (!existsSync(dirname(targetFile))) throw new BackupRefusedError(`the folder of ${targetFile} does not exist`);
  const Database = loadBetterSqlite3();
  const source = new Database(sourceFile, { fileMustExist: true });
  const partial = join(dirname(targetFile), `.${basename(targetFile)}.partial-${process.pid}`);
  try {
    source.pragma('busy_timeout = 5000');
    let held: readonly string[];
    try {
      held = tablesOf(source);
    } catch (error) {
      throw new BackupRefusedError(`${sourceFile} is not a SQLite database (${(error as Error).message})`);
    }
    if (held.length === 0) throw new BackupRefusedError(`${sourceFile} holds no tables: nothing to back up`);
    await copyInOneStep(source, partial);
    const tables = checkCopy(partial, `the backup of ${sourceFile}`);
    renameSync(partial, targetFile);
    return { file: targetFile, bytes: statSync(targetFile).size, tables };
  } finally {
    source.close();
    removeDatabaseFile(partial);
  }
}

export interface RestoreOptions {
  /** Replace a target that holds tables. */
  readonly force?: boolean;
  /**
   * Brings the copy's schema to this build before it replaces the target (the caller's additive
   * migration); throws to refuse, leaving the target as it was. Returns lines to print.
   */
  readonly migrate: (copyUrl: string) => Promise<readonly string[]>;
}

export interface RestoreResult {
  readonly tables: number;
  /** What bringing the schema to this build did (empty when it matched). */
  readonly schemaChanges: readonly string[];
}

/** Restores the backup `backupFile` into `targetFile` (see the top of this file). */
export async function restoreDatabase(backupFile: string, targetFile: string, options: RestoreOptions): Promise<RestoreResult> {
  if (!existsSync(backupFile)) throw new BackupRefusedError(`no backup at ${backupFile}`);
  if (!existsSync(dirname(targetFile))) throw new BackupRefusedError(`the folder of ${targetFile} does not exist`);
  checkCopy(backupFile, backupFile);
  if (existsSync(targetFile) && !options.force) {
    const tables = tablesIn(targetFile);
    if (tables > 0) throw new BackupRefusedError(`${targetFile} holds a database (${tables} tables): restoring replaces all of it; stop every server using it, then add --force`);
  }
  const Database = loadBetterSqlite3();
  const copy = join(dirname(targetFile), `.${basename(targetFile)}.restoring-${process.pid}`);
  try {
    const backup = new Database(backupFile, { fileMustExist: true });
    try {
      await copyInOneStep(backup, copy);
    } finally {
      backup.close();
    }
    const schemaChanges = await options.migrate(`sqlite:${copy}`);
    const restored = new Database(copy, { fileMustExist: true });
    try {
      await copyInOneStep(restored, targetFile);
    } finally {
      restored.close();
    }
    return { tables: checkCopy(targetFile, targetFile), schemaChanges };
  } finally {
    removeDatabaseFile(copy);
  }
}

/**
 * SQLite's online backup of `source` into `file`, all pages in one step: one read of one snapshot,
 * so no write of another connection can restart it half-way or land in half of it. A new file is
 * made readable by its owner only, as the database is (it holds password hashes and personal data),
 * and kept in one file (rollback journal, not WAL) so that it can be moved as it is.
 */
async function copyInOneStep(source: BetterSqlite3.Database, file: string): Promise<void> {
  const isNew = !existsSync(file);
  if (isNew) closeSync(openSync(file, 'w', 0o600));
  await source.backup(file, { progress: () => 0x7fffffff });
  if (!isNew) return;
  const copy = new (loadBetterSqlite3())(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** Checks a copy: SQLite's quick check, and rmsgen's tables; returns how many tables it holds. */
function checkCopy(file: string, name: string): number {
  const Database = loadBetterSqlite3();
  let db: BetterSqlite3.Database;
  try {
    // Read-write (nothing is written): a read-only connection could not tidy a WAL file's -wal and -shm away.
    db = new Database(file, { fileMustExist: true });
  } catch (error) {
    throw new BackupRefusedError(`${name} cannot be opened as a SQLite database: ${(error as Error).message}`);
  }
  try {
    let check: unknown;
    try {
      check = db.pragma('quick_check', { simple: true });
    } catch (error) {
      throw new BackupRefusedError(`${name} is not a SQLite database: ${(error as Error).message}`);
    }
    if (check !== 'ok') throw new BackupRefusedError(`${name} fails SQLite's check: ${String(check)}`);
    const tables = tablesOf(db);
    const missing = RMSGEN_TABLES.filter((table) => !tables.includes(table));
    if (missing.length > 0) throw new BackupRefusedError(`${name} is not an rmsgen database: it has no ${missing.join(' or ')} table`);
    return tables.length;
  } finally {
    db.close();
  }
}

function tablesIn(file: string): number {
  let db: BetterSqlite3.Database;
  try {
    db = new (loadBetterSqlite3())(file, { fileMustExist: true });
    db.pragma('schema_version');
  } catch (error) {
    throw new BackupRefusedError(`${file} exists and is not a SQLite database (${(error as Error).message}): restore into a new file or a database`);
  }
  try {
    return tablesOf(db).length;
  } finally {
    db.close();
  }
}

function tablesOf(db: BetterSqlite3.Database): string[] {
  return (db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").pluck().all() as string[]);
}

/** A database file and what SQLite keeps beside it. */
function removeDatabaseFile(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
}
