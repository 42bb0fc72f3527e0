/**
 * Conformance: governed fields and workflow actions (SPEC 2.2 / 3 / 4.3).
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

describe('SPEC 2.2 / 3 / 4.3: governed fields and workflow actions', () => {
  let party: Rec;
  beforeAll(async () => {
    party = await create(s, admin, 'party', { name: 'WF Party' });
  });

  it('create sets governed selects to their first option', async () => {
    expect((await create(s, admin, 'lead', { title: 'g' })).stage).toBe('new');
    const inv = await create(s, admin, 'invoice', { number: 'G-1', party: party.id, amount: 1, issue_date: '2024-01-01' });
    expect(inv.state).toBe('draft');
  });

  it.each(['new', 'qualified', 'won', null])('issue 3: a governed value in create input (%j) → 400', async (stage) => {
    expect400(await s.command(admin, 'lead.create', { title: 'g', stage }));
  });

  it('lead.qualify {id} on a new lead → 200, value is the updated record at qualified', async () => {
    const v = await create(s, admin, 'lead', { title: 'q', probability: 3 });
    const q = expect200(await s.command(admin, 'lead.qualify', { id: v.id }));
    expect(q).toEqual({ ...v, stage: 'qualified' });
  });

  it('lead.qualify on a lead not at new → 400, unchanged', async () => {
    const v = await create(s, admin, 'lead', { title: 'q2' });
    expect200(await s.command(admin, 'lead.qualify', { id: v.id }));
    expect400(await s.command(admin, 'lead.qualify', { id: v.id }));
    expect200(await s.command(admin, 'lead.win', { id: v.id }));
    expect400(await s.command(admin, 'lead.qualify', { id: v.id }));
    expect400(await s.command(admin, 'lead.lose', { id: v.id, lost_reason: 'late' }));
    expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).stage).toBe('won');
  });

  it('an action without id → 400', async () => {
    expect400(await s.command(admin, 'lead.qualify', {}));
  });

  it('lead.lose requires lost_reason: 400 "lead.lost_reason is required"', async () => {
    const v = await create(s, admin, 'lead', { title: 'l' });
    expect400(await s.command(admin, 'lead.lose', { id: v.id }), 'lead.lost_reason is required');
    expect400(await s.command(admin, 'lead.lose', { id: v.id, lost_reason: null }), 'lead.lost_reason is required');
    const lost = expect200(await s.command(admin, 'lead.lose', { id: v.id, lost_reason: 'budget' }));
    expect(lost).toMatchObject({ stage: 'lost', lost_reason: 'budget' });
  });

  it('action fields are validated by kind', async () => {
    const v = await create(s, admin, 'lead', { title: 'l' });
    expect400(await s.command(admin, 'lead.lose', { id: v.id, lost_reason: 42 }));
    expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).stage).toBe('new');
  });

  it('update of a governed field runs the matching action (new → qualified)', async () => {
    const v = await create(s, admin, 'lead', { title: 'uq' });
    expect(expect200(await s.command(admin, 'lead.update', { id: v.id, stage: 'qualified' })).stage).toBe('qualified');
  });

  it('update to a stage no action reaches from here → 400, unchanged', async () => {
    const v = await create(s, admin, 'lead', { title: 'uw' });
    expect400(await s.command(admin, 'lead.update', { id: v.id, stage: 'won' }));
    expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).stage).toBe('new');
  });

  it('update to an option that does not exist → 400', async () => {
    const v = await create(s, admin, 'lead', { title: 'ux' });
    expect400(await s.command(admin, 'lead.update', { id: v.id, stage: 'bogus' }));
    expect400(await s.command(admin, 'lead.update', { id: v.id, stage: null }));
  });

  it("update to lost runs lose, including its required input", async () => {
    const v = await create(s, admin, 'lead', { title: 'ul' });
    expect400(await s.command(admin, 'lead.update', { id: v.id, stage: 'lost' }), 'lead.lost_reason is required');
    expect(expect200(await s.command(admin, 'lead.get', { id: v.id })).stage).toBe('new');
    const u = expect200(await s.command(admin, 'lead.update', { id: v.id, stage: 'lost', lost_reason: 'price' }));
    expect(u).toMatchObject({ stage: 'lost', lost_reason: 'price' });
  });

  it('update of a governed field together with other fields applies both', async () => {
    const v = await create(s, admin, 'lead', { title: 'combo' });
    const u = expect200(await s.command(admin, 'lead.update', { id: v.id, stage: 'qualified', probability: 77 }));
    expect(u).toMatchObject({ stage: 'qualified', probability: 77 });
  });

  it('invoice workflow for a person: post, pay; cancel of paid refused', async () => {
    const inv = await create(s, admin, 'invoice', { number: 'W-1', party: party.id, amount: 500, issue_date: '2024-01-31' });
    expect(expect200(await s.command(admin, 'invoice.post', { id: inv.id })).state).toBe('posted');
    expect(expect200(await s.command(admin, 'invoice.pay', { id: inv.id })).state).toBe('paid');
    expect400(await s.command(admin, 'invoice.cancel', { id: inv.id }));
    expect400(await s.command(admin, 'invoice.update', { id: inv.id, state: 'draft' }));
  });
});
