/**
 * One view of a record per caller (runtime/view/caller-view.ts): whatever path a record leaves by —
 * get, list, search, MCP, a write's answer, history, a plan, the audit trail — a caller sees the
 * same fields, withheld ones nowhere, and for an agent the same token for a personal value, never
 * the clear value. Walked over every model of the project's modules (whatever modules/ holds), for
 * an agent and for a person of each role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../generated/registry.ts';
import type { FieldMeta, ModelMeta } from '../../runtime/registry.ts';
import { oneOfEach, recordInput, updatableField } from '../helpers/command-walk.ts';
import { connectClient } from '../helpers/mcp-client.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let refs: Record<string, string>;

beforeAll(async () => {
  t = await startTestServer({ registry });
  admin = await t.login();
  refs = await oneOfEach(t, admin, registry);
});

afterAll(async () => {
  await t?.close();
});

const TOKEN = /^[A-Z][A-Z0-9_]*_[1-9][0-9]*$/;
const models = Object.values(registry.models);
const roles = Object.keys(registry.roles).filter((role) => role !== 'admin');

/** What a caller reads of a model: field → 'clear' | 'masked' (absent: withheld). */
function viewOf(model: ModelMeta, caller: { agent: boolean; roles: readonly string[] }): Map<string, 'clear' | 'masked'> {
  const view = new Map<string, 'clear' | 'masked'>();
  for (const field of model.fields) {
    const reads = caller.roles.includes('admin') || field.readRoles === undefined || field.readRoles.some((role) => caller.roles.includes(role));
    if (!reads || (caller.agent && field.hiddenFromAgents)) continue;
    view.set(field.name, caller.agent && field.personal ? 'masked' : 'clear');
  }
  return view;
}

/** A record as the caller got it, checked against its view and the clear values; answers field → what it showed. */
function checkRecord(record: Record<string, unknown>, view: Map<string, 'clear' | 'masked'>, clear: Record<string, unknown>, where: string): Record<string, unknown> {
  expect(Object.keys(record).sort(), where).toEqual(['id', ...view.keys()].sort());
  for (const [name, seen] of view) {
    const value = record[name];
    if (seen === 'masked' && clear[name] !== null && clear[name] !== undefined) expect(value, `${where} ${name}`).toMatch(TOKEN);
    if (seen === 'clear') expect(value, `${where} ${name}`).toEqual(clear[name] ?? null);
  }
  return record;
}

/** The clear values of withheld and masked fields must appear nowhere in what the caller got. */
function noClearValues(answer: unknown, model: ModelMeta, view: Map<string, 'clear' | 'masked'>, values: Record<string, unknown>, where: string): void {
  const text = JSON.stringify(answer);
  for (const field of model.fields) {
    if (view.get(field.name) === 'clear' || typeof values[field.name] !== 'string') continue;
    expect(text, `${where}: ${field.name}`).not.toContain(values[field.name] as string);
  }
}

function withValues(model: ModelMeta): Record<string, unknown> {
  return recordInput(model, refs);
}

