/**
 * One view of a record per caller (runtime/view/caller-view.ts): whatever path a record leaves by —
 * get, list, search, MCP, a write's answer, history, a plan, the audit trail — a caller sees the
 * same fields, withheld ones nowhere, and for an agent the same token for a personal value, never
 * the clear value; likewise each line's fields (`denied` names a withheld one `<model>.<lines>.<field>`)
 * and computed fields. Walked over every model of the project's modules (whatever modules/ holds), for
 * an agent and for a person of each role, with the project's registry and with one that withholds
 * line fields from a role and computed fields from agents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry as project } from '../../generated/registry.ts';
import type { FieldMeta, ModelMeta, Registry } from '../../runtime/registry.ts';
import { oneOfEach, recordInput, sampleValue, updatableField } from '../helpers/command-walk.ts';
import { connectClient } from '../helpers/mcp-client.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The project's registry with fields withheld in its line lists and among its computed fields:
 * each list's personal fields read by admin and accountant only; its computed ones, and the
 * records' computed ones, hidden from agents.
 */
function withheldInLines(registry: Registry): Registry {
  const withheld = (field: FieldMeta, inLine: boolean): FieldMeta => {
    if (inLine && field.personal) return { ...field, readRoles: ['admin', 'accountant'] };
    return field.computed ? { ...field, hiddenFromAgents: true } : field;
  };
  const models = Object.fromEntries(
    Object.entries(registry.models).map(([name, model]) => [
      name,
      { ...model, fields: model.fields.map((field) => withheld(field, false)), lines: model.lines.map((list) => ({ ...list, fields: list.fields.map((field) => withheld(field, true)) })) },
    ]),
  );
  return { ...registry, models };
}

const registries: [string, Registry][] = [
  ["the project's registry", project],
  ['with line fields and computed fields withheld', withheldInLines(project)],
];

let t: TestServer;
let admin: string;
let refs: Record<string, string>;

const TOKEN = /^[A-Z][A-Z0-9_]*_[1-9][0-9]*$/;

type Seen = 'clear' | 'masked';

/** What a caller reads of a model: field → 'clear' | 'masked' (absent: withheld); each line list's fields likewise. */
interface View {
  readonly fields: Map<string, Seen>;
  readonly lines: Map<string, Map<string, Seen>>;
}

function fieldsSeen(fields: readonly FieldMeta[], caller: { agent: boolean; roles: readonly string[] }): Map<string, Seen> {
  const view = new Map<string, Seen>();
  for (const field of fields) {
    const reads = caller.roles.includes('admin') || field.readRoles === undefined || field.readRoles.some((role) => caller.roles.includes(role));
    if (!reads || (caller.agent && field.hiddenFromAgents)) continue;
    view.set(field.name, caller.agent && field.personal ? 'masked' : 'clear');
  }
  return view;
}

function viewOf(model: ModelMeta, caller: { agent: boolean; roles: readonly string[] }): View {
  return { fields: fieldsSeen(model.fields, caller), lines: new Map(model.lines.map((list) => [list.name, fieldsSeen(list.fields, caller)])) };
}

/** `denied` as the caller gets it: withheld fields of the record, then of each line list (`<model>.<lines>.<field>`). */
function deniedOf(model: ModelMeta, view: View): string[] {
  return [
    ...model.fields.filter((field) => !view.fields.has(field.name)).map((field) => `${model.name}.${field.name}`),
    ...model.lines.flatMap((list) => list.fields.filter((field) => !view.lines.get(list.name)!.has(field.name)).map((field) => `${model.name}.${list.name}.${field.name}`)),
  ];
}

/** A record's (or a line's) fields as the caller got them, checked against its view and the clear values. */
function checkFields(record: Record<string, unknown>, seenFields: Map<string, Seen>, clear: Record<string, unknown>, extra: readonly string[], where: string): void {
  expect(Object.keys(record).sort(), where).toEqual(['id', ...seenFields.keys(), ...extra].sort());
  for (const [name, seen] of seenFields) {
    const value = record[name];
    if (seen === 'masked' && clear[name] !== null && clear[name] !== undefined) expect(value, `${where} ${name}`).toMatch(TOKEN);
    if (seen === 'clear') expect(value, `${where} ${name}`).toEqual(clear[name] ?? null);
  }
}

/**
 * A record as the caller got it, checked against its view and the clear values (`withLines`: it
 * carries its line lists, as get answers and list and search with `include`); answers it.
 */
