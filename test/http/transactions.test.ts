/**
 * Each command runs in one transaction: a failure half-way leaves nothing written, parallel
 * commands lose nothing, and a failure never shows its internals to the client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Makes a write fail inside its transaction, after the handler wrote: the executed audit row of a
 * call whose input holds "boom" is refused by a trigger, with a message that must not reach the
 * client. (The audit row is written last, in the command's transaction.)
 */
const FAIL_AFTER_WRITE = {
  sqlite: `create trigger fail_after_write before insert on rms_audit
    when new.outcome = 'executed' and new.input like '%"boom"%'
    begin select raise(abort, 'SQLITE_CONSTRAINT: something at /work/main/runtime/secret.ts:42'); end;`,
  postgres: `create function fail_after_write() returns trigger language plpgsql as $$
      begin raise exception 'SQLITE_CONSTRAINT: something at /work/main/runtime/secret.ts:42'; end $$;
    create trigger fail_after_write before insert on rms_audit for each row
      when (new.outcome = 'executed' and new.input like '%"boom"%') execute function fail_after_write();`,
};

/**
 * Undoes the whole transaction of a create whose title is "undo", as a full disk or an I/O error
 * would: on SQLite the writes grouped in that transaction with it (runtime/db/write-groups.ts) go too.
 */
const UNDO_WHOLE_TRANSACTION = {
  sqlite: `create trigger undo_whole_transaction before insert on lead when new.title = 'undo'
    begin select raise(rollback, 'undone'); end;`,
  postgres: `create function undo_whole_transaction() returns trigger language plpgsql as $$
      begin raise exception 'undone'; end $$;
    create trigger undo_whole_transaction before insert on lead for each row
      when (new.title = 'undo') execute function undo_whole_transaction();`,
};

let srv: TestServer;
let admin: string;
const logged: unknown[] = [];

beforeAll(async () => {
  srv = await startTestServer({ logError: (error) => logged.push(error) });
  await srv.execute(FAIL_AFTER_WRITE);
  await srv.execute(UNDO_WHOLE_TRANSACTION);
  admin = await srv.login();
});
afterAll(() => srv?.close());

const count = (sql: string, ...args: unknown[]) => srv.inspect((db) => (db.prepare(sql).get(...args) as { n: number }).n);

