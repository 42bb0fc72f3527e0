/**
 * What the log keeps of an unexpected error, and what an error text may hold. A database driver's
 * error may quote the values of its statement (SQLite's `fts5: syntax error near "…"`,
 * PostgreSQL's `invalid input syntax for type date: "…"` and the `detail` of a unique violation):
 * of such errors the log writes the code, the names and the statement, never the message. The
 * errors here are real ones, from a SQLite file and (with `RMS_TEST_PG_URL`) a PostgreSQL database.
 * An error text echoing what a caller sent (`unknown field lead.<key>`) is stored in the audit
 * trail: NUL and lone surrogates in it are written as escapes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../runtime/db/connect.ts';
import { HttpError, describeUnexpectedError } from '../../runtime/errors.ts';
import { createTestDatabase, testPostgresUrl } from '../helpers/postgres.ts';

const SECRET = 'Secretvalue-7731';
const dir = mkdtempSync(join(tmpdir(), 'rmsgen-errors-'));
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function thrown(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('database errors in the log', () => {
  it('SQLite: an FTS5 query quoting the value, and a unique violation', async () => {
    const db = openDatabase(`sqlite:${join(dir, 'errors.sqlite')}`);
    cleanups.push(() => db.destroy());
    await db.raw("create virtual table notes using fts5(body, tokenize='trigram')");
    await db.raw('create table people (email text unique)');
    await db('people').insert({ email: SECRET });

    const fts = await thrown(() => db.raw('select * from notes where notes match ?', [SECRET]));
    expect((fts as Error).message).toContain('7731'); // the driver's message quotes the query: `no such column: 7731`
    const unique = await thrown(() => db('people').insert({ email: SECRET }));
    for (const [error, statement] of [
      [fts, 'select * from notes where notes match ?'],
      [unique, 'insert into `people` (`email`) values (?)'],
    ] as const) {
      const text = describeUnexpectedError(error);
      expect(text).not.toContain('7731');
      expect(text).toContain('code: SQLITE_');
      expect(text).toContain(`statement: ${statement}`);
      expect(text).toMatch(/\n\s+at /); // where it happened
    }
    // A constraint's message names the column, never the value: kept.
    expect(describeUnexpectedError(unique)).toContain('UNIQUE constraint failed: people.email');
    expect(describeUnexpectedError(fts)).not.toContain('no such column');
  });

  it.skipIf(testPostgresUrl() === undefined)('PostgreSQL: a date the type refuses, and a unique violation with its detail', async () => {
    const database = await createTestDatabase(testPostgresUrl()!);
    cleanups.push(() => database.drop());
    const db: Knex = openDatabase(database.url);
    cleanups.unshift(() => db.destroy());
    await db.raw('create table people (email text unique, born date)');
    await db('people').insert({ email: SECRET });

    const date = await thrown(() => db.raw('select ?::date', [SECRET]));
    expect((date as Error).message).toContain(SECRET); // what the driver says
    const unique = await thrown(() => db('people').insert({ email: SECRET }));
    expect((unique as { detail?: string }).detail).toContain(SECRET);
    const range = await thrown(() => db('people').insert({ email: 'x', born: '0000-01-01' }));
    for (const [error, code, statement] of [
      [date, '22007', 'select $1::date'],
      [unique, '23505', 'insert into "people" ("email") values ($1)'],
      [range, '22008', 'insert into "people" ("born", "email") values ($1, $2)'],
    ] as const) {
      const text = describeUnexpectedError(error);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('0000-01-01');
      expect(text).toContain(`code: ${code}`);
      expect(text).toContain(`statement: ${statement}`);
    }
    expect(describeUnexpectedError(unique)).toContain('constraint: people_email_key');
    // Messages that name things only are kept: the constraint violated, a statement timeout.
    expect(describeUnexpectedError(unique)).toContain('duplicate key value violates unique constraint "people_email_key"');
    expect(describeUnexpectedError(date)).not.toContain('invalid input syntax');
    const impatient = openDatabase(database.url, { statementTimeoutMs: 50 });
    cleanups.unshift(() => impatient.destroy());
    const timeout = describeUnexpectedError(await thrown(() => impatient.raw('select pg_sleep(1)')));
    expect(timeout).toContain('canceling statement due to statement timeout');
    expect(timeout).toContain('code: 57014');
  });

  it('keeps the message of any other error (a bug), and only the type of a thrown value that is not one', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    expect(describeUnexpectedError(bug)).toContain("TypeError: Cannot read properties of undefined (reading 'id')");
    expect(describeUnexpectedError('password hunter2')).toBe('unexpected error: a thrown string, not an Error');
  });
});

describe('error texts', () => {
  it('write NUL and lone surrogates as escapes, keep everything else', () => {
    expect(new HttpError(400, 'unknown field lead.a\u0000b').message).toBe('unknown field lead.a\\u0000b');
    expect(new HttpError(400, 'unknown field lead.\ud800x\udc00').message).toBe('unknown field lead.\\ud800x\\udc00');
    expect(new HttpError(400, 'unknown field lead.Ærø_東京_🚀').message).toBe('unknown field lead.Ærø_東京_🚀');
  });
});
