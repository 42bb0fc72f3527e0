/**
 * Conformance: delete (SPEC 4.3 rule 4), refused while the record is referenced.
 * Black-box, from SPEC and the issue texts only; see ../helpers/conformance.ts for what this suite is and its
 * conventions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expect200, expect400, create } from '../helpers/conformance.ts';

// one server for this file, signed in as admin
let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.login();
});
afterAll(async () => {
  await s?.close();
});

describe('SPEC 4.3 rule 4: delete', () => {
  it('delete → 200 {"id"}; the record is gone', async () => {
    const v = await create(s, admin, 'lead', { title: 'del' });
    expect(expect200(await s.command(admin, 'lead.delete', { id: v.id }))).toEqual({ id: v.id });
    expect((await s.command(admin, 'lead.get', { id: v.id })).status).not.toBe(200);
    const listed = expect200(await s.command(admin, 'lead.list', { filter: [{ field: 'id', op: 'eq', value: v.id }] }));
    expect(listed).toEqual([]);
  });

  it('deleting twice: second is not 200', async () => {
    const v = await create(s, admin, 'lead', { title: 'del2' });
    expect200(await s.command(admin, 'lead.delete', { id: v.id }));
    expect((await s.command(admin, 'lead.delete', { id: v.id })).status).not.toBe(200);
  });

  it('delete of a party referenced by a lead → 400, nothing deleted', async () => {
    const p = await create(s, admin, 'party', { name: 'referenced' });
    const l = await create(s, admin, 'lead', { title: 'refers', party: p.id });
    expect400(await s.command(admin, 'party.delete', { id: p.id }));
    expect(expect200(await s.command(admin, 'party.get', { id: p.id })).name).toBe('referenced');
    expect200(await s.command(admin, 'lead.delete', { id: l.id }));
    expect(expect200(await s.command(admin, 'party.delete', { id: p.id }))).toEqual({ id: p.id });
  });

  it('delete of a party referenced by an invoice → 400', async () => {
    const p = await create(s, admin, 'party', { name: 'billed' });
    await create(s, admin, 'invoice', { number: 'D-1', party: p.id, amount: 1, issue_date: '2024-01-01' });
    expect400(await s.command(admin, 'party.delete', { id: p.id }));
    expect200(await s.command(admin, 'party.get', { id: p.id }));
  });

  it('delete of a lead referenced by an invoice → 400', async () => {
    const p = await create(s, admin, 'party', { name: 'billed2' });
    const l = await create(s, admin, 'lead', { title: 'invoiced lead' });
    await create(s, admin, 'invoice', { number: 'D-2', party: p.id, lead: l.id, amount: 1, issue_date: '2024-01-01' });
    expect400(await s.command(admin, 'lead.delete', { id: l.id }));
    expect200(await s.command(admin, 'lead.get', { id: l.id }));
  });

  it('a reference cleared by update no longer blocks delete', async () => {
    const p = await create(s, admin, 'party', { name: 'was referenced' });
    const l = await create(s, admin, 'lead', { title: 'x', party: p.id });
    expect400(await s.command(admin, 'party.delete', { id: p.id }));
    expect200(await s.command(admin, 'lead.update', { id: l.id, party: null }));
    expect200(await s.command(admin, 'party.delete', { id: p.id }));
  });
});
