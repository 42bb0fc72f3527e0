/**
 * Group commit on SQLite (runtime/db/write-groups.ts), on a real database file: writes that arrive
 * together commit once, each is answered only once that commit is done (a second connection sees
 * every row of the group by then, and none before), a write that fails leaves no trace and does not
 * touch the others, and an error after which SQLite rolled back the whole transaction fails every
 * write of the group, so that none is answered as stored when it is not. And through the command
 * path: commands of one group see each other's writes (a record's updates, its history and its
 * events' sequence numbers), as if each had committed before the next began.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import type { PersonCaller } from '../../../runtime/caller.ts';
import { executeCommand } from '../../../runtime/commands/pipeline.ts';
import type { HttpError } from '../../../runtime/errors.ts';
import { createRecordService } from '../../../runtime/commands/service.ts';
import type { RecordService } from '../../../runtime/commands/types.ts';
import { loadBetterSqlite3, openDatabase } from '../../../runtime/db/connect.ts';
import { migrate } from '../../../runtime/db/migrate.ts';
import { MAX_GROUP_WRITES, writeGroupsOf } from '../../../runtime/db/write-groups.ts';
import { SYSTEM_TABLES } from '../../../runtime/system-table-list.ts';

let dir: string;
let file: string;
let db: Knex;
/** Another connection to the file: sees what is committed. */
let observer: BetterSqlite3.Database;
const statements: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmsgen-write-groups-'));
  file = join(dir, 'groups.sqlite');
  db = openDatabase(`sqlite:${file}`);
  db.on('query', (query: { sql: string }) => statements.push(query.sql));
  await db.schema.createTable('note', (table) => {
    table.string('id', 16).primary();
    table.text('body').notNullable();
  });
  // A body of 'undo everything' rolls back the whole transaction, as a full disk or an I/O error does.
  await db.raw(`create trigger note_rollback before insert on note when new.body = 'undo everything' begin select raise(rollback, 'the whole transaction is undone'); end`);
  const Database = loadBetterSqlite3();
  observer = new Database(file, { readonly: true });
});
afterAll(async () => {
  observer?.close();
  await db?.destroy();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await db('note').delete();
  statements.length = 0;
});

