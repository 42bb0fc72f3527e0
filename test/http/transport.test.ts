/**
 * The HTTP edge of the command route: authentication first, bodies (415, 413, malformed JSON,
 * empty), JSON 404s, and errors that never leak internals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let admin: string;

beforeAll(async () => {
  srv = await startTestServer();
  admin = await srv.login();
});
afterAll(() => srv?.close());

describe('authentication comes first', () => {
  it('answers 401 without a token, even for unknown commands', async () => {
    for (const path of ['/api/lead/list', '/api/lead/nope', '/api/boat/get']) {
      const res = await srv.request('POST', path, {});
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });

  it('answers 401 for a malformed or unknown token', async () => {
    expect((await srv.request('POST', '/api/lead/list', {}, 'nonsense')).status).toBe(401);
    expect((await srv.request('POST', '/api/lead/list', {}, undefined, { authorization: 'Basic YWRtaW46eA==' })).status).toBe(401);
    expect((await srv.request('POST', '/api/lead/list', {}, `${admin}x`)).status).toBe(401);
  });

  it('carries a bearer challenge on every 401', async () => {
    const missing = await srv.request('POST', '/api/lead/list', {});
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const unknown = await srv.request('POST', '/api/lead/list', {}, `${admin}x`);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const wrongPassword = await srv.request('POST', '/api/auth/login', { username: 'nobody-here', password: 'wrong-password' });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.headers.get('www-authenticate')).toBe('Bearer');
    const ok = await srv.request('POST', '/api/lead/list', {}, admin);
    expect(ok.headers.get('www-authenticate')).toBeNull();
  });

  it('answers 401 after logout', async () => {
    const token = await srv.login();
    expect((await srv.command(token, 'lead.list', {})).status).toBe(200);
    expect((await srv.request('POST', '/api/auth/logout', undefined, token)).status).toBe(200);
    expect((await srv.command(token, 'lead.list', {})).status).toBe(401);
  });
});

describe('request bodies', () => {
  it('refuses a body not sent as application/json with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'multipart/form-data; boundary=x']) {
      const res = await srv.request('POST', '/api/lead/list', '{}', admin, { 'content-type': type });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ error: 'Content-Type must be application/json' });
    }
  });

  it('refuses a body without a Content-Type with 415', async () => {
    const res = await fetch(`${srv.url}/api/lead/list`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: new Uint8Array([123, 125]) });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ error: 'Content-Type must be application/json' });
  });

  it('accepts application/json with a charset, in any case', async () => {
    expect((await srv.request('POST', '/api/lead/list', '{}', admin, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    expect((await srv.request('POST', '/api/lead/list', '{}', admin, { 'content-type': 'Application/JSON' })).status).toBe(200);
  });

  it('reads an empty body as {}', async () => {
    const res = await fetch(`${srv.url}/api/lead/list`, { method: 'POST', headers: { authorization: `Bearer ${admin}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ denied: [], value: expect.any(Array) });
    const get = await fetch(`${srv.url}/api/lead/get`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' } });
    expect(get.status).toBe(400);
    expect(await get.json()).toEqual({ error: 'id is required' });
  });

  it('refuses malformed JSON with 400', async () => {
    for (const body of ['{x', '{"title": }', '{"a":1}}', "{'a':1}"]) {
      const res = await srv.request('POST', '/api/lead/create', body, admin);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'malformed JSON' });
    }
  });

  it('refuses a body over 1 MB with 413', async () => {
    const big = JSON.stringify({ title: 'x', notes: 'n'.repeat(1024 * 1024) });
    const res = await srv.request('POST', '/api/lead/create', big, admin);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'body too large' });
  });

  it('refuses an oversized chunked body with 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 40) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${srv.url}/api/lead/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'body too large' });
  });

  it('accepts a body just under 1 MB', async () => {
    const notes = 'n'.repeat(1000 * 1000);
    const res = await srv.command(admin, 'lead.create', { title: 'big', notes });
    expect(res.status).toBe(200);
    expect(res.body.value.notes).toHaveLength(notes.length);
  });
});

describe('unknown paths', () => {
  it('answers JSON 404 for unknown /api paths', async () => {
    for (const [method, path] of [
      ['GET', '/api/nothing'],
      ['POST', '/api/lead/get/extra'],
      ['POST', '/api'],
      ['POST', '/nothing'],
      ['GET', '/mcp/extra'],
    ] as const) {
      const res = await srv.request(method, path, undefined, admin);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ error: 'not found' });
    }
  });

  it('answers 405 with Allow: POST for another method on a command path, whether the command exists or not', async () => {
    for (const [method, path] of [
      ['GET', '/api/lead/list'],
      ['DELETE', '/api/lead/delete'],
      ['PUT', '/api/lead/update'],
      ['GET', '/api/boat/get'],
      ['GET', '/api/lead/nosuch'],
      ['GET', '/api/approve/01ABC'],
    ] as const) {
      for (const token of [admin, undefined]) {
        const res = await srv.request(method, path, undefined, token);
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(res.body).toEqual({ error: 'method not allowed: commands are called with POST' });
      }
    }
    // The GET endpoints of that shape keep answering.
    expect((await srv.request('GET', '/api/auth/agent-tokens', undefined, admin)).status).toBe(200);
  });

  it('dry_run=true answers what a command would do, changes nothing, and is audited as a dry run', async () => {
    const count = () => srv.inspect((db) => Number((db.prepare('select count(*) as n from lead').get() as { n: number }).n));
    const before = count();
    const audited = srv.inspect((db) => Number((db.prepare('select count(*) as n from rms_audit').get() as { n: number }).n));
    const ok = await srv.request('POST', '/api/lead/create?dry_run=true', { title: 'Only a try', expected_revenue: 5 }, admin);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ dry_run: true, denied: [], value: { title: 'Only a try', expected_revenue: 5, stage: 'new' } });
    const refused = await srv.request('POST', '/api/lead/create?dry_run=true', { expected_revenue: 5 }, admin);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'lead.title is required' });
    const badRef = await srv.request('POST', '/api/lead/create?dry_run=true', { title: 'x', party: 'nope' }, admin);
    expect(badRef.body).toEqual({ error: 'lead.party: no party with id nope' });
    expect(count()).toBe(before);
    const rows = srv.inspect((db) => db.prepare('select command, outcome, status, dry_run from rms_audit order by id').all()) as Record<string, unknown>[];
    expect(rows.slice(audited)).toEqual([
      { command: 'lead.create', outcome: 'executed', status: null, dry_run: 1 },
      { command: 'lead.create', outcome: 'refused', status: 400, dry_run: 1 },
      { command: 'lead.create', outcome: 'refused', status: 400, dry_run: 1 },
    ]);
    const bad = await srv.request('POST', '/api/lead/create?dry_run=yes', { title: 'x' }, admin);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'dry_run must be true (or left out)' });
  });

  it('leaves other GET paths to the web app, which answers them with its page', async () => {
    const res = await srv.request('GET', '/nothing');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('responses', () => {
  it('are JSON, not cached, without framework banners', async () => {
    const res = await srv.command(admin, 'lead.list', {});
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('serves /healthz without a token', async () => {
    const res = await srv.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, database: 'up' });
  });
});
