/**
 * Conformance: concurrency and persistence (issues 3 and 4).
 * Black-box, from SPEC and the issue texts only; see ../helpers/conformance.ts for what this suite is and its
 * conventions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { expect200, create, type Rec } from '../helpers/conformance.ts';

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

describe('issue 3 / issue 4: concurrency and persistence', () => {
  it('ten concurrent lead.qualify on one lead: exactly one 200, the rest 400', async () => {
    const l = await create(s, admin, 'lead', { title: 'race qualify' });
    const rs = await Promise.all(Array.from({ length: 10 }, () => s.command(admin, 'lead.qualify', { id: l.id })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 400)).toHaveLength(9);
  });

  it('six concurrent approvals of one plan: exactly one 200, the rest 409', async () => {
    const a = await agentToken(s, admin, ['lead.*']);
    const l = await create(s, admin, 'lead', { title: 'race approve' });
    const plan = (await s.command(a, 'lead.delete', { id: l.id })).body.plan_id as string;
    const rs = await Promise.all(Array.from({ length: 6 }, () => s.request('POST', `/api/approve/${plan}`, undefined, admin)));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
  });

  it('concurrent updates of different fields of one record lose nothing', async () => {
    const l = await create(s, admin, 'lead', { title: 'race update' });
    const parts: Rec[] = [{ probability: 1 }, { expected_revenue: 2 }, { hot: true }, { close_date: '2024-01-01' }, { notes: 'n' }, { lost_reason: 'lr' }, { title: 'T' }];
    const rs = await Promise.all(parts.map((p) => s.command(admin, 'lead.update', { id: l.id, ...p })));
    for (const r of rs) expect(r.status).toBe(200);
    expect(expect200(await s.command(admin, 'lead.get', { id: l.id }))).toEqual({ ...l, ...Object.assign({}, ...parts) });
  });

  it('delete racing creates that refer to the record never leaves a dangling reference', async () => {
    for (let k = 0; k < 3; k++) {
      const p = await create(s, admin, 'party', { name: `race ${k}` });
      await Promise.all([
        s.command(admin, 'party.delete', { id: p.id }),
        ...Array.from({ length: 4 }, () => s.command(admin, 'lead.create', { title: 'racer', party: p.id })),
      ]);
      const gone = (await s.command(admin, 'party.get', { id: p.id })).status !== 200;
      const refs = expect200(await s.command(admin, 'lead.list', { filter: [{ field: 'party', op: 'eq', value: p.id }] })) as Rec[];
      if (gone) expect(refs).toEqual([]);
    }
  });

  it('masking tokens live in the database: a second instance on the same database gives the same token and resolves it', async () => {
    const s2 = await startTestServer({ dbUrl: s.dbUrl });
    try {
      const p = await create(s, admin, 'party', { name: 'Persistent Person' });
      const a = await agentToken(s, admin, ['party.*']);
      const tok = expect200(await s.command(a, 'party.get', { id: p.id })).name;
      expect(expect200(await s2.command(a, 'party.get', { id: p.id })).name).toBe(tok);
      const c = expect200(await s2.command(a, 'party.create', { name: tok }));
      expect(expect200(await s.command(admin, 'party.get', { id: c.id })).name).toBe('Persistent Person');
    } finally {
      await s2.close();
    }
  });
});
