/**
 * runtime/db/statements.ts `runWrite`: the record's insert, update and delete. On SQLite it runs
 * straight on the connection (not through knex's raw query), binding what knex would have bound:
 * true/false as 1/0, a Date as its milliseconds, null as NULL; an undefined value is refused and
 * writes nothing; a duplicate of a unique field is its 400; in a transaction it is part of it.
 * The same cases run on PostgreSQL when RMS_TEST_PG_URL is set (through knex there).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../runtime/db/connect.ts';
import { uniqueIndexName } from '../../../runtime/db/index-names.ts';
import { runWrite, uniqueFields } from '../../../runtime/db/statements.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-run-write-'));
const PG_URL = process.env.RMS_TEST_PG_URL;
const databases: [string, () => string][] = [['sqlite', () => `sqlite:${join(dir, 'writes.sqlite')}`], ...(PG_URL ? [['postgres', () => PG_URL] as [string, () => string]] : [])];

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(databases)('runWrite on %s', (dialect, url) => {
  let db: Knex;
  const table = `rms_test_run_write_${process.pid}`;
  const rows = async () => (await db(table).select('id', 'flag', 'at', 'note').orderBy('id')) as { id: string; flag: unknown; at: unknown; note: unknown }[];
  const UNIQUE = uniqueFields(table, ['note']);
  const insert = `insert into "${table}" ("id", "flag", "at", "note") values (?, ?, ?, ?)`;

  beforeAll(async () => {
    db = openDatabase(url());
    await db.schema.dropTableIfExists(table);
    await db.schema.createTable(table, (t) => {
      t.string('id', 8).primary();
      t.boolean('flag');
      t.bigInteger('at');
      t.string('note', 40).unique({ indexName: uniqueIndexName(table, ['note']) });
    });
  });
  afterAll(async () => {
    await db.schema.dropTableIfExists(table);
    await db.destroy();
  });

  it('binds true and false, a Date and null as knex does, and updates and deletes', async () => {
    // A Date as knex's SQLite client binds it, its milliseconds (pg binds it as a timestamp).
    await runWrite(db, insert, ['a', true, dialect === 'sqlite' ? new Date(86_400_000) : 86_400_000, 'first']);
    await runWrite(db, insert, ['b', false, null, null]);
    const flag = (value: boolean) => (dialect === 'sqlite' ? (value ? 1 : 0) : value);
    expect(await rows()).toEqual([
      { id: 'a', flag: flag(true), at: dialect === 'sqlite' ? 86_400_000 : '86400000', note: 'first' },
      { id: 'b', flag: flag(false), at: null, note: null },
    ]);
    await runWrite(db, `update "${table}" set "flag" = ?, "note" = ? where "id" = ?`, [true, 'second', 'b']);
    await runWrite(db, `delete from "${table}" where "id" = ?`, ['a']);
    expect(await rows()).toEqual([{ id: 'b', flag: flag(true), at: null, note: 'second' }]);
  });

  it('refuses an undefined value and writes nothing', async () => {
    const before = await rows();
    await expect(runWrite(db, insert, ['c', undefined, null, 'third'])).rejects.toThrow(/Undefined binding/);
    expect(await rows()).toEqual(before);
  });

  it('answers a duplicate of a unique field with its 400, writing nothing', async () => {
    const before = await rows();
    await expect(runWrite(db, insert, ['d', false, null, 'second'], UNIQUE)).rejects.toMatchObject({ status: 400, message: `${table}.note must be unique` });
    expect(await rows()).toEqual(before);
  });

  it('in a transaction, is kept or undone with it', async () => {
    const before = await rows();
    await expect(
      db.transaction(async (trx) => {
        await runWrite(trx, insert, ['e', true, null, 'undone']);
        expect((await trx(table).where('id', 'e').select('note'))[0]).toEqual({ note: 'undone' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await rows()).toEqual(before);
    await db.transaction((trx) => runWrite(trx, insert, ['f', false, null, 'kept']));
    expect((await rows()).map((row) => row.id)).toEqual([...before.map((row) => row.id), 'f']);
  });
});
