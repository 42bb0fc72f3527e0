/**
 * The one body reader (runtime/http/body.ts), through the real server on each way a body arrives:
 * REST's plain command route, its Express route (`?dry_run=true`), an Express endpoint of its own
 * (sign-in), and MCP. JSON is UTF-8: any other declared charset is refused (the probe's UTF-16
 * bodies were decoded and taken), bytes that are not UTF-8 are refused, encodings decode or are
 * refused, sizes hold before and after decoding. REST and MCP refuse the same bodies with the same
 * status, each in its own words (refusals.ts).
 */
import { request as httpRequest } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let leadId: string;
const logged: unknown[] = [];

beforeAll(async () => {
  t = await startTestServer({ logError: (error) => logged.push(error) });
  admin = await t.login();
  leadId = (await t.command(admin, 'lead.create', { title: 'Read bodies' })).body.value.id;
});

afterAll(async () => {
  await t?.close();
});

interface Answer {
  readonly status: number;
  readonly json: any;
  readonly connection: string | undefined;
}

/** A POST with exactly these headers and bytes, on a connection of its own; `chunked` sends no Content-Length. */
function post(path: string, headers: Record<string, string>, body: Buffer | undefined, chunked = false): Promise<Answer> {
  const url = new URL(path, t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        agent: false,
        headers: { ...headers, ...(body !== undefined && !chunked ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')), connection: res.headers.connection }));
      },
    );
    // The server may answer and close before it has read a body it refuses.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    if (body === undefined) req.end();
    else if (chunked) {
      req.write(body.subarray(0, Math.ceil(body.length / 2)));
      req.end(body.subarray(Math.ceil(body.length / 2)));
    } else req.end(body);
  });
}

const getBody = () => JSON.stringify({ id: leadId });
const utf16le = (text: string) => Buffer.from(text, 'utf16le');
const utf16be = (text: string) => utf16le(text).swap16();

/** The ways a REST body arrives, each answering the same. */
const REST_ROUTES = [
  ['the plain command route', '/api/lead/get'],
  ['the command route through Express', '/api/lead/get?dry_run=true'],
] as const;

async function rest(path: string, headers: Record<string, string>, body: Buffer | undefined, chunked = false): Promise<Answer> {
  return post(path, { authorization: `Bearer ${admin}`, ...headers }, body, chunked);
}

async function mcp(headers: Record<string, string>, body: Buffer | undefined, chunked = false): Promise<Answer> {
  return post('/mcp', { authorization: `Bearer ${admin}`, accept: 'application/json, text/event-stream', ...headers }, body, chunked);
}

const listTools = () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('a call without a token that works is 401, whatever its body (SPEC 5, 7): only the sign-in reads a body without one', () => {
  const bodies: [string, Record<string, string>, Buffer][] = [
    ['malformed JSON', { 'content-type': 'application/json' }, Buffer.from('{bad')],
    ['not JSON', { 'content-type': 'text/plain' }, Buffer.from('{}')],
    ['too large', { 'content-type': 'application/json' }, Buffer.from(`{"title":"${'x'.repeat(1_100_000)}"}`)],
  ];
  const paths = ['/api/lead/get', '/api/lead/get?dry_run=true', '/api/auth/agent-token', '/api/approve/01M8452PGTZ3QHM2AWMARJ1NTB', '/api/nothing/here'];
  it.each(bodies)('%s: no token, and a token that does not work', async (_case, headers, body) => {
    for (const path of paths) {
      expect((await post(path, headers, body)).status, `${path} without a token`).toBe(401);
      expect((await post(path, { ...headers, authorization: 'Bearer not-a-token' }, body)).status, `${path} with a bad token`).toBe(401);
    }
    // With a token that works, the body's refusal is told.
    expect((await rest('/api/lead/get', headers, body)).status).toBe(_case === 'malformed JSON' ? 400 : _case === 'not JSON' ? 415 : 413);
    // The sign-in takes no token: its body's refusal is told.
    expect((await post('/api/auth/login', headers, body)).status).toBe(_case === 'malformed JSON' ? 400 : _case === 'not JSON' ? 415 : 413);
  });
});

describe('JSON is UTF-8: another charset is refused, on every route', () => {
  const refused: [string, string, (text: string) => Buffer][] = [
    ['UTF-16LE', 'application/json; charset=utf-16le', utf16le],
    ['UTF-16 with a byte order mark', 'application/json; charset=utf-16', (text) => Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le(text)])],
    ['UTF-16BE, upper case', 'application/json; charset=UTF-16BE', utf16be],
    ['UTF-16, quoted', 'application/json; charset="utf-16le"', utf16le],
    ['UTF-32', 'application/json; charset=utf-32', (text) => Buffer.from(text)],
    ['Latin-1', 'application/json; charset=iso-8859-1', (text) => Buffer.from(text, 'latin1')],
    ['a charset after another parameter', 'application/json; foo=bar; charset=utf-16le', utf16le],
  ];
  for (const [name, contentType, encode] of refused) {
    it(`${name}: REST 415 on each route and sign-in, MCP 415, plain or chunked`, async () => {
      for (const chunked of [false, true]) {
        for (const [, path] of REST_ROUTES) {
          const res = await rest(path, { 'content-type': contentType }, encode(getBody()), chunked);
          expect({ path, status: res.status, json: res.json }).toEqual({ path, status: 415, json: { error: 'Content-Type charset must be utf-8' } });
        }
        const login = await post('/api/auth/login', { 'content-type': contentType }, encode(JSON.stringify({ username: 'admin', password: 'x' })), chunked);
        expect({ status: login.status, json: login.json }).toEqual({ status: 415, json: { error: 'Content-Type charset must be utf-8' } });
        const res = await mcp({ 'content-type': contentType }, encode(listTools()), chunked);
        expect({ status: res.status, json: res.json }).toEqual({
          status: 415,
          json: { jsonrpc: '2.0', error: { code: -32000, message: 'Unsupported Media Type: Content-Type charset must be utf-8' }, id: null },
        });
      }
    });
  }

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"', 'Application/JSON; Charset=utf8'])(
    '%s is read',
    async (contentType) => {
      for (const [, path] of REST_ROUTES) {
        const res = await rest(path, { 'content-type': contentType }, Buffer.from(getBody()));
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect(res.json.value.id).toBe(leadId);
      }
      expect((await mcp({ 'content-type': contentType }, Buffer.from(listTools()))).status).toBe(200);
    },
  );

  it('UTF-16 bytes without a charset are not UTF-8: 400', async () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le(getBody())]);
    for (const [, path] of REST_ROUTES) {
      const res = await rest(path, { 'content-type': 'application/json' }, body);
      expect({ status: res.status, json: res.json }).toEqual({ status: 400, json: { error: 'body is not valid UTF-8' } });
    }
    const res = await mcp({ 'content-type': 'application/json' }, Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le(listTools())]));
    expect(res.json.error).toEqual({ code: -32700, message: 'Parse error: body is not valid UTF-8' });
  });
});