function checkRecord(record: Record<string, unknown>, view: View, clear: Record<string, unknown>, where: string, withLines = true): Record<string, unknown> {
  const lists = withLines ? [...view.lines.keys()] : [];
  checkFields(record, view.fields, clear, lists, where);
  for (const list of lists) {
    const lines = record[list] as Record<string, unknown>[];
    const clearLines = clear[list] as Record<string, unknown>[];
    expect(lines.map((line) => line.id), `${where} ${list}`).toEqual(clearLines.map((line) => line.id));
    lines.forEach((line, i) => checkFields(line, view.lines.get(list)!, clearLines[i]!, [], `${where} ${list}[${i}]`));
  }
  return record;
}

/** The clear values of withheld and masked fields (of the record and its lines) must appear nowhere in what the caller got. */
function noClearValues(answer: unknown, model: ModelMeta, view: View, values: Record<string, unknown>, where: string): void {
  const text = JSON.stringify(answer);
  for (const field of model.fields) {
    if (view.fields.get(field.name) === 'clear' || typeof values[field.name] !== 'string') continue;
    expect(text, `${where}: ${field.name}`).not.toContain(values[field.name] as string);
  }
  for (const list of model.lines) {
    for (const line of (values[list.name] as Record<string, unknown>[] | undefined) ?? []) {
      for (const field of list.fields) {
        if (view.lines.get(list.name)!.get(field.name) === 'clear' || typeof line[field.name] !== 'string') continue;
        expect(text, `${where}: ${list.name}.${field.name}`).not.toContain(line[field.name] as string);
      }
    }
  }
}

/** A value of the field's kind that appears nowhere else (masked values are looked for in whole answers). */
function secretOf(field: FieldMeta): unknown {
  const n = Math.random().toString().slice(2, 12);
  switch (field.kind) {
    case 'email':
      return `secret.${n}@example.org`;
    case 'phone':
      return `+1 ${n}`;
    case 'url':
      return `https://secret.example.org/${n}`;
    case 'text':
    case 'longtext':
      return `Secret ${field.name} ${n}`;
    default:
      return sampleValue(field, refs);
  }
}

function withValues(model: ModelMeta): Record<string, unknown> {
  return recordInput(model, refs);
}

/** An update's line lists: the record's first line changed in every field (a secret in each masked one), and one line added. */
function changedLines(model: ModelMeta, current: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const list of model.lines) {
    const [first] = current[list.name] as { id: string }[];
    const writable = list.fields.filter((field) => !field.computed);
    const changed = Object.fromEntries(writable.map((field) => [field.name, field.personal ? secretOf(field) : sampleValue(field, refs)]));
    const added = (withValues(model)[list.name] as Record<string, unknown>[])[0]!;
    input[list.name] = [{ id: first!.id, ...changed }, added];
  }
  return input;
}

