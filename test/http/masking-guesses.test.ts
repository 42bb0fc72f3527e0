/**
 * Masking must not confirm guesses (finding 2 of the security probe). An agent with write scope
 * used to write a guessed value and compare the token it got back with one it held (`NAME_1`):
 * equal meant the guess was right. Nothing an agent observes may tell it whether a clear value it
 * wrote equals a value it has only seen masked — in the answer, on later reads of either record,
 * in its plans, in the numbering of its tokens — while what agents rely on keeps working. The
 * same for a personal field of a kind that is no text (a date), and for a line's personal field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry as generated } from '../fixtures/generated/registry.ts';
import type { ModelMeta, Registry } from '../../runtime/registry.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectClient } from '../helpers/mcp-client.ts';

/**
 * The fixture modules' registry, with `lead.lost_reason` personal (token LOST_REASON), `lead.lose`
 * held for approval, and `lead.close_date` personal (a date: token CLOSE_DATE).
 */
function variant(): Registry {
  const lead = generated.models.lead!;
  const personal: Record<string, string> = { lost_reason: 'LOST_REASON', close_date: 'CLOSE_DATE' };
  const changed: ModelMeta = {
    ...lead,
    fields: lead.fields.map((field) => (personal[field.name] ? { ...field, personal: true, maskLabel: personal[field.name] } : field)),
    actions: lead.actions.map((action) => (action.name === 'lose' ? { ...action, needsApproval: true } : action)),
  };
  const lose = generated.commands['lead.lose']!;
  return {
    ...generated,
    models: { ...generated.models, lead: changed },
    commands: { ...generated.commands, 'lead.lose': { ...lose, needsApproval: true, action: changed.actions.find((action) => action.name === 'lose')! } },
  };
}

const SECRET = 'Alice Secret';

let t: TestServer;
let admin: string;
let agent: string;
let secretParty: string;
/** The agent's shared token for SECRET, from reading the person-written party. */
let secretToken: string;

const numberOf = (token: string) => Number(/_(\d+)$/.exec(token)![1]);

beforeAll(async () => {
  t = await startTestServer({ registry: variant() });
  admin = await t.login();
  agent = await agentToken(t, admin, ['party.*', 'lead.*', 'invoice.get', 'order.*'], 'crm bot');
  secretParty = (await t.command(admin, 'party.create', { name: SECRET, email: 'alice@example.com' })).body.value.id;
  const read = await t.command(agent, 'party.get', { id: secretParty });
  secretToken = read.body.value.name;
  expect(secretToken).toMatch(/^NAME_\d+$/);
});

afterAll(async () => {
  await t?.close();
});

async function agentReads(id: string, token = agent): Promise<Record<string, unknown>> {
  const res = await t.command(token, 'party.get', { id });
  expect(res.status).toBe(200);
  return res.body.value;
}

