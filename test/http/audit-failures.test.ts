/**
 * Every command is audited with its outcome, and an audit write that fails is an error, never
 * silence: a refused call whose audit row cannot be stored answers 500 (and logs the cause), an
 * executed write whose row cannot be stored does not happen. A trigger on the audit table makes
 * the database refuse the rows of one command (SQLite; PostgreSQL with RMS_TEST_PG_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
const logged: unknown[] = [];

beforeAll(async () => {
  t = await startTestServer({ logError: (error) => logged.push(error) });
  admin = await t.login();
  await t.execute({
    sqlite: `create trigger rms_test_no_party_audit before insert on rms_audit when new.command in ('party.get', 'party.create')
             begin select raise(abort, 'audit refused by test'); end;`,
    postgres: `create function rms_test_no_party_audit() returns trigger language plpgsql as $$
               begin if new.command in ('party.get', 'party.create') then raise exception 'audit refused by test'; end if; return new; end $$;
               create trigger rms_test_no_party_audit before insert on rms_audit for each row execute function rms_test_no_party_audit();`,
  });
});

afterAll(async () => {
  await t?.close();
});

describe('an audit write that fails', () => {
  it('turns a refused call into a 500 with its cause logged, not a silent 400', async () => {
    const before = logged.length;
    const refused = await t.command(admin, 'party.get', { id: 'no-such-party' });
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ error: 'internal error' });
    expect(logged.length).toBeGreaterThan(before);
  });

  it('undoes an executed write: the record is not stored without its audit row', async () => {
    const created = await t.command(admin, 'party.create', { name: 'Unaudited' });
    expect(created.status).toBe(500);
    expect(t.inspect((db) => db.prepare("select count(*) as n from party where name = 'Unaudited'").get())).toEqual({ n: 0 });
  });

  it('leaves other commands audited as usual', async () => {
    const listed = await t.command(admin, 'lead.list', { limit: 1 });
    expect(listed.status).toBe(200);
    expect(t.inspect((db) => db.prepare("select count(*) as n from rms_audit where command = 'lead.list'").get())).toEqual({ n: 1 });
  });
});