describe.each(registries)('%s', (_registryName, registry) => {
  const models = Object.values(registry.models);
  const roles = Object.keys(registry.roles).filter((role) => role !== 'admin');

  beforeAll(async () => {
    t = await startTestServer({ registry });
    admin = await t.login();
    refs = await oneOfEach(t, admin, registry);
  });

  afterAll(async () => {
    await t?.close();
  });

  describe.each(models.map((model) => [model.name, model] as const))('%s', (_name, model) => {
    let id: string;
    let values: Record<string, unknown>;
    beforeAll(async () => {
      values = withValues(model);
      const created = await t.command(admin, `${model.name}.create`, values);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      id = created.body.value.id;
      values = { ...created.body.value };
      // A change of every field a caller may write (so history has entries of withheld fields alone, too).
      for (const field of model.fields.filter((candidate: FieldMeta) => !candidate.governed && !candidate.computed && candidate.kind !== 'ref')) {
        const changed = withValues(model)[field.name];
        if (changed === undefined) continue; // an optional field a rule is about: no sample
        const updated = await t.command(admin, `${model.name}.update`, { id, [field.name]: changed });
        expect(updated.status, JSON.stringify(updated.body)).toBe(200);
        values = { ...updated.body.value };
      }
      // And of its lines: one changed (masked fields too), one added.
      if (model.lines.length > 0) {
        const updated = await t.command(admin, `${model.name}.update`, { id, ...changedLines(model, values) });
        expect(updated.status, JSON.stringify(updated.body)).toBe(200);
        values = { ...updated.body.value };
      }
    });

    it('an agent sees the same fields and the same tokens by get, list, search, MCP and history, and no withheld or clear personal value', async () => {
      const agent = await agentToken(t, admin, [`${model.name}.*`], `view of ${model.name}`);
      const view = viewOf(model, { agent: true, roles: ['admin'] });
      const denied = deniedOf(model, view);
      const byId = [{ field: 'id', op: 'eq', value: id }];
      const include = model.lines.length > 0 ? { include: model.lines.map((list) => list.name) } : {};
      const get = await t.command(agent, `${model.name}.get`, { id });
      const list = await t.command(agent, `${model.name}.list`, { filter: byId });
      const search = await t.command(agent, `${model.name}.search`, { filter: byId });
      const listWithLines = await t.command(agent, `${model.name}.list`, { filter: byId, ...include });
      const searchWithLines = await t.command(agent, `${model.name}.search`, { filter: byId, ...include });
      for (const answer of [get, list, search, listWithLines, searchWithLines]) expect(answer.body.denied, JSON.stringify(answer.body)).toEqual(denied);
      const seen = checkRecord(get.body.value, view, values, 'get');
      const withoutLines = Object.fromEntries(Object.entries(seen).filter(([name]) => !view.lines.has(name)));
      expect(checkRecord(list.body.value[0], view, values, 'list', false)).toEqual(withoutLines);
      expect(checkRecord(search.body.value.rows[0], view, values, 'search', false)).toEqual(withoutLines);
      expect(listWithLines.body.value[0]).toEqual(seen);
      expect(searchWithLines.body.value.rows[0]).toEqual(seen);
      const mcp = await connectClient(t, agent);
      try {
        await mcp.client.listTools(); // the SDK client then checks each result against its tool's output schema
        const result = await mcp.client.callTool({ name: `${model.name}__get`, arguments: { id } });
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        expect((result.structuredContent as { value: unknown }).value).toEqual(seen);
        const history = await mcp.client.callTool({ name: `${model.name}__history`, arguments: { id } });
        expect(history.isError, JSON.stringify(history.content)).toBeFalsy();
        const rows = (history.structuredContent as { value: { rows: { changes: Record<string, any> }[] } }).value.rows;
        const rest = await t.command(agent, `${model.name}.history`, { id });
        expect(rest.body.value.rows).toEqual(rows);
        expect(rest.body.value.total).toBe(rows.length);
        const maskedSides = (change: { from: unknown; to: unknown }) => {
          for (const side of [change.from, change.to]) if (side !== null) expect(side).toMatch(TOKEN);
        };
        for (const row of rows) {
          expect(Object.keys(row.changes).length).toBeGreaterThan(0);
          for (const [name, change] of Object.entries(row.changes)) {
            const lineView = view.lines.get(name);
            if (!lineView) {
              expect(view.fields.has(name), `history shows ${name}`).toBe(true);
              if (view.fields.get(name) === 'masked') maskedSides(change);
              continue;
            }
            for (const line of [...change.added, ...change.removed] as Record<string, unknown>[]) {
              for (const [field, value] of Object.entries(line)) {
                if (field === 'id') continue;
                expect(lineView.has(field), `history shows ${name}.${field}`).toBe(true);
                if (lineView.get(field) === 'masked' && value !== null) expect(value).toMatch(TOKEN);
              }
            }
            for (const { changes } of change.changed as { changes: Record<string, { from: unknown; to: unknown }> }[]) {
              for (const [field, fieldChange] of Object.entries(changes)) {
                expect(lineView.has(field), `history shows ${name}.${field}`).toBe(true);
                if (lineView.get(field) === 'masked') maskedSides(fieldChange);
              }
            }
          }
        }
        // The latest value of each field reads as the token the record shows.
        for (const [name, shown] of Object.entries(seen)) {
          const last = rows.find((row) => name in row.changes);
          if (last && view.fields.get(name) === 'masked') expect(last.changes[name]!.to).toBe(shown);
        }
        // So does a line's: in the entry that last changed it (the update of the lines).
        for (const list of model.lines) {
          const last = rows.find((row) => list.name in row.changes)!;
          const [first] = seen[list.name] as Record<string, unknown>[];
          const changed = (last.changes[list.name].changed as { id: string; changes: Record<string, { to: unknown }> }[]).find((line) => line.id === first!.id)!;
          for (const [field, seenAs] of view.lines.get(list.name)!) if (seenAs === 'masked' && field in changed.changes) expect(changed.changes[field]!.to).toBe(first![field]);
        }
        noClearValues([get.body, list.body, search.body, listWithLines.body, searchWithLines.body, result, history], model, view, values, model.name);
        // A bulk command's changes show the same fields and tokens (a delete_many's dry run: every
        // field the agent reads, from what the record holds; line lists are not listed); one
        // carrying a value the agent gives in clear shows it as not kept (its dry run keeps no
        // token for it), never in clear.
        const bulk = await t.command(agent, `${model.name}.delete_many`, { ids: [id], max_affected: 1, dry_run: true });
        expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
        expect(bulk.body.denied).toEqual(denied);
        const changes = bulk.body.value.changes[0].changes as Record<string, { from: unknown; to: unknown }>;
        expect(Object.keys(changes).sort()).toEqual([...view.fields.keys()].sort());
        for (const [name, change] of Object.entries(changes)) expect(change, name).toEqual({ from: seen[name], to: null });
        noClearValues([bulk.body], model, view, values, `${model.name}.delete_many`);
        const writable = [...view.fields].find(([name, seenAs]) => seenAs === 'masked' && model.fields.some((field) => field.name === name && !field.computed && !field.governed));
        if (writable) {
          const secret = secretOf(model.fields.find((field) => field.name === writable[0])!);
          const tried = await t.command(agent, `${model.name}.update_many`, { ids: [id], set: { [writable[0]]: secret }, max_affected: 1, dry_run: true });
          expect(tried.status, JSON.stringify(tried.body)).toBe(200);
          expect(JSON.stringify(tried.body)).not.toContain(JSON.stringify(secret).slice(1, -1));
          expect(tried.body.value.changes[0].changes[writable[0]].to).toBe('[personal value not kept]');
        }
      } finally {
        await mcp.close();
      }
    });

    it('an agent\'s write answers, and the audit trail keeps, the same tokens; a dry run and a plan show none in clear either', async () => {
      const agent = await agentToken(t, admin, [`${model.name}.*`], `writer of ${model.name}`);
      const view = viewOf(model, { agent: true, roles: ['admin'] });
      const masked = [...view.fields].filter(([, seen]) => seen === 'masked').map(([name]) => name);
      const name = masked[0] ?? updatableField(model)?.name;
      if (name === undefined) return;
      const field = model.fields.find((candidate) => candidate.name === name)!;
      const secret = secretOf(field);
      const tried = await t.request('POST', `/api/${model.name}/update?dry_run=true`, { id, [name]: secret }, agent);
      expect(tried.status, JSON.stringify(tried.body)).toBe(200);
      const updated = await t.command(agent, `${model.name}.update`, { id, [name]: secret });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      values[name] = secret;
      const audit = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'record_id', op: 'eq', value: id }, { field: 'agent_label', op: 'eq', value: `writer of ${model.name}` }]))}&order=${encodeURIComponent('[{"field":"id","dir":"asc"}]')}`, undefined, admin);
      const [dryRow, row] = audit.body.rows as { input: Record<string, unknown>; dry_run: boolean }[];
      expect([dryRow!.dry_run, row!.dry_run]).toEqual([true, false]);
      if (view.fields.get(name) === 'masked') {
        expect(updated.body.value[name]).toMatch(TOKEN);
        expect(row!.input[name]).toBe(updated.body.value[name]);
        expect(dryRow!.input[name]).toBe('[personal value not kept]');
        expect(JSON.stringify([tried.body, updated.body, audit.body])).not.toContain(String(secret));
        const plan = await t.command(agent, `${model.name}.delete`, { id });
        expect(plan.status).toBe(202);
        const shown = await t.request('GET', `/api/plans/${plan.body.plan_id}`, undefined, agent);
        expect(shown.body.plan.input).toEqual({ id });
        expect((await t.request('POST', `/api/reject/${plan.body.plan_id}`, undefined, admin)).status).toBe(200);
      }
    });

    it.skipIf(model.lines.every((list) => list.fields.every((field) => !field.personal)))('an agent\'s write of a line\'s personal field answers, keeps in the audit trail and shows in history the same token; a dry run none', async () => {
      const agent = await agentToken(t, admin, [`${model.name}.*`], `line writer of ${model.name}`);
      const current = (await t.command(admin, `${model.name}.get`, { id })).body.value;
      const input = changedLines(model, current);
      const secrets = JSON.stringify(input);
      const tried = await t.request('POST', `/api/${model.name}/update?dry_run=true`, { id, ...input }, agent);
      expect(tried.status, JSON.stringify(tried.body)).toBe(200);
      const updated = await t.command(agent, `${model.name}.update`, { id, ...input });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      const history = await t.command(agent, `${model.name}.history`, { id, limit: 1 });
      const audit = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'record_id', op: 'eq', value: id }, { field: 'agent_label', op: 'eq', value: `line writer of ${model.name}` }, { field: 'command', op: 'eq', value: `${model.name}.update` }]))}&order=${encodeURIComponent('[{"field":"id","dir":"asc"}]')}`, undefined, admin);
      const [dryRow, row] = audit.body.rows as { input: Record<string, any>; dry_run: boolean }[];
      for (const list of model.lines) {
        const given = input[list.name] as Record<string, unknown>[];
        const lines = updated.body.value[list.name] as Record<string, unknown>[];
        const [entry] = history.body.value.rows as { changes: Record<string, any> }[];
        for (const field of list.fields.filter((candidate) => candidate.personal)) {
          given.forEach((line, i) => {
            if (line[field.name] === undefined) return;
            const token = lines[i]![field.name];
            expect(token, `${list.name}[${i}].${field.name}`).toMatch(TOKEN);
            expect(row!.input[list.name][i][field.name]).toBe(token);
            expect(dryRow!.input[list.name][i][field.name]).toBe('[personal value not kept]');
            const change = line.id === undefined ? entry!.changes[list.name].added.find((added: { id: string }) => added.id === lines[i]!.id) : entry!.changes[list.name].changed.find((changed: { id: string }) => changed.id === line.id)?.changes;
            const shown = line.id === undefined ? change[field.name] : change[field.name].to;
            expect(shown, `history of ${list.name}[${i}].${field.name}`).toBe(token);
          });
        }
      }
      for (const secret of Object.values(input).flatMap((lines) => (lines as Record<string, unknown>[]).flatMap((line) => Object.values(line)))) {
        if (typeof secret === 'string' && secret.startsWith('Secret')) expect(JSON.stringify([tried.body, updated.body, history.body, audit.body])).not.toContain(secret);
      }
      expect(secrets).toContain('Secret');
      values = { ...values, ...Object.fromEntries(model.lines.map((list) => [list.name, input[list.name]])) };
    });

    it.each(roles.map((role) => [role]))('a person with role %s sees the fields it reads, the same way everywhere', async (role) => {
      const person = await t.addPerson(`viewer-${role}-${model.name}`, [role]);
      const view = viewOf(model, { agent: false, roles: [role] });
      const get = await t.command(person, `${model.name}.get`, { id });
      if (get.status === 404) return; // the role may not read this model
      const clear = (await t.command(admin, `${model.name}.get`, { id })).body.value;
      expect(get.body.denied).toEqual(deniedOf(model, view));
      const seen = checkRecord(get.body.value, view, clear, 'get');
      const include = model.lines.length > 0 ? { include: model.lines.map((list) => list.name) } : {};
      const search = await t.command(person, `${model.name}.search`, { filter: [{ field: 'id', op: 'eq', value: id }], ...include });
      if (search.status === 200) expect(search.body.value.rows[0]).toEqual(seen);
      const history = await t.command(person, `${model.name}.history`, { id });
      expect(history.status).toBe(200);
      for (const row of history.body.value.rows as { changes: Record<string, any> }[]) {
        expect(Object.keys(row.changes).length).toBeGreaterThan(0);
        for (const [name, change] of Object.entries(row.changes)) {
          const lineView = view.lines.get(name);
          if (!lineView) {
            expect(view.fields.has(name), `history shows ${name}`).toBe(true);
            continue;
          }
          for (const line of [...change.added, ...change.removed] as Record<string, unknown>[]) for (const field of Object.keys(line)) if (field !== 'id') expect(lineView.has(field), `history shows ${name}.${field}`).toBe(true);
          for (const { changes } of change.changed as { changes: Record<string, unknown> }[]) for (const field of Object.keys(changes)) expect(lineView.has(field), `history shows ${name}.${field}`).toBe(true);
        }
      }
      // A bulk command's answer shows each record's changes by the same view: a delete_many's dry run
      // lists every field the role reads (from what the record holds), and no other.
      const bulk = await t.command(person, `${model.name}.delete_many`, { ids: [id], max_affected: 1, dry_run: true });
      expect([200, 404], JSON.stringify(bulk.body)).toContain(bulk.status);
      if (bulk.status === 200) {
        expect(bulk.body.denied).toEqual(deniedOf(model, view));
        const changes = bulk.body.value.changes[0].changes as Record<string, { from: unknown; to: unknown }>;
        expect(Object.keys(changes).sort()).toEqual([...view.fields.keys()].sort());
        for (const [name, change] of Object.entries(changes)) expect(change, name).toEqual({ from: seen[name], to: null });
      }
      noClearValues([get.body, search.body, history.body, bulk.body], model, view, clear, `${role} on ${model.name}`);
    });
  });
});