describe.each(models.map((model) => [model.name, model] as const))('%s', (_name, model) => {
  let id: string;
  let values: Record<string, unknown>;
  beforeAll(async () => {
    values = withValues(model);
    const created = await t.command(admin, `${model.name}.create`, values);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    id = created.body.value.id;
    values = { ...created.body.value };
    // A change of every field (so history has entries of withheld fields alone, too).
    for (const field of model.fields.filter((candidate: FieldMeta) => !candidate.governed && candidate.kind !== 'ref')) {
      const changed = withValues(model)[field.name];
      expect((await t.command(admin, `${model.name}.update`, { id, [field.name]: changed })).status).toBe(200);
      values[field.name] = changed;
    }
  });

  it('an agent sees the same fields and the same tokens by get, list, search, MCP and history, and no withheld or clear personal value', async () => {
    const agent = await agentToken(t, admin, [`${model.name}.*`], `view of ${model.name}`);
    const view = viewOf(model, { agent: true, roles: ['admin'] });
    const denied = model.fields.filter((field) => !view.has(field.name)).map((field) => `${model.name}.${field.name}`);
    const byId = [{ field: 'id', op: 'eq', value: id }];
    const get = await t.command(agent, `${model.name}.get`, { id });
    const list = await t.command(agent, `${model.name}.list`, { filter: byId });
    const search = await t.command(agent, `${model.name}.search`, { filter: byId });
    for (const answer of [get, list, search]) expect(answer.body.denied).toEqual(denied);
    const seen = checkRecord(get.body.value, view, values, 'get');
    expect(checkRecord(list.body.value[0], view, values, 'list')).toEqual(seen);
    expect(checkRecord(search.body.value.rows[0], view, values, 'search')).toEqual(seen);
    const mcp = await connectClient(t, agent);
    try {
      const result = await mcp.client.callTool({ name: `${model.name}__get`, arguments: { id } });
      expect((result.structuredContent as { value: unknown }).value).toEqual(seen);
      const history = await mcp.client.callTool({ name: `${model.name}__history`, arguments: { id } });
      const rows = (history.structuredContent as { value: { rows: { changes: Record<string, { from: unknown; to: unknown }> }[] } }).value.rows;
      const rest = await t.command(agent, `${model.name}.history`, { id });
      expect(rest.body.value.rows).toEqual(rows);
      expect(rest.body.value.total).toBe(rows.length);
      for (const row of rows) {
        expect(Object.keys(row.changes).length).toBeGreaterThan(0);
        for (const [name, change] of Object.entries(row.changes)) {
          expect(view.has(name), `history shows ${name}`).toBe(true);
          if (view.get(name) === 'masked') for (const side of [change.from, change.to]) if (side !== null) expect(side).toMatch(TOKEN);
        }
      }
      // The latest value of each field reads as the token the record shows.
      for (const [name, shown] of Object.entries(seen)) {
        const last = rows.find((row) => name in row.changes);
        if (last && view.get(name) === 'masked') expect(last.changes[name]!.to).toBe(shown);
      }
      noClearValues([get.body, list.body, search.body, result, history], model, view, values, model.name);
      // A bulk command's changes show the same fields and tokens (a delete_many's dry run: every
      // field the agent reads, from what the record holds); those carrying field values are not an agent's.
      const bulk = await t.command(agent, `${model.name}.delete_many`, { ids: [id], max_affected: 1, dry_run: true });
      expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
      expect(bulk.body.denied).toEqual(denied);
      const changes = bulk.body.value.changes[0].changes as Record<string, { from: unknown; to: unknown }>;
      expect(Object.keys(changes).sort()).toEqual([...view.keys()].sort());
      for (const [name, change] of Object.entries(changes)) expect(change, name).toEqual({ from: seen[name], to: null });
      noClearValues([bulk.body], model, view, values, `${model.name}.delete_many`);
      expect((await t.command(agent, `${model.name}.create_many`, { records: [{}] })).status).toBe(404);
    } finally {
      await mcp.close();
    }
  });

  it('an agent\'s write answers, and the audit trail keeps, the same tokens; a dry run and a plan show none in clear either', async () => {
    const agent = await agentToken(t, admin, [`${model.name}.*`], `writer of ${model.name}`);
    const view = viewOf(model, { agent: true, roles: ['admin'] });
    const masked = [...view].filter(([, seen]) => seen === 'masked').map(([name]) => name);
    const field = masked[0] ?? updatableField(model)?.name;
    if (field === undefined) return;
    const secret = `Secret ${model.name} ${Math.random()}`;
    const tried = await t.request('POST', `/api/${model.name}/update?dry_run=true`, { id, [field]: secret }, agent);
    const updated = await t.command(agent, `${model.name}.update`, { id, [field]: secret });
    expect(updated.status).toBe(200);
    values[field] = secret;
    const audit = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'record_id', op: 'eq', value: id }, { field: 'agent_label', op: 'eq', value: `writer of ${model.name}` }]))}&order=${encodeURIComponent('[{"field":"id","dir":"asc"}]')}`, undefined, admin);
    const [dryRow, row] = audit.body.rows as { input: Record<string, unknown>; dry_run: boolean }[];
    expect([dryRow!.dry_run, row!.dry_run]).toEqual([true, false]);
    if (view.get(field) === 'masked') {
      expect(updated.body.value[field]).toMatch(TOKEN);
      expect(row!.input[field]).toBe(updated.body.value[field]);
      expect(dryRow!.input[field]).toBe('[personal value not kept]');
      expect(JSON.stringify([tried.body, updated.body, audit.body])).not.toContain(secret);
      const plan = await t.command(agent, `${model.name}.delete`, { id });
      expect(plan.status).toBe(202);
      const shown = await t.request('GET', `/api/plans/${plan.body.plan_id}`, undefined, agent);
      expect(shown.body.plan.input).toEqual({ id });
      expect((await t.request('POST', `/api/reject/${plan.body.plan_id}`, undefined, admin)).status).toBe(200);
    }
  });

  it.each(roles.map((role) => [role]))('a person with role %s sees the fields it reads, the same way everywhere', async (role) => {
    const person = await t.addPerson(`viewer-${role}-${model.name}`, [role]);
    const view = viewOf(model, { agent: false, roles: [role] });
    const get = await t.command(person, `${model.name}.get`, { id });
    if (get.status === 404) return; // the role may not read this model
    const denied = model.fields.filter((field) => !view.has(field.name)).map((field) => `${model.name}.${field.name}`);
    expect(get.body.denied).toEqual(denied);
    const seen = checkRecord(get.body.value, view, values, 'get');
    const search = await t.command(person, `${model.name}.search`, { filter: [{ field: 'id', op: 'eq', value: id }] });
    if (search.status === 200) expect(search.body.value.rows[0]).toEqual(seen);
    const history = await t.command(person, `${model.name}.history`, { id });
    expect(history.status).toBe(200);
    for (const row of history.body.value.rows as { changes: Record<string, unknown> }[]) {
      expect(Object.keys(row.changes).length).toBeGreaterThan(0);
      for (const name of Object.keys(row.changes)) expect(view.has(name), `history shows ${name}`).toBe(true);
    }
    // A bulk command's answer shows each record's changes by the same view: a delete_many's dry run
    // lists every field the role reads (from what the record holds), and no other.
    const bulk = await t.command(person, `${model.name}.delete_many`, { ids: [id], max_affected: 1, dry_run: true });
    expect([200, 404], JSON.stringify(bulk.body)).toContain(bulk.status);
    if (bulk.status === 200) {
      expect(bulk.body.denied).toEqual(denied);
      const changes = bulk.body.value.changes[0].changes as Record<string, { from: unknown; to: unknown }>;
      expect(Object.keys(changes).sort()).toEqual([...view.keys()].sort());
      for (const [name, change] of Object.entries(changes)) expect(change, name).toEqual({ from: seen[name], to: null });
    }
    noClearValues([get.body, search.body, history.body, bulk.body], model, view, values, `${role} on ${model.name}`);
  });
});
