/**
 * A `list` or `search` without a `limit` over REST, on SQLite and (under RMS_TEST_PG_URL)
 * PostgreSQL: sent a page at a time as it is read (chunked, no Content-Length), byte for byte the
 * answer the same call gives read whole (with `limit`, and over MCP), as one snapshot of the
 * records however long the client takes, and a client that goes away frees what its answer held.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

/** More than two pages of the server's 500 rows (query/list-pages.ts). */
const LEADS = 1_234;
const PARTIES = 1_100;

let t: TestServer;
let admin: string;
let agent: string;
let mcp: ConnectedClient;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  agent = await agentToken(t, admin, ['party.*', 'lead.*'], 'pages-bot');
  for (let start = 0; start < PARTIES; start += 1000) {
    const records = Array.from({ length: Math.min(1000, PARTIES - start) }, (_, k) => ({ name: `Person ${(start + k) % 97}`, email: `p${start + k}@example.com`, notes: k % 3 === 0 ? null : `note ${k % 5}` }));
    expect((await t.command(admin, 'party.create_many', { records })).status).toBe(200);
  }
  for (let start = 0; start < LEADS; start += 1000) {
    const records = Array.from({ length: Math.min(1000, LEADS - start) }, (_, k) => ({ title: `Lead ${(start + k) % 101}`, expected_revenue: k % 7 === 0 ? null : ((start + k) * 37) % 10_000, hot: k % 2 === 0 }));
    expect((await t.command(admin, 'lead.create_many', { records })).status).toBe(200);
  }
  mcp = await connectClient(t, agent);
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await t?.close();
});

interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly text: string;
}

/** `POST /api/<model>/<command>` read to its end as text, with its headers as sent. */
function post(token: string, command: string, input: unknown): Promise<RawAnswer> {
  const [model, name] = command.split('.');
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.url}/api/${model}/${name}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(input));
  });
}

/**
 * The call without a limit is sent in pages (when more than a page's worth, 500, match); with
 * `limit: 5000` (more than there are) it is read whole: the two texts are the same.
 */
