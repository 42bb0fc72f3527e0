/**
 * Revoking agent tokens: a person revokes their own; an admin revokes anyone's (a leaked token
 * must not wait for its maker), and the revocation takes effect on the next request, over REST
 * and MCP. Anyone else gets the 404 of a token that is not theirs; a session's id is never an
 * agent token's, not even to an admin.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let t: TestServer;
let admin: string;
let sales: string;
let accountant: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  sales = await t.addPerson('sara', ['sales']);
  accountant = await t.addPerson('alex', ['accountant']);
});

afterAll(async () => {
  await t?.close();
});

async function issue(person: string): Promise<{ id: string; token: string }> {
  const res = await t.request('POST', '/api/auth/agent-token', { scopes: ['lead.list'], label: 'bot' }, person);
  expect(res.status).toBe(200);
  return res.body;
}

const revoke = (person: string, id: string) => t.request('POST', '/api/auth/agent-token/revoke', { id }, person);

async function works(token: string): Promise<{ rest: number; mcp: number }> {
  const rest = (await t.command(token, 'lead.list', {})).status;
  const mcp = (
    await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
  ).status;
  return { rest, mcp };
}

describe('POST /api/auth/agent-token/revoke', () => {
  it("an admin revokes another person's agent token", async () => {
    const made = await issue(sales);
    expect(await works(made.token)).toEqual({ rest: 200, mcp: 200 });
    const res = await revoke(admin, made.id);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ok: true } });
    expect(await works(made.token)).toEqual({ rest: 401, mcp: 401 });
    // Its maker sees it revoked.
    const listed = (await t.request('GET', '/api/auth/agent-tokens', undefined, sales)).body.tokens.find((token: { id: string }) => token.id === made.id);
    expect(listed.status).toBe('revoked');
    // Revoking again is as good as once.
    expect((await revoke(admin, made.id)).status).toBe(200);
  });

  it('a person who is not an admin revokes only their own', async () => {
    const adminsBot = await issue(admin);
    const salesBot = await issue(sales);
    for (const [person, id] of [
      [sales, adminsBot.id],
      [accountant, salesBot.id],
    ] as const) {
      const res = await revoke(person, id);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: 'not found' } });
    }
    expect(await works(adminsBot.token)).toEqual({ rest: 200, mcp: 200 });
    expect(await works(salesBot.token)).toEqual({ rest: 200, mcp: 200 });
    expect((await revoke(sales, salesBot.id)).status).toBe(200);
    expect(await works(salesBot.token)).toEqual({ rest: 401, mcp: 401 });
  });

  it("a session's id, or an id of no token, is not found, to an admin too", async () => {
    const session = t.inspect((db) => db.prepare('select id from rms_tokens where token_hash = ?').get(createHash('sha256').update(sales).digest('hex')) as { id: string });
    for (const id of [session.id, '01M8453001GKC1PZ7R8QCEZJ6H']) {
      const res = await revoke(admin, id);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { error: 'not found' } });
    }
    expect((await t.command(sales, 'lead.list', {})).status).toBe(200);
  });
});
