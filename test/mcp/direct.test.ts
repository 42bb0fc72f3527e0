/**
 * A lone `tools/call` or `tools/list` is answered without the SDK's Server and transport
 * (runtime/mcp/router.ts, `directToolRequest`); everything else goes through them. Both must
 * answer alike: each request here is sent alone (direct) and as a batch of one at 2025-03-26
 * (which only the SDK path takes), and the answers must be the same message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';


let t: TestServer;
let admin: string;
let agent: string;
let leadId: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  agent = await agentToken(t, admin, ['lead.*', 'party.get'], 'direct-bot');
  leadId = (await t.command(admin, 'lead.create', { title: 'Direct', notes: 'private note' })).body.value.id;
});
afterAll(() => t?.close());

async function post(token: string, body: unknown): Promise<{ status: number; contentType: string | null; cacheControl: string | null; json: any }> {
  const res = await fetch(new URL('/mcp', t.url), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-03-26',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, contentType: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control'), json: await res.json() };
}

describe('direct answers are the SDK path answers', () => {
  const requests: [string, () => [string, Record<string, unknown>]][] = [
    ['tools/list of an agent', () => [agent, { method: 'tools/list' }]],
    ['tools/list with empty params', () => [admin, { method: 'tools/list', params: {} }]],
    ['tools/call: a masked read', () => [agent, { method: 'tools/call', params: { name: 'lead__get', arguments: { id: leadId } } }]],
    ['tools/call: a refused input', () => [agent, { method: 'tools/call', params: { name: 'lead__get', arguments: {} } }]],
    ['tools/call: a proposal', () => [agent, { method: 'tools/call', params: { name: 'lead__delete', arguments: { id: leadId } } }]],
    ['tools/call: an unknown tool', () => [agent, { method: 'tools/call', params: { name: 'invoice__post', arguments: { id: 'x' } } }]],
    ['tools/call without a name', () => [agent, { method: 'tools/call', params: {} }]],
    ['tools/call with arguments that are not an object', () => [agent, { method: 'tools/call', params: { name: 'lead__get', arguments: [1] } }]],
  ];

  for (const [name, make] of requests) {
    it(name, async () => {
      const [token, request] = make();
      const alone = await post(token, { jsonrpc: '2.0', id: 7, ...request });
      const batched = await post(token, [{ jsonrpc: '2.0', id: 7, ...request }]);
      expect(alone.status).toBe(200);
      expect(batched.status).toBe(200);
      // The SDK answers a batch of one with that one answer.
      const viaSdk = batched.json;
      if (name === 'tools/call: a proposal') {
        // Two proposals: two plans.
        expect(alone.json.result.structuredContent.status).toBe(viaSdk.result.structuredContent.status);
        return;
      }
      expect(alone.json).toEqual(viaSdk);
      expect(alone.contentType).toBe('application/json');
      expect(alone.cacheControl).toBe('no-store');
    });
  }

  it('a string id and the exact error of a lone request', async () => {
    const answer = await post(agent, { jsonrpc: '2.0', id: 'abc', method: 'tools/call', params: { name: 'nope__get' } });
    expect(answer.json).toEqual({ jsonrpc: '2.0', id: 'abc', error: { code: -32602, message: 'Unknown tool: nope__get' } });
  });

  it('a message with a key JSON-RPC does not have is an invalid request', async () => {
    const answer = await post(agent, { jsonrpc: '2.0', id: 1, method: 'tools/list', extra: true });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe(-32600);
  });
});