async function expectPagedAsWhole(token: string, command: string, input: Record<string, unknown>): Promise<unknown> {
  const paged = await post(token, command, input);
  const whole = await post(token, command, { ...input, limit: 5000 });
  expect(paged.status, paged.text.slice(0, 300)).toBe(200);
  expect(whole.status).toBe(200);
  const { value } = JSON.parse(paged.text) as { value: unknown[] | { rows: unknown[] } };
  if ((Array.isArray(value) ? value : value.rows).length > 500) {
    expect(paged.headers['transfer-encoding']).toBe('chunked');
    expect(paged.headers['content-length']).toBeUndefined();
  } else {
    expect(paged.headers['content-length']).toBe(String(Buffer.byteLength(paged.text)));
  }
  expect(whole.headers['content-length']).toBe(String(Buffer.byteLength(whole.text)));
  expect(paged.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(paged.headers['cache-control']).toBe('no-store');
  expect(paged.text).toBe(whole.text);
  return JSON.parse(paged.text);
}

async function callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await mcp.client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('a list without a limit, sent a page at a time', () => {
  it('answers every lead, in order, as the same call read whole does', async () => {
    const body = (await expectPagedAsWhole(admin, 'lead.list', {})) as { denied: string[]; value: { id: string }[] };
    expect(body.value).toHaveLength(LEADS);
    const ids = body.value.map((lead) => lead.id);
    expect(new Set(ids).size).toBe(LEADS);
    expect(ids).toEqual([...ids].sort());
  });

  it('keeps filters, order (ties and empty values), offset and the keyset cursor of the same call', async () => {
    const filter = [{ field: 'hot', op: 'eq', value: true }];
    const ordered = (await expectPagedAsWhole(admin, 'lead.list', { filter, order: [{ field: 'expected_revenue', dir: 'desc' }, { field: 'title' }], offset: 7 })) as { value: { hot: boolean }[] };
    expect(ordered.value).toHaveLength(LEADS / 2 - 7);
    expect(ordered.value.every((lead) => lead.hot)).toBe(true);
    await expectPagedAsWhole(admin, 'lead.list', { order: [{ field: 'title', dir: 'desc' }] });
    await expectPagedAsWhole(admin, 'lead.list', { filter: [{ field: 'title', op: 'contains', value: 'ead 1' }] });
    const everyTitle = (await expectPagedAsWhole(admin, 'lead.list', { filter: [{ field: 'title', op: 'contains', value: 'EAD' }], order: [{ field: 'title' }] })) as { value: unknown[] };
    expect(everyTitle.value).toHaveLength(LEADS);
    // Past the first page of a keyset walk: the rest of the records, after the cursor.
    const first = await t.command(admin, 'lead.list', { limit: 600, after: '' });
    expect(first.status).toBe(200);
    const rest = (await expectPagedAsWhole(admin, 'lead.list', { after: first.body.next })) as { value: unknown[] };
    expect(rest.value).toHaveLength(LEADS - 600);
  });

  it('answers a page\'s worth (500) or fewer whole, as before: with its length, read in one statement', async () => {
    for (const [command, input] of [
      ['lead.list', { filter: [{ field: 'title', op: 'eq', value: 'none such' }] }],
      ['lead.list', { filter: [{ field: 'title', op: 'eq', value: 'Lead 7' }] }],
      ['lead.search', { filter: [{ field: 'title', op: 'eq', value: 'Lead 7' }] }],
      ['lead.list', { offset: LEADS - 500 }],
      ['party.list', { filter: [{ field: 'email', op: 'contains', value: 'p1' }] }],
    ] as [string, Record<string, unknown>][]) {
      const whole = await post(admin, command, input);
      expect(whole.status, whole.text.slice(0, 200)).toBe(200);
      expect(whole.headers['content-length'], `${command} ${JSON.stringify(input)}`).toBe(String(Buffer.byteLength(whole.text)));
      expect(whole.text).toBe((await post(admin, command, { ...input, limit: 5000 })).text);
    }
    expect(JSON.parse((await post(admin, 'lead.list', { filter: [{ field: 'title', op: 'eq', value: 'none such' }] })).text)).toEqual({ denied: [], value: [] });
    // One more than a page: paged.
    const paged = await post(admin, 'lead.list', { offset: LEADS - 501 });
    expect(paged.headers['transfer-encoding']).toBe('chunked');
    expect((JSON.parse(paged.text) as { value: unknown[] }).value).toHaveLength(501);
  });

  it('answers a search with its rows and the total counted with them', async () => {
    const all = (await expectPagedAsWhole(admin, 'lead.search', {})) as { value: { rows: unknown[]; total: number } };
    expect(all.value.total).toBe(LEADS);
    expect(all.value.rows).toHaveLength(LEADS);
    const some = (await expectPagedAsWhole(admin, 'lead.search', { filter: [{ field: 'hot', op: 'eq', value: false }], offset: 3 })) as { value: { rows: unknown[]; total: number } };
    expect(some.value.rows).toHaveLength(some.value.total - 3);
    expect(some.value.total).toBe(LEADS / 2);
    const few = (await expectPagedAsWhole(admin, 'lead.search', { filter: [{ field: 'title', op: 'contains', value: 'lead 4' }], offset: 3 })) as { value: { rows: unknown[]; total: number } };
    expect(few.value.rows).toHaveLength(few.value.total - 3);
  });

  it("shows an agent each page as it sees a record: masked values by the same tokens, as MCP's answer read whole shows them", async () => {
    const body = (await expectPagedAsWhole(agent, 'party.list', {})) as { denied: string[]; value: { name: string; email: string | null }[] };
    expect(body.value).toHaveLength(PARTIES);
    expect(body.value.every((party) => /^NAME_\d+$/.test(party.name))).toBe(true);
    expect(new Set(body.value.map((party) => party.name)).size).toBe(97);
    expect(JSON.stringify(body)).not.toContain('Person ');
    expect(JSON.stringify(body)).not.toContain('@example.com');
    const tool = await callTool('party__list', {});
    expect(tool.isError).toBeFalsy();
    expect(tool.structuredContent).toEqual(body);
    const search = (await expectPagedAsWhole(agent, 'party.search', {})) as { value: { rows: unknown[]; total: number } };
    expect((await callTool('party__search', {})).structuredContent).toEqual(search);
  });

  it('reads a list with its line lists (include) whole, as before', async () => {
    const answer = await post(admin, 'order.list', { include: ['items'] });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.text)));
  });

  it('audits the call once, as a list read whole', async () => {
    const audited = () => Number((t.inspect((db) => db.prepare("select count(*) as n from rms_audit where command = 'lead.list'").get()) as { n: number }).n);
    const before = audited();
    expect((await post(admin, 'lead.list', {})).status).toBe(200);
    await expect.poll(audited).toBe(before + 1);
  });
});

