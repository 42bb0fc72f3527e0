/**
 * MCP at the HTTP level, with plain fetch: what `/mcp` answers before and around the SDK's
 * transport (auth, Origin, methods, media types, body size, protocol version, batches,
 * notifications).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED_ORIGINS_ENV } from '../../runtime/mcp/origins.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const LISTED_ORIGIN = 'https://app.example.com';

let t: TestServer;
let admin: string;

beforeAll(async () => {
  // Read when the server starts, and removed at once: other test files run in this process after this one.
  process.env[ALLOWED_ORIGINS_ENV] = `${LISTED_ORIGIN}/`;
  try {
    t = await startTestServer();
  } finally {
    delete process.env[ALLOWED_ORIGINS_ENV];
  }
  admin = await t.login();
});

afterAll(() => t?.close());

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const initialize = (protocolVersion: string, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const listTools = (id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

interface Raw {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function mcp(body: unknown, options: { token?: string | null; headers?: Record<string, string>; method?: string; path?: string } = {}): Promise<Raw> {
  const token = options.token === undefined ? admin : options.token;
  const headers: Record<string, string> = { ...MCP_HEADERS, ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...options.headers };
  const res = await fetch(`${t.url}${options.path ?? '/mcp'}`, {
    method: options.method ?? 'POST',
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

function expectJsonRpcError(res: Raw, status: number, code: number, id: string | number | null = null): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.json).toMatchObject({ jsonrpc: '2.0', id, error: { code, message: expect.any(String) } });
}

describe('a plain request', () => {
  it('initializes without a session id and answers plain JSON that is never cached', async () => {
    const res = await mcp(initialize('2025-06-18'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'rmsgen' } } });
  });

  it('answers initialize at a revision it does not speak with 2025-11-25', async () => {
    for (const asked of ['2024-11-05', '2024-10-07', '1999-01-01']) {
      expect((await mcp(initialize(asked))).json.result.protocolVersion).toBe('2025-11-25');
    }
  });

  it('serves later requests without any initialize (stateless), taking a missing version header as 2025-03-26', async () => {
    const res = await mcp(listTools(7));
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(7);
    // Every command of the fixture modules: party 9, lead 12, invoice 11, order 12 (erase but for invoice, which holds no personal data), each model's 4 bulk commands and each of the 9 actions' (a person's tools).
    expect(res.json.result.tools.length).toBe(69);
  });
});

describe('the path', () => {
  it('is /mcp in any case, with or without a trailing slash or a query string; anything else is not MCP', async () => {
    for (const path of ['/mcp', '/MCP', '/Mcp/', '/mcp?x=1', '/mcp/?x=1']) {
      const res = await mcp(listTools(5), { path });
      expect([path, res.status, res.json.id, res.json.result.tools.length]).toEqual([path, 200, 5, 69]);
    }
    for (const path of ['/mcp/x', '/mcpx', '/%6Dcp', '/mcp//', '/api/mcp']) {
      const res = await mcp(listTools(5), { path });
      expect([path, res.status, res.json]).toEqual([path, 404, { error: 'not found' }]);
    }
  });

  it('refuses other methods there the same way in every spelling of the path', async () => {
    for (const path of ['/mcp', '/MCP/', '/mcp?x=1']) {
      const res = await mcp(undefined, { path, method: 'GET' });
      expect([path, res.status, res.headers.get('allow')]).toEqual([path, 405, 'POST']);
    }
  });
});

describe('refusals before the transport', () => {
  it('401 with WWW-Authenticate for a missing or bad token: the bare scheme without one, invalid_token for one that does not work (as REST)', async () => {
    for (const [token, challenge] of [
      [null, 'Bearer'],
      ['not-a-token', 'Bearer error="invalid_token"'],
      [`rms_s_${'A'.repeat(43)}`, 'Bearer error="invalid_token"'],
    ] as const) {
      const res = await mcp(listTools(), { token });
      expectJsonRpcError(res, 401, -32000);
      expect(res.headers.get('www-authenticate')).toBe(challenge);
    }
  });

  it('403 for a foreign Origin; same-origin and listed origins pass, the latter with CORS headers', async () => {
    expectJsonRpcError(await mcp(listTools(), { headers: { origin: 'https://evil.example' } }), 403, -32000);
    expectJsonRpcError(await mcp(listTools(), { headers: { origin: 'null' } }), 403, -32000);
    // Same scheme and host as the listed one, other port: another origin.
    expectJsonRpcError(await mcp(listTools(), { headers: { origin: `${LISTED_ORIGIN}:8443` } }), 403, -32000);

    const same = await mcp(listTools(), { headers: { origin: t.url } });
    expect(same.status).toBe(200);
    expect(same.headers.get('access-control-allow-origin')).toBeNull();

    const listed = await mcp(listTools(), { headers: { origin: LISTED_ORIGIN } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe(LISTED_ORIGIN);

    const preflight = await mcp(undefined, { method: 'OPTIONS', token: null, headers: { origin: LISTED_ORIGIN, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expectJsonRpcError(await mcp(undefined, { method: 'OPTIONS', token: null, headers: { origin: 'https://evil.example' } }), 403, -32000);
  });

  it('405 with Allow: POST for GET and DELETE (no stream, no sessions), with or without a token', async () => {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      for (const token of [admin, null]) {
        const res = await mcp(undefined, { method, token, headers: { accept: 'text/event-stream' } });
        expectJsonRpcError(res, 405, -32000);
        expect(res.headers.get('allow')).toBe('POST');
      }
    }
  });

  it('406 when Accept lacks application/json or text/event-stream', async () => {
    for (const accept of ['application/json', 'text/event-stream', '*/*', 'text/html']) {
      expectJsonRpcError(await mcp(listTools(), { headers: { accept } }), 406, -32000);
    }
    expect((await mcp(listTools(), { headers: { accept: 'text/event-stream;q=0.9, application/json' } })).status).toBe(200);
  });

  it('415 for a body not sent as application/json', async () => {
    expectJsonRpcError(await mcp(JSON.stringify(listTools()), { headers: { 'content-type': 'text/plain' } }), 415, -32000);
    expect((await mcp(listTools(), { headers: { 'content-type': 'application/json; charset=utf-8' } })).status).toBe(200);
  });

  it('401 before a wrong Accept or Content-Type is said, as on REST', async () => {
    for (const token of [null, 'not-a-token']) {
      for (const headers of [{ accept: 'text/html' }, { 'content-type': 'text/plain' }, { 'content-type': 'application/json; charset=utf-16' }] as Record<string, string>[]) {
        const res = await mcp(listTools(), { token, headers });
        expectJsonRpcError(res, 401, -32000);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    }
  });

  it('charges an agent for a request refused for its Accept or Content-Type, with the rate headers, up to 429', async () => {
    const issued = await fetch(`${t.url}/api/auth/agent-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ scopes: ['lead.get'], label: 'refused bodies', limits: { requests_per_minute: 3 } }),
    });
    const bot = ((await issued.json()) as { token: string }).token;
    const remaining: (string | null)[] = [];
    for (const headers of [{ 'content-type': 'text/plain' }, { accept: 'application/json' }, { 'content-type': 'application/json; charset=utf-16' }] as Record<string, string>[]) {
      const res = await mcp(listTools(), { token: bot, headers });
      expect(res.status).toBe(headers.accept ? 406 : 415);
      remaining.push(res.headers.get('ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    expectJsonRpcError(await mcp(listTools(), { token: bot, headers: { 'content-type': 'text/plain' } }), 429, -32000);
    // Refused before its body was read, the request's id is not known; refused after, it is.
    expectJsonRpcError(await mcp(listTools(), { token: bot }), 429, -32000, listTools().id);
  });

  it('refuses ?dry_run rather than running the call for real', async () => {
    for (const query of ['?dry_run=true', '?dry_run', '?x=1&dry_run=false']) {
      const res = await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'lead__create', arguments: { title: `Not created ${query}` } } }, { path: `/mcp${query}` });
      expectJsonRpcError(res, 400, -32600);
      expect(res.json.error.message).toBe('Invalid Request: /mcp takes no dry_run; a bulk tool takes "dry_run": true in its arguments');
    }
    const found = await t.command(admin, 'lead.search', { filter: [{ field: 'title', op: 'contains', value: 'Not created' }] });
    expect(found.body.value.total).toBe(0);
    expect((await mcp(listTools(), { path: '/mcp?dry_runs=1' })).status).toBe(200);
  });

  it('413 for a body over 1 MB, 400 parse error for malformed JSON', async () => {
    const huge = { ...listTools(), params: { pad: 'x'.repeat(1024 * 1024) } };
    expectJsonRpcError(await mcp(huge), 413, -32000);
    expectJsonRpcError(await mcp('{"jsonrpc": "2.0", '), 400, -32700);
  });

  it('400 invalid request (-32600), not a parse error, for JSON that is no JSON-RPC message', async () => {
    for (const body of [
      { jsonrpc: '1.0', id: 5, method: 'ping' },
      { jsonrpc: '2.0', id: 6 },
      { id: 5, method: 'ping' },
      'hello',
      42,
      null,
      { jsonrpc: '2.0', id: null, method: 'ping' },
      { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' },
      { jsonrpc: '2.0', id: true, method: 'ping' },
      { jsonrpc: '2.0', id: 1.5, method: 'ping' },
      { jsonrpc: '2.0', id: 7, result: {}, error: {} },
    ]) {
      expectJsonRpcError(await mcp(JSON.stringify(body)), 400, -32600);
    }
    // A notification, a request with params, and a response to the server still pass.
    expect((await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect((await mcp({ jsonrpc: '2.0', id: 'x', method: 'ping', params: {} })).status).toBe(200);
  });

  it('400 for an MCP-Protocol-Version it does not speak; the supported ones pass', async () => {
    for (const version of ['2024-11-05', '2025-01-01', 'latest']) {
      const res = await mcp(listTools(), { headers: { 'mcp-protocol-version': version } });
      expectJsonRpcError(res, 400, -32000);
      expect(res.json.error.message).toContain(version);
    }
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      expect((await mcp(listTools(), { headers: { 'mcp-protocol-version': version } })).status).toBe(200);
    }
  });

  it('refuses JSON-RPC batches from 2025-06-18 on, and answers them at 2025-03-26', async () => {
    const batch = [listTools(1), { jsonrpc: '2.0', id: 2, method: 'ping' }];
    for (const version of ['2025-06-18', '2025-11-25']) {
      expectJsonRpcError(await mcp(batch, { headers: { 'mcp-protocol-version': version } }), 400, -32600);
    }
    expectJsonRpcError(await mcp([initialize('2025-06-18')]), 400, -32600);
    expectJsonRpcError(await mcp([]), 400, -32600);

    const old = await mcp(batch, { headers: { 'mcp-protocol-version': '2025-03-26' } });
    expect(old.status).toBe(200);
    expect(old.json).toEqual([
      { jsonrpc: '2.0', id: 1, result: { tools: expect.any(Array) } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect((await mcp(batch)).status).toBe(200);
  });

  it('202 with no body for notifications', async () => {
    for (const headers of [{}, { 'mcp-protocol-version': '2025-11-25' }] as Record<string, string>[]) {
      const res = await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' }, { headers });
      expect(res.status).toBe(202);
      expect(res.text).toBe('');
    }
    const cancelled = await mcp({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    expect(cancelled.status).toBe(202);
  });

  it('answers an unknown and a forbidden tool with the same JSON-RPC error, an unknown method with -32601', async () => {
    const agent = (await t.request('POST', '/api/auth/agent-token', { scopes: ['party.get'], label: 'raw-bot' }, admin)).body.token as string;
    const call = (name: string) => mcp({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: { id: 'x' } } }, { token: agent });
    const unknown = await call('boat__sink');
    const forbidden = await call('lead__get');
    for (const res of [unknown, forbidden]) expect(res.status).toBe(200);
    expect(unknown.json).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Unknown tool: boat__sink' } });
    expect(forbidden.json).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Unknown tool: lead__get' } });
    const method = await mcp({ jsonrpc: '2.0', id: 4, method: 'prompts/list' });
    expect(method.json).toMatchObject({ id: 4, error: { code: -32601 } });
  });
});
