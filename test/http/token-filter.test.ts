/**
 * Finding records by a field masked for an agent (`token_filter`): equality with the masking tokens
 * it holds, never with a clear value, matching exactly the records that read as that token to it —
 * so that it learns nothing reading every record would not, and never whether a value it wrote
 * equals another record's. On SQLite and, with RMS_TEST_PG_URL, PostgreSQL; over REST and MCP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../helpers/mcp-client.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let agent: string;
/** Parties by name as people made them. */
const made: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  agent = await agentToken(t, admin, ['party.*'], 'finder');
  for (const [key, name] of [['ann1', 'Ann Tenant'], ['ann2', 'Ann Tenant'], ['bob', 'Bob Tenant']] as const) {
    made[key] = (await t.command(admin, 'party.create', { name, email: `${key}@example.com` })).body.value.id;
  }
});

afterAll(async () => {
  await t?.close();
});

async function tokenOf(id: string, field = 'name'): Promise<string> {
  const read = await t.command(agent, 'party.get', { id });
  expect(read.status).toBe(200);
  return read.body.value[field];
}

async function found(tokenFilter: unknown[], extra: Record<string, unknown> = {}): Promise<string[]> {
  const res = await t.command(agent, 'party.search', { token_filter: tokenFilter, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.value.total).toBe(res.body.value.rows.length);
  return res.body.value.rows.map((row: { id: string }) => row.id).sort();
}

describe('token_filter', () => {
  it('finds the records that read as a shared token, with eq and in, and combines with filter', async () => {
    const ann = await tokenOf(made.ann1!);
    expect(await tokenOf(made.ann2!)).toBe(ann);
    const bob = await tokenOf(made.bob!);
    expect(await found([{ field: 'name', op: 'eq', value: ann }])).toEqual([made.ann1, made.ann2].sort());
    expect(await found([{ field: 'name', op: 'in', value: [ann, bob] }])).toEqual([made.ann1, made.ann2, made.bob].sort());
    expect(await found([{ field: 'name', op: 'eq', value: ann }], { filter: [{ field: 'id', op: 'ne', value: made.ann1 }] })).toEqual([made.ann2]);
    const email = await tokenOf(made.bob!, 'email');
    expect(await found([{ field: 'name', op: 'eq', value: bob }, { field: 'email', op: 'eq', value: email }])).toEqual([made.bob]);
  });

  it('never matches a value the agent wrote in clear with a shared token: a guess is not confirmed', async () => {
    const ann = await tokenOf(made.ann1!);
    const guess = (await t.command(agent, 'party.create', { name: 'Ann Tenant' })).body.value;
    expect(guess.name).not.toBe(ann);
    expect(await found([{ field: 'name', op: 'eq', value: ann }])).toEqual([made.ann1, made.ann2].sort());
    // Its own written token finds the record it wrote, and only that.
    expect(await found([{ field: 'name', op: 'eq', value: guess.name }])).toEqual([guess.id]);
    // An update of a person's record with the guess: that record now reads as the written token.
    const updated = (await t.command(agent, 'party.update', { id: made.bob, name: 'Ann Tenant' })).body.value;
    expect(await found([{ field: 'name', op: 'eq', value: ann }])).toEqual([made.ann1, made.ann2].sort());
    expect(await found([{ field: 'name', op: 'eq', value: updated.name }])).toEqual([made.bob]);
    await t.command(admin, 'party.update', { id: made.bob, name: 'Bob Tenant' });
  });

  it('matches a record the agent wrote with a shared token it sent: it reads as that token', async () => {
    const ann = await tokenOf(made.ann1!);
    const copy = (await t.command(agent, 'party.create', { name: ann })).body.value;
    expect(copy.name).toBe(ann);
    expect(await found([{ field: 'name', op: 'eq', value: ann }])).toEqual([made.ann1, made.ann2, copy.id].sort());
  });

  it('refuses what is not a token it holds, a field it reads in clear or not at all, and other operators', async () => {
    const ann = await tokenOf(made.ann1!);
    const cases: [unknown, number, string][] = [
      [[{ field: 'name', op: 'eq', value: 'Ann Tenant' }], 400, 'party.name: token_filter takes masking tokens (party.name values you were given, such as the ones reads show you)'],
      [[{ field: 'name', op: 'eq', value: 'NAME_99999' }], 400, 'invalid token'],
      [[{ field: 'name', op: 'eq', value: ann.replace('NAME', 'EMAIL') }], 400, 'invalid token'],
      [[{ field: 'name', op: 'contains', value: ann }], 400, 'party.name: token_filter takes eq or in'],
      [[{ field: 'name', op: 'in', value: [] }], 400, 'party.name: in needs an array of 1 to 1000 values'],
      [[{ field: 'kind', op: 'eq', value: 'person' }], 400, 'party.kind is not masked for you: filter it with filter'],
      [[{ field: 'tax_id', op: 'eq', value: 'TAX_ID_1' }], 400, 'unknown field party.tax_id'],
      [[{ field: 'nope', op: 'eq', value: 'X_1' }], 400, 'unknown field party.nope'],
      ['name', 400, 'token_filter must be an array'],
    ];
    for (const [tokenFilter, status, error] of cases) {
      const res = await t.command(agent, 'party.list', { token_filter: tokenFilter });
      expect([res.status, res.body], JSON.stringify(tokenFilter)).toEqual([status, { error }]);
    }
    // A person reads the field in clear: filter is the way.
    const person = await t.command(admin, 'party.list', { token_filter: [{ field: 'name', op: 'eq', value: ann }] });
    expect([person.status, person.body]).toEqual([400, { error: 'party.name is not masked for you: filter it with filter' }]);
  });

  it('works over MCP, and the audit trail keeps the tokens, not values', async () => {
    const ann = await tokenOf(made.ann1!);
    const mcp = await connectClient(t, agent);
    try {
      const result = await mcp.client.callTool({ name: 'party__list', arguments: { token_filter: [{ field: 'name', op: 'eq', value: ann }] } });
      expect(result.isError).toBeFalsy();
      const rows = (result.structuredContent as { value: { id: string; name: string }[] }).value;
      expect(rows.map((row) => row.name)).toEqual(rows.map(() => ann));
      expect(rows.map((row) => row.id)).toContain(made.ann1);
    } finally {
      await mcp.close();
    }
    const audit = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'command', op: 'eq', value: 'party.list' }]))}&limit=1`, undefined, admin);
    expect(JSON.stringify(audit.body.rows[0].input)).toContain(ann);
    expect(JSON.stringify(audit.body)).not.toContain('Ann Tenant');
  });
});
