/**
 * One table of command kinds (runtime/command-kinds.ts), and every consumer deciding by it: every
 * command of the project's models (whatever modules/ holds) is called over REST by a person and
 * over MCP by an agent, and what the audit trail, the agent's rate-limit counts, the record's
 * history and the MCP tool annotations say of it must be what its kind's row says — also for an
 * update that changes only lines, and its revert, with the computed fields they change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../generated/registry.ts';
import { COMMAND_KINDS, COMMAND_KIND_NAMES, EVERY_MODEL_COMMANDS, kindTraits, noModelCommand } from '../../runtime/command-kinds.ts';
import type { CommandMeta, ModelMeta } from '../../runtime/registry.ts';
import { TestClock } from '../helpers/clock.ts';
import { actionInputs, makeRecord, oneOfEach, recordInput, recordReadyFor, sampleValue, updatableField } from '../helpers/command-walk.ts';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let refs: Record<string, string>;

beforeAll(async () => {
  // Time stands still: an agent's counts below are read before and after each call, and a rate
  // window that ended (or was pruned) between the two would make them go down.
  t = await startTestServer({ registry, clock: new TestClock() });
  admin = await t.login();
  refs = await oneOfEach(t, admin, registry);
});

afterAll(async () => {
  await t?.close();
});

const count = (sql: string, ...args: unknown[]) => t.inspect((db) => Number((db.prepare(sql).get(...args) as { n: number }).n));

/** The input of `command` for a new record made for it (and the record's id, when it has one). */
async function inputFor(model: ModelMeta, command: CommandMeta, forAgent = false): Promise<{ input: Record<string, unknown>; recordId?: string }> {
  switch (command.kind) {
    case 'list':
    case 'search':
      return { input: { limit: 5 } };
    case 'create': {
      // Every field a create may give, lines included (an agent's without those hidden from it).
      const input = recordInput(model, refs);
      if (forAgent) {
        for (const field of model.fields) if (field.hiddenFromAgents) delete input[field.name];
        for (const list of model.lines) {
          const hidden = list.fields.filter((field) => field.hiddenFromAgents).map((field) => field.name);
          input[list.name] = (input[list.name] as Record<string, unknown>[]).map((line) => Object.fromEntries(Object.entries(line).filter(([name]) => !hidden.includes(name))));
        }
      }
      return { input };
    }
    case 'action': {
      const id = await recordReadyFor(t, admin, registry, model, command, refs);
      return { input: { id, ...actionInputs(model, command, refs) }, recordId: id };
    }
    case 'revert': {
      const id = await makeRecord(t, admin, model, refs);
      const field = updatableField(model)!;
      expect((await t.command(admin, `${model.name}.update`, { id, [field.name]: sampleValue(field, refs) })).status).toBe(200);
      const [change] = (await t.command(admin, `${model.name}.history`, { id })).body.value.rows;
      return { input: { id, change_id: change.change_id }, recordId: id };
    }
    case 'update': {
      const id = await makeRecord(t, admin, model, refs);
      const field = updatableField(model)!;
      return { input: { id, [field.name]: sampleValue(field, refs) }, recordId: id };
    }
    case 'get':
    case 'delete':
    case 'erase':
    case 'history': {
      const id = await makeRecord(t, admin, model, refs);
      return { input: { id }, recordId: id };
    }
    case 'create_many':
      return { input: { records: [(await inputFor(model, { ...command, kind: 'create' }, forAgent)).input] } };
    case 'update_many': {
      const id = await makeRecord(t, admin, model, refs);
      const field = updatableField(model)!;
      return { input: { ids: [id], set: { [field.name]: sampleValue(field, refs) }, max_affected: 1 }, recordId: id };
    }
    case 'delete_many': {
      const id = await makeRecord(t, admin, model, refs);
      return { input: { ids: [id], max_affected: 1 }, recordId: id };
    }
    case 'action_many': {
      const single = registry.commands[`${model.name}.${command.action!.name}`]!;
      const { input: { id, ...given }, recordId } = await inputFor(model, single, forAgent);
      return { input: { ids: [id], max_affected: 1, input: given }, recordId };
    }
    case 'revert_batch': {
      const id = await makeRecord(t, admin, model, refs);
      const field = updatableField(model)!;
      const res = await t.command(admin, `${model.name}.update_many`, { ids: [id], set: { [field.name]: sampleValue(field, refs) }, max_affected: 1 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { input: { batch_id: res.body.value.batch_id }, recordId: id };
    }
    default:
      return noModelCommand(command.kind);
  }
}

/** The bulk command an agent does not have: revert_batch (docs/api.md, Bulk commands). */
const isBulk = (command: CommandMeta) => command.kind === 'revert_batch';

const commands = Object.values(registry.commands);
/** What an agent may be given: every command but those only `admin` uses. */
const agentCommands = commands.filter((command) => !kindTraits(command.kind).adminOnly);

describe('the command-kind table', () => {
  it('has a row for every kind the registry uses, and every model has the every-model kinds (those for personal data if it holds some)', () => {
    for (const command of commands) expect(COMMAND_KIND_NAMES).toContain(command.kind);
    for (const model of Object.values(registry.models)) {
      const personal = model.fields.some((field) => field.personal) || model.lines.some((list) => list.fields.some((field) => field.personal));
      for (const kind of EVERY_MODEL_COMMANDS) {
        const has = personal || !COMMAND_KINDS[kind].personalData;
        expect(registry.commands[`${model.name}.${kind}`]?.kind, `${model.name}.${kind}`).toBe(has ? kind : undefined);
      }
    }
    expect(EVERY_MODEL_COMMANDS).toEqual(COMMAND_KIND_NAMES.filter((kind) => COMMAND_KINDS[kind].everyModel));
  });

  it.each(commands.map((command) => [command.id, command] as const))('%s: REST (a person) — the audit trail and the history say what its kind says', async (_id, command) => {
    const model = registry.models[command.model]!;
    const traits = kindTraits(command.kind);
    const { input, recordId } = await inputFor(model, command);
    const entries = recordId === undefined ? 0 : count('select count(*) as n from rms_history where model = ? and record_id = ?', model.name, recordId);
    const res = await t.command(admin, command.id, input);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const audit = t.inspect((db) => db.prepare('select access, outcome, change_id from rms_audit where command = ? order by id desc limit 1').get(command.id)) as Record<string, unknown>;
    expect(audit).toMatchObject({ access: traits.access, outcome: 'executed' });
    const created = command.kind === 'create' ? (res.body.value.id as string) : command.kind === 'create_many' ? (res.body.value.ids[0] as string) : recordId;
    const after = created === undefined ? 0 : count('select count(*) as n from rms_history where model = ? and record_id = ?', model.name, created);
    expect(after - entries, 'history entries written').toBe(traits.change === null ? 0 : 1);
    if (traits.change !== null) {
      const entry = t.inspect((db) => db.prepare('select id, kind, command from rms_history where model = ? and record_id = ? order by id desc limit 1').get(model.name, created)) as Record<string, unknown>;
      expect(entry.kind).toBe(traits.change);
      // A revert is an update; a bulk command's entries name the bulk command.
      expect(entry.command).toBe(command.kind === 'revert' ? `${model.name}.update` : command.id);
      expect(audit.change_id).toBe(entry.id);
    } else {
      expect(audit.change_id).toBeNull();
    }
  });
});

const withLines = Object.values(registry.models).filter((model) => model.lines.length > 0);

describe.skipIf(withLines.length === 0)('writes of lines and computed fields', () => {
  const entries = (model: ModelMeta, id: string) => t.inspect((db) => db.prepare('select id, kind, command, changes from rms_history where model = ? and record_id = ? order by id').all(model.name, id)) as { id: string; kind: string; command: string; changes: string }[];
  const lastAudit = (command: string) => t.inspect((db) => db.prepare('select access, outcome, change_id from rms_audit where command = ? order by id desc limit 1').get(command)) as Record<string, unknown>;

  it.each(withLines.map((model) => [model.name, model] as const))('%s: an update of lines alone, and its revert, are each one update entry; the computed fields they change are in it', async (_name, model) => {
    const id = await makeRecord(t, admin, model, refs);
    const current = (await t.command(admin, `${model.name}.get`, { id })).body.value;
    // The first line of each list changed in every field it may be given; computed ones follow.
    const lines = Object.fromEntries(
      model.lines.map((list) => {
        const [first] = current[list.name] as { id: string }[];
        return [list.name, [{ id: first!.id, ...Object.fromEntries(list.fields.filter((field) => !field.computed).map((field) => [field.name, sampleValue(field, refs)])) }]];
      }),
    );
    for (const [command, input] of [
      [`${model.name}.update`, () => ({ id, ...lines })],
      [`${model.name}.revert`, () => ({ id, change_id: entries(model, id).at(-1)!.id })],
    ] as const) {
      const before = entries(model, id).length;
      const previous = (await t.command(admin, `${model.name}.get`, { id })).body.value;
      const res = await t.command(admin, command, input());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const written = entries(model, id);
      expect(written.length - before, command).toBe(1);
      const entry = written.at(-1)!;
      expect(entry).toMatchObject({ kind: kindTraits(command.endsWith('.revert') ? 'revert' : 'update').change, command: `${model.name}.update` });
      expect(lastAudit(command)).toEqual({ access: 'write', outcome: 'executed', change_id: entry.id });
      const changes = JSON.parse(entry.changes) as Record<string, unknown>;
      for (const list of model.lines) expect(Object.keys(changes), `${command} records ${list.name}`).toContain(list.name);
      // A record's computed field is in the entry exactly when the write changed its value.
      const after = (await t.command(admin, `${model.name}.get`, { id })).body.value;
      for (const field of model.fields.filter((candidate) => candidate.computed)) {
        expect(field.name in changes, `${command} records ${field.name}`).toBe(after[field.name] !== previous[field.name]);
      }
    }
  });
});

describe('over MCP, as an agent', () => {
  let agent: string;
  let agentId: string;
  let mcp: ConnectedClient;
  beforeAll(async () => {
    agent = await agentToken(t, admin, Object.keys(registry.models).map((model) => `${model}.*`), 'kind walker');
    agentId = (await t.request('GET', '/api/auth/agent-tokens', undefined, admin)).body.tokens.find((token: { label: string }) => token.label === 'kind walker').id;
    mcp = await connectClient(t, agent);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  const counts = () => t.inspect((db) => db.prepare('select coalesce(sum(requests), 0) as requests, coalesce(sum(writes), 0) as writes from rms_rate_windows where agent_token_id = ?').get(agentId)) as { requests: number; writes: number };

  it('tools/list annotates every tool as its kind says, and has none of the admin’s only', async () => {
    const { tools } = await mcp.client.listTools();
    const adminOnly = commands.filter((command) => kindTraits(command.kind).adminOnly).map((command) => `${command.model}__${command.name}`);
    expect(adminOnly.length).toBeGreaterThan(0);
    expect(tools.map((tool) => tool.name).filter((name) => adminOnly.includes(name))).toEqual([]);
    for (const command of agentCommands) {
      const tool = tools.find((candidate) => candidate.name === `${command.model}__${command.name}`)!;
      if (isBulk(command)) {
        expect(tool, command.id).toBeUndefined();
        continue;
      }
      const traits = kindTraits(command.kind);
      expect(tool.annotations?.readOnlyHint, command.id).toBe(traits.access === 'read');
      expect(tool.annotations?.destructiveHint ?? false, command.id).toBe(traits.destructive);
      expect(tool.annotations?.idempotentHint ?? false, command.id).toBe(traits.idempotent);
    }
  });

  it.each(agentCommands.filter((command) => !isBulk(command)).map((command) => [command.id, command] as const))('%s: a tools/call costs a write exactly when its kind writes, and is audited so', async (_id, command) => {
    const model = registry.models[command.model]!;
    const traits = kindTraits(command.kind);
    const { input } = await inputFor(model, command, true);
    const before = counts();
    const result = await mcp.client.callTool({ name: `${command.model}__${command.name}`, arguments: input });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const after = counts();
    // The MCP POST is one request; the listing of a token's own counts is not counted.
    expect(Number(after.requests) - Number(before.requests)).toBe(1);
    expect(Number(after.writes) - Number(before.writes)).toBe(traits.access === 'write' ? 1 : 0);
    const audit = t.inspect((db) => db.prepare('select access, outcome from rms_audit where command = ? and agent_token_id = ? order by id desc limit 1').get(command.id, agentId)) as Record<string, unknown>;
    const proposed = (result.structuredContent as { status?: string }).status === 'approval_required';
    expect(proposed).toBe(command.needsApproval);
    expect(audit).toEqual({ access: traits.access, outcome: proposed ? 'proposed' : 'executed' });
  });
});
