/**
 * Conformance: MCP basics over raw JSON-RPC (SPEC 4.6, issue 5).
 * Black-box, from SPEC and the issue texts only; see ../helpers/conformance.ts for what this suite is and its
 * conventions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { expect200, tokenOf, create, type Rec } from '../helpers/conformance.ts';

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

describe('SPEC 4.6 / issue 5: MCP basics over raw JSON-RPC', () => {
  const ACCEPT = 'application/json, text/event-stream';

  async function mcpRaw(body: unknown, token?: string, headers: Record<string, string> = {}): Promise<Response> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT, ...headers };
    if (token) h.authorization = `Bearer ${token}`;
    return fetch(`${s.url}/mcp`, { method: 'POST', headers: h, body: typeof body === 'string' ? body : JSON.stringify(body) });
  }
  /** Reads a JSON-RPC response from plain JSON or from an SSE stream. */
  async function rpcBody(res: Response): Promise<any> {
    const text = await res.text();
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const data = text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .filter(Boolean);
      return JSON.parse(data.at(-1)!);
    }
    return JSON.parse(text);
  }
  let id = 1;
  async function rpc(token: string, method: string, params?: unknown, headers: Record<string, string> = { 'mcp-protocol-version': '2025-06-18' }) {
    const res = await mcpRaw({ jsonrpc: '2.0', id: id++, method, ...(params === undefined ? {} : { params }) }, token, headers);
    return { status: res.status, body: await rpcBody(res) };
  }
  const init = (protocolVersion: string) => ({ protocolVersion, capabilities: {}, clientInfo: { name: 'conformance', version: '0' } });
  /** The JSON the tool result carries (structuredContent, or the first text content). */
  function toolJson(result: Rec): Rec {
    if (result.structuredContent) return result.structuredContent;
    return JSON.parse(result.content.find((c: Rec) => c.type === 'text').text);
  }

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])('initialize at %s echoes the revision', async (v) => {
    const r = await rpc(admin, 'initialize', init(v), {});
    expect(r.status).toBe(200);
    expect(r.body.result.protocolVersion).toBe(v);
    expect(r.body.result.capabilities.tools).toBeDefined();
  });

  it('initialize with an unsupported revision answers 2025-11-25', async () => {
    const r = await rpc(admin, 'initialize', init('2024-11-05'), {});
    expect(r.body.result.protocolVersion).toBe('2025-11-25');
  });

  it('no token → 401 with WWW-Authenticate Bearer; bad token → 401', async () => {
    const a = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-06-18') });
    expect(a.status).toBe(401);
    expect(a.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
    const b = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'bad-token');
    expect(b.status).toBe(401);
  });

  it('tools/list for an agent: exactly its commands, named <model>__<command>, with JSON Schema input', async () => {
    const a = await agentToken(s, admin, ['lead.*', 'party.get']);
    const r = await rpc(a, 'tools/list');
    const tools = r.body.result.tools as Rec[];
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        ...['get', 'list', 'search', 'create', 'update', 'delete', 'qualify', 'win', 'lose', 'history', 'revert', 'create_many', 'update_many', 'delete_many', 'qualify_many', 'win_many', 'lose_many'].map((c) => `lead__${c}`),
        'party__get',
        'party__history',
      ].sort(),
    );
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(typeof t.description).toBe('string');
    }
    const create = tools.find((t) => t.name === 'lead__create')!;
    expect(create.inputSchema.required).toContain('title');
  });

  it('tools/list for admin matches the REST catalogue', async () => {
    const tools = (await rpc(admin, 'tools/list')).body.result.tools as Rec[];
    const cmds = ((await s.request('GET', '/api/commands', undefined, admin)).body.commands as Rec[]).map((c) => c.id.replace('.', '__'));
    expect(tools.map((t) => t.name).sort()).toEqual(cmds.sort());
  });

  it('tools/call read: {denied, value} masked like REST', async () => {
    const p = await create(s, admin, 'party', { name: 'MCP Person', tax_id: 'MCP-TAX' });
    const a = await agentToken(s, admin, ['party.get']);
    const r = await rpc(a, 'tools/call', { name: 'party__get', arguments: { id: p.id } });
    expect(r.body.result.isError ?? false).toBe(false);
    const j = toolJson(r.body.result);
    expect(j.denied).toEqual(['party.tax_id']);
    expect(j.value.name).toMatch(tokenOf('NAME'));
    expect(j.value).not.toHaveProperty('tax_id');
    const rest = expect200(await s.command(a, 'party.get', { id: p.id }));
    expect(j.value).toEqual(rest);
  });

  it('tools/call of a command needing approval: normal result with "status": "approval_required" and plan_id', async () => {
    const l = await create(s, admin, 'lead', { title: 'mcp delete' });
    const a = await agentToken(s, admin, ['lead.*']);
    const r = await rpc(a, 'tools/call', { name: 'lead__delete', arguments: { id: l.id } });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.isError ?? false).toBe(false);
    const j = toolJson(r.body.result);
    expect(j.status).toBe('approval_required');
    expect(typeof j.plan_id).toBe('string');
    expect(expect200(await s.command(admin, 'lead.get', { id: l.id })).title).toBe('mcp delete');
    expect((await s.request('POST', `/api/approve/${j.plan_id}`, undefined, admin)).status).toBe(200);
  });

  it('tools/call with what REST refuses with 400 → isError: true with the error text', async () => {
    const a = await agentToken(s, admin, ['lead.*']);
    const r = await rpc(a, 'tools/call', { name: 'lead__create', arguments: {} });
    expect(r.body.result.isError).toBe(true);
    expect(JSON.stringify(r.body.result.content)).toContain('lead.title is required');
  });

  it('unknown tool and forbidden tool → JSON-RPC error, indistinguishable', async () => {
    const a = await agentToken(s, admin, ['lead.get']);
    const unknown = await rpc(a, 'tools/call', { name: 'nosuch__tool', arguments: {} });
    const forbidden = await rpc(a, 'tools/call', { name: 'lead__create', arguments: { title: 'x' } });
    expect(unknown.body.error).toBeDefined();
    expect(forbidden.body.error).toBeDefined();
    expect(unknown.body.error.code).toBe(forbidden.body.error.code);
    expect(forbidden.body.error.message.replace('lead__create', 'X')).toBe(unknown.body.error.message.replace('nosuch__tool', 'X'));
  });

  // Issue 5 asked for `Bearer error="invalid_token"` on a missing token; the security probe (issue
  // 19) made MCP answer as REST and RFC 6750 §3.1 do: a request without credentials gets the bare
  // scheme, a token that does not work `error="invalid_token"`.
  it('issue 5 / 19: no token → WWW-Authenticate: Bearer; a bad one → Bearer error="invalid_token"', async () => {
    const a = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(a.status).toBe(401);
    expect(a.headers.get('www-authenticate')).toBe('Bearer');
    const b = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, `rms_a_${'A'.repeat(43)}`);
    expect(b.status).toBe(401);
    expect(b.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('stateless: no Mcp-Session-Id is handed out', async () => {
    const res = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-11-25') }, admin);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    await res.text();
  });

  it('unknown tool → JSON-RPC error -32602', async () => {
    const r = await rpc(admin, 'tools/call', { name: 'nosuch__tool', arguments: {} });
    expect(r.body.error.code).toBe(-32602);
  });

  it('tools carry title, readOnlyHint for get/list/search/history and destructiveHint for delete', async () => {
    const tools = (await rpc(admin, 'tools/list')).body.result.tools as Rec[];
    for (const t of tools) {
      expect(typeof t.title === 'string' || typeof t.annotations?.title === 'string').toBe(true);
      const cmd = t.name.split('__')[1];
      if (['get', 'list', 'search', 'history'].includes(cmd)) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      else expect(t.annotations?.readOnlyHint ?? false, t.name).toBe(false);
      if (cmd === 'delete') expect(t.annotations?.destructiveHint, t.name).toBe(true);
    }
  });

  it('input schemas: select options as enums, list limits, masked fields not offered to agents as filter fields', async () => {
    const a = await agentToken(s, admin, ['party.*', 'lead.list']);
    const agentTools = (await rpc(a, 'tools/list')).body.result.tools as Rec[];
    const adminTools = (await rpc(admin, 'tools/list')).body.result.tools as Rec[];
    const schema = (tools: Rec[], n: string) => tools.find((t) => t.name === n)!.inputSchema;
    expect(JSON.stringify(schema(agentTools, 'party__create').properties.kind)).toContain('"enum":["person","company"]');
    const list = schema(adminTools, 'lead__list').properties;
    expect(list.filter.maxItems).toBe(50);
    expect(list.order.maxItems).toBe(5);
    expect(list.limit).toMatchObject({ minimum: 1, maximum: 5000 });
    expect(list.offset.minimum).toBe(0);
    const fieldsFor = (tools: Rec[], n: string) => schema(tools, n).properties.filter.items.properties.field.enum as string[];
    expect(fieldsFor(adminTools, 'lead__list')).toContain('notes');
    expect(fieldsFor(agentTools, 'lead__list')).not.toContain('notes');
    expect(fieldsFor(agentTools, 'party__list')).not.toContain('name');
    expect(fieldsFor(agentTools, 'party__list')).not.toContain('tax_id');
    expect(Object.keys(schema(agentTools, 'party__create').properties)).not.toContain('tax_id');
  });

  it('tools/call success: structuredContent and the text content carry the same JSON', async () => {
    const l = await create(s, admin, 'lead', { title: 'mcp same json', notes: 'mcp secret note' });
    const a = await agentToken(s, admin, ['lead.get']);
    const r = await rpc(a, 'tools/call', { name: 'lead__get', arguments: { id: l.id } });
    const text = JSON.parse(r.body.result.content.find((c: Rec) => c.type === 'text').text);
    expect(text).toEqual(r.body.result.structuredContent);
    expect(JSON.stringify(r.body)).not.toContain('mcp secret note');
  });

  it('tools/call with a token never issued → isError with "invalid token"', async () => {
    const a = await agentToken(s, admin, ['party.create']);
    const r = await rpc(a, 'tools/call', { name: 'party__create', arguments: { name: 'NAME_987654' } });
    expect(r.body.result.isError).toBe(true);
    expect(JSON.stringify(r.body.result.content)).toContain('invalid token');
  });

  it('tools/call filtering on a masked field → isError "unknown field lead.notes: …" saying why', async () => {
    const a = await agentToken(s, admin, ['lead.list']);
    const r = await rpc(a, 'tools/call', { name: 'lead__list', arguments: { filter: [{ field: 'notes', op: 'is_null' }] } });
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.content[0].text).toBe(`unknown field lead.notes${': it is personal data, masked for you, so it cannot be filtered or ordered by its value; to find records by it, use token_filter with eq or in and a masking token you were given'}`);
  });

  it('a revoked agent token → 401 on /mcp too', async () => {
    const r = await s.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'mcp revoke' }, admin);
    await s.request('POST', '/api/auth/agent-token/revoke', { id: r.body.id }, admin);
    const res = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, r.body.token, { 'mcp-protocol-version': '2025-06-18' });
    expect(res.status).toBe(401);
    await res.text();
  });

  it('issue 5: an Origin that is not allowed → 403; same origin is fine', async () => {
    const bad = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-06-18') }, admin, { origin: 'http://evil.example' });
    expect(bad.status).toBe(403);
    await bad.text();
    const ok = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-06-18') }, admin, { origin: s.url });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('issue 5: no MCP-Protocol-Version header means 2025-03-26, where batches are allowed', async () => {
    const res = await mcpRaw(
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ],
      admin,
    );
    expect(res.status).toBe(200);
    const body = await rpcBody(res);
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(2);
  });

  it('Accept without both JSON and event-stream → 406', async () => {
    const res = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init('2025-06-18') }, admin, { accept: 'text/html' });
    expect(res.status).toBe(406);
  });

  it('GET and DELETE /mcp → 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${s.url}/mcp`, { method, headers: { authorization: `Bearer ${admin}`, accept: ACCEPT } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      await res.text();
    }
  });

  it('body not JSON → 415', async () => {
    const res = await mcpRaw('x', admin, { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
  });

  it('unsupported MCP-Protocol-Version header → 400', async () => {
    const res = await mcpRaw({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, admin, { 'mcp-protocol-version': '1999-01-01' });
    expect(res.status).toBe(400);
  });

  it('notification → 202', async () => {
    const res = await mcpRaw({ jsonrpc: '2.0', method: 'notifications/initialized' }, admin, { 'mcp-protocol-version': '2025-06-18' });
    expect(res.status).toBe(202);
  });

  it('JSON-RPC batch refused at 2025-06-18', async () => {
    const res = await mcpRaw(
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ],
      admin,
      { 'mcp-protocol-version': '2025-06-18' },
    );
    const text = await res.text();
    expect(res.status === 400 || /"error"/.test(text)).toBe(true);
    expect(text).not.toMatch(/"tools"\s*:/);
  });
});
