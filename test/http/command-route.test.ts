/**
 * The command route is answered two ways (runtime/http/command-route.ts): plain calls straight
 * from node:http, the rest through Express. Whatever the body, both must answer exactly alike:
 * each case here is sent once with a Content-Length (the fast route) and once chunked (which only
 * Express reads), and the answers — status, body, the headers that matter — must be the same.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let leadId: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  leadId = (await t.command(admin, 'lead.create', { title: 'Routed' })).body.value.id;
});
afterAll(() => t?.close());

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string | undefined>;
}

/** A raw POST: `chunked` sends the body without Content-Length (Transfer-Encoding: chunked). */
function post(path: string, body: Buffer | string | undefined, headers: Record<string, string>, chunked: boolean): Promise<Answer> {
  const url = new URL(path, t.url);
  return new Promise((resolve, reject) => {
    const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', headers: { ...headers, ...(bytes && !chunked ? { 'content-length': String(bytes.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            headers: {
              'content-type': res.headers['content-type'],
              'cache-control': res.headers['cache-control'],
              'www-authenticate': res.headers['www-authenticate'] as string | undefined,
              'ratelimit-limit': res.headers['ratelimit-limit'] as string | undefined,
            },
          }),
        );
      },
    );
    req.on('error', reject);
    if (bytes) {
      if (chunked) {
        // Two chunks, so that the body really arrives chunked.
        req.write(bytes.subarray(0, Math.ceil(bytes.length / 2)));
        req.end(bytes.subarray(Math.ceil(bytes.length / 2)));
      } else req.end(bytes);
    } else req.end();
  });
}

const json = (token?: string) => ({ 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) });

describe('plain calls and Express answer alike', () => {
  const cases: [string, string, () => Buffer | string | undefined, () => Record<string, string>][] = [
    ['a get', '/api/lead/get', () => JSON.stringify({ id: leadId }), () => json(admin)],
    ['a create', '/api/party/create', () => JSON.stringify({ name: 'Routed Person', kind: 'person' }), () => json(admin)],
    ['malformed JSON', '/api/lead/get', () => '{"id": ', () => json(admin)],
    ['a body that is only spaces', '/api/lead/get', () => '   ', () => json(admin)],
    ['invalid UTF-8', '/api/lead/get', () => Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), () => json(admin)],
    ['a byte order mark before the JSON', '/api/lead/get', () => `\ufeff${JSON.stringify({ id: leadId })}`, () => json(admin)],
    ['a JSON array', '/api/lead/get', () => '[]', () => json(admin)],
    ['JSON null', '/api/lead/get', () => 'null', () => json(admin)],
    ['a JSON string', '/api/lead/list', () => '"x"', () => json(admin)],
    ['an unknown field', '/api/lead/get', () => JSON.stringify({ id: leadId, nope: 1 }), () => json(admin)],
    ['no token', '/api/lead/get', () => JSON.stringify({ id: leadId }), () => json()],
    ['a token never issued', '/api/lead/get', () => JSON.stringify({ id: leadId }), () => json('rms_s_nope')],
    ['a command the caller may not use', '/api/invoice/post', () => JSON.stringify({ id: 'x' }), () => json(admin)],
    ['text/plain', '/api/lead/get', () => JSON.stringify({ id: leadId }), () => ({ ...json(admin), 'content-type': 'text/plain' })],
    ['JSON in latin1', '/api/lead/get', () => JSON.stringify({ id: leadId }), () => ({ ...json(admin), 'content-type': 'application/json; charset=latin1' })],
    ['an upper-case content type', '/api/lead/get', () => JSON.stringify({ id: leadId }), () => ({ ...json(admin), 'content-type': 'Application/JSON; Charset=UTF-8' })],
  ];

  for (const [name, path, body, headers] of cases) {
    it(name, async () => {
      const plain = await post(path, body(), headers(), false);
      const chunked = await post(path, body(), headers(), true);
      if (name === 'a create') {
        // Two creates: two ids.
        expect([plain.status, chunked.status]).toEqual([200, 200]);
        expect(JSON.parse(plain.body).value.name).toBe(JSON.parse(chunked.body).value.name);
        return;
      }
      expect(plain).toEqual(chunked);
      expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(plain.headers['cache-control']).toBe('no-store');
    });
  }

  it('exact answers of the fast route for body mistakes', async () => {
    expect(await post('/api/lead/get', '{"id": ', json(admin), false)).toMatchObject({ status: 400, body: '{"error":"malformed JSON"}' });
    expect(await post('/api/lead/get', Buffer.from([0x7b, 0xff, 0x7d]), json(admin), false)).toMatchObject({ status: 400, body: '{"error":"body is not valid UTF-8"}' });
    expect(await post('/api/lead/get', `\ufeff${JSON.stringify({ id: leadId })}`, json(admin), false)).toMatchObject({ status: 200 });
    expect(await post('/api/lead/get', JSON.stringify({ id: leadId }), json(), false)).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Bearer' } });
    // No body at all is an empty input.
    expect(await post('/api/lead/get', undefined, json(admin), false)).toMatchObject({ status: 400, body: '{"error":"id is required"}' });
  });

  it('an agent gets its rate-limit headers on the fast route too', async () => {
    const token = (await t.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'routed', limits: { requests_per_minute: 50 } }, admin)).body.token as string;
    const answer = await post('/api/lead/get', JSON.stringify({ id: leadId }), json(token), false);
    expect(answer.status).toBe(200);
    expect(answer.headers['ratelimit-limit']).toBe('50');
  });
});