describe('one snapshot, however long the client takes', () => {
  it('answers the records as they were when it was called, while other calls change them and are answered meanwhile', async () => {
    // Large records, so that the answer is more than the connection holds: the server then
    // waits for the client between pages, and the writes below commit while it waits.
    await t.execute({ sqlite: "update lead set notes = printf('%.20000c', 'n')", postgres: "update lead set notes = repeat('n', 20000)" });
    const expected = await post(admin, 'lead.list', { limit: 5000 });
    expect(expected.status).toBe(200);
    const leads = (JSON.parse(expected.text) as { value: { id: string }[] }).value;

    const { res, firstChunk } = await openPaused(admin, 'lead.list', {});
    expect(res.statusCode).toBe(200);
    expect(firstChunk.length).toBeLessThan(expected.text.length);
    // Meanwhile: the last lead renamed so that it would sort first, the first deleted, a lead
    // added; each acknowledged, and a get answered, while the answer above is still unread.
    const last = leads[leads.length - 1]!.id;
    expect((await t.command(admin, 'lead.update', { id: last, title: 'Renamed during the list' })).status).toBe(200);
    expect((await t.command(admin, 'lead.delete', { id: leads[0]!.id })).status).toBe(200);
    expect((await t.command(admin, 'lead.create', { title: 'Created during the list' })).status).toBe(200);
    const read = await t.command(admin, 'lead.get', { id: last });
    expect(read.body.value.title).toBe('Renamed during the list');

    const text = firstChunk + (await readRest(res));
    expect(text.length).toBe(expected.text.length);
    expect(text).toBe(expected.text);
    await t.execute({ sqlite: 'update lead set notes = null', postgres: 'update lead set notes = null' });
  });

  it('frees what an answer held when its client goes away, so that later lists are answered', async () => {
    await t.execute({ sqlite: "update lead set notes = printf('%.20000c', 'n')", postgres: "update lead set notes = repeat('n', 20000)" });
    // More than PostgreSQL's pool of connections (10), each holding one until its answer ends.
    for (let k = 0; k < 12; k++) {
      const { res } = await openPaused(admin, 'lead.list', {});
      res.destroy();
    }
    for (let k = 0; k < 12; k++) {
      const answer = await post(admin, 'lead.search', { filter: [{ field: 'hot', op: 'eq', value: false }] });
      expect(answer.status).toBe(200);
      expect((JSON.parse(answer.text) as { value: { total: number } }).value.total).toBeGreaterThan(500);
    }
    await t.execute({ sqlite: 'update lead set notes = null', postgres: 'update lead set notes = null' });
  });
});

describe('read whole: over MCP, a list without a limit answers at most 10,000 records', () => {
  it('refuses more, saying how to page, while REST sends them all', async () => {
    // Past 10,000 leads (this file's other tests leave the 1,234 they made).
    for (let made = 0; made < 8_800; made += 1000) {
      const records = Array.from({ length: 1000 }, (_, k) => ({ title: `More ${made + k}` }));
      expect((await t.command(admin, 'lead.create_many', { records })).status).toBe(200);
    }
    const total = (await t.command(admin, 'lead.search', { limit: 1 })).body.value.total as number;
    expect(total).toBeGreaterThan(10_000);

    const refused = await callTool('lead__list', {});
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toBe('lead.list without a limit answers at most 10000 records at once here, and more match: give a limit (1 to 5000), with "after": "" to read the rest page by page');
    const searched = await callTool('lead__search', {});
    expect(searched.isError).toBe(true);
    expect((searched.content as { text: string }[])[0]!.text).toMatch(/^lead\.search without a limit answers at most 10000 records/);
    // Fewer than that match: answered whole, as before.
    const hot = await callTool('lead__search', { filter: [{ field: 'hot', op: 'eq', value: true }] });
    expect(hot.isError).toBeFalsy();
    const hotLeads = (await t.command(admin, 'lead.search', { filter: [{ field: 'hot', op: 'eq', value: true }], limit: 1 })).body.value.total as number;
    expect(hotLeads).toBeGreaterThan(600);
    expect((hot.structuredContent as { value: { rows: unknown[]; total: number } }).value.rows).toHaveLength(hotLeads);
    // A page of them.
    const paged = await callTool('lead__list', { limit: 5000, after: '' });
    expect((paged.structuredContent as { value: unknown[]; next: string }).value).toHaveLength(5000);

    const rest = await post(admin, 'lead.list', {});
    expect(rest.status).toBe(200);
    expect((JSON.parse(rest.text) as { value: unknown[] }).value).toHaveLength(total);
  });
});

/** Starts the call and reads its first chunk, then stops reading: the server waits for the client. */
function openPaused(token: string, command: string, input: unknown): Promise<{ res: IncomingMessage; firstChunk: string }> {
  const [model, name] = command.split('.');
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${t.url}/api/${model}/${name}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` } }, (res) => {
      res.setEncoding('utf8');
      res.once('data', (chunk: string) => {
        res.pause();
        resolve({ res, firstChunk: chunk });
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
    req.end(JSON.stringify(input));
  });
}

function readRest(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => resolve(text));
    res.on('error', reject);
    res.resume();
  });
}
