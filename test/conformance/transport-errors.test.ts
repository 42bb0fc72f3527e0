/**
 * Conformance: transport errors (SPEC 7): 415, 400 for malformed bodies, the one 404 for unknown and
 * forbidden commands, oversized bodies.
 * Black-box, from SPEC and the issue texts only; see ../helpers/conformance.ts for what this suite is and its
 * conventions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expect400 } from '../helpers/conformance.ts';

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

describe('SPEC 7 / issue 3: transport errors', () => {
  it('body sent as text/plain → 415', async () => {
    const r = await s.request('POST', '/api/lead/list', '{}', admin, { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
  });

  it('body sent as form data → 415', async () => {
    const r = await s.request('POST', '/api/lead/create', 'title=x', admin, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(415);
  });

  it('application/json with charset parameter is accepted', async () => {
    const r = await s.request('POST', '/api/lead/list', '{}', admin, { 'content-type': 'application/json; charset=utf-8' });
    expect(r.status).toBe(200);
  });

  it('malformed JSON → 400 {"error"}', async () => {
    expect400(await s.request('POST', '/api/lead/list', '{"filter": [', admin));
    expect400(await s.request('POST', '/api/lead/create', "{'title': 'x'}", admin));
  });

  it('JSON that is not an object (array, string, number, null) → 400', async () => {
    for (const body of ['[]', '"x"', '42', 'null', 'true']) {
      expect400(await s.request('POST', '/api/lead/create', body, admin));
    }
  });

  it('unknown model, unknown command → 404, indistinguishable', async () => {
    const a = await s.command(admin, 'nosuch.get', { id: 'x' });
    const b = await s.command(admin, 'lead.nosuch', { id: 'x' });
    const c = await s.request('POST', '/api/lead', {}, admin);
    expect(a.status).toBe(404);
    expect(b.status).toBe(404);
    expect(c.status).toBe(404);
    expect(a.body).toEqual(b.body);
  });

  it('forbidden command (role) → 404 with the same body as an unknown one', async () => {
    const acct = await s.addPerson('acct404', ['accountant']);
    const forbidden = await s.command(acct, 'lead.create', { title: 'x' });
    const unknown = await s.command(acct, 'lead.frobnicate', { title: 'x' });
    expect(forbidden.status).toBe(404);
    expect(forbidden.body).toEqual(unknown.body);
    expect(forbidden.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
  });

  it('a 404 is decided before the body is validated (bad body on a forbidden command still 404)', async () => {
    const acct = await s.addPerson('acct404b', ['accountant']);
    expect((await s.command(acct, 'lead.create', { nonsense: 1 })).status).toBe(404);
    expect((await s.request('POST', '/api/lead/create', '{bad json', acct)).status).not.toBe(200);
  });

  it('oversized body is refused (not 200, not 500)', async () => {
    const r = await s.request('POST', '/api/lead/create', JSON.stringify({ title: 'x'.repeat(20 * 1024 * 1024) }), admin);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it('model/command names are not case-folded or prototype-looked-up', async () => {
    expect((await s.command(admin, 'LEAD.list', {})).status).toBe(404);
    expect((await s.command(admin, 'lead.LIST', {})).status).toBe(404);
    expect((await s.command(admin, '__proto__.get', { id: 'x' })).status).toBe(404);
    expect((await s.command(admin, 'lead.constructor', {})).status).toBe(404);
    expect((await s.command(admin, 'lead.toString', {})).status).toBe(404);
  });
});
