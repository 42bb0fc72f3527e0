/**
 * Conformance: people’s rights by role (issue 3): the commands a role may use, the fields it reads and
 * writes.
 * Black-box, from SPEC and the issue texts only; see ../helpers/conformance.ts for what this suite is and its
 * conventions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expect200, expect400, create, type Rec } from '../helpers/conformance.ts';

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

describe('issue 3: people’s rights by role', () => {
  let sales: string;
  let acct: string;
  let party: Rec;
  beforeAll(async () => {
    sales = await s.addPerson('sally', ['sales']);
    acct = await s.addPerson('archie', ['accountant']);
    party = await create(s, admin, 'party', { name: 'Rights Co', tax_id: 'TAX-1', kind: 'company' });
  });

  it('admin reads tax_id; accountant reads tax_id', async () => {
    expect(expect200(await s.command(admin, 'party.get', { id: party.id })).tax_id).toBe('TAX-1');
    const r = await s.command(acct, 'party.get', { id: party.id });
    expect(expect200(r).tax_id).toBe('TAX-1');
    expect(r.body.denied).toEqual([]);
  });

  it('sales does not read tax_id: absent and named in denied as party.tax_id', async () => {
    const r = await s.command(sales, 'party.get', { id: party.id });
    const v = expect200(r);
    expect(v).not.toHaveProperty('tax_id');
    expect(r.body.denied).toEqual(['party.tax_id']);
    expect(v.name).toBe('Rights Co');
    const l = await s.command(sales, 'party.list', {});
    expect(l.body.denied).toEqual(['party.tax_id']);
    for (const row of expect200(l)) expect(row).not.toHaveProperty('tax_id');
    const sr = await s.command(sales, 'party.search', {});
    expect(sr.body.denied).toEqual(['party.tax_id']);
  });

  it('create/update/delete results also withhold the field from sales', async () => {
    const r = await s.command(sales, 'party.create', { name: 'by sales' });
    expect(expect200(r)).not.toHaveProperty('tax_id');
    expect(r.body.denied).toEqual(['party.tax_id']);
    const u = await s.command(sales, 'party.update', { id: r.body.value.id, email: 'e@x' });
    expect(expect200(u)).not.toHaveProperty('tax_id');
    expect(u.body.denied).toEqual(['party.tax_id']);
  });

  it('sales cannot filter or order by tax_id: 400 "unknown field party.tax_id"', async () => {
    expect400(await s.command(sales, 'party.list', { filter: [{ field: 'tax_id', op: 'eq', value: 'TAX-1' }] }), 'unknown field party.tax_id');
    expect400(await s.command(sales, 'party.list', { filter: [{ field: 'tax_id', op: 'is_null' }] }), 'unknown field party.tax_id');
    expect400(await s.command(sales, 'party.search', { order: [{ field: 'tax_id' }] }), 'unknown field party.tax_id');
  });

  it('sales cannot write tax_id (400), nothing written', async () => {
    expect((await s.command(sales, 'party.create', { name: 'sneaky', tax_id: 'X' })).status).toBe(400);
    expect((await s.command(sales, 'party.update', { id: party.id, tax_id: 'HACKED' })).status).toBe(400);
    expect(expect200(await s.command(admin, 'party.get', { id: party.id })).tax_id).toBe('TAX-1');
  });

  it('sales may only read invoices; writes → 404', async () => {
    const inv = await create(s, admin, 'invoice', { number: 'R-1', party: party.id, amount: 10, issue_date: '2024-05-05' });
    expect(expect200(await s.command(sales, 'invoice.get', { id: inv.id })).number).toBe('R-1');
    expect200(await s.command(sales, 'invoice.list', {}));
    expect200(await s.command(sales, 'invoice.search', {}));
    for (const cmd of ['invoice.create', 'invoice.update', 'invoice.delete', 'invoice.post', 'invoice.pay', 'invoice.cancel']) {
      expect((await s.command(sales, cmd, { id: inv.id })).status, cmd).toBe(404);
    }
  });

  it('accountant: party get/list/search/create/update, no party.delete; lead read-only', async () => {
    const p = expect200(await s.command(acct, 'party.create', { name: 'acct party' }));
    expect200(await s.command(acct, 'party.update', { id: p.id, kind: 'person' }));
    expect((await s.command(acct, 'party.delete', { id: p.id })).status).toBe(404);
    const l = await create(s, admin, 'lead', { title: 'acct sees' });
    expect200(await s.command(acct, 'lead.get', { id: l.id }));
    for (const cmd of ['lead.create', 'lead.update', 'lead.delete', 'lead.qualify', 'lead.win', 'lead.lose']) {
      expect((await s.command(acct, cmd, { id: l.id, title: 'x' })).status, cmd).toBe(404);
    }
    expect(expect200(await s.command(admin, 'lead.get', { id: l.id })).title).toBe('acct sees');
  });

  it('a forbidden governed transition via update does not run the action (accountant cannot update lead at all)', async () => {
    const l = await create(s, admin, 'lead', { title: 'acct stage' });
    expect((await s.command(acct, 'lead.update', { id: l.id, stage: 'qualified' })).status).toBe(404);
  });

  it('person with no role: every command 404, catalogue empty', async () => {
    const nobody = await s.addPerson('norole', []);
    expect((await s.command(nobody, 'lead.list', {})).status).toBe(404);
    const r = await s.request('GET', '/api/commands', undefined, nobody);
    expect(r.status).toBe(200);
    expect(r.body.commands).toEqual([]);
  });
});
