/**
 * Hostile inputs (findings 3–7 of the security probe), each as the property it broke:
 * 3. nothing a client sends produces a 5xx or a logged error (bad percent-encoding anywhere in a
 *    path, a body that is not its Content-Encoding);
 * 4. bytes that are not UTF-8 are refused, never stored rewritten;
 * 5. MCP's same-origin is the server's own names, and a loopback bind refuses foreign Host names;
 * 6. every /api/auth/* endpoint is 404 to an agent token, logout included;
 * 7. MCP describes no withheld field, and malformed params are -32602 with one short line.
 */
import { request as httpRequest } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';


let t: TestServer;
let admin: string;
let agent: string;
const logged: unknown[] = [];

beforeAll(async () => {
  t = await startTestServer({ logError: (error) => logged.push(error) });
  admin = await t.login();
  agent = await agentToken(t, admin, ['party.*', 'lead.*', 'invoice.*'], 'probe bot');
});

afterAll(async () => {
  await t?.close();
});

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** A request with exactly these headers and body bytes (node:http lets a test set Host). */
function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<RawAnswer> {
  const url = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const count = (sql: string) => t.inspect((db) => Number((db.prepare(sql).get() as { n: number }).n));

describe('3. no 5xx and nothing logged for anything a client sends', () => {
  const paths = [
    '/api/lead%FF/get',
    '/api/lead/g%ZZ',
    '/api/%E0%A4%A/list',
    '/api/plans/%ZZ',
    '/api/approve/%ZZ',
    '/api/reject/%FF%FE',
    '/api/plans/%',
    '/api/auth/%ZZ',
  ];
  it.each(paths)('%s: 400 (or the 404 of an unknown route), with and without a token, GET and POST', async (path) => {
    for (const method of ['GET', 'POST']) {
      for (const token of [undefined, admin, agent]) {
        const body = method === 'POST' ? '{}' : undefined;
        const res = await raw(method, path, { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) }, body);
        expect([400, 404], `${method} ${path} ${token ? 'with' : 'without'} token`).toContain(res.status);
        expect(JSON.parse(res.text)).toHaveProperty('error');
      }
    }
    expect(logged).toEqual([]);
  });

  it('a malformed path of an existing command is 400 with a plain reason', async () => {
    const res = await raw('POST', '/api/lead%FF/get', { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, '{}');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: 'malformed percent-encoding in the path' });
  });

  const junk = Buffer.from('{"title":"not compressed"}');
  describe.each(['gzip', 'deflate', 'br'])('Content-Encoding: %s', (encoding) => {
    it('REST: a body that is not that encoding is 400; a real one works', async () => {
      const bad = await raw('POST', '/api/lead/create', { 'content-type': 'application/json', 'content-encoding': encoding, authorization: `Bearer ${admin}` }, junk);
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.text)).toEqual({ error: 'body does not match its Content-Encoding' });
      const compress = encoding === 'gzip' ? gzipSync : encoding === 'deflate' ? deflateSync : brotliCompressSync;
      const good = await raw('POST', '/api/lead/create', { 'content-type': 'application/json', 'content-encoding': encoding, authorization: `Bearer ${admin}` }, compress(Buffer.from(`{"title":"${encoding} lead"}`)));
      expect(good.status).toBe(200);
      expect(JSON.parse(good.text).value.title).toBe(`${encoding} lead`);
      expect(logged).toEqual([]);
    });

    it('MCP: a body that is not that encoding is the JSON-RPC parse error', async () => {
      const res = await raw('POST', '/mcp', { ...MCP_HEADERS, 'content-encoding': encoding, authorization: `Bearer ${agent}` }, Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: body does not match its Content-Encoding' }, id: null });
      expect(logged).toEqual([]);
    });
  });
});