describe('one transaction per command', () => {
  it('a create that fails after writing leaves no row, and the client sees only "internal error"', async () => {
    const before = count('select count(*) as n from lead');
    const res = await srv.command(admin, 'lead.create', { title: 'boom' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal error' });
    expect(JSON.stringify(res.body)).not.toMatch(/SQLITE|secret|runtime/);
    expect(count('select count(*) as n from lead')).toBe(before);
    expect(String(logged.at(-1))).toMatch(/SQLITE_CONSTRAINT/);
  });

  it('an update that fails after writing changes nothing', async () => {
    const id = (await srv.command(admin, 'lead.create', { title: 'safe', probability: 1 })).body.value.id;
    const res = await srv.command(admin, 'lead.update', { id, title: 'boom', probability: 99 });
    expect(res.status).toBe(500);
    expect(srv.inspect((db) => db.prepare('select title, probability from lead where id = ?').get(id))).toEqual({ title: 'safe', probability: 1 });
  });

  it('an action that fails after writing leaves the state where it was', async () => {
    const id = (await srv.command(admin, 'lead.create', { title: 'safe' })).body.value.id;
    const res = await srv.command(admin, 'lead.lose', { id, lost_reason: 'boom' });
    expect(res.status).toBe(500);
    expect(srv.inspect((db) => db.prepare('select stage, lost_reason from lead where id = ?').get(id))).toEqual({ stage: 'new', lost_reason: null });
  });

  it('the server keeps serving after a failure', async () => {
    expect((await srv.command(admin, 'lead.list', {})).status).toBe(200);
  });
});

describe('concurrency', () => {
  it('parallel updates of different fields of one record lose nothing', async () => {
    const id = (await srv.command(admin, 'lead.create', { title: 'shared' })).body.value.id;
    const changes: Record<string, unknown>[] = [
      { title: 'renamed' },
      { probability: 70 },
      { expected_revenue: 5000 },
      { close_date: '2025-06-30' },
      { hot: true },
      { notes: 'parallel' },
      { lost_reason: 'none yet' },
    ];
    const results = await Promise.all(changes.map((change) => srv.command(admin, 'lead.update', { id, ...change })));
    expect(results.map((res) => res.status)).toEqual(changes.map(() => 200));
    const value = (await srv.command(admin, 'lead.get', { id })).body.value;
    expect(value).toMatchObject(Object.assign({}, ...changes));
    // Each change is one event, numbered in the record's order: the create's, then one per update.
    const seqs = srv.inspect((db) => db.prepare("select record_seq from rms_events where model = 'lead' and record_id = ? order by record_seq").all(id)) as { record_seq: number | string }[];
    expect(seqs.map((row) => Number(row.record_seq))).toEqual(Array.from({ length: changes.length + 1 }, (_, i) => i + 1));
  });

  it('parallel creates all land, with distinct ids', async () => {
    const before = count('select count(*) as n from party');
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => srv.command(admin, 'party.create', { name: `P${i}` })));
    expect(results.every((res) => res.status === 200)).toBe(true);
    expect(new Set(results.map((res) => res.body.value.id)).size).toBe(40);
    expect(count('select count(*) as n from party')).toBe(before + 40);
  });

  it('parallel creates of which some fail after writing: each answers for itself, and only the failed ones leave nothing', async () => {
    const titles = Array.from({ length: 30 }, (_, i) => (i % 7 === 3 ? 'boom' : `kept ${i}`));
    const results = await Promise.all(titles.map((title) => srv.command(admin, 'lead.create', { title })));
    expect(results.map((res) => res.status)).toEqual(titles.map((title) => (title === 'boom' ? 500 : 200)));
    const kept = results.filter((res) => res.status === 200).map((res) => ({ id: res.body.value.id as string, title: res.body.value.title as string }));
    expect(kept.map((lead) => lead.title)).toEqual(titles.filter((title) => title !== 'boom'));
    // One look each (on PostgreSQL each look is a connection of its own): the leads, their history entries and audit rows.
    const stored = srv.inspect((db) => ({
      leads: db.prepare("select id, title from lead where title like 'kept %' or title = 'boom' order by id").all(),
      history: db.prepare("select record_id from rms_history where command = 'lead.create' and record_id in (select id from lead where title like 'kept %') order by record_id").all(),
      audit: db.prepare("select record_id from rms_audit where command = 'lead.create' and outcome = 'executed' and record_id in (select id from lead where title like 'kept %') order by record_id").all(),
    }));
    const byId = [...kept].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(stored).toEqual({ leads: byId, history: byId.map(({ id }) => ({ record_id: id })), audit: byId.map(({ id }) => ({ record_id: id })) });
  });

  it('parallel creates with one whose transaction is undone whole: every create answered 200 is stored, every other is not', async () => {
    const titles = Array.from({ length: 30 }, (_, i) => (i === 11 ? 'undo' : `grouped ${i}`));
    const results = await Promise.all(titles.map((title) => srv.command(admin, 'lead.create', { title })));
    expect(results[11]!.status).toBe(500);
    for (const res of results) expect(res.status === 200 || (res.status === 500 && JSON.stringify(res.body) === '{"error":"internal error"}')).toBe(true);
    const answered = results.filter((res) => res.status === 200).map((res) => res.body.value.id as string).sort();
    const stored = srv.inspect((db) => ({
      leads: db.prepare("select id from lead where title like 'grouped %' or title = 'undo' order by id").all(),
      history: db.prepare("select record_id from rms_history where command = 'lead.create' and record_id in (select id from lead where title like 'grouped %') order by record_id").all(),
    }));
    expect(stored).toEqual({ leads: answered.map((id) => ({ id })), history: answered.map((id) => ({ record_id: id })) });
    // The server goes on: the next create is stored.
    expect((await srv.command(admin, 'lead.create', { title: 'after the undo' })).status).toBe(200);
    expect(count("select count(*) as n from lead where title = 'after the undo'")).toBe(1);
  });

  it('parallel runs of one action move the record once', async () => {
    const id = (await srv.command(admin, 'lead.create', { title: 'race' })).body.value.id;
    const results = await Promise.all(Array.from({ length: 8 }, () => srv.command(admin, 'lead.qualify', { id })));
    expect(results.filter((res) => res.status === 200)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) expect(res.body).toEqual({ error: 'lead.stage is qualified; qualify needs new' });
  });

  it('a delete racing a create that refers to the record leaves no dangling reference', async () => {
    const party = (await srv.command(admin, 'party.create', { name: 'racy' })).body.value.id;
    const [created, deleted] = await Promise.all([srv.command(admin, 'lead.create', { title: 'ref', party }), srv.command(admin, 'party.delete', { id: party })]);
    const partyLeft = count('select count(*) as n from party where id = ?', party);
    const leadsReferring = count('select count(*) as n from lead where party = ?', party);
    if (deleted.status === 200) {
      expect(partyLeft).toBe(0);
      expect(leadsReferring).toBe(0);
      expect(created.body).toEqual({ error: `lead.party: no party with id ${party}` });
    } else {
      expect(created.status).toBe(200);
      expect(deleted.body.error).toMatch(/is referred to by lead/);
    }
  });
});
