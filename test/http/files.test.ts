/**
 * Files attached to records, through the real server: `POST /api/files` (streamed, hashed, its type
 * detected, every refusal), attaching by id in create, update, actions and bulk commands (accept,
 * max_size, someone else's upload), `get` answering the files, `GET /api/files/<id>` (headers,
 * ranges, ETag) allowed exactly where the caller reads a field of a live record holding the file
 * (a role without the field, a withheld field, an agent and a personal field, a deleted record, an
 * upload no record holds), a pending plan's files downloaded by who may decide it (every kind of
 * plan that attaches; no one else, and no one once it is decided), downloads audited, history and revert, `X-File-Name` path tricks, an SVG
 * with a script, and the sweep of files nothing refers to (the clock moved, not waited for).
 *
 * On SQLite the content is on disk (`files/` beside the database file); under RMS_TEST_PG_URL the
 * same tests run on PostgreSQL, where files live in the database (`--files db`, the default there).
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import type { Registry } from '../../runtime/registry.ts';
import { ListResourcesResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { openDatabase } from '../../runtime/db/connect.ts';
import { deleteFileRow } from '../../runtime/files/store.ts';
import { TestClock } from '../helpers/clock.ts';
import { runFixtureCli } from '../helpers/cli.ts';
import { connectClient } from '../helpers/mcp-client.ts';
import { moduleTree, removeModuleTrees } from '../helpers/module-trees.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

const DOSSIERS = `export default {
  label: 'Dossiers',
  models: {
    dossier: {
      title: 'name',
      fields: {
        name: { kind: 'text', required: true },
        attachments: { kind: 'file', multiple: true, accept: ['application/pdf', 'image/*'], max_size: '1KB', label: 'Attachments' },
        signed_contract: { kind: 'file', accept: ['application/pdf'], personal: true },
        scan: { kind: 'file', agents: 'hidden' },
        secret: { kind: 'file', read: ['manager'] },
        proof: { kind: 'file' },
        status: { kind: 'select', options: ['open', 'closed'], governed: true },
      },
      lines: { pages: { fields: { page: { kind: 'file', accept: ['image/png'] }, note: { kind: 'text' } } } },
      actions: {
        close: { from: 'open', to: 'closed', input: { scan: { kind: 'file' } } },
        seal: { from: 'open', to: 'closed', input: { proof: { kind: 'file' } }, needs_approval: true },
      },
    },
  },
  roles: { clerk: { dossier: '*' }, manager: { dossier: '*' }, viewer: { dossier: ['get', 'list'] } },
};
`;

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(40, 1)]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>');
const TEXT = Buffer.from('plain words, no magic bytes\n');

let t: TestServer;
let clock: TestClock;
let admin: string;
let clerk: string;
let viewer: string;
let manager: string;
let agent: string;

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function upload(token: string | undefined, body: Buffer | string, type: string | undefined, name?: string): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (type !== undefined) headers['content-type'] = type;
  if (name !== undefined) headers['x-file-name'] = name;
  const res = await fetch(`${t.url}/api/files`, { method: 'POST', headers, body: typeof body === 'string' ? body : new Uint8Array(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

async function uploaded(token: string, body: Buffer, type: string, name = 'file.bin'): Promise<{ id: string; name: string; size: number; type: string; sha256: string }> {
  const res = await upload(token, body, type, name);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function download(token: string | undefined, id: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${t.url}/api/files/${id}`, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const fileCount = () => t.inspect((db) => Number((db.prepare('select count(*) as n from rms_files').get() as { n: number | string }).n));
/** The content's presence where the server keeps it: the file on disk (SQLite), its chunks (PostgreSQL). */
const contentKept = (hash: string) =>
  t.dialect === 'sqlite'
    ? existsSync(join(dirname(t.dbFile), 'files', hash.slice(0, 2), hash))
    : t.inspect((db) => Number((db.prepare('select count(*) as n from rms_file_chunks where sha256 = ?').get(hash) as { n: number | string }).n)) > 0;

beforeAll(async () => {
  const project = moduleTree({ dossiers: DOSSIERS });
  const out = join(project, 'generated');
  writeOutput(out, generate(await loadProject(join(project, 'modules')), out));
  const registry = ((await import(pathToFileURL(join(out, 'registry.ts')).href)) as { registry: Registry }).registry;
  clock = new TestClock();
  t = await startTestServer({ registry, clock, maxUploadBytes: 64 * 1024, agentFileBytesPerDay: 4000 });
  admin = await t.login();
  [clerk, viewer, manager] = await Promise.all([t.addPerson('clara', ['clerk']), t.addPerson('victor', ['viewer']), t.addPerson('mona', ['manager'])]);
  agent = await agentToken(t, clerk, ['dossier.*'], 'filer');
});

afterAll(async () => {
  await t?.close();
  removeModuleTrees();
});

