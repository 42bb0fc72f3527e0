/**
 * An agent's bulk command through MCP, with the SDK's own client over real HTTP: `delete_many` is
 * one plan that lists every record it deletes (a filter becomes the ids it selects when proposed),
 * nothing changes until a person approves it, and then each record's history entry names the
 * agent and the plan, in one batch. An agent's max_affected is capped. create_many and an
 * action's bulk command are plans likewise, the records' personal values as the agent's tokens.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let agent: string;
let connected: ConnectedClient;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  agent = await agentToken(t, admin, ['lead.*'], 'bulk-mcp-bot');
  connected = await connectClient(t, agent);
});

afterAll(async () => {
  await connected?.close();
  await t?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await connected.client.callTool({ name, arguments: args })) as CallToolResult;
}

const rows = (sql: string, ...args: unknown[]) => t.inspect((db) => db.prepare(sql).all(...args)) as Record<string, unknown>[];

describe("an agent's delete_many", () => {
  it('is one plan listing every record; approved, it deletes them in one batch named after the agent and the plan', async () => {
    const created = await t.command(admin, 'lead.create_many', { records: [1, 2, 3].map((i) => ({ title: `Stale ${i}`, lost_reason: 'stale-mcp', notes: `private note ${i}` })) });
    const ids = created.body.value.ids as string[];
    const result = await call('lead__delete_many', { filter: [{ field: 'lost_reason', op: 'eq', value: 'stale-mcp' }], max_affected: 3 });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const { status, plan_id: planId } = result.structuredContent as { status: string; plan_id: string };
    expect(status).toBe('approval_required');
    expect(rows('select count(*) as n from lead where lost_reason = ?', 'stale-mcp')).toEqual([{ n: 3 }]);
    // The plan names the records, for the agent and the approver alike.
    const seenByAgent = await t.request('GET', `/api/plans/${planId}`, undefined, agent);
    expect(seenByAgent.body.plan).toMatchObject({ command: 'lead.delete_many', status: 'pending', input: { ids, max_affected: 3 } });
    const seenByAdmin = await t.request('GET', `/api/plans/${planId}`, undefined, admin);
    expect(seenByAdmin.body.plan.input).toEqual({ ids, max_affected: 3 });

    expect((await t.request('POST', `/api/approve/${planId}`, undefined, admin)).status).toBe(200);
    expect(rows('select count(*) as n from lead where lost_reason = ?', 'stale-mcp')).toEqual([{ n: 0 }]);
    const entries = rows('select record_id, kind, command, actor, agent_label, plan_id, batch_id from rms_history where plan_id = ? order by record_id', planId);
    expect(entries.map(({ batch_id: _batch, ...entry }) => entry)).toEqual(
      ids.map((id) => ({ record_id: id, kind: 'delete', command: 'lead.delete_many', actor: 'agent', agent_label: 'bulk-mcp-bot', plan_id: planId })),
    );
    expect(new Set(entries.map((entry) => entry.batch_id)).size).toBe(1);
  });

  it('a record deleted before the approval fails the plan, naming it, and deletes nothing', async () => {
    const ids = (await t.command(admin, 'lead.create_many', { records: [{ title: 'Keep A' }, { title: 'Keep B' }] })).body.value.ids as string[];
    const result = await call('lead__delete_many', { ids, max_affected: 2 });
    const { plan_id: planId } = result.structuredContent as { plan_id: string };
    expect((await t.command(admin, 'lead.delete', { id: ids[1] })).status).toBe(200);
    const approved = await t.request('POST', `/api/approve/${planId}`, undefined, admin);
    expect({ status: approved.status, body: approved.body }).toEqual({ status: 400, body: { error: `lead.delete_many record ${ids[1]}: lead ${ids[1]} not found` } });
    expect(rows('select count(*) as n from lead where id = ?', ids[0])).toEqual([{ n: 1 }]);
  });

  it.each([
    ['max_affected over the cap', { ids: ['A'], max_affected: 101 }, 'max_affected may be at most 100 for an agent'],
    ['a filter selecting more than max_affected', { filter: [{ field: 'lost_reason', op: 'eq', value: 'two-mcp' }], max_affected: 1 }, 'lead.delete_many would change 2 records, more than max_affected 1'],
  ])('refuses %s, as REST does', async (_case, args, error) => {
    if (rows("select count(*) as n from lead where lost_reason = 'two-mcp'")[0]!.n === 0) {
      await t.command(admin, 'lead.create_many', { records: [{ title: 'Two A', lost_reason: 'two-mcp' }, { title: 'Two B', lost_reason: 'two-mcp' }] });
    }
    const result = await call('lead__delete_many', args);
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toBe(error);
    const rest = await t.command(agent, 'lead.delete_many', args);
    expect(rest.body.error).toBe((result.content[0] as { text: string }).text);
  });

  it.each([
    ['lead__qualify_many', (ids: string[]) => ({ ids, max_affected: 2 }), { stage: 'qualified', lost_reason: 'act-mcp' }],
    ['lead__lose_many', (ids: string[]) => ({ filter: [{ field: 'title', op: 'contains', value: 'act-mcp-lose' }], max_affected: 2, input: { lost_reason: 'Went quiet' } }), { stage: 'lost', lost_reason: 'Went quiet' }],
  ])("%s is one plan of the ids it selects; approved, it runs the action on each", async (tool, args, after) => {
    const titles = tool === 'lead__lose_many' ? ['act-mcp-lose 1', 'act-mcp-lose 2'] : ['act-mcp 1', 'act-mcp 2'];
    const ids = (await t.command(admin, 'lead.create_many', { records: titles.map((title) => ({ title, lost_reason: 'act-mcp' })) })).body.value.ids as string[];
    const result = await call(tool, args(ids));
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const { status, plan_id: planId } = result.structuredContent as { status: string; plan_id: string };
    expect(status).toBe('approval_required');
    expect((await t.request('GET', `/api/plans/${planId}`, undefined, admin)).body.plan.input.ids).toEqual(ids);
    expect(rows('select stage from lead where id in (?, ?)', ...ids)).toEqual([{ stage: 'new' }, { stage: 'new' }]);
    expect((await t.request('POST', `/api/approve/${planId}`, undefined, admin)).status).toBe(200);
    expect(rows('select stage, lost_reason from lead where id in (?, ?)', ...ids)).toEqual([after, after]);
    expect(rows('select command, kind, plan_id from rms_history where plan_id = ?', planId)).toEqual(ids.map(() => ({ command: `lead.${tool.slice('lead__'.length)}`, kind: 'action', plan_id: planId })));
  });

  it("create_many is one plan; the agent's plan and the answer to its dry run show its personal values as tokens only", async () => {
    const dry = await call('lead__create_many', { records: [{ title: 'Dry', notes: 'mcp secret note' }], dry_run: true });
    expect(dry.isError, JSON.stringify(dry.content)).toBeFalsy();
    expect(JSON.stringify(dry)).not.toContain('mcp secret note');
    // Says it was a dry run, as REST's answer does.
    expect(dry.structuredContent).toMatchObject({ dry_run: true, denied: [], value: { batch_id: null, count: 1 } });
    expect(JSON.parse((dry.content as { text: string }[])[0]!.text)).toEqual(dry.structuredContent);
    const result = await call('lead__create_many', { records: [{ title: 'Planned', notes: 'mcp secret note' }] });
    expect(result.structuredContent).not.toHaveProperty('dry_run');
    const { plan_id: planId } = result.structuredContent as { plan_id: string };
    const plan = (await t.request('GET', `/api/plans/${planId}`, undefined, agent)).body.plan;
    expect(plan.input.records).toEqual([{ title: 'Planned', notes: expect.stringMatching(/^NOTES_\d+$/) }]);
    expect((await t.request('GET', `/api/plans/${planId}`, undefined, admin)).body.plan.input.records).toEqual([{ title: 'Planned', notes: 'mcp secret note' }]);
    const approved = await t.request('POST', `/api/approve/${planId}`, undefined, admin);
    expect(approved.status).toBe(200);
    const read = await call('lead__get', { id: approved.body.value.ids[0] });
    expect((read.structuredContent as { value: { notes: string } }).value.notes).toBe(plan.input.records[0].notes);
  });

  it('lists a tool for each bulk command but revert_batch, each with the hints of its kind', async () => {
    const tools = (await connected.client.listTools()).tools.filter((tool) => tool.name.endsWith('_many') || tool.name.endsWith('_batch'));
    expect(tools.map((tool) => [tool.name, tool.annotations])).toEqual([
      ['lead__create_many', { title: 'Create many lead', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }],
      ['lead__update_many', { title: 'Update many lead', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
      ['lead__delete_many', { title: 'Delete many lead', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }],
      ['lead__qualify_many', { title: 'Qualify many lead', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }],
      ['lead__win_many', { title: 'Win many lead', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }],
      ['lead__lose_many', { title: 'Lose many lead', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }],
    ]);
  });
});