describe('4. bytes that are not UTF-8 are refused, not rewritten', () => {
  const badBodies: [string, Buffer][] = [
    ['a\\xff\\xfeb in a title', Buffer.concat([Buffer.from('{"title":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')])],
    ['a lone continuation byte', Buffer.concat([Buffer.from('{"title":"x'), Buffer.from([0x80]), Buffer.from('"}')])],
    ['a truncated sequence', Buffer.concat([Buffer.from('{"title":"x'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')])],
    ['an overlong encoding', Buffer.concat([Buffer.from('{"title":"x'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')])],
    ['an encoded surrogate', Buffer.concat([Buffer.from('{"title":"x'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')])],
  ];
  it.each(badBodies)('REST create: %s → 400, nothing stored', async (_name, body) => {
    const before = count('select count(*) as n from lead');
    const res = await raw('POST', '/api/lead/create', { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: 'body is not valid UTF-8' });
    expect(count('select count(*) as n from lead')).toBe(before);
  });

  it('in a key, in an update, in a filter, in sign-in and agent-token bodies: 400', async () => {
    const id = (await t.command(admin, 'lead.create', { title: 'kept' })).body.value.id;
    const invalid = (text: string) => Buffer.concat(text.split('~').flatMap((part, i) => (i === 0 ? [Buffer.from(part)] : [Buffer.from([0xff]), Buffer.from(part)])));
    const cases: [string, Buffer, string | undefined][] = [
      ['/api/lead/update', invalid(`{"id":"${id}","title":"a~b"}`), admin],
      ['/api/lead/create', invalid('{"ti~tle":"x"}'), admin],
      ['/api/lead/search', invalid('{"filter":[{"field":"title","op":"contains","value":"~"}]}'), admin],
      ['/api/auth/login', invalid('{"username":"admin","password":"~"}'), undefined],
      ['/api/auth/agent-token', invalid('{"scopes":["lead.get"],"label":"bot~"}'), admin],
    ];
    for (const [path, body, token] of cases) {
      const res = await raw('POST', path, { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.text), path).toEqual({ error: 'body is not valid UTF-8' });
    }
    expect((await t.command(admin, 'lead.get', { id })).body.value.title).toBe('kept');
  });

  it('UTF-8 beyond ASCII is taken as it is', async () => {
    const res = await raw('POST', '/api/lead/create', { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, Buffer.from('{"title":"Ærøskøbing — 東京 🚀"}', 'utf8'));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).value.title).toBe('Ærøskøbing — 東京 🚀');
  });

  it('MCP: the JSON-RPC parse error', async () => {
    const body = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lead__create","arguments":{"title":"a'), Buffer.from([0xff]), Buffer.from('"}}}')]);
    const res = await raw('POST', '/mcp', { ...MCP_HEADERS, authorization: `Bearer ${agent}` }, body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: body is not valid UTF-8' }, id: null });
  });

  it('a lone surrogate in an agent token label is refused like one in a text field', async () => {
    const res = await t.request('POST', '/api/auth/agent-token', '{"scopes":["lead.get"],"label":"bot\\ud800"}', admin);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'label must be valid Unicode text' });
  });
});

describe('5. MCP: same-origin is the server\'s own names, not the request\'s Host', () => {
  const port = () => new URL(t.url).port;
  const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

  it('refuses a rebound name with a matching Origin, and a foreign Host without Origin', async () => {
    for (const headers of <Record<string, string>[]>[
      { host: `rebind.attacker.example:${port()}`, origin: `http://rebind.attacker.example:${port()}` },
      { host: `rebind.attacker.example:${port()}` },
      { host: 'rebind.attacker.example' },
      { host: `127.0.0.1:${Number(port()) + 1}` },
    ]) {
      const res = await raw('POST', '/mcp', { ...MCP_HEADERS, authorization: `Bearer ${agent}`, ...headers }, list);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(res.text).error.code).toBe(-32000);
    }
  });

  it('answers the loopback names, with or without a same-origin Origin', async () => {
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) {
      for (const origin of [undefined, `http://${name}:${port()}`]) {
        const res = await raw('POST', '/mcp', { ...MCP_HEADERS, authorization: `Bearer ${agent}`, host: `${name}:${port()}`, ...(origin ? { origin } : {}) }, list);
        expect(res.status, `${name} ${origin}`).toBe(200);
      }
    }
    const foreign = await raw('POST', '/mcp', { ...MCP_HEADERS, authorization: `Bearer ${agent}`, host: `127.0.0.1:${port()}`, origin: 'http://example.com' }, list);
    expect(foreign.status).toBe(403);
  });
});

describe('6. agents cannot reach /api/auth/*', () => {
  it.each([
    ['POST', '/api/auth/logout'],
    ['POST', '/api/auth/login'],
    ['POST', '/api/auth/agent-token'],
    ['GET', '/api/auth/agent-tokens'],
    ['POST', '/api/auth/agent-token/revoke'],
  ])('%s %s → 404, and the token keeps working', async (method, path) => {
    const res = await t.request(method, path, method === 'POST' ? {} : undefined, agent);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not found' });
    expect((await t.command(agent, 'lead.list', { limit: 1 })).status).toBe(200);
  });
});

describe('7. MCP polish', () => {
  async function rpc(token: string, message: unknown): Promise<{ status: number; json: any }> {
    const res = await raw('POST', '/mcp', { ...MCP_HEADERS, authorization: `Bearer ${token}` }, JSON.stringify(message));
    return { status: res.status, json: JSON.parse(res.text) };
  }

  it('tools/list describes no withheld field, for agents and for people', async () => {
    const sales = await t.addPerson('sam', ['sales']);
    for (const [token, withheld] of [
      [agent, ['tax_id', 'Tax ID', 'internal_note', 'Internal note']],
      [sales, ['tax_id', 'Tax ID']],
    ] as const) {
      const { json } = await rpc(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const text = JSON.stringify(json.result.tools);
      expect(json.result.tools.length).toBeGreaterThan(0);
      for (const name of withheld) expect(text, name).not.toContain(name);
    }
    // An admin reads everything, and is told about everything.
    const { json } = await rpc(admin, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(JSON.stringify(json.result.tools)).toContain('tax_id');
  });

  it.each([
    [{ jsonrpc: '2.0', id: 7, method: 'tools/call' }, 'Invalid params: tools/call needs params, an object'],
    [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: [] }, 'Invalid params: tools/call needs params, an object'],
    [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } }, 'Invalid params: tools/call needs params.name, the name of a tool'],
    [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 7 } }, 'Invalid params: tools/call needs params.name, the name of a tool'],
    [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'lead__get', arguments: [1] } }, 'Invalid params: params.arguments must be an object'],
    [{ jsonrpc: '2.0', id: 7, method: 'tools/list', params: 'x' }, 'Invalid params: tools/list needs params, an object'],
    [{ jsonrpc: '2.0', id: 7, method: 'initialize' }, 'Invalid params: initialize needs params, an object'],
  ])('%j → -32602 %s', async (message, text) => {
    const { status, json } = await rpc(agent, message);
    expect(status).toBe(200);
    expect(json).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: text } });
  });

  it('an unknown method is still -32601', async () => {
    const { json } = await rpc(agent, { jsonrpc: '2.0', id: 8, method: 'prompts/list' });
    expect(json.error.code).toBe(-32601);
  });

  it('logged nothing', () => {
    expect(logged).toEqual([]);
  });
});