describe('upload', () => {
  it('streams the body to storage and answers 201 with id, name, size, the detected type and sha256', async () => {
    const res = await upload(clerk, PNG, 'image/png', 'scan.png');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9A-Z]{26}$/), name: 'scan.png', size: PNG.length, type: 'image/png', sha256: sha(PNG) });
    expect(contentKept(sha(PNG))).toBe(true);
    expect(t.inspect((db) => db.prepare('select name, size, type, sha256, uploaded_by from rms_files where id = ?').get(res.body.id))).toMatchObject({ name: 'scan.png', type: 'image/png', sha256: sha(PNG) });
  });

  it('takes the type from the content when none (or application/octet-stream) is declared, and a text type as declared', async () => {
    expect((await upload(clerk, PDF, undefined, 'a.pdf')).body.type).toBe('application/pdf');
    expect((await upload(clerk, PDF, 'application/octet-stream', 'a.pdf')).body.type).toBe('application/pdf');
    expect((await upload(clerk, TEXT, 'text/plain; charset=utf-8', 'a.txt')).body.type).toBe('text/plain');
    expect((await upload(clerk, SVG, 'image/svg+xml', 'a.svg')).body.type).toBe('image/svg+xml');
  });

  const refusals: { name: string; body: Buffer | string; type?: string; status: number; error: string }[] = [
    { name: 'empty', body: '', type: 'application/pdf', status: 400, error: 'the upload is empty: send the file as the request body' },
    { name: 'declared PNG, content PDF', body: PDF, type: 'image/png', status: 415, error: 'the content is application/pdf, not image/png as declared' },
    { name: 'declared PDF, content text', body: TEXT, type: 'application/pdf', status: 415, error: 'the content is not application/pdf as declared' },
    { name: 'declared text, content PNG', body: PNG, type: 'text/plain', status: 415, error: 'the content is image/png, not text/plain as declared' },
    { name: 'a Content-Type that is no media type', body: TEXT, type: 'not a type', status: 415, error: 'Content-Type "not a type" is not a media type' },
    { name: 'over --max-upload', body: Buffer.alloc(64 * 1024 + 1, 7), type: 'application/octet-stream', status: 413, error: 'the upload is larger than this server takes (64 KB)' },
    {
      name: 'a form (curl -F)',
      body: '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nwords\r\n--b--\r\n',
      type: 'multipart/form-data; boundary=b',
      status: 415,
      error: "an upload is the file's bytes as the body, not a form (multipart/form-data): send the file itself (curl --data-binary @file)",
    },
    { name: 'a URL-encoded form (curl -d)', body: 'words', type: 'application/x-www-form-urlencoded', status: 415, error: "an upload is the file's bytes as the body, not a form (application/x-www-form-urlencoded): send the file itself (curl --data-binary @file)" },
  ];

  it('refuses X-File-Name given twice (Node would join the two names into one)', async () => {
    const before = fileCount();
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${t.url}/api/files`, { method: 'POST', headers: ['host', '127.0.0.1', 'authorization', `Bearer ${clerk}`, 'content-type', 'text/plain', 'x-file-name', 'a.txt', 'x-file-name', 'b.txt'] as unknown as Record<string, string> }, (answer) => {
        let body = '';
        answer.on('data', (chunk) => (body += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode!, body }));
      });
      req.on('error', reject);
      req.end(TEXT);
    });
    expect([res.status, JSON.parse(res.body)]).toEqual([400, { error: 'X-File-Name must be given once' }]);
    expect(fileCount()).toBe(before);
  });

  it.each(refusals)('refuses $name ($status) and keeps nothing', async ({ body, type, status, error }) => {
    const before = fileCount();
    const res = await upload(clerk, body, type, 'x');
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error });
    expect(fileCount()).toBe(before);
    if (t.dialect === 'sqlite') expect(readdirSync(join(dirname(t.dbFile), 'files', 'tmp'))).toEqual([]);
  });

  it('refuses a body over the limit while streaming, without a Content-Length (chunked), and closes the connection', async () => {
    const before = fileCount();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 10 * 1024 * 1024) return controller.close();
        sent += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024));
      },
    });
    const res = await fetch(`${t.url}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${clerk}`, 'content-type': 'application/octet-stream' }, body, duplex: 'half' } as RequestInit).catch((error: unknown) => error);
    if (res instanceof Response) {
      expect(res.status).toBe(413);
      expect(res.headers.get('connection')).toBe('close');
    }
    // Refused long before the 10 MB were sent.
    expect(sent).toBeLessThan(5 * 1024 * 1024);
    expect(fileCount()).toBe(before);
  });

  it('answers 413 before the body to a client that asks first (Expect: 100-continue) with a Content-Length over the limit; says 100 to one within it', async () => {
    const ask = (length: number, body?: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
        let answer = '';
        let sentBody = false;
        socket.on('data', (chunk) => {
          answer += chunk.toString('latin1');
          if (body && !sentBody && answer.startsWith('HTTP/1.1 100')) {
            sentBody = true;
            socket.write(body);
          }
          // The answer after any 100 is whole once its JSON body is.
          if (/\r\n\r\n\{[\s\S]*\}$/.test(answer.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, ''))) socket.destroy();
        });
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
        socket.setTimeout(5000, () => socket.destroy());
        socket.write(`POST /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${clerk}\r\nContent-Type: application/pdf\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`);
      });
    const refused = await ask(64 * 1024 + 1);
    expect(refused).toMatch(/^HTTP\/1\.1 413 /);
    expect(refused).toContain('{"error":"the upload is larger than this server takes (64 KB)"}');
    const taken = await ask(PDF.length, PDF);
    expect(taken).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });

  it('takes the same bytes uploaded several times at once: one content, a file each', async () => {
    const bytes = Buffer.concat([PDF, Buffer.alloc(60 * 1024, 9)]);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => upload(clerk, bytes, 'application/pdf', `same ${i}.pdf`)));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(6);
    expect(new Set(answers.map((answer) => answer.body.sha256))).toEqual(new Set([sha(bytes)]));
    expect(contentKept(sha(bytes))).toBe(true);
    if (t.dialect === 'postgres') {
      const chunks = t.inspect((db) => db.prepare('select count(*) as n from rms_file_chunks where sha256 = ?').get(sha(bytes))) as { n: number | string };
      expect(Number(chunks.n)).toBe(1);
    }
  });

  it('refuses a caller without a token (401)', async () => {
    expect((await upload(undefined, PNG, 'image/png')).status).toBe(401);
  });

  it('is for a caller that may write a file field: one that may only read (a role, an agent scoped to reads) gets 404 and stores nothing', async () => {
    const count = () => (t.inspect((db) => db.prepare('select count(*) as n from rms_files').get()) as { n: number }).n;
    const before = count();
    const reader = await agentToken(t, admin, ['dossier.get', 'dossier.list'], 'reader-bot');
    for (const token of [viewer, reader]) {
      const res = await upload(token, PNG, 'image/png');
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: 'not found' } });
    }
    expect(count()).toBe(before);
    // An agent scoped to a command that takes a file field may.
    const writer = await agentToken(t, admin, ['dossier.update'], 'writer-bot');
    expect((await upload(writer, PNG, 'image/png')).status).toBe(201);
  });

  const names: { sent: string; kept: string }[] = [
    { sent: '../../../etc/passwd', kept: 'passwd' },
    { sent: '..\\..\\windows\\system32\\evil.dll', kept: 'evil.dll' },
    { sent: '..', kept: 'file' },
    { sent: encodeURIComponent('a\u0000b.pdf'), kept: 'ab.pdf' },
    { sent: encodeURIComponent('invoice\u202Efdp.exe'), kept: 'invoicefdp.exe' },
    { sent: encodeURIComponent('\u200Fr\u00e9sum\u00e9 \u2067x\u2069.pdf'), kept: 'r\u00e9sum\u00e9 x.pdf' },
    { sent: `${'a'.repeat(1000)}.pdf`, kept: `${'a'.repeat(196)}.pdf` },
    // Decoded once: what is left has no separator, so it is a name, not a path.
    { sent: encodeURIComponent('%2e%2e%2f..%2fsecret.pdf'), kept: '%2e%2e%2f..%2fsecret.pdf' },
  ];

  it.each(names)('keeps X-File-Name $sent out of the file system, as $kept', async ({ sent, kept }) => {
    const file = await uploaded(clerk, PDF, 'application/pdf', sent);
    expect(file.name).toBe(kept);
    if (t.dialect === 'sqlite') {
      // Only hashes name stored content: two hex characters, then the sha256.
      const root = join(dirname(t.dbFile), 'files');
      for (const dir of readdirSync(root).filter((entry) => entry !== 'tmp')) {
        expect(dir).toMatch(/^[0-9a-f]{2}$/);
        for (const entry of readdirSync(join(root, dir))) expect(entry).toMatch(/^[0-9a-f]{64}$/);
      }
    }
  });
});

describe('attach, get and download', () => {
  let png: Awaited<ReturnType<typeof uploaded>>;
  let pdf: Awaited<ReturnType<typeof uploaded>>;
  let dossier: string;

  beforeAll(async () => {
    png = await uploaded(clerk, PNG, 'image/png', 'scan.png');
    pdf = await uploaded(clerk, PDF, 'application/pdf', 'contract.pdf');
    const created = await t.command(clerk, 'dossier.create', { name: 'First', attachments: [png.id, pdf.id], signed_contract: pdf.id, pages: [{ page: png.id, note: 'p1' }] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    dossier = created.body.value.id;
  });

  it('get answers each file as {id, name, size, type, sha256}, in lines too, and the column holds that JSON', async () => {
    const got = await t.command(clerk, 'dossier.get', { id: dossier });
    expect(got.body.value.attachments).toEqual([png, pdf]);
    expect(got.body.value.signed_contract).toEqual(pdf);
    expect(got.body.value.pages).toEqual([{ id: expect.any(String), page: png, note: 'p1' }]);
    expect(JSON.parse(t.inspect((db) => (db.prepare('select attachments from dossier where id = ?').get(dossier) as { attachments: string }).attachments))).toEqual([png, pdf]);
  });

  it("answers the file column's stored text as it is, byte for byte what the files written out would be, on every path", async () => {
    // REST writes the column's text into its answer unparsed (runtime/query/stored-json.ts).
    const res = await fetch(`${t.url}/api/dossier/get`, { method: 'POST', headers: { authorization: `Bearer ${clerk}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: dossier }) });
    const text = await res.text();
    const body = JSON.parse(text) as { value: Record<string, unknown>; denied: string[] };
    const expected = body.value;
    expect(expected).toMatchObject({ id: dossier, name: 'First', attachments: [png, pdf], signed_contract: pdf, scan: null, pages: [{ page: png, note: 'p1' }] });
    expect(body.denied).toEqual(['dossier.secret']);
    expect(text).toBe(JSON.stringify(body));
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    // A dry run, a role that reads only some fields, and a list read the same files.
    expect((await t.request('POST', '/api/dossier/get?dry_run=true', { id: dossier }, clerk)).body).toEqual({ dry_run: true, value: expected, denied: ['dossier.secret'] });
    const viewed = await t.command(viewer, 'dossier.get', { id: dossier });
    expect(viewed.status).toBe(200);
    expect(viewed.body.value.attachments).toEqual([png, pdf]);
    const listed = await t.command(clerk, 'dossier.list', { filter: [{ field: 'id', op: 'eq', value: dossier }], limit: 1 });
    const { pages, ...withoutLines } = expected;
    expect(pages).toHaveLength(1);
    expect(listed.body.value[0]).toEqual(withoutLines);
    // MCP reads the record through the same command, and lists its files as resources.
    const mcp = await connectClient(t, clerk);
    try {
      const called = await mcp.client.callTool({ name: 'dossier__get', arguments: { id: dossier } });
      expect((called.structuredContent as { value: unknown }).value).toEqual(expected);
      expect(JSON.parse((called.content as { text: string }[])[0]!.text).value).toEqual(expected);
      const resources = await mcp.client.request({ method: 'resources/list', params: { model: 'dossier', id: dossier } }, ListResourcesResultSchema);
      expect(resources.resources.map((resource) => resource.uri)).toEqual([png, pdf, pdf, png].map((file) => `rmsgen://files/${file.id}`));
    } finally {
      await mcp.close();
    }
  });

  it('downloads the bytes with the headers of a safe download', async () => {
    const res = await download(clerk, pdf.id);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PDF)).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="contract.pdf"; filename*=UTF-8''contract.pdf`);
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('etag')).toBe(`"${pdf.sha256}"`);
    expect(res.headers.get('content-length')).toBe(String(PDF.length));
    expect((await download(clerk, pdf.id, { 'if-none-match': `"${pdf.sha256}"` })).status).toBe(304);
  });

  it('answers ranges: 206 with Content-Range, a suffix, and 416 beyond the end', async () => {
    const part = await download(clerk, pdf.id, { range: 'bytes=2-6' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 2-6/${PDF.length}`);
    expect(part.bytes.equals(PDF.subarray(2, 7))).toBe(true);
    const tail = await download(clerk, pdf.id, { range: 'bytes=-4' });
    expect(tail.bytes.equals(PDF.subarray(PDF.length - 4))).toBe(true);
    const beyond = await download(clerk, pdf.id, { range: `bytes=${PDF.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${PDF.length}`);
    // An invalid range (a last before its first) is ignored, as RFC 9110 asks: the whole file.
    const invalid = await download(clerk, pdf.id, { range: 'bytes=5-2' });
    expect([invalid.status, invalid.bytes.equals(PDF)]).toEqual([200, true]);
  });

  it('answers If-None-Match compared weakly, in a list, and *, with 304', async () => {
    for (const header of [`W/"${pdf.sha256}"`, `"other", "${pdf.sha256}"`, '*']) {
      expect((await download(clerk, pdf.id, { 'if-none-match': header })).status, header).toBe(304);
    }
    expect((await download(clerk, pdf.id, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('counts as a download only what sends content: a HEAD, a 304 and a 416 are neither audited nor spent from an agent\'s budget', async () => {
    const count = () => Number((t.inspect((db) => db.prepare(`select count(*) as n from rms_audit where command = 'dossier.download_file' and input like ?`).get(`%${png.id}%`)) as { n: number | string }).n);
    const before = count();
    const head = await fetch(`${t.url}/api/files/${png.id}`, { method: 'HEAD', headers: { authorization: `Bearer ${agent}` } });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, String(PNG.length)]);
    expect((await download(agent, png.id, { 'if-none-match': `"${png.sha256}"` })).status).toBe(304);
    expect((await download(agent, png.id, { range: `bytes=${PNG.length + 5}-` })).status).toBe(416);
    expect(count()).toBe(before);
    const spent = () => Number((t.inspect((db) => db.prepare('select coalesce(sum(bytes), 0) as n from rms_file_budget where token_id = (select id from rms_tokens where label = ?)').get('filer')) as { n: number | string }).n);
    const spentBefore = spent();
    await fetch(`${t.url}/api/files/${png.id}`, { method: 'HEAD', headers: { authorization: `Bearer ${agent}` } });
    expect(spent()).toBe(spentBefore);
    expect((await download(agent, png.id)).status).toBe(200);
    expect([count(), spent()]).toEqual([before + 1, spentBefore + PNG.length]);
  });

  it('audits each download: who, which record, which file', async () => {
    await download(viewer, png.id);
    const row = t.inspect((db) => db.prepare(`select username, command, record_id, outcome, input from rms_audit where command = 'dossier.download_file' and username = 'victor' order by id desc`).get()) as Record<string, unknown>;
    expect(row).toMatchObject({ username: 'victor', command: 'dossier.download_file', record_id: dossier, outcome: 'executed' });
    expect(JSON.parse(String(row.input))).toEqual({ file_id: png.id, field: 'attachments' });
  });

  it('serves an SVG (a script in it) as an attachment, sandboxed; never inline', async () => {
    const svg = await uploaded(clerk, SVG, 'image/svg+xml', 'logo.svg');
    const html = await uploaded(clerk, Buffer.from('<html><script>alert(1)</script></html>'), 'text/html', 'page.html');
    // image/* takes SVG; the field's accept is no promise it is shown inline.
    expect((await t.command(clerk, 'dossier.create', { name: 'Svg', attachments: [svg.id], scan: html.id })).status).toBe(200);
    for (const file of [svg, html]) {
      const res = await download(clerk, file.id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; /);
      expect(res.headers.get('content-security-policy')).toBe('sandbox');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('answers 404 exactly as for an unknown id where the caller may not read a field of a live record holding the file', async () => {
    const secret = await uploaded(manager, PDF, 'application/pdf', 'secret.pdf');
    const hidden = await uploaded(manager, PNG, 'image/png', 'hidden.png');
    const lonely = await uploaded(clerk, PDF, 'application/pdf', 'lonely.pdf');
    const doomed = await uploaded(clerk, PNG, 'image/png', 'doomed.png');
    const other = (await t.command(manager, 'dossier.create', { name: 'Guarded', secret: secret.id, scan: hidden.id })).body.value.id;
    const gone = (await t.command(clerk, 'dossier.create', { name: 'Gone', attachments: [doomed.id] })).body.value.id;
    expect((await download(clerk, doomed.id)).status).toBe(200);
    expect((await t.command(clerk, 'dossier.delete', { id: gone })).status).toBe(200);
    const unknown = await download(clerk, '01ZZZZZZZZZZZZZZZZZZZZZZZZ');
    expect(unknown.status).toBe(404);
    const cases: [string, string | undefined, string][] = [
      ['a role without the field (read: manager)', clerk, secret.id],
      ['a role without the model', undefined, secret.id],
      ['an agent: a field withheld from agents', agent, hidden.id],
      ['an agent: a personal field', agent, pdf.id === pdf.id ? (await uploaded(clerk, PDF, 'application/pdf', 'p.pdf')).id : ''],
      ['its uploader: an upload no record holds', clerk, lonely.id],
      ['a deleted record', clerk, doomed.id],
    ];
    const personalOnly = cases[3]![2];
    expect((await t.command(clerk, 'dossier.create', { name: 'Personal', signed_contract: personalOnly })).status).toBe(200);
    const outsider = await t.addPerson('otto', []);
    cases[1]![1] = outsider;
    for (const [what, token, id] of cases) {
      const res = await download(token, id);
      expect({ what, status: res.status, body: res.bytes.toString() }).toEqual({ what, status: 404, body: unknown.bytes.toString() });
    }
    // Those who may read the field download it.
    expect((await download(manager, secret.id)).status).toBe(200);
    expect((await download(clerk, hidden.id)).status).toBe(200);
    expect((await download(agent, png.id)).status).toBe(200);
    expect(other).toBeTruthy();
  });

  it('shows an agent a personal file field as a token and other files as files; a withheld one not at all', async () => {
    const got = await t.request('POST', '/api/dossier/get', { id: dossier }, agent);
    expect(got.status).toBe(200);
    expect(got.body.value.signed_contract).toMatch(/^SIGNED_CONTRACT_\d+$/);
    expect(got.body.value.attachments).toEqual([png, pdf]);
    expect(got.body.value).not.toHaveProperty('scan');
    expect(got.body.denied).toContain('dossier.scan');
  });
});

describe('agents: files as MCP resources', () => {
  it('lists the files of a record an agent reads (not a personal or withheld one) and reads one as a blob, audited', async () => {
    const png = await uploaded(agent, PNG, 'image/png', 'agent.png');
    const contract = await uploaded(clerk, PDF, 'application/pdf', 'contract.pdf');
    const hidden = await uploaded(clerk, PDF, 'application/pdf', 'hidden.pdf');
    // An agent attaches what it uploaded.
    const created = await t.request('POST', '/api/dossier/create', { name: 'By agent', attachments: [png.id] }, agent);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.value.id;
    expect((await t.command(clerk, 'dossier.update', { id, signed_contract: contract.id, scan: hidden.id })).status).toBe(200);
    const mcp = await connectClient(t, agent);
    try {
      const listed = await mcp.client.request({ method: 'resources/list', params: { model: 'dossier', id } }, ListResourcesResultSchema);
      expect(listed.resources).toEqual([{ uri: `rmsgen://files/${png.id}`, name: 'agent.png', mimeType: 'image/png', size: PNG.length, description: `dossier ${id}.attachments` }]);
      const read = await mcp.client.readResource({ uri: `rmsgen://files/${png.id}` });
      expect(read.contents).toEqual([{ uri: `rmsgen://files/${png.id}`, mimeType: 'image/png', blob: PNG.toString('base64') }]);
      for (const file of [contract, hidden]) {
        await expect(mcp.client.readResource({ uri: `rmsgen://files/${file.id}` })).rejects.toThrow(`Resource not found: rmsgen://files/${file.id}`);
      }
      await expect(mcp.client.readResource({ uri: 'rmsgen://files/01ZZZZZZZZZZZZZZZZZZZZZZZZ' })).rejects.toThrow('Resource not found: rmsgen://files/01ZZZZZZZZZZZZZZZZZZZZZZZZ');
      expect((await mcp.client.request({ method: 'resources/list', params: {} }, ListResourcesResultSchema)).resources).toEqual([]);
      void ReadResourceResultSchema;
    } finally {
      await mcp.close();
    }
    const audited = t.inspect((db) => db.prepare(`select count(*) as n from rms_audit where command = 'dossier.download_file' and agent_label = 'filer' and record_id = ?`).get(id)) as { n: number | string };
    expect(Number(audited.n)).toBe(1);
  });
});

describe('agents: a file in a plan', () => {
  it("an agent's upload attached by an approval-needing action is held in the plan, and attached when a person approves it", async () => {
    const id = (await t.command(clerk, 'dossier.create', { name: 'To seal' })).body.value.id;
    const scan = await uploaded(agent, PDF, 'application/pdf', 'seal.pdf');
    const proposed = await t.request('POST', '/api/dossier/seal', { id, proof: scan.id }, agent);
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    expect((await t.command(clerk, 'dossier.get', { id })).body.value.proof).toBeNull();
    // Who decides sees what would be attached: the file, not its id, and may download it (below).
    const plan = await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, clerk);
    expect(plan.body.plan.input).toEqual({ id, proof: scan });
    expect((await download(clerk, scan.id)).status).toBe(200);
    const approved = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, {}, clerk);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect((await t.command(clerk, 'dossier.get', { id })).body.value).toMatchObject({ status: 'closed', proof: scan });
  });

  it('a person who may decide a pending plan downloads the files it would attach, audited with the plan; no one else, and no one once it is decided', async () => {
    const id = (await t.command(clerk, 'dossier.create', { name: 'To approve' })).body.value.id;
    const scan = await uploaded(agent, PDF, 'application/pdf', 'to approve.pdf');
    const proposed = await t.request('POST', '/api/dossier/seal', { id, proof: scan.id }, agent);
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    const planId = proposed.body.plan_id as string;
    const unknown = await download(clerk, '01ZZZZZZZZZZZZZZZZZZZZZZZZ');
    const outsider = await t.addPerson('oskar', []);
    // The bytes, with the headers of any download.
    const res = await download(clerk, scan.id);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PDF)).toBe(true);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="to approve.pdf"; filename*=UTF-8''to%20approve.pdf`);
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    expect((await download(clerk, scan.id, { range: 'bytes=0-3' })).bytes.toString()).toBe('%PDF');
    const row = t.inspect((db) => db.prepare(`select username, command, record_id, plan_id, outcome, input from rms_audit where command = 'dossier.download_file' and username = 'clara' and plan_id = ? order by id desc`).get(planId)) as Record<string, unknown>;
    expect(row).toMatchObject({ username: 'clara', command: 'dossier.download_file', record_id: id, plan_id: planId, outcome: 'executed' });
    expect(JSON.parse(String(row.input))).toEqual({ file_id: scan.id, field: 'proof' });
    // Those who may not decide it (the plan does not exist for them), and its agent, get the answer of an unknown id.
    const refused: [string, string | undefined][] = [
      ['a person who may read but not run the action (viewer)', viewer],
      ['a person without roles', outsider],
      ['no one signed in', undefined],
      ['the agent that uploaded it', agent],
    ];
    for (const [who, token] of refused) {
      if (token === viewer || token === outsider) expect((await t.request('GET', `/api/plans/${planId}`, undefined, token)).status).toBe(404);
      const answer = await download(token, scan.id);
      expect({ who, status: answer.status, body: answer.bytes.toString() }).toEqual({ who, status: token === undefined ? 401 : 404, body: token === undefined ? answer.bytes.toString() : unknown.bytes.toString() });
    }
    // Rejected: no one may decide it any more, and no record holds the file.
    expect((await t.request('POST', `/api/reject/${planId}`, {}, clerk)).status).toBe(200);
    expect((await download(clerk, scan.id)).status).toBe(404);
    expect((await download(manager, scan.id)).status).toBe(404);
  });

  it('an agent cannot propose attaching an upload it did not make and may not read: no plan names it', async () => {
    const id = (await t.command(clerk, 'dossier.create', { name: 'Not the agent’s' })).body.value.id;
    const others = await uploaded(manager, PDF, 'application/pdf', 'manager only.pdf');
    const plans = () => Number((t.inspect((db) => db.prepare(`select count(*) as n from rms_plans`).get()) as { n: number | string }).n);
    const before = plans();
    const proposed = await t.request('POST', '/api/dossier/seal', { id, proof: others.id }, agent);
    expect({ status: proposed.status, body: proposed.body }).toEqual({ status: 400, body: { error: `dossier.proof: no file with id ${others.id}` } });
    expect(plans()).toBe(before);
    expect((await download(clerk, others.id)).status).toBe(404);
  });

  describe('every kind of plan that attaches: the files shown in the plan, downloadable by who may decide it', () => {
    const cases: { name: string; propose: (ids: { pdf: string; png: string }, record: string) => [string, Record<string, unknown>]; shown: (files: { pdf: unknown; png: unknown }, record: string) => Record<string, unknown>; fields: Record<'pdf' | 'png', string> }[] = [
      {
        name: 'an action that needs approval',
        propose: (ids, record) => ['seal', { id: record, proof: ids.pdf }],
        shown: (files, record) => ({ id: record, proof: files.pdf }),
        fields: { pdf: 'proof', png: '' },
      },
      {
        name: 'create_many, a file field and a line\'s',
        propose: (ids) => ['create_many', { records: [{ name: 'Bulk one', attachments: [ids.pdf], pages: [{ page: ids.png, note: 'n' }] }] }],
        shown: (files) => ({ records: [{ name: 'Bulk one', attachments: [files.pdf], pages: [{ page: files.png, note: 'n' }] }] }),
        fields: { pdf: 'attachments', png: 'pages.page' },
      },
      {
        name: 'update_many',
        propose: (ids, record) => ['update_many', { ids: [record], max_affected: 1, set: { proof: ids.pdf, attachments: [ids.png] } }],
        shown: (files, record) => ({ ids: [record], max_affected: 1, set: { proof: files.pdf, attachments: [files.png] } }),
        fields: { pdf: 'proof', png: 'attachments' },
      },
      {
        name: 'an action\'s bulk command',
        propose: (ids, record) => ['seal_many', { ids: [record], max_affected: 1, input: { proof: ids.pdf } }],
        shown: (files, record) => ({ ids: [record], max_affected: 1, input: { proof: files.pdf } }),
        fields: { pdf: 'proof', png: '' },
      },
    ];
    for (const { name, propose, shown, fields } of cases) {
      it(name, async () => {
        const record = (await t.command(clerk, 'dossier.create', { name: `For ${name}` })).body.value.id;
        const pdf = await uploaded(agent, PDF, 'application/pdf', 'bulk.pdf');
        const png = await uploaded(agent, PNG, 'image/png', 'bulk.png');
        const [command, input] = propose({ pdf: pdf.id, png: png.id }, record);
        const proposed = await t.request('POST', `/api/dossier/${command}`, input, agent);
        expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
        const plan = await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, clerk);
        expect(plan.body.plan.input).toEqual(shown({ pdf, png }, record));
        // The list answers it the same way.
        expect((await t.request('GET', '/api/plans', undefined, clerk)).body.plans.find((listed: { plan_id: string }) => listed.plan_id === proposed.body.plan_id).input).toEqual(shown({ pdf, png }, record));
        for (const kind of ['pdf', 'png'] as const) {
          const file = kind === 'pdf' ? pdf : png;
          const named = fields[kind] !== '';
          expect({ kind, status: (await download(clerk, file.id)).status }).toEqual({ kind, status: named ? 200 : 404 });
          expect({ kind, status: (await download(viewer, file.id)).status }).toEqual({ kind, status: 404 });
          if (!named) continue;
          const row = t.inspect((db) => db.prepare(`select input from rms_audit where command = 'dossier.download_file' and plan_id = ? and input like ? order by id desc`).get(proposed.body.plan_id, `%${file.id}%`)) as { input: string };
          expect(JSON.parse(row.input)).toEqual({ file_id: file.id, field: fields[kind] });
        }
        expect((await t.request('POST', `/api/reject/${proposed.body.plan_id}`, {}, clerk)).status).toBe(200);
      });
    }
  });

  it('a plan writing a field the person may not read is theirs neither to decide nor to download from', async () => {
    const managersAgent = await agentToken(t, manager, ['dossier.*'], 'manager filer');
    const record = (await t.command(manager, 'dossier.create', { name: 'Secret plan' })).body.value.id;
    const secret = await uploaded(managersAgent, PDF, 'application/pdf', 'secret plan.pdf');
    const proposed = await t.request('POST', '/api/dossier/update_many', { ids: [record], max_affected: 1, set: { secret: secret.id } }, managersAgent);
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    expect((await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, clerk)).status).toBe(404);
    expect((await download(clerk, secret.id)).status).toBe(404);
    expect((await download(manager, secret.id)).status).toBe(200);
    expect((await t.request('POST', `/api/reject/${proposed.body.plan_id}`, {}, manager)).status).toBe(200);
  });

  it('an agent attaches a personal file it uploaded and reads it back as a token, never the file', async () => {
    const mine = await uploaded(agent, PDF, 'application/pdf', 'mine.pdf');
    const created = await t.request('POST', '/api/dossier/create', { name: 'Agent contract', signed_contract: mine.id }, agent);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.value.signed_contract).toMatch(/^SIGNED_CONTRACT_\d+$/);
    const read = await t.request('POST', '/api/dossier/get', { id: created.body.value.id }, agent);
    expect(read.body.value.signed_contract).toBe(created.body.value.signed_contract);
    expect((await t.command(clerk, 'dossier.get', { id: created.body.value.id })).body.value.signed_contract).toEqual(mine);
    expect((await download(agent, mine.id)).status).toBe(404);
  });

  it('an agent sends back the token of a personal file it wrote, and the record keeps the file', async () => {
    const mine = await uploaded(agent, PDF, 'application/pdf', 'sent back.pdf');
    const created = await t.request('POST', '/api/dossier/create', { name: 'Sent back', signed_contract: mine.id }, agent);
    const token = created.body.value.signed_contract as string;
    const updated = await t.request('POST', '/api/dossier/update', { id: created.body.value.id, name: 'Sent back 2', signed_contract: token }, agent);
    expect([updated.status, updated.body.value?.signed_contract]).toEqual([200, token]);
    expect((await t.command(clerk, 'dossier.get', { id: created.body.value.id })).body.value.signed_contract).toEqual(mine);
    // Over MCP too.
    const mcp = await connectClient(t, agent);
    try {
      const result = (await mcp.client.callTool({ name: 'dossier__update', arguments: { id: created.body.value.id, signed_contract: token } })) as { isError?: boolean; structuredContent?: { value: { signed_contract: string } } };
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent?.value.signed_contract).toBe(token);
    } finally {
      await mcp.close();
    }
  });

  it('an agent writes back a record with a personal file it only ever saw as a token, to the same record or another', async () => {
    const theirs = await uploaded(clerk, PDF, 'application/pdf', 'theirs.pdf');
    const id = (await t.command(clerk, 'dossier.create', { name: 'Their contract', signed_contract: theirs.id })).body.value.id as string;
    const read = await t.request('POST', '/api/dossier/get', { id }, agent);
    const token = read.body.value.signed_contract as string;
    expect(token).toMatch(/^SIGNED_CONTRACT_\d+$/);
    const back = await t.request('POST', '/api/dossier/update', { id, name: 'Their contract, renamed', signed_contract: token }, agent);
    expect([back.status, back.body.value?.signed_contract]).toEqual([200, token]);
    const copied = await t.request('POST', '/api/dossier/create', { name: 'A copy', signed_contract: token }, agent);
    expect(copied.status, JSON.stringify(copied.body)).toBe(200);
    expect((await t.command(clerk, 'dossier.get', { id: copied.body.value.id })).body.value.signed_contract).toEqual(theirs);
    // The token of a file the agent may not attach cannot be forged either: one it was not given is refused.
    const forged = await t.request('POST', '/api/dossier/update', { id, signed_contract: 'SIGNED_CONTRACT_999' }, agent);
    expect([forged.status, forged.body]).toEqual([400, { error: 'invalid token' }]);
  });

  it('token_filter on a personal file field is refused saying so, on list, search and MCP alike', async () => {
    const mine = await uploaded(agent, PDF, 'application/pdf', 'filtered.pdf');
    const token = (await t.request('POST', '/api/dossier/create', { name: 'Filtered', signed_contract: mine.id }, agent)).body.value.signed_contract as string;
    for (const command of ['list', 'search']) {
      const res = await t.request('POST', `/api/dossier/${command}`, { token_filter: [{ field: 'signed_contract', op: 'eq', value: token }] }, agent);
      expect([res.status, res.body]).toEqual([400, { error: 'dossier.signed_contract: token_filter takes no file fields' }]);
    }
    const mcp = await connectClient(t, agent);
    try {
      const result = (await mcp.client.callTool({ name: 'dossier__list', arguments: { token_filter: [{ field: 'signed_contract', op: 'in', value: [token] }] } })) as { isError?: boolean; content: { text: string }[] };
      expect([result.isError, result.content[0]!.text]).toEqual([true, 'dossier.signed_contract: token_filter takes no file fields']);
    } finally {
      await mcp.close();
    }
  });

  it('erasing a record forgets a personal file: the field empties and no history entry names the file any more (so the sweep removes it)', async () => {
    const contract = await uploaded(clerk, Buffer.from('%PDF-1.4\n% erased\n'), 'application/pdf', 'erase me.pdf');
    const id = (await t.command(clerk, 'dossier.create', { name: 'Erased', signed_contract: contract.id })).body.value.id;
    const erased = await t.command(admin, 'dossier.erase', { id });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect((await t.command(clerk, 'dossier.get', { id })).body.value.signed_contract).toBeNull();
    const referring = Number((t.inspect((db) => db.prepare(`select count(*) as n from rms_history where changes like ?`).get(`%${contract.id}%`)) as { n: number | string }).n);
    expect(referring).toBe(0);
    // The file itself is forgotten at once: its name gone, attached again by no one (its uploader neither), downloaded by no one.
    expect(t.inspect((db) => db.prepare('select name, uploaded_by from rms_files where id = ?').get(contract.id))).toEqual({ name: '[erased]', uploaded_by: 'erased' });
    const again = await t.command(clerk, 'dossier.create', { name: 'Brought back', signed_contract: contract.id });
    expect([again.status, again.body]).toEqual([400, { error: `dossier.signed_contract: no file with id ${contract.id}` }]);
    expect((await download(clerk, contract.id)).status).toBe(404);
    expect((await download(admin, contract.id)).status).toBe(404);
    // The next sweep removes its row and its bytes, however young the upload.
    await t.server.files.sweeper.runPass();
    expect(t.inspect((db) => db.prepare('select 1 from rms_files where id = ?').get(contract.id))).toBeUndefined();
    expect(contentKept(contract.sha256)).toBe(false);
  });

  it('erasing a record keeps a personal file another record holds too: that is the other record\'s', async () => {
    const contract = await uploaded(clerk, Buffer.from('%PDF-1.4\n% shared\n'), 'application/pdf', 'shared.pdf');
    const erasedId = (await t.command(clerk, 'dossier.create', { name: 'Erased, shared', signed_contract: contract.id })).body.value.id;
    const keptId = (await t.command(clerk, 'dossier.create', { name: 'Kept, shared', signed_contract: contract.id })).body.value.id;
    expect((await t.command(admin, 'dossier.erase', { id: erasedId })).status).toBe(200);
    expect((await t.command(clerk, 'dossier.get', { id: keptId })).body.value.signed_contract).toEqual(contract);
    expect(t.inspect((db) => db.prepare('select name from rms_files where id = ?').get(contract.id))).toEqual({ name: 'shared.pdf' });
    expect((await download(clerk, contract.id)).status).toBe(200);
  });
});

describe('two instances on one database', () => {
  it('a file uploaded through one is downloaded through the other', async () => {
    const second = await startTestServer({ registry: t.server.service.registry, dbUrl: t.dbUrl, ...(t.dialect === 'sqlite' ? { files: { kind: 'disk' as const, dir: join(dirname(t.dbFile), 'files') } } : {}) });
    try {
      const file = await uploaded(clerk, PDF, 'application/pdf', 'shared.pdf');
      expect((await t.command(clerk, 'dossier.create', { name: 'Shared', attachments: [file.id] })).status).toBe(200);
      const res = await fetch(`${second.url}/api/files/${file.id}`, { headers: { authorization: `Bearer ${clerk}` } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).toBe(true);
    } finally {
      await second.close();
    }
  });
});

describe('attach refusals', () => {
  const refusal = async (token: string, input: Record<string, unknown>, error: string) => {
    const before = t.inspect((db) => Number((db.prepare('select count(*) as n from dossier').get() as { n: number | string }).n));
    const res = await t.command(token, 'dossier.create', { name: 'Refused', ...input });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(t.inspect((db) => Number((db.prepare('select count(*) as n from dossier').get() as { n: number | string }).n))).toBe(before);
  };

  it('an unknown id, and an upload of someone else the caller cannot read, alike', async () => {
    const others = await uploaded(manager, PDF, 'application/pdf', 'not yours.pdf');
    await refusal(clerk, { attachments: ['01ZZZZZZZZZZZZZZZZZZZZZZZZ'] }, 'dossier.attachments: no file with id 01ZZZZZZZZZZZZZZZZZZZZZZZZ');
    await refusal(clerk, { attachments: [others.id] }, `dossier.attachments: no file with id ${others.id}`);
    await refusal(agent, { scan: undefined, attachments: [others.id] }, `dossier.attachments: no file with id ${others.id}`);
  });

  it('a type the field does not accept, a file over its max_size, a list where one file goes, one file twice', async () => {
    const text = await uploaded(clerk, TEXT, 'text/plain', 'notes.txt');
    const big = await uploaded(clerk, Buffer.concat([PDF, Buffer.alloc(2048, 32)]), 'application/pdf', 'big.pdf');
    const pdf = await uploaded(clerk, PDF, 'application/pdf', 'ok.pdf');
    await refusal(clerk, { attachments: [text.id] }, `dossier.attachments: file ${text.id} is text/plain, not of the types the field takes (application/pdf, image/*)`);
    await refusal(clerk, { attachments: [big.id] }, `dossier.attachments: file ${big.id} is 2.1 KB, more than the field takes (1 KB)`);
    // Just over: in bytes, so that it does not read "1.0 KB, more than 1 KB".
    const justOver = await uploaded(clerk, Buffer.concat([PDF, Buffer.alloc(1025 - PDF.length, 32)]), 'application/pdf', 'just over.pdf');
    await refusal(clerk, { attachments: [justOver.id] }, `dossier.attachments: file ${justOver.id} is 1025 B, more than the field takes (1 KB)`);
    await refusal(clerk, { pages: [{ page: pdf.id }] }, `dossier.pages[0].page: file ${pdf.id} is application/pdf, not of the types the field takes (image/png)`);
    await refusal(clerk, { signed_contract: [pdf.id] }, 'dossier.signed_contract must be the id of an uploaded file');
    await refusal(clerk, { attachments: [pdf.id, pdf.id] }, `dossier.attachments lists file ${pdf.id} twice`);
  });

  it.each([
    [{ attachments: [null] }, 'dossier.attachments must be a list of file ids'],
    [{ attachments: [''] }, 'dossier.attachments must be a list of file ids'],
    [{ attachments: [{ id: '' }] }, 'dossier.attachments must be a list of file ids'],
    [{ attachments: [7] }, 'dossier.attachments must be a list of file ids'],
    [{ signed_contract: '' }, 'dossier.signed_contract must be the id of an uploaded file'],
    [{ signed_contract: { id: '' } }, 'dossier.signed_contract must be the id of an uploaded file'],
  ])('an empty or missing id among the values is a wrong value, not a missing field: %j', async (input, error) => {
    await refusal(clerk, input, error);
  });
});

describe('writes, history and revert', () => {
  it('update, an action and create_many attach; removing a file is a history change; revert puts it back', async () => {
    const a = await uploaded(clerk, PNG, 'image/png', 'a.png');
    const b = await uploaded(clerk, PDF, 'application/pdf', 'b.pdf');
    const id = (await t.command(clerk, 'dossier.create', { name: 'Changing', attachments: [a.id, b.id] })).body.value.id;
    // What get answered, sent back, counts as the ids it holds.
    const kept = (await t.command(clerk, 'dossier.get', { id })).body.value.attachments;
    expect((await t.command(clerk, 'dossier.update', { id, attachments: [kept[1]] })).body.value.attachments).toEqual([b]);
    const history = await t.command(clerk, 'dossier.history', { id });
    const removal = history.body.value.rows[0];
    expect(removal.changes.attachments).toEqual({ from: [a, b], to: [b] });
    const reverted = await t.command(clerk, 'dossier.revert', { id, change_id: removal.change_id });
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect(reverted.body.value.attachments).toEqual([a, b]);

    const scan = await uploaded(clerk, PDF, 'application/pdf', 'scan.pdf');
    const closed = await t.command(clerk, 'dossier.close', { id, scan: scan.id });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(closed.body.value.scan).toEqual(scan);

    const many = await t.command(clerk, 'dossier.create_many', { records: [{ name: 'Bulk 1', attachments: [a.id] }, { name: 'Bulk 2', signed_contract: b.id }] });
    expect(many.status, JSON.stringify(many.body)).toBe(200);
    const bulkRefused = await t.command(clerk, 'dossier.create_many', { records: [{ name: 'Bulk 3', attachments: ['01ZZZZZZZZZZZZZZZZZZZZZZZZ'] }] });
    expect(bulkRefused.status).toBe(400);
  });

  it('refuses a filter other than is_null, and an order, on a file field', async () => {
    expect((await t.command(clerk, 'dossier.list', { filter: [{ field: 'attachments', op: 'is_null', value: false }] })).status).toBe(200);
    const eq = await t.command(clerk, 'dossier.list', { filter: [{ field: 'attachments', op: 'eq', value: 'x' }] });
    expect(eq.body).toEqual({ error: 'dossier.attachments: file fields are filtered only with is_null' });
    // Every other operator, whatever its value, says the same.
    for (const field of ['attachments', 'proof']) {
      for (const [op, value] of [['ne', 'x'], ['contains', 'x'], ['gt', 'x'], ['lte', 1], ['in', 'x'], ['in', ['x']], ['eq', null]] as const) {
        const res = await t.command(clerk, 'dossier.search', { filter: [{ field, op, value }] });
        expect([res.status, res.body], `${field} ${op}`).toEqual([400, { error: `dossier.${field}: file fields are filtered only with is_null` }]);
      }
    }
    const order = await t.command(clerk, 'dossier.list', { order: [{ field: 'scan', dir: 'asc' }] });
    expect(order.body).toEqual({ error: 'dossier.scan: file fields cannot be ordered by' });
  });
});

describe('rmsgen backup and restore', () => {
  it.skipIf(process.env.RMS_TEST_PG_URL !== undefined)('copy the files on disk beside the database backup, and back into a restored database\'s storage', async () => {
    const file = await uploaded(clerk, Buffer.from('%PDF-1.4\n% kept in a backup\n'), 'application/pdf', 'backed up.pdf');
    expect((await t.command(clerk, 'dossier.create', { name: 'Backed up', attachments: [file.id] })).status).toBe(200);
    const dir = mkdtempSync(join(tmpdir(), 'rmsgen-files-backup-'));
    try {
      const backup = join(dir, 'backup.sqlite');
      const run = await runFixtureCli(['backup', '--db', t.dbUrl, '--to', backup]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^copied \\d+ uploaded files, [0-9.]+ MiB, to ${backup}\\.files$`, 'm'));
      expect(existsSync(join(`${backup}.files`, file.sha256.slice(0, 2), file.sha256))).toBe(true);
      mkdirSync(join(dir, 'restored'));
      const restored = join(dir, 'restored', 'rms.sqlite');
      const back = await runFixtureCli(['restore', '--from', backup, '--db', `sqlite:${restored}`]);
      expect(back.code, back.stderr).toBe(0);
      expect(readFileSync(join(dir, 'restored', 'files', file.sha256.slice(0, 2), file.sha256)).toString()).toBe('%PDF-1.4\n% kept in a backup\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("agents: a daily budget of file bytes", () => {
  it('refuses a download (429) and a resource read once the day\'s budget is spent, ranges counting what they send, and allows them the next day', async () => {
    const bytes = Buffer.concat([PDF, Buffer.alloc(1500, 32)]);
    const big = await uploaded(clerk, bytes, 'application/pdf', 'budget.pdf');
    expect((await t.command(clerk, 'dossier.create', { name: 'Budget', proof: big.id })).status).toBe(200);
    const budgeted = await agentToken(t, clerk, ['dossier.*'], 'budgeted');
    expect((await download(budgeted, big.id)).status).toBe(200);
    expect((await download(budgeted, big.id)).status).toBe(200);
    // 2 × 1,577 bytes spent of 4,000: a third whole file would pass it; 10 bytes of it do not.
    const refused = await download(budgeted, big.id);
    expect({ status: refused.status, body: refused.bytes.toString() }).toEqual({ status: 429, body: JSON.stringify({ error: "this agent token's daily budget of file bytes is spent" }) });
    expect((await download(budgeted, big.id, { range: 'bytes=0-9' })).status).toBe(206);
    const mcp = await connectClient(t, budgeted);
    try {
      await expect(mcp.client.readResource({ uri: `rmsgen://files/${big.id}` })).rejects.toThrow("this agent token's daily budget of file bytes is spent");
    } finally {
      await mcp.close();
    }
    // People have no such budget.
    expect((await download(clerk, big.id)).status).toBe(200);
    clock.advance(24 * 60 * 60 * 1000);
    clerk = await t.login('clara', 'clara-test-password');
    expect((await download(budgeted, big.id)).status).toBe(200);
  });
});

describe('the sweep', () => {
  it('removes uploads no record holds after 24 h, and files once nothing refers to them; keeps what history refers to', async () => {
    const lonely = await uploaded(clerk, Buffer.from('%PDF-1.4\n% lonely\n'), 'application/pdf', 'lonely.pdf');
    const heldBytes = Buffer.concat([PNG, Buffer.from('held')]);
    const held = await uploaded(clerk, heldBytes, 'image/png', 'held.png');
    const id = (await t.command(clerk, 'dossier.create', { name: 'Sweep', attachments: [held.id] })).body.value.id;
    expect((await t.server.files.sweeper.runPass()).ran).toBe(true);
    expect(contentKept(lonely.sha256)).toBe(true);
    clock.advance(25 * 60 * 60 * 1000);
    await t.server.files.sweeper.runPass();
    // Sessions ran out with the day that passed.
    clerk = await t.login('clara', 'clara-test-password');
    expect(t.inspect((db) => db.prepare('select id from rms_files where id = ?').get(lonely.id))).toBeUndefined();
    expect(contentKept(lonely.sha256)).toBe(false);
    // Held by the record, then by its history once the record is deleted.
    expect((await t.command(clerk, 'dossier.delete', { id })).status).toBe(200);
    await t.server.files.sweeper.runPass();
    expect(contentKept(held.sha256)).toBe(true);
    expect(t.inspect((db) => db.prepare('select id from rms_files where id = ?').get(held.id))).toBeDefined();
  });

  it('removes content only while no file row holds it, checked as it removes: an upload of the same bytes racing the sweep keeps them', async () => {
    const bytes = Buffer.from('%PDF-1.4\n% raced bytes\n');
    const first = await uploaded(clerk, bytes, 'application/pdf', 'first.pdf');
    const storage = t.server.files.storage;
    // The sweep deleted the first file's row; an upload of the same bytes inserted its own before the sweep removes the content.
    const db = openDatabase(t.dbUrl);
    try {
      expect(await deleteFileRow(db, first.id)).toBe(true);
      await db('rms_files').insert({ id: '01M8RACEDUPLOAD000000000000'.slice(0, 26), sha256: first.sha256, name: 'second.pdf', size: bytes.length, type: 'application/pdf', uploaded_by: 'person:x', uploaded_at: new Date(clock.now()).toISOString() });
      await storage.remove(first.sha256);
      expect(contentKept(first.sha256)).toBe(true);
      // Once no row holds them, they go.
      await db('rms_files').where({ sha256: first.sha256 }).delete();
      await storage.remove(first.sha256);
      expect(contentKept(first.sha256)).toBe(false);
    } finally {
      await db.destroy();
    }
  });

  it('does not remove a file a write attached after the pass read what refers to files: the delete is only of a file still last touched before the cutoff', async () => {
    const raced = await uploaded(clerk, Buffer.from('%PDF-1.4\n% raced\n'), 'application/pdf', 'raced.pdf');
    const spare = await uploaded(clerk, Buffer.from('%PDF-1.4\n% spare\n'), 'application/pdf', 'spare.pdf');
    clock.advance(25 * 60 * 60 * 1000);
    clerk = await t.login('clara', 'clara-test-password');
    const cutoff = new Date(clock.now() - 24 * 60 * 60 * 1000).toISOString();
    // What the pass would find: both a day old, neither held. Then a write attaches one, before the pass deletes.
    expect((await t.command(clerk, 'dossier.create', { name: 'Raced', proof: raced.id })).status).toBe(200);
    const db = openDatabase(t.dbUrl);
    try {
      expect(await deleteFileRow(db, raced.id, cutoff)).toBe(false);
      expect(await deleteFileRow(db, spare.id, cutoff)).toBe(true);
    } finally {
      await db.destroy();
    }
    expect((await download(clerk, raced.id)).status).toBe(200);
  });
});