describe('a value an agent writes in clear never gets a token it could compare', () => {
  it('answers a right and a wrong guess alike: each a new number, one after the other', async () => {
    const right = await t.command(agent, 'party.create', { name: SECRET });
    const wrong = await t.command(agent, 'party.create', { name: 'Bob Guess' });
    expect(right.status).toBe(200);
    expect(wrong.status).toBe(200);
    const [rightToken, wrongToken] = [right.body.value.name as string, wrong.body.value.name as string];
    expect(rightToken).not.toBe(secretToken);
    expect(rightToken).toMatch(/^NAME_\d+$/);
    expect(numberOf(wrongToken)).toBe(numberOf(rightToken) + 1);

    // Later reads of either record show what each showed before.
    expect((await agentReads(right.body.value.id)).name).toBe(rightToken);
    expect((await agentReads(secretParty)).name).toBe(secretToken);
    const all = await t.command(agent, 'party.search', { filter: [{ field: 'id', op: 'in', value: [secretParty, right.body.value.id] }] });
    const names = Object.fromEntries(all.body.value.rows.map((row: { id: string; name: string }) => [row.id, row.name]));
    expect(names).toEqual({ [secretParty]: secretToken, [right.body.value.id]: rightToken });
  });

  it('the same for an update of a record the agent made, and of one it did not', async () => {
    const own = (await t.command(agent, 'party.create', { name: 'Own Party' })).body.value.id;
    const other = (await t.command(admin, 'party.create', { name: 'Someone' })).body.value.id;
    for (const id of [own, other]) {
      const updated = await t.command(agent, 'party.update', { id, name: SECRET });
      expect(updated.status).toBe(200);
      expect(updated.body.value.name).not.toBe(secretToken);
      expect((await agentReads(id)).name).toBe(updated.body.value.name);
    }
    // The one it did not make really holds the value now: people see it in clear.
    expect((await t.command(admin, 'party.get', { id: other })).body.value.name).toBe(SECRET);
  });

  it('the same for a lead\'s notes, written on create and on update', async () => {
    const noted = (await t.command(admin, 'lead.create', { title: 'Known', notes: 'call on Monday' })).body.value.id;
    const noteToken = (await t.command(agent, 'lead.get', { id: noted })).body.value.notes as string;
    const created = await t.command(agent, 'lead.create', { title: 'Mine', notes: 'call on Monday' });
    expect(created.body.value.notes).not.toBe(noteToken);
    const updated = await t.command(agent, 'lead.update', { id: created.body.value.id, notes: 'call on Monday' });
    expect(updated.body.value.notes).not.toBe(noteToken);
    expect(updated.body.value.notes).not.toBe(created.body.value.notes);
    expect((await t.command(agent, 'lead.get', { id: created.body.value.id })).body.value.notes).toBe(updated.body.value.notes);
    expect((await t.command(agent, 'lead.get', { id: noted })).body.value.notes).toBe(noteToken);
  });

  it('over MCP too', async () => {
    const mcp = await connectClient(t, agent);
    try {
      const result = await mcp.client.callTool({ name: 'party__create', arguments: { name: SECRET, email: 'alice@example.com' } });
      const value = (result.structuredContent as { value: { id: string; name: string; email: string } }).value;
      expect(value.name).not.toBe(secretToken);
      const shared = (await agentReads(secretParty)).email;
      expect(value.email).not.toBe(shared);
      const read = await mcp.client.callTool({ name: 'party__get', arguments: { id: value.id } });
      expect((read.structuredContent as { value: { name: string } }).value.name).toBe(value.name);
    } finally {
      await mcp.close();
    }
  });

  it('keeps the agent\'s own view in the audit trail: the tokens it got, never clear, never the shared one', async () => {
    const created = await t.command(agent, 'party.create', { name: SECRET, phone: '+1 555 0100' });
    const audit = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'record_id', op: 'eq', value: created.body.value.id }]))}`, undefined, admin);
    const entry = audit.body.rows.find((row: { command: string }) => row.command === 'party.create');
    expect(entry.input).toEqual({ name: created.body.value.name, phone: created.body.value.phone });
    expect(JSON.stringify(audit.body)).not.toContain(SECRET);
  });
});

describe('what agents rely on still holds', () => {
  it('equal values the agent did not write share one token across records', async () => {
    const twin = (await t.command(admin, 'party.create', { name: 'Twin', email: 'alice@example.com' })).body.value.id;
    expect((await agentReads(twin)).email).toBe((await agentReads(secretParty)).email);
  });

  it('a token written back stores its value and reads back as the same token, shared or written', async () => {
    const viaShared = await t.command(agent, 'party.create', { name: secretToken });
    expect(viaShared.body.value.name).toBe(secretToken);
    expect((await t.command(admin, 'party.get', { id: viaShared.body.value.id })).body.value.name).toBe(SECRET);

    const written = (await t.command(agent, 'party.create', { name: 'Dora Written' })).body.value;
    const copy = await t.command(agent, 'party.create', { name: written.name });
    expect(copy.body.value.name).toBe(written.name);
    expect((await agentReads(copy.body.value.id)).name).toBe(written.name);
    expect((await t.command(admin, 'party.get', { id: copy.body.value.id })).body.value.name).toBe('Dora Written');
  });

  it('another agent sees a value written by the first as any value it did not write', async () => {
    const other = await agentToken(t, admin, ['party.get'], 'other bot');
    const written = (await t.command(agent, 'party.create', { name: SECRET })).body.value.id;
    expect((await agentReads(written, other)).name).toBe((await agentReads(secretParty, other)).name);
  });

  it('a person re-saving the same value leaves the agent\'s token; changing it replaces it', async () => {
    const created = (await t.command(agent, 'party.create', { name: 'Eve Guess' })).body.value;
    expect((await t.command(admin, 'party.update', { id: created.id, name: 'Eve Guess', kind: 'person' })).status).toBe(200);
    expect((await agentReads(created.id)).name).toBe(created.name);
    expect((await t.command(admin, 'party.update', { id: created.id, name: 'Frank' })).status).toBe(200);
    const changed = (await agentReads(created.id)).name;
    expect(changed).not.toBe(created.name);
    // Back to the agent's value, by a person: now a value the agent did not write, shown as such.
    expect((await t.command(admin, 'party.update', { id: created.id, name: 'Eve Guess' })).status).toBe(200);
    expect((await agentReads(created.id)).name).not.toBe(created.name);
  });

  it('tokens survive a restart and are the same on another instance of the same database', async () => {
    const created = (await t.command(agent, 'party.create', { name: 'Gina Stable' })).body.value;
    const second = await startTestServer({ registry: variant(), dbUrl: t.dbUrl });
    try {
      const read = await second.command(agent, 'party.get', { id: created.id });
      expect(read.body.value.name).toBe(created.name);
      expect((await second.command(agent, 'party.get', { id: secretParty })).body.value.name).toBe(secretToken);
    } finally {
      await second.close();
    }
  });
});

describe('plans', () => {
  it('show the proposing agent its own token, and the approved change binds it', async () => {
    const lead = (await t.command(admin, 'lead.create', { title: 'Lost one' })).body.value.id;
    const known = (await t.command(admin, 'lead.create', { title: 'Known reason', lost_reason: 'too expensive' })).body.value.id;
    const knownToken = (await t.command(agent, 'lead.get', { id: known })).body.value.lost_reason as string;

    const proposed = await t.command(agent, 'lead.lose', { id: lead, lost_reason: 'too expensive' });
    expect(proposed.status).toBe(202);
    const plan = await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, agent);
    const shown = plan.body.plan.input.lost_reason as string;
    expect(shown).toMatch(/^LOST_REASON_\d+$/);
    expect(shown).not.toBe(knownToken);
    const asPerson = await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, admin);
    expect(asPerson.body.plan.input.lost_reason).toBe('too expensive');

    expect((await t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin)).status).toBe(200);
    expect((await t.command(agent, 'lead.get', { id: lead })).body.value.lost_reason).toBe(shown);
    expect((await t.command(agent, 'lead.get', { id: known })).body.value.lost_reason).toBe(knownToken);
  });
});

/** Token values (`value` column) the agent's tokens hold, to check what a call left stored. */
function storedTokenValues(value: string): number {
  return t.inspect((db) => Number((db.prepare('select count(*) as n from rms_mask_tokens where value = ?').get(value) as { n: number }).n));
}

describe('dry runs confirm nothing', () => {
  it('answer a right and a wrong guess alike, on create and update, and keep no clear value', async () => {
    const other = (await t.command(admin, 'party.create', { name: 'Somebody' })).body.value.id;
    const cases = [
      ['party/create', (name: string) => ({ name })],
      ['party/update', (name: string) => ({ id: other, name })],
    ] as const;
    for (const [path, input] of cases) {
      for (const guess of [SECRET, 'Wrong Guess 1']) {
        const before = storedTokenValues(guess);
        const tried = await t.request('POST', `/api/${path}?dry_run=true`, input(guess), agent);
        expect(tried.status).toBe(200);
        expect(tried.body.dry_run).toBe(true);
        // Never the shared token of the stored value, whatever the guess, nor a token that the
        // rollback would free for another value: not kept.
        expect(tried.body.value.name).toBe('[personal value not kept]');
        expect(tried.body.value.name).not.toBe(secretToken);
        expect(storedTokenValues(guess)).toBe(before);
      }
    }
    // The stored value is as it was.
    expect((await t.command(admin, 'party.get', { id: other })).body.value.name).toBe('Somebody');
  });

  it('a right and a wrong guess show alike in a dry run, and no token shown there later stands for another value', async () => {
    const right = await t.request('POST', '/api/party/create?dry_run=true', { name: SECRET }, agent);
    const wrong = await t.request('POST', '/api/party/create?dry_run=true', { name: 'Wrong Guess 2' }, agent);
    expect(right.body.value.name).toBe(wrong.body.value.name);
    expect(right.body.value.name).toBe('[personal value not kept]');
    // A token the agent sent stands as it is; the real call then issues the token it keeps.
    const created = await t.command(agent, 'party.create', { name: 'Kept After Dry 3' });
    expect(created.body.value.name).toMatch(/^NAME_\d+$/);
    const again = await t.request('POST', '/api/party/update?dry_run=true', { id: created.body.value.id, name: created.body.value.name, notes: 'Tried note 3' }, agent);
    expect(again.body.value).toMatchObject({ name: created.body.value.name, notes: '[personal value not kept]' });
  });

  it('of bulk commands show values sent in clear as not kept, never a token a later write is given', async () => {
    const created = await t.command(agent, 'party.create', { name: 'Bulk Kept 4' });
    const known = created.body.value.name as string;
    const tries = [
      await t.request('POST', '/api/party/create_many', { records: [{ name: 'Bulk Tried 4' }, { name: known }], dry_run: true }, agent),
      await t.request('POST', '/api/party/create_many?dry_run=true', { records: [{ name: 'Bulk Tried 5' }] }, agent),
      await t.request('POST', '/api/party/update_many', { ids: [created.body.value.id], set: { notes: 'Bulk note 4' }, max_affected: 1, dry_run: true }, agent),
    ];
    for (const tried of tries) expect(tried.status, JSON.stringify(tried.body)).toBe(200);
    expect(tries[0]!.body.value.changes.map((change: any) => change.changes.name.to)).toEqual(['[personal value not kept]', known]);
    expect(tries[1]!.body.value.changes[0].changes.name.to).toBe('[personal value not kept]');
    expect(tries[2]!.body.value.changes[0].changes.notes).toEqual({ from: null, to: '[personal value not kept]' });
    // The next tokens issued stand for the values of real writes, and no dry run showed them.
    const later = await t.command(agent, 'party.create', { name: 'Bulk Later 4', notes: 'Bulk later note 4' });
    const shown = JSON.stringify(tries.map((tried) => tried.body));
    expect(shown).not.toContain(`"${later.body.value.name}"`);
    expect(shown).not.toContain(`"${later.body.value.notes}"`);
  });

  it('of update_many list a masked field the agent set on every record alike, whether it held the value sent or not (REST, MCP, and the plan)', async () => {
    const right = (await t.command(admin, 'party.create', { name: 'Guess Target', email: 'guess-target@example.com', notes: 'guess note' })).body.value.id as string;
    const wrong = (await t.command(admin, 'party.create', { name: 'Guess Other', email: 'other@example.com', notes: 'another note' })).body.value.id as string;
    const input = { ids: [right, wrong], set: { email: 'guess-target@example.com', notes: 'a fresh note' }, max_affected: 2 };
    const shapeOf = (changes: any[]) =>
      changes.map((change) => Object.entries(change.changes as Record<string, { from: unknown; to: unknown }>).map(([name, { from, to }]) => [name, typeof from === 'string' ? from.replace(/\d+$/, 'n') : from, to]));
    const tried = await t.request('POST', '/api/party/update_many', { ...input, dry_run: true }, agent);
    expect(tried.status, JSON.stringify(tried.body)).toBe(200);
    const [held, other] = shapeOf(tried.body.value.changes);
    // The record that holds the guessed email and the one that does not: the same fields, the same form.
    expect(held).toEqual([
      ['email', 'EMAIL_n', '[personal value not kept]'],
      ['notes', 'NOTES_n', '[personal value not kept]'],
    ]);
    expect(other).toEqual(held);
    expect(JSON.stringify(tried.body)).not.toContain('guess-target@example.com');

    const mcp = await connectClient(t, agent);
    try {
      const result = (await mcp.client.callTool({ name: 'party__update_many', arguments: { ...input, dry_run: true } })) as { structuredContent: any };
      const [mcpHeld, mcpOther] = shapeOf(result.structuredContent.value.changes);
      expect(mcpOther).toEqual(mcpHeld);
      expect(mcpHeld).toEqual(held);
    } finally {
      await mcp.close();
    }

    const proposed = await t.command(agent, 'party.update_many', input);
    expect(proposed.status).toBe(202);
    const plan = await t.request('GET', `/api/plans/${proposed.body.plan_id}`, undefined, agent);
    // The plan shows the agent its input (its own tokens), not what each record held.
    expect(plan.body.plan.input.set.email).toMatch(/^EMAIL_\d+$/);
    expect(JSON.stringify(plan.body)).not.toContain('guess-target@example.com');
  });

  it('are audited, with the agent\'s clear values not kept', async () => {
    const tried = await t.request('POST', '/api/party/create?dry_run=true', { name: SECRET, email: 'guess@example.com' }, agent);
    expect(tried.status).toBe(200);
    const refused = await t.request('POST', '/api/party/create?dry_run=true', { name: SECRET, kind: 'nope' }, agent);
    expect(refused.status).toBe(400);
    const rows = t.inspect((db) =>
      db.prepare("select outcome, status, input, dry_run from rms_audit where command = 'party.create' and dry_run is not null order by id desc limit 2").all(),
    ) as { outcome: string; status: number | null; input: string; dry_run: number }[];
    expect(rows.map((row) => [row.outcome, row.status, Number(row.dry_run)])).toEqual([
      ['refused', 400, 1],
      ['executed', null, 1],
    ]);
    // Refused by validation: no input was kept at all; tried: its personal values not kept.
    expect(rows[0]!.input).toBeNull();
    expect(JSON.parse(rows[1]!.input)).toEqual({ name: '[personal value not kept]', email: '[personal value not kept]' });
  });

  it('a refused write keeps no clear value either, and its audit row shows none', async () => {
    const before = storedTokenValues('Refused Value');
    const refused = await t.command(agent, 'lead.create', { title: 'x', party: 'no-such-party', notes: 'Refused Value' });
    expect(refused.status).toBe(400);
    expect(storedTokenValues('Refused Value')).toBe(before);
    const row = t.inspect((db) => db.prepare("select input from rms_audit where command = 'lead.create' and outcome = 'refused' order by id desc limit 1").get()) as { input: string };
    expect(JSON.parse(row.input).notes).toBe('[personal value not kept]');
  });
});

describe('history confirms nothing', () => {
  it('an agent writing the value a field holds and writing another leave the same history, over REST and MCP', async () => {
    const holder = async () => (await t.command(admin, 'party.create', { name: SECRET })).body.value.id as string;
    const count = async (id: string) => (await t.command(agent, 'party.history', { id })).body.value.total as number;
    const [same, other] = [await holder(), await holder()];
    await t.command(agent, 'party.update', { id: same, name: SECRET });
    await t.command(agent, 'party.update', { id: other, name: 'Not The Secret' });
    expect(await count(same)).toBe(await count(other));
    const [sameRows, otherRows] = [(await t.command(agent, 'party.history', { id: same })).body.value.rows, (await t.command(agent, 'party.history', { id: other })).body.value.rows];
    expect(Object.keys(sameRows[0].changes)).toEqual(Object.keys(otherRows[0].changes));
    expect(sameRows[0].changes.name.from).toBe(otherRows[0].changes.name.from);
    expect(sameRows[0].changes.name.to).not.toBe(secretToken);

    // By sending the shared token of the stored value too.
    const byToken = await holder();
    const tokenOfIt = (await agentReads(byToken)).name as string;
    await t.command(agent, 'party.update', { id: byToken, name: tokenOfIt });
    expect(await count(byToken)).toBe(2);

    const mcp = await connectClient(t, agent);
    try {
      const [a, b] = [await holder(), await holder()];
      await mcp.client.callTool({ name: 'party__update', arguments: { id: a, name: SECRET } });
      await mcp.client.callTool({ name: 'party__update', arguments: { id: b, name: 'Another Guess' } });
      const total = async (id: string) => ((await mcp.client.callTool({ name: 'party__history', arguments: { id } })).structuredContent as { value: { total: number } }).value.total;
      expect(await total(a)).toBe(await total(b));
    } finally {
      await mcp.close();
    }
  });

  it('a person re-saving a value leaves no entry, as before', async () => {
    const id = (await t.command(admin, 'party.create', { name: 'Resaved' })).body.value.id;
    await t.command(admin, 'party.update', { id, name: 'Resaved' });
    expect((await t.command(admin, 'party.history', { id })).body.value.total).toBe(1);
  });
});

describe('a personal field of another kind than text (a date)', () => {
  const DAY = '2031-12-24';
  let known: string;
  let dayToken: string;
  beforeAll(async () => {
    known = (await t.command(admin, 'lead.create', { title: 'Dated', close_date: DAY })).body.value.id;
    dayToken = (await t.command(agent, 'lead.get', { id: known })).body.value.close_date;
    expect(dayToken).toMatch(/^CLOSE_DATE_\d+$/);
  });

  it('answers a right and a wrong guess alike: each a new number, one after the other; reads keep them', async () => {
    const right = await t.command(agent, 'lead.create', { title: 'Right day', close_date: DAY });
    const wrong = await t.command(agent, 'lead.create', { title: 'Wrong day', close_date: '2031-12-25' });
    const [rightToken, wrongToken] = [right.body.value.close_date as string, wrong.body.value.close_date as string];
    expect(rightToken).not.toBe(dayToken);
    expect(numberOf(wrongToken)).toBe(numberOf(rightToken) + 1);
    expect((await t.command(agent, 'lead.get', { id: right.body.value.id })).body.value.close_date).toBe(rightToken);
    expect((await t.command(agent, 'lead.get', { id: known })).body.value.close_date).toBe(dayToken);
    // The stored value is the date, which a person sees.
    expect((await t.command(admin, 'lead.get', { id: right.body.value.id })).body.value.close_date).toBe(DAY);
  });

  it('cannot be compared, ordered or found by a guess; token_filter finds exactly what reads show that token', async () => {
    for (const input of [{ filter: [{ field: 'close_date', op: 'lte', value: DAY }] }, { order: [{ field: 'close_date' }] }]) {
      expect((await t.command(agent, 'lead.list', input)).body.error).toMatch(/^unknown field lead\.close_date: it is personal data/);
    }
    const guessed = (await t.command(agent, 'lead.create', { title: 'Guessed day', close_date: DAY })).body.value.id;
    const found = await t.command(agent, 'lead.list', { token_filter: [{ field: 'close_date', op: 'eq', value: dayToken }] });
    expect(found.status).toBe(200);
    const ids = found.body.value.map((row: { id: string }) => row.id);
    expect(ids).toContain(known);
    expect(ids).not.toContain(guessed);
    for (const row of found.body.value) expect(row.close_date).toBe(dayToken);
  });

  it('an update to the date a record holds and to another leave the same history, and the same reads', async () => {
    const [same, other] = [
      (await t.command(admin, 'lead.create', { title: 'Same day', close_date: DAY })).body.value.id,
      (await t.command(admin, 'lead.create', { title: 'Other day', close_date: DAY })).body.value.id,
    ];
    const a = await t.command(agent, 'lead.update', { id: same, close_date: DAY });
    const b = await t.command(agent, 'lead.update', { id: other, close_date: '2031-01-01' });
    expect(numberOf(b.body.value.close_date)).toBe(numberOf(a.body.value.close_date) + 1);
    const [sameRows, otherRows] = [(await t.command(agent, 'lead.history', { id: same })).body.value, (await t.command(agent, 'lead.history', { id: other })).body.value];
    expect(sameRows.total).toBe(otherRows.total);
    expect(sameRows.rows[0].changes.close_date).toEqual({ from: dayToken, to: a.body.value.close_date });
    expect(otherRows.rows[0].changes.close_date).toEqual({ from: dayToken, to: b.body.value.close_date });
    expect((await t.command(agent, 'lead.get', { id: same })).body.value.close_date).toBe(a.body.value.close_date);
    expect((await t.command(agent, 'lead.get', { id: other })).body.value.close_date).toBe(b.body.value.close_date);
  });

  it('a dry run of a right and a wrong guess answers the same', async () => {
    const right = await t.request('POST', '/api/lead/create?dry_run=true', { title: 'x', close_date: DAY }, agent);
    const wrong = await t.request('POST', '/api/lead/create?dry_run=true', { title: 'x', close_date: '2030-01-01' }, agent);
    expect(right.body.value.close_date).toBe(wrong.body.value.close_date);
    expect(right.body.value.close_date).not.toBe(dayToken);
  });
});

describe('a line\'s personal field', () => {
  const NOTE = 'Deliver to the back door';
  let customer: string;
  let known: Record<string, any>;
  let noteToken: string;
  let numbers = 7000;
  const line = (note: string | undefined, extra: Record<string, unknown> = {}) => ({ description: 'Crate', quantity: 1, unit_price: 100, ...(note === undefined ? {} : { note }), ...extra });
  const order = async (token: string, note: string) => {
    const res = await t.command(token, 'order.create', { number: `MG-${numbers++}`, customer, items: [line(note)] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.value as Record<string, any>;
  };
  const agentLines = async (id: string) => (await t.command(agent, 'order.get', { id })).body.value.items as Record<string, any>[];

  beforeAll(async () => {
    customer = (await t.command(admin, 'party.create', { name: 'Line Customer' })).body.value.id;
    known = await order(admin, NOTE);
    noteToken = (await agentLines(known.id))[0]!.note;
    expect(noteToken).toMatch(/^NOTE_\d+$/);
  });

  it('answers a right and a wrong guess in new lines alike: each a new number, one after the other; reads keep them', async () => {
    const res = await t.command(agent, 'order.create', { number: `MG-${numbers++}`, customer, items: [line(NOTE), line('Front door')] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [right, wrong] = res.body.value.items.map((item: { note: string }) => item.note);
    expect(right).not.toBe(noteToken);
    expect(numberOf(wrong)).toBe(numberOf(right) + 1);
    expect((await agentLines(res.body.value.id)).map((item) => item.note)).toEqual([right, wrong]);
    expect((await agentLines(known.id))[0]!.note).toBe(noteToken);
  });

  it('a kept line written with the value it holds and with another: the same answers, reads and history', async () => {
    const [same, other] = [await order(admin, NOTE), await order(admin, NOTE)];
    const a = await t.command(agent, 'order.update', { id: same.id, items: [{ id: same.items[0].id, note: NOTE }] });
    const b = await t.command(agent, 'order.update', { id: other.id, items: [{ id: other.items[0].id, note: 'Side door' }] });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const [aToken, bToken] = [a.body.value.items[0].note, b.body.value.items[0].note];
    expect(aToken).not.toBe(noteToken);
    expect(numberOf(bToken)).toBe(numberOf(aToken) + 1);
    // Later reads show each the token the agent was given, not the shared token of the value.
    expect((await agentLines(same.id))[0]!.note).toBe(aToken);
    expect((await agentLines(other.id))[0]!.note).toBe(bToken);
    const history = async (id: string) => (await t.command(agent, 'order.history', { id })).body.value;
    const [sameHistory, otherHistory] = [await history(same.id), await history(other.id)];
    expect(sameHistory.total).toBe(otherHistory.total);
    expect(sameHistory.rows[0].changes).toEqual({ items: { added: [], removed: [], changed: [{ id: same.items[0].id, changes: { note: { from: noteToken, to: aToken } } }] } });
    expect(otherHistory.rows[0].changes).toEqual({ items: { added: [], removed: [], changed: [{ id: other.items[0].id, changes: { note: { from: noteToken, to: bToken } } }] } });
  });

  it('the same when the write changes another field of the line too, and over MCP', async () => {
    const history = async (id: string) => (await t.command(agent, 'order.history', { id })).body.value;
    const cases = [
      { name: 'with a quantity changed', write: async (id: string, item: string, note: string) => (await t.command(agent, 'order.update', { id, items: [{ id: item, note, quantity: 2 }] })).body.value.items[0].note as string },
      {
        name: 'over MCP',
        write: async (id: string, item: string, note: string) => {
          const mcp = await connectClient(t, agent);
          try {
            const result = await mcp.client.callTool({ name: 'order__update', arguments: { id, items: [{ id: item, note }] } });
            return ((result.structuredContent as { value: { items: { note: string }[] } }).value.items[0]!.note);
          } finally {
            await mcp.close();
          }
        },
      },
    ];
    for (const { name, write } of cases) {
      const [same, other] = [await order(admin, NOTE), await order(admin, NOTE)];
      const aToken = await write(same.id, same.items[0].id, NOTE);
      const bToken = await write(other.id, other.items[0].id, 'Side door');
      expect(numberOf(bToken), name).toBe(numberOf(aToken) + 1);
      expect((await agentLines(same.id))[0]!.note, name).toBe(aToken);
      const [sameHistory, otherHistory] = [await history(same.id), await history(other.id)];
      expect(sameHistory.total, name).toBe(otherHistory.total);
      expect(sameHistory.rows[0].changes.items.changed[0].changes.note, name).toEqual({ from: noteToken, to: aToken });
      expect(otherHistory.rows[0].changes.items.changed[0].changes.note, name).toEqual({ from: noteToken, to: bToken });
    }
  });

  it('an entry lists the lines in their order and each line\'s fields in theirs, the kept value among the changed', async () => {
    const res = await t.command(admin, 'order.create', { number: `MG-${numbers++}`, customer, items: [line(NOTE), line(NOTE)] });
    const [first, second] = res.body.value.items as { id: string }[];
    const written = await t.command(agent, 'order.update', { id: res.body.value.id, items: [{ id: first!.id, note: NOTE, quantity: 2 }, { id: second!.id, quantity: 3 }] });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    const [entry] = (await t.command(agent, 'order.history', { id: res.body.value.id })).body.value.rows;
    expect(entry.changes.items.changed.map((changed: { id: string }) => changed.id)).toEqual([first!.id, second!.id]);
    expect(Object.keys(entry.changes.items.changed[0].changes)).toEqual(['quantity', 'note', 'amount']);
    expect(entry.changes.items.changed[0].changes.note).toEqual({ from: noteToken, to: written.body.value.items[0].note });
  });

  it('a person re-saving a line\'s value leaves no entry, as before', async () => {
    const saved = await order(admin, NOTE);
    const res = await t.command(admin, 'order.update', { id: saved.id, items: [{ id: saved.items[0].id, note: NOTE }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await t.command(admin, 'order.history', { id: saved.id })).body.value.total).toBe(1);
  });

  it('a dry run of a right and a wrong guess in a line answers the same, and keeps nothing', async () => {
    const right = await t.request('POST', '/api/order/update?dry_run=true', { id: known.id, items: [{ id: known.items[0].id, note: NOTE }] }, agent);
    const wrong = await t.request('POST', '/api/order/update?dry_run=true', { id: known.id, items: [{ id: known.items[0].id, note: 'Wrong door' }] }, agent);
    expect(right.status).toBe(200);
    expect(right.body.value.items[0].note).toBe(wrong.body.value.items[0].note);
    expect(right.body.value.items[0].note).not.toBe(noteToken);
    expect(storedTokenValues('Wrong door')).toBe(0);
    expect((await agentLines(known.id))[0]!.note).toBe(noteToken);
  });

  it('a token sent back in a line stores its value; a person changing the value ends the agent\'s token', async () => {
    const copy = await t.command(agent, 'order.create', { number: `MG-${numbers++}`, customer, items: [line(noteToken)] });
    expect(copy.body.value.items[0].note).toBe(noteToken);
    expect((await t.command(admin, 'order.get', { id: copy.body.value.id })).body.value.items[0].note).toBe(NOTE);
    const written = (await order(agent, 'Garage')).items[0];
    const id = (await t.command(admin, 'order.list', { filter: [{ field: 'items.note', op: 'eq', value: 'Garage' }] })).body.value[0].id;
    await t.command(admin, 'order.update', { id, items: [{ id: written.id, note: 'Porch' }] });
    expect((await agentLines(id))[0]!.note).not.toBe(written.note);
  });
});
