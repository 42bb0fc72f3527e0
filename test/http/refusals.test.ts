/**
 * Refusals are one decision for REST and MCP (runtime/http/refusals.ts): a missing or bad token
 * gets the same status, text and bearer challenge on either (the probe found MCP sending
 * `invalid_token` for a request without one, where REST and RFC 6750 send the bare scheme), and an
 * agent's request refused for its body — or, on MCP, for a protocol revision the server does not
 * speak — costs the agent a request all the same, so malformed calls cannot flood past its limits.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
});

afterAll(async () => {
  await t?.close();
});

interface Answer {
  readonly status: number;
  readonly json: any;
  readonly challenge: string | undefined;
}

function send(method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<Answer> {
  const url = new URL(path, t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')), challenge: res.headers['www-authenticate'] }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const MCP_HEADERS = { ...JSON_TYPE, accept: 'application/json, text/event-stream' };
const listTools = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('a missing or bad token: one answer, REST and MCP', () => {
  const authorizations: [string, Record<string, string>, string, string][] = [
    ['no Authorization', {}, 'missing bearer token', 'Bearer'],
    ['an empty one', { authorization: '' }, 'missing bearer token', 'Bearer'],
    ['another scheme', { authorization: 'Basic YWRtaW46eA==' }, 'missing bearer token', 'Bearer'],
    ['the scheme alone', { authorization: 'Bearer' }, 'missing bearer token', 'Bearer'],
    ['a token of no known shape', { authorization: 'Bearer not-a-token' }, 'invalid or expired token', 'Bearer error="invalid_token"'],
    ['a token never issued', { authorization: `Bearer rms_a_${'A'.repeat(43)}` }, 'invalid or expired token', 'Bearer error="invalid_token"'],
  ];
  it.each(authorizations)('%s', async (_name, authorization, text, challenge) => {
    const answers = {
      'a command (plain route)': await send('POST', '/api/lead/list', { ...JSON_TYPE, ...authorization }, '{}'),
      'a command (Express route)': await send('POST', '/api/lead/list?dry_run=true', { ...JSON_TYPE, ...authorization }, '{}'),
      'an endpoint': await send('GET', '/api/meta', authorization),
      'a plan': await send('POST', '/api/approve/01M8453071PP1FM7GERNKEWM8S', authorization),
    };
    for (const [where, res] of Object.entries(answers)) {
      expect({ where, status: res.status, json: res.json, challenge: res.challenge }).toEqual({ where, status: 401, json: { error: text }, challenge });
    }
    const res = await send('POST', '/mcp', { ...MCP_HEADERS, ...authorization }, listTools);
    expect({ status: res.status, json: res.json, challenge: res.challenge }).toEqual({
      status: 401,
      json: { jsonrpc: '2.0', error: { code: -32000, message: text }, id: null },
      challenge,
    });
  });
});

describe('an agent pays for refused requests', () => {
  async function agent(limits?: Record<string, number>): Promise<{ token: string; id: string }> {
    const res = await t.request('POST', '/api/auth/agent-token', { scopes: ['lead.*'], label: 'careless bot', ...(limits ? { limits } : {}) }, admin);
    expect(res.status).toBe(200);
    return { token: res.body.token, id: res.body.id };
  }

  /** Every request counted for the token, whatever the window (windows are clock minutes). */
  function counted(tokenId: string): number {
    return t.inspect((db) => Number((db.prepare('select coalesce(sum(requests), 0) as n from rms_rate_windows where agent_token_id = ?').get(tokenId) as { n: number }).n));
  }

  const bad = {
    'malformed JSON': { headers: JSON_TYPE, body: '{"id": ' },
    'bytes that are not UTF-8': { headers: JSON_TYPE, body: Buffer.from([0x7b, 0xff, 0x7d]) },
    'UTF-16': { headers: { 'content-type': 'application/json; charset=utf-16le' }, body: Buffer.from('{}', 'utf16le') },
    'another content type': { headers: { 'content-type': 'text/plain' }, body: '{}' },
    'a bad gzip body': { headers: { ...JSON_TYPE, 'content-encoding': 'gzip' }, body: 'plain' },
    'a body over 1 MB': { headers: JSON_TYPE, body: `{"pad":"${'x'.repeat(1_100_000)}"}` },
  };

  it.each(Object.entries(bad))('REST, %s: 4xx as for anyone, and one request', async (_name, { headers, body }) => {
    const { token, id } = await agent();
    for (const path of ['/api/lead/list', '/api/lead/list?dry_run=true', '/api/auth/agent-token', '/api/plans/x']) {
      const before = counted(id);
      const res = await send('POST', path, { ...headers, authorization: `Bearer ${token}` }, body);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(counted(id) - before, path).toBe(1);
    }
  });

  const mcpBad = {
    'malformed JSON': { headers: {}, body: '{"jsonrpc": ' },
    'an empty body': { headers: {}, body: '' },
    'bytes that are not UTF-8': { headers: {}, body: Buffer.from([0x7b, 0xff, 0x7d]) },
    'a body over 1 MB': { headers: {}, body: `{"pad":"${'x'.repeat(1_100_000)}"}` },
    'a protocol revision the server does not speak': { headers: { 'mcp-protocol-version': '1999-01-01' }, body: listTools },
    'a batch in a revision without batches': { headers: { 'mcp-protocol-version': '2025-06-18' }, body: `[${listTools}]` },
  };

  it.each(Object.entries(mcpBad))('MCP, %s: the JSON-RPC error, and one request', async (_name, { headers, body }) => {
    const { token, id } = await agent();
    const before = counted(id);
    const res = await send('POST', '/mcp', { ...MCP_HEADERS, ...headers, 'transfer-encoding': 'chunked', authorization: `Bearer ${token}` }, body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.json.error.code).toBeLessThan(0);
    expect(counted(id) - before).toBe(1);
  });

  it('over its limit, refused requests are 429 like any (and people are never counted)', async () => {
    const { token, id } = await agent({ requests_per_minute: 1 });
    const answers: number[] = [];
    // Three refused bodies and a good call: windows are clock minutes, so of four calls at least
    // two share one, and the second of those is over the limit.
    for (const [path, body] of [
      ['/api/lead/list', '{'],
      ['/mcp', '{'],
      ['/api/lead/list', '{'],
      ['/api/lead/list', '{}'],
    ] as const) {
      const headers = path === '/mcp' ? MCP_HEADERS : JSON_TYPE;
      const res = await send('POST', path, { ...headers, authorization: `Bearer ${token}` }, body);
      answers.push(res.status);
      if (res.status === 429) expect(path === '/mcp' ? res.json.error.message : res.json.error).toBe('rate limit exceeded');
    }
    expect(answers).toContain(429);
    expect(counted(id)).toBe(4);
    const people = t.inspect((db) => db.prepare("select count(*) as n from rms_rate_windows where agent_token_id not in (select id from rms_tokens where kind = 'agent')").get() as { n: number });
    await send('POST', '/api/lead/list', { ...JSON_TYPE, authorization: `Bearer ${admin}` }, '{');
    expect(t.inspect((db) => db.prepare("select count(*) as n from rms_rate_windows where agent_token_id not in (select id from rms_tokens where kind = 'agent')").get())).toEqual(people);
  });
});