const committed = (): string[] => (observer.prepare('select id from note order by id').all() as { id: string }[]).map((row) => row.id);
const commits = (): number => statements.filter((sql) => /^COMMIT/i.test(sql)).length;
const insert = (id: string, body = 'a note') => (trx: Knex.Transaction) => trx('note').insert({ id, body });
const ids = (count: number, prefix = 'n'): string[] => Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(2, '0')}`);

it('writes that arrive together commit once, and each is answered after that commit', async () => {
  const groups = writeGroupsOf(db);
  const seenWhenAnswered: string[][] = [];
  const seenWhileRunning: string[][] = [];
  const writes = ids(10).map((id, index) =>
    groups
      .run(async (trx) => {
        await insert(id)(trx);
        if (index === 9) seenWhileRunning.push(committed());
        return id;
      })
      .then((value) => {
        seenWhenAnswered.push(committed());
        return value;
      }),
  );
  expect(await Promise.all(writes)).toEqual(ids(10));
  expect(seenWhileRunning).toEqual([[]]);
  expect(seenWhenAnswered).toEqual(Array.from({ length: 10 }, () => ids(10)));
  expect(commits()).toBe(1);
});

it('a lone write commits at once, and the next ones make a group of their own', async () => {
  const groups = writeGroupsOf(db);
  await groups.run(insert('first'));
  expect(committed()).toEqual(['first']);
  await Promise.all([groups.run(insert('second')), groups.run(insert('third'))]);
  expect(committed()).toEqual(['first', 'second', 'third']);
  expect(commits()).toBe(2);
});

it(`a group takes at most ${MAX_GROUP_WRITES} writes; the rest commit in the next`, async () => {
  const groups = writeGroupsOf(db);
  const all = ids(MAX_GROUP_WRITES + 5);
  expect(await Promise.all(all.map((id) => groups.run(async (trx) => (await insert(id)(trx), id))))).toEqual(all);
  expect(committed()).toEqual(all);
  expect(commits()).toBe(2);
});

it.each([
  ['a statement fails (a duplicate key)', (trx: Knex.Transaction) => trx('note').insert({ id: 'n00', body: 'again' }), /UNIQUE constraint failed: note.id/],
  [
    'the write throws after its statements',
    async (trx: Knex.Transaction) => {
      await trx('note').insert({ id: 'thrown', body: 'never kept' });
      throw new Error('refused after writing');
    },
    /refused after writing/,
  ],
])('when %s, that write answers its error and leaves nothing; the others are kept', async (_case, failing, error) => {
  const groups = writeGroupsOf(db);
  const outcomes = await Promise.allSettled([groups.run(insert('n00')), groups.run(insert('n01')), groups.run(failing), groups.run(insert('n02'))]);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(error);
  expect(committed()).toEqual(['n00', 'n01', 'n02']);
  expect(commits()).toBe(1);
});

it('an error that rolls back the whole transaction fails every write of the group, before and after it', async () => {
  const groups = writeGroupsOf(db);
  const outcomes = await Promise.allSettled([groups.run(insert('n00')), groups.run(insert('n01')), groups.run(insert('n02', 'undo everything')), groups.run(insert('n03'))]);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
  for (const outcome of outcomes) expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/the whole transaction is undone/);
  expect(committed()).toEqual([]);
  // The write after it never ran: a SAVEPOINT outside a transaction would have begun one of its own.
  expect(statements.filter((sql) => /^insert/i.test(sql))).toHaveLength(3);
  // The next writes make a new group, and commit.
  await Promise.all([groups.run(insert('n04')), groups.run(insert('n05'))]);
  expect(committed()).toEqual(['n04', 'n05']);
});

it('writes on a closed database fail, and say why', async () => {
  const other = openDatabase(`sqlite:${join(dir, 'closed.sqlite')}`);
  await other.destroy();
  await expect(writeGroupsOf(other).run(async () => 'never')).rejects.toThrow();
});

describe('commands grouped in one transaction', () => {
  let service: RecordService;
  let commandDb: Knex;
  const commandStatements: string[] = [];
  const admin: PersonCaller = { kind: 'person', userId: 'u-admin', username: 'admin', roles: ['admin'], tokenId: 't-admin' };

  beforeAll(async () => {
    commandDb = openDatabase(`sqlite:${join(dir, 'commands.sqlite')}`);
    await migrate(commandDb, registry, { systemTables: SYSTEM_TABLES });
    commandDb.on('query', (query: { sql: string }) => commandStatements.push(query.sql));
    service = createRecordService({ registry, db: commandDb });
  });
  afterAll(() => commandDb?.destroy());

  /** Rows of the commands' database, read as another connection would. */
  const rowsOf = (sql: string, ...args: unknown[]): unknown[] => {
    const Database = loadBetterSqlite3();
    const reader = new Database(join(dir, 'commands.sqlite'), { readonly: true });
    try {
      return reader.prepare(sql).all(...args);
    } finally {
      reader.close();
    }
  };

  it("updates of one record in one group each see the one before: every change kept, its history and events in order", async () => {
    const created = await executeCommand(service, admin, 'lead.create', { title: 'grouped' });
    expect(created.status).toBe(200);
    const id = (created.body as { value: { id: string } }).value.id;
    commandStatements.length = 0;
    const changes: Record<string, unknown>[] = [{ title: 'renamed' }, { probability: 70 }, { expected_revenue: 5000 }, { close_date: '2025-06-30' }, { hot: true }, { notes: 'in a group' }];
    // Started in one turn of the event loop: they join one group.
    const outcomes = await Promise.all([...changes.map((change) => executeCommand(service, admin, 'lead.update', { id, ...change })), executeCommand(service, admin, 'lead.qualify', { id })]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([...changes.map(() => 200), 200]);
    expect(commandStatements.filter((sql) => /^COMMIT/i.test(sql))).toHaveLength(1);
    expect(rowsOf('select title, probability, expected_revenue, close_date, hot, notes, stage from lead where id = ?', id)).toEqual([
      { title: 'renamed', probability: 70, expected_revenue: 5000, close_date: '2025-06-30', hot: 1, notes: 'in a group', stage: 'qualified' },
    ]);
    expect(rowsOf("select command from rms_history where model = 'lead' and record_id = ? order by id", id)).toEqual([
      { command: 'lead.create' },
      ...changes.map(() => ({ command: 'lead.update' })),
      { command: 'lead.qualify' },
    ]);
    expect(rowsOf("select record_seq, command from rms_events where model = 'lead' and record_id = ? order by record_seq", id)).toEqual([
      { record_seq: 1, command: 'lead.create' },
      ...changes.map((_, i) => ({ record_seq: i + 2, command: 'lead.update' })),
      { record_seq: changes.length + 2, command: 'lead.qualify' },
    ]);
  });

  it('a refused write in a group answers its refusal; the others are kept', async () => {
    const created = await executeCommand(service, admin, 'lead.create', { title: 'refusing' });
    const id = (created.body as { value: { id: string } }).value.id;
    commandStatements.length = 0;
    // Both qualify: one moves the lead, the other finds it qualified already (in the same transaction).
    const outcomes = await Promise.allSettled([executeCommand(service, admin, 'lead.qualify', { id }), executeCommand(service, admin, 'lead.qualify', { id }), executeCommand(service, admin, 'lead.update', { id, notes: 'kept' })]);
    const answered = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.status, (outcome.value.body as { value: Record<string, unknown> }).value.stage, (outcome.value.body as { value: Record<string, unknown> }).value.notes] : [(outcome.reason as HttpError).status, (outcome.reason as HttpError).message]));
    expect(answered).toEqual([
      [200, 'qualified', null],
      [400, 'lead.stage is qualified; qualify needs new'],
      [200, 'qualified', 'kept'],
    ]);
    expect(commandStatements.filter((sql) => /^COMMIT/i.test(sql))).toHaveLength(1);
    expect(rowsOf("select record_seq, command from rms_events where model = 'lead' and record_id = ? order by record_seq", id)).toEqual([
      { record_seq: 1, command: 'lead.create' },
      { record_seq: 2, command: 'lead.qualify' },
      { record_seq: 3, command: 'lead.update' },
    ]);
  });
});