describe('encodings and sizes, the same on every route', () => {
  const json = { 'content-type': 'application/json' };
  const big = (size: number) => Buffer.from(JSON.stringify({ id: leadId, pad: 'x'.repeat(size) }));
  // [name, headers, body, chunked, REST answer, MCP answer]
  const cases: [string, Record<string, string>, () => Buffer, boolean, { status: number; error: string }, { status: number; code: number; message: string }][] = [
    ['not JSON', json, () => Buffer.from('{"id": '), false, { status: 400, error: 'malformed JSON' }, { status: 400, code: -32700, message: 'Parse error: Invalid JSON' }],
    ['only spaces', json, () => Buffer.from('   '), true, { status: 400, error: 'malformed JSON' }, { status: 400, code: -32700, message: 'Parse error: Invalid JSON' }],
    ['bad gzip', { ...json, 'content-encoding': 'gzip' }, () => Buffer.from('plain'), false, { status: 400, error: 'body does not match its Content-Encoding' }, { status: 400, code: -32700, message: 'Parse error: body does not match its Content-Encoding' }],
    ['an unknown encoding', { ...json, 'content-encoding': 'compress' }, () => Buffer.from('{}'), false, { status: 415, error: 'unsupported Content-Encoding' }, { status: 415, code: -32000, message: 'Unsupported Media Type: unsupported Content-Encoding' }],
    ['over 1 MB, declared', json, () => big(1_100_000), false, { status: 413, error: 'body too large' }, { status: 413, code: -32000, message: 'Payload Too Large: Request body must not exceed 1048576 bytes' }],
    ['over 1 MB, chunked', json, () => big(1_100_000), true, { status: 413, error: 'body too large' }, { status: 413, code: -32000, message: 'Payload Too Large: Request body must not exceed 1048576 bytes' }],
    // A small gzip body that decodes to more than 1 MB.
    ['over 1 MB once decoded', { ...json, 'content-encoding': 'gzip' }, () => gzipSync(big(3_000_000)), false, { status: 413, error: 'body too large' }, { status: 413, code: -32000, message: 'Payload Too Large: Request body must not exceed 1048576 bytes' }],
  ];
  it.each(cases)('%s', async (_name, headers, body, chunked, restAnswer, mcpAnswer) => {
    for (const [, path] of REST_ROUTES) {
      const res = await rest(path, headers, body(), chunked);
      expect({ path, status: res.status, json: res.json }).toEqual({ path, status: restAnswer.status, json: { error: restAnswer.error } });
      // A body refused before it was read to its end is not read after the answer either.
      if (restAnswer.status !== 400 || headers['content-encoding'] !== undefined) expect(res.connection).toBe('close');
    }
    const res = await mcp(headers, body(), chunked);
    expect({ status: res.status, json: res.json }).toEqual({ status: mcpAnswer.status, json: { jsonrpc: '2.0', error: { code: mcpAnswer.code, message: mcpAnswer.message }, id: null } });
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('%s bodies are read on every route', async (encoding, compress) => {
    for (const [, path] of REST_ROUTES) {
      for (const chunked of [false, true]) {
        const res = await rest(path, { 'content-type': 'application/json', 'content-encoding': encoding }, compress(Buffer.from(getBody())), chunked);
        expect({ path, chunked, status: res.status }).toEqual({ path, chunked, status: 200 });
      }
    }
    expect((await mcp({ 'content-type': 'application/json', 'content-encoding': encoding }, compress(Buffer.from(listTools())))).status).toBe(200);
  });

  it('no body: REST reads {}, MCP has no message to answer', async () => {
    for (const [, path] of REST_ROUTES) {
      const res = await rest(path, { 'content-type': 'application/json' }, Buffer.alloc(0), true);
      expect({ status: res.status, json: res.json }).toEqual({ status: 400, json: { error: 'id is required' } });
    }
    const res = await mcp({ 'content-type': 'application/json' }, Buffer.alloc(0), true);
    expect({ status: res.status, json: res.json }).toEqual({ status: 400, json: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: empty body' }, id: null } });
  });

  it('logged nothing', () => {
    expect(logged).toEqual([]);
  });
});
