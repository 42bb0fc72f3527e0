/**
 * `rmsgen backup` and `rmsgen restore` through the real CLI.
 *
 * - A backup of a live SQLite database while a server keeps writing holds each write whole or not
 *   at all (a record with its history entry and its audit row), every write acknowledged before
 *   the backup began, and none that was not acknowledged: the writes it holds are a prefix of the
 *   acknowledged ones.
 * - A backup never overwrites a file; PostgreSQL is refused, naming pg_dump and point-in-time recovery.
 * - A restore refuses a database that holds tables without --force, a file that is not an rmsgen
 *   database, and a schema that does not fit the build (the target unchanged); it brings an older
 *   schema up to the build, and the restored database serves.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFixtureCli } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-backup-'));
let t: TestServer;
let admin: string;

beforeAll(async () => {
  t = await startTestServer({ onSqlite: true });
  admin = await t.login();
  // Some size, so that the copy takes a while: 40,000 leads straight into the table.
  // Through the server's own connection, which has the functions the search triggers call.
  await t.server.db.raw(`with recursive n(i) as (select 1 union all select i + 1 from n where i < 40000)
    insert into lead (id, title, stage, notes) select printf('SEED%022d', i), 'Seeded lead ' || i, 'new', hex(randomblob(60)) from n`);
});

afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = (file: string) => new Database(file, { readonly: true, fileMustExist: true });

describe('rmsgen backup', () => {
  it('copies a live database while writes go on: each write whole or not at all, every one acknowledged before it began in it', async () => {
    const file = join(dir, 'live.sqlite');
    const acknowledged: { id: string; at: number }[] = [];
    let writing = true;
    const failures: string[] = [];
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        const res = await t.command(admin, 'lead.create', { title: `During backup ${n}` });
        if (res.status === 200) acknowledged.push({ id: res.body.value.id, at: performance.now() });
        else failures.push(`${res.status} ${JSON.stringify(res.body)}`);
      }
    })();
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 5));
    const began = performance.now();
    const run = await runFixtureCli(['backup', '--db', t.dbUrl, '--to', file]);
    const ended = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 100));
    writing = false;
    await writer;

    expect(failures).toEqual([]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^backed up ${t.dbFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\d+ tables, \\d+\\.\\d MiB in \\d+\\.\\d s\\n$`));
    // The server kept serving while the backup ran.
    expect(acknowledged.filter((write) => write.at > began && write.at < ended).length).toBeGreaterThan(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const backup = open(file);
    try {
      expect(backup.pragma('quick_check', { simple: true })).toBe('ok');
      expect(backup.pragma('journal_mode', { simple: true })).toBe('delete');
      const leads = backup.prepare("select id from lead where title like 'During backup %' order by id").pluck().all() as string[];
      const order = acknowledged.map((write) => write.id);
      // A prefix of the acknowledged writes, in order, with every write acknowledged before the backup began.
      expect(leads).toEqual(order.slice(0, leads.length));
      expect(leads.length).toBeGreaterThanOrEqual(acknowledged.filter((write) => write.at < began).length);
      expect(leads.length).toBeLessThanOrEqual(acknowledged.filter((write) => write.at < ended).length);
      // Whole transactions: each record with its history entry and audit row, no entry or row without its record.
      const history = backup.prepare("select record_id from rms_history where command = 'lead.create' order by record_id").pluck().all() as string[];
      const audit = backup.prepare("select record_id from rms_audit where command = 'lead.create' and outcome = 'executed' order by record_id").pluck().all() as string[];
      expect(history).toEqual(leads);
      expect(audit).toEqual(leads);
      expect(backup.prepare("select count(*) from lead where id like 'SEED%'").pluck().get()).toBe(40000);
    } finally {
      backup.close();
    }
  });

  it('never overwrites a file, and refuses PostgreSQL naming pg_dump and point-in-time recovery', async () => {
    const file = join(dir, 'taken.sqlite');
    writeFileSync(file, 'mine');
    expect(await runFixtureCli(['backup', '--db', t.dbUrl, '--to', file])).toEqual({ code: 1, stdout: '', stderr: `${file} exists: a backup never overwrites a file; choose a new name\n` });
    expect(readFileSync(file, 'utf8')).toBe('mine');
    const missing = join(dir, 'no-such-folder', 'b.sqlite');
    expect(await runFixtureCli(['backup', '--db', t.dbUrl, '--to', missing])).toEqual({ code: 1, stdout: '', stderr: `the folder of ${missing} does not exist\n` });
    for (const args of [
      ['backup', '--db', 'postgres://rms@127.0.0.1:5432/rms', '--to', join(dir, 'pg.sqlite')],
      ['restore', '--db', 'postgres://rms@127.0.0.1:5432/rms', '--from', file],
    ]) {
      const run = await runFixtureCli(args);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^rmsgen backup and restore work on SQLite files; back a PostgreSQL database up with pg_dump .* point-in-time recovery .* docs\/operations\.md/);
    }
    expect(existsSync(join(dir, 'pg.sqlite'))).toBe(false);
  });

  it('refuses a database URL it cannot use and a file that is no SQLite database in one line, as every server command does', async () => {
    const junk = join(dir, 'junk.sqlite');
    writeFileSync(junk, 'not a database, only words in a file that is long enough to have a header');
    expect(await runFixtureCli(['backup', '--db', `sqlite:${junk}`, '--to', join(dir, 'junk-backup.sqlite')])).toEqual({
      code: 1,
      stdout: '',
      stderr: `${junk} is not a SQLite database (file is not a database)\n`,
    });
    const url = '--db: unsupported database URL (use sqlite:<file> or postgres://user:pass@host:port/db)\n';
    for (const args of [
      ['backup', '--to', join(dir, 'x.sqlite')],
      ['restore', '--from', junk],
      ['audit', 'prune', '--before', '2026-01-01'],
      ['history', 'prune', '--before', '2026-01-01'],
      ['migrate'],
    ]) {
      expect(await runFixtureCli([...args, '--db', 'mysql://u:pw@x/y']), args.join(' ')).toEqual({ code: 1, stdout: '', stderr: url });
    }
    expect(await runFixtureCli(['backup', '--db', t.dbUrl, '--to', ''])).toEqual({ code: 1, stdout: '', stderr: '--to needs a file name\n' });
    expect(await runFixtureCli(['restore', '--db', `sqlite:${join(dir, 'r.sqlite')}`, '--from', ' '])).toEqual({ code: 1, stdout: '', stderr: '--from needs a file name\n' });
    const fromEnv = await runFixtureCli(['migrate'], { env: { RMS_DB: 'mysql://u:pw@x/y' } });
    expect(fromEnv).toEqual({ code: 1, stdout: '', stderr: url.replace('--db', 'RMS_DB') });
  });
});

describe('rmsgen restore', () => {
  let backupFile: string;

  beforeAll(async () => {
    const created = await t.command(admin, 'lead.create', { title: 'In the backup' });
    expect(created.status).toBe(200);
    backupFile = join(dir, 'for-restore.sqlite');
    const run = await runFixtureCli(['backup', '--db', t.dbUrl, '--to', backupFile]);
    expect(run.code, run.stderr).toBe(0);
  });

  const titles = (file: string) => {
    const db = open(file);
    try {
      return db.prepare("select title from lead where id not like 'SEED%' order by id").pluck().all() as string[];
    } finally {
      db.close();
    }
  };

  it('restores into a new file, which then serves', async () => {
    const target = join(dir, 'new', 'restored.sqlite');
    rmSync(join(dir, 'new'), { recursive: true, force: true });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'new'));
    const run = await runFixtureCli(['restore', '--from', backupFile, '--db', `sqlite:${target}`]);
    expect(run).toEqual({ code: 0, stdout: `restored ${backupFile} to ${target}: ${tableCount(backupFile)} tables; the backup's schema matches this build\n`, stderr: '' });
    expect(titles(target)).toContain('In the backup');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    const served = await startTestServer({ dbUrl: `sqlite:${target}` });
    try {
      const token = await served.login();
      const listed = await served.command(token, 'lead.search', { filter: [{ field: 'title', op: 'eq', value: 'In the backup' }] });
      expect(listed.body.value.total).toBe(1);
    } finally {
      await served.close();
    }
  });

  it('refuses a database that holds tables without --force, and replaces it with --force', async () => {
    const target = join(dir, 'existing.sqlite');
    const other = await startTestServer({ dbUrl: `sqlite:${target}` });
    const token = await other.login();
    await other.command(token, 'lead.create', { title: 'Only in the target' });
    await other.close();
    const before = readFileSync(target);
    const refused = await runFixtureCli(['restore', '--from', backupFile, '--db', `sqlite:${target}`]);
    expect(refused).toEqual({ code: 1, stdout: '', stderr: `${target} holds a database (${tableCount(target)} tables): restoring replaces all of it; stop every server using it, then add --force\n` });
    expect(readFileSync(target).equals(before)).toBe(true);
    const forced = await runFixtureCli(['restore', '--from', backupFile, '--db', `sqlite:${target}`, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(titles(target)).toContain('In the backup');
    expect(titles(target)).not.toContain('Only in the target');
  });

  it("brings an older backup's schema up to the build", async () => {
    const older = join(dir, 'older.sqlite');
    copyFileSync(backupFile, older);
    const db = new Database(older);
    for (const index of db.prepare("select name from sqlite_master where type = 'index' and tbl_name = 'lead' and sql like '%hot%'").pluck().all() as string[]) db.exec(`drop index "${index}"`);
    db.exec('alter table lead drop column hot');
    db.close();
    const target = join(dir, 'from-older.sqlite');
    const run = await runFixtureCli(['restore', '--from', older, '--db', `sqlite:${target}`]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(`restored ${older} to ${target}: ${tableCount(backupFile)} tables; the backup's schema was brought up to this build (above)`);
    expect(lines.slice(0, -1).join('\n')).toMatch(/lead\.hot|column hot/);
    const restored = open(target);
    try {
      expect((restored.prepare('select name from pragma_table_info(?)').pluck().all('lead') as string[])).toContain('hot');
    } finally {
      restored.close();
    }
  });

  it('refuses a file that is not an rmsgen database, and a schema that does not fit the build, leaving the target as it was', async () => {
    const plain = join(dir, 'plain.sqlite');
    const db = new Database(plain);
    db.exec('create table notes (body text)');
    db.close();
    const target = join(dir, 'untouched.sqlite');
    expect(await runFixtureCli(['restore', '--from', plain, '--db', `sqlite:${target}`])).toEqual({ code: 1, stdout: '', stderr: `${plain} is not an rmsgen database: it has no rms_people or rms_audit table\n` });
    const text = join(dir, 'text.sqlite');
    writeFileSync(text, 'not a database at all, just some text that is long enough to have a header');
    const notSqlite = await runFixtureCli(['restore', '--from', text, '--db', `sqlite:${target}`]);
    expect(notSqlite.code).toBe(1);
    expect(notSqlite.stderr).toMatch(/^.*text\.sqlite (cannot be opened as a SQLite database|is not a SQLite database): /);

    // A column the backup's schema requires and this build leaves empty: serving it would fail writes.
    const conflicting = join(dir, 'conflicting.sqlite');
    copyFileSync(backupFile, conflicting);
    const edited = new Database(conflicting);
    edited.prepare("update rms_schema set snapshot = replace(snapshot, '{\"name\":\"notes\",\"type\":\"text\",\"notNull\":false}', '{\"name\":\"notes\",\"type\":\"text\",\"notNull\":true}') where table_name = 'lead'").run();
    edited.close();
    const refused = await runFixtureCli(['restore', '--from', conflicting, '--db', `sqlite:${target}`]);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: "the backup's schema does not fit this build; nothing was restored:\n  - lead.notes is required in the database, but optional in this version's definitions: serve does not change constraints; make it optional with rmsgen migrate\n",
    });
    expect(existsSync(target)).toBe(false);
    expect(existsSync(`${target}.restoring-${process.pid}`)).toBe(false);
  });
});

function tableCount(file: string): number {
  const db = open(file);
  try {
    return Number(db.prepare("select count(*) from sqlite_master where type = 'table' and name not like 'sqlite_%'").pluck().get());
  } finally {
    db.close();
  }
}
