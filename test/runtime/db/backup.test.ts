/**
 * Backup and restore of a SQLite database (runtime/db/backup.ts), in-process on the files of a
 * real server: the copy holds what was written and is its owner's only; every refusal names the
 * file and changes nothing. The real commands, and writes during a backup, are tested through the
 * binary in test/cli/backup.test.ts.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDatabase, BackupRefusedError, POSTGRES_BACKUP_REFUSAL, restoreDatabase, sqliteFileOf } from '../../../runtime/db/backup.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let server: TestServer;
let dir: string;
const noMigration = { migrate: async () => [] as string[] };

beforeAll(async () => {
  server = await startTestServer({ onSqlite: true });
  const token = await server.login();
  expect((await server.command(token, 'party.create', { name: 'Kept in the backup' })).status).toBe(200);
  dir = mkdtempSync(join(tmpdir(), 'rmsgen-backup-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function refusal(run: () => Promise<unknown> | unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(BackupRefusedError);
    return (error as Error).message;
  }
  throw new Error('no refusal');
}

const parties = (file: string) => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('select name from party').all() as { name: string }[]).map((row) => row.name);
  } finally {
    db.close();
  }
};

describe('sqliteFileOf', () => {
  it('gives the file of a SQLite URL and refuses PostgreSQL and memory', async () => {
    expect(sqliteFileOf('sqlite:data/rms.sqlite')).toBe(join(process.cwd(), 'data/rms.sqlite'));
    expect(await refusal(() => sqliteFileOf('postgres://user:pass@127.0.0.1:5432/rms'))).toBe(POSTGRES_BACKUP_REFUSAL);
    expect(await refusal(() => sqliteFileOf('sqlite::memory:'))).toBe('an in-memory database cannot be backed up or restored: give a file');
  });
});

describe('backupDatabase and restoreDatabase', () => {
  it('copies the live database into a new file of its owner only, and restores it into another', async () => {
    const backup = join(dir, 'copy.sqlite');
    const made = await backupDatabase(server.dbFile, backup);
    expect(made.file).toBe(backup);
    expect(made.bytes).toBe(statSync(backup).size);
    expect(made.tables).toBeGreaterThan(10);
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(parties(backup)).toEqual(['Kept in the backup']);

    const target = join(dir, 'restored.sqlite');
    const restored = await restoreDatabase(backup, target, { migrate: async (url) => [`migrated ${url.startsWith('sqlite:') ? 'a copy' : url}`] });
    expect(restored).toEqual({ tables: made.tables, schemaChanges: ['migrated a copy'] });
    expect(parties(target)).toEqual(['Kept in the backup']);
    // Nothing left behind but the two files.
    expect(readdirSync(dir).sort()).toEqual(['copy.sqlite', 'restored.sqlite']);

    // A second restore over a database needs --force.
    expect(await refusal(() => restoreDatabase(backup, target, noMigration))).toBe(
      `${target} holds a database (${made.tables} tables): restoring replaces all of it; stop every server using it, then add --force`,
    );
    expect(await restoreDatabase(backup, target, { ...noMigration, force: true })).toEqual({ tables: made.tables, schemaChanges: [] });
  });

  it('refuses, changing nothing, what it cannot or must not do', async () => {
    const existing = join(dir, 'existing.sqlite');
    writeFileSync(existing, 'not a database');
    const empty = join(dir, 'empty.sqlite');
    new Database(empty).close();
    expect(await refusal(() => backupDatabase(join(dir, 'missing.sqlite'), join(dir, 'x.sqlite')))).toBe(`no database at ${join(dir, 'missing.sqlite')}`);
    expect(await refusal(() => backupDatabase(server.dbFile, existing))).toBe(`${existing} exists: a backup never overwrites a file; choose a new name`);
    expect(await refusal(() => backupDatabase(server.dbFile, join(dir, 'no/such/folder.sqlite')))).toBe(`the folder of ${join(dir, 'no/such/folder.sqlite')} does not exist`);
    expect(await refusal(() => backupDatabase(empty, join(dir, 'of-empty.sqlite')))).toBe(`${empty} holds no tables: nothing to back up`);
    expect(await refusal(() => restoreDatabase(join(dir, 'missing.sqlite'), join(dir, 'y.sqlite'), noMigration))).toBe(`no backup at ${join(dir, 'missing.sqlite')}`);
    expect(await refusal(() => restoreDatabase(existing, join(dir, 'y.sqlite'), noMigration))).toBe(`${existing} is not a SQLite database: file is not a database`);
    expect(await refusal(() => restoreDatabase(empty, join(dir, 'y.sqlite'), noMigration))).toMatch(new RegExp(`^${empty.replaceAll('.', '\\.')} `));
    for (const left of ['x.sqlite', 'of-empty.sqlite', 'y.sqlite']) expect(existsSync(join(dir, left))).toBe(false);
  });
});