describe('7. MCP descriptions name no withheld field, whichever field a module withholds', () => {
  it('words a tool again for a caller who may not read a personal, required or referring field', async () => {
    const { registry: generated } = await import('../fixtures/generated/registry.ts');
    const party = generated.models.party!;
    const lead = generated.models.lead!;
    // party.email: personal and read by admins and accountants only; party.phone: hidden from agents; lead.party (refers to party): admins only.
    const variant = {
      ...generated,
      models: {
        ...generated.models,
        party: {
          ...party,
          fields: party.fields.map((field) =>
            field.name === 'email' ? { ...field, readRoles: ['accountant'] } : field.name === 'phone' ? { ...field, hiddenFromAgents: true } : field,
          ),
        },
        lead: { ...lead, fields: lead.fields.map((field) => (field.name === 'party' ? { ...field, readRoles: ['accountant'] } : field)) },
      },
    };
    const s = await startTestServer({ registry: variant });
    try {
      const admin = await s.login();
      const sales = await s.addPerson('sandy', ['sales']);
      const bot = await agentToken(s, admin, ['party.*'], 'party bot');
      const list = async (token: string) => {
        const res = await raw2(s.url, token);
        return res.result.tools as { name: string; description: string }[];
      };
      const forSales = await list(sales);
      // The order tools name order's own contact_email field, which is not party.email.
      const salesText = JSON.stringify(forSales.filter((tool) => !tool.name.startsWith('order__')));
      expect(salesText).not.toContain('email');
      expect(salesText).not.toContain('EMAIL');
      expect(salesText).not.toContain('lead.party');
      // A person reads personal fields in clear: no tool tells them of tokens.
      expect(forSales.find((tool) => tool.name === 'party__get')!.description).toBe('Read one party by id. Returns the party.');
      const forBot = JSON.stringify(await list(bot));
      expect(forBot).not.toContain('phone');
      expect(forBot).not.toContain('PHONE');
      expect(forBot).toContain('Personal fields (name, email, notes)');
      // Someone who reads everything gets the generated description as it is.
      const forAdmin = await list(admin);
      expect(forAdmin.find((tool) => tool.name === 'party__delete')!.description).toBe(generated.tools.party__delete!.description);
    } finally {
      await s.close();
    }
  });
});

async function raw2(url: string, token: string): Promise<any> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return res.json();
}
