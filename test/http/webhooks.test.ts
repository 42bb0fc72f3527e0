/**
 * Events and webhooks over real HTTP (docs/integrations.md): the outbox's event per change, the
 * webhook commands (admin only, their refusals), and deliveries to a real local receiver that
 * checks the Standard Webhooks signatures — with masking per `as_role`, failures and retries on
 * a moved clock, redirects, secret rotation and redelivery. Runs on SQLite, and on PostgreSQL
 * under RMS_TEST_PG_URL.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let receiver: Receiver;
const clock = new TestClock();

beforeAll(async () => {
  t = await startTestServer({ clock, webhooks: { allowPrivate: true, worker: { idleMs: 20 } } });
  admin = await t.login();
  receiver = await startReceiver();
});

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

beforeEach(async () => {
  // Each test its own subscriptions, events and receiver answers.
  for (const webhook of (await hook('list', {})).body.value) await hook('delete', { id: webhook.id });
  receiver.answer = () => 200;
  receiver.received.length = 0;
});

const hook = (command: string, input: unknown, token = admin) => t.request('POST', `/api/webhook/${command}`, input, token);

async function createWebhook(input: Record<string, unknown>): Promise<{ id: string; secrets: string[] }> {
  const res = await hook('create', { url: receiver.url, as_role: 'admin', ...input });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

/**
 * Waits until the worker has noted the outcome of every request the receiver got (it notes an
 * attempt after its answer): only then may a test move the clock past the retry it scheduled.
 */
async function allNoted(webhookId: string): Promise<void> {
  const attempts = async () => ((await hook('deliveries', { id: webhookId })).body.value.rows as { attempts: number }[]).reduce((sum, row) => sum + row.attempts, 0);
  await expect.poll(attempts, { timeout: 10_000 }).toBe(receiver.received.length);
}

const events = (recordId: string) =>
  t.inspect((db) => db.prepare('select model, record_id, record_seq, command, actor, changes, change_id, batch_id from rms_events where record_id = ? order by record_seq').all(recordId)) as {
    model: string;
    record_id: string;
    record_seq: number;
    command: string;
    actor: string;
    changes: string;
    change_id: string | null;
    batch_id: string | null;
  }[];

describe('the outbox', () => {
  it('writes one event per record change, with its sequence, command, actor and changed fields', async () => {
    const created = await t.command(admin, 'lead.create', { title: 'Boiler', probability: 10 });
    const id = created.body.value.id;
    await t.command(admin, 'lead.update', { id, probability: 20, title: 'Boiler' });
    await t.command(admin, 'lead.update', { id, probability: 20 });
    await t.command(admin, 'lead.qualify', { id });
    await t.command(admin, 'lead.delete', { id });
    const rows = events(id);
    expect(rows.map((row) => [row.record_seq, row.command, JSON.parse(row.changes)])).toEqual([
      [1, 'lead.create', expect.arrayContaining(['title', 'probability', 'stage'])],
      [2, 'lead.update', ['probability']],
      // An update that changed nothing has no history entry and no event.
      [3, 'lead.qualify', ['stage']],
      [4, 'lead.delete', expect.arrayContaining(['title', 'probability', 'stage'])],
    ]);
    expect(JSON.parse(rows[0]!.actor)).toEqual({ kind: 'person', username: 'admin', agent_label: null, plan_id: null });
    for (const row of rows) expect(row.change_id).toMatch(/^[0-9A-Z]{26}$/);
  });

  it('writes an event per record of a bulk command, with its batch id', async () => {
    const res = await t.command(admin, 'lead.create_many', { records: [{ title: 'A' }, { title: 'B' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids: string[] = res.body.value.ids;
    const update = await t.command(admin, 'lead.update_many', { ids, set: { probability: 50 }, max_affected: 2 });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    for (const id of ids) {
      const rows = events(id);
      expect(rows.map((row) => [row.record_seq, row.command, JSON.parse(row.changes)])).toEqual([
        [1, 'lead.create_many', expect.arrayContaining(['title'])],
        [2, 'lead.update_many', ['probability']],
      ]);
      expect(rows[0]!.batch_id).toBe(res.body.value.batch_id);
      expect(rows[1]!.batch_id).toBe(update.body.value.batch_id);
    }
  });

  it("stores each change's event with its history entry, named by it; a refused event or entry leaves neither, nor the change", async () => {
    // Events of a change of `lost_reason`, and history entries holding "kaboom", cannot be stored.
    await t.execute({
      sqlite: `create trigger fail_event before insert on rms_events when new.changes like '%lost_reason%' begin select raise(abort, 'event refused'); end;
        create trigger fail_entry before insert on rms_history when new.changes like '%kaboom%' begin select raise(abort, 'entry refused'); end;`,
      postgres: `create function fail_change() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$;
        create trigger fail_event before insert on rms_events for each row when (new.changes like '%lost_reason%') execute function fail_change();
        create trigger fail_entry before insert on rms_history for each row when (new.changes like '%kaboom%') execute function fail_change();`,
    });
    try {
      const created = await t.command(admin, 'lead.create', { title: 'Paired' });
      const id = created.body.value.id;
      const cases: { input: Record<string, unknown>; status: number }[] = [
        { input: { probability: 30 }, status: 200 },
        { input: { lost_reason: 'price' }, status: 500 },
        { input: { notes: 'kaboom' }, status: 500 },
        { input: { title: 'Paired again' }, status: 200 },
      ];
      for (const { input, status } of cases) expect((await t.command(admin, 'lead.update', { id, ...input })).status, JSON.stringify(input)).toBe(status);
      const refusedCreate = await t.command(admin, 'lead.create', { title: 'Never', lost_reason: 'price' });
      expect(refusedCreate.status).toBe(500);
      const entries = t.inspect((db) => db.prepare('select id, changes from rms_history where record_id = ? order by id').all(id)) as { id: string; changes: string }[];
      expect(entries.map((entry) => Object.keys(JSON.parse(entry.changes)))).toEqual([expect.arrayContaining(['title', 'stage']), ['probability'], ['title']]);
      expect(events(id).map((row) => [row.record_seq, row.change_id, JSON.parse(row.changes)])).toEqual([
        [1, entries[0]!.id, expect.arrayContaining(['title', 'stage'])],
        [2, entries[1]!.id, ['probability']],
        [3, entries[2]!.id, ['title']],
      ]);
      expect(t.inspect((db) => db.prepare('select title, probability, notes, lost_reason from lead where id = ?').get(id))).toEqual({ title: 'Paired again', probability: 30, notes: null, lost_reason: null });
      expect(t.inspect((db) => Number((db.prepare("select count(*) as n from lead where title = 'Never'").get() as { n: number | string }).n))).toBe(0);
    } finally {
      await t.execute({ sqlite: 'drop trigger fail_event; drop trigger fail_entry;', postgres: 'drop trigger fail_event on rms_events; drop trigger fail_entry on rms_history; drop function fail_change();' });
    }
  });

  it('leaves no event of a write that was rolled back', async () => {
    const before = t.inspect((db) => (db.prepare('select count(*) as n from rms_events').get() as { n: number }).n);
    // The second record refers to a party that does not exist: the bulk command's transaction, with the first record, is rolled back.
    const res = await t.command(admin, 'lead.create_many', { records: [{ title: 'kept?' }, { title: 'bad ref', party: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/records\[1\]/);
    const one = await t.command(admin, 'lead.create', { title: 'bad', party: '01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    expect(one.status).toBe(400);
    expect(t.inspect((db) => (db.prepare('select count(*) as n from rms_events').get() as { n: number }).n)).toBe(before);
  });

  it("names an approved plan's agent and plan", async () => {
    const created = await t.command(admin, 'lead.create', { title: 'To go' });
    const agent = await agentToken(t, admin, ['lead.*']);
    const proposed = await t.command(agent, 'lead.delete', { id: created.body.value.id });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    const approved = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, {}, admin);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const rows = events(created.body.value.id);
    expect(rows.map((row) => row.command)).toEqual(['lead.create', 'lead.delete']);
    expect(JSON.parse(rows[1]!.actor)).toEqual({ kind: 'agent', username: 'admin', agent_label: expect.any(String), plan_id: proposed.body.plan_id });
  });
  it("writes an event per record of an agent's bulk command once a person approves its plan", async () => {
    const made = await t.command(admin, 'lead.create_many', { records: [{ title: 'Bulk A' }, { title: 'Bulk B' }] });
    const ids: string[] = made.body.value.ids;
    const agent = await agentToken(t, admin, ['lead.*'], 'bulk agent');
    const proposed = await t.command(agent, 'lead.delete_many', { ids, max_affected: 2 });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    for (const id of ids) expect(events(id).map((row) => row.command)).toEqual(['lead.create_many']);
    const approved = await t.request('POST', `/api/approve/${proposed.body.plan_id}`, {}, admin);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    for (const id of ids) {
      const rows = events(id);
      expect(rows.map((row) => [row.record_seq, row.command])).toEqual([
        [1, 'lead.create_many'],
        [2, 'lead.delete_many'],
      ]);
      expect(JSON.parse(rows[1]!.actor)).toEqual({ kind: 'agent', username: 'admin', agent_label: 'bulk agent', plan_id: proposed.body.plan_id });
    }
  });
});

describe('the outbox and erasure', () => {
  it('writes the events of a revert and of an erasure, and the erasure takes the personal values out of the record’s events', async () => {
    const party = await t.command(admin, 'party.create', { name: 'Grace Hopper', email: 'grace@example.com' });
    const id = party.body.value.id;
    await t.command(admin, 'party.update', { id, email: 'hopper@example.com' });
    const [change] = (await t.command(admin, 'party.history', { id })).body.value.rows;
    expect((await t.command(admin, 'party.revert', { id, change_id: change.change_id })).status).toBe(200);
    const webhook = await createWebhook({ models: ['party'] });
    receiver.answer = () => 500;
    await t.command(admin, 'party.update', { id, phone: '+1 555 0100' });
    await receiver.waitFor(1);
    await allNoted(webhook.id);
    const erased = await t.command(admin, 'party.erase', { id });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const rows = t.inspect((db) => db.prepare('select record_seq, command, changes, record from rms_events where record_id = ? order by record_seq').all(id)) as { record_seq: number; command: string; changes: string; record: string }[];
    expect(rows.map((row) => [row.record_seq, row.command])).toEqual([
      [1, 'party.create'],
      [2, 'party.update'],
      [3, 'party.revert'],
      [4, 'party.update'],
      [5, 'party.erase'],
    ]);
    expect(JSON.parse(rows[4]!.changes)).toEqual(['name', 'email', 'phone']);
    // Events no webhook was sent keep no record; the others keep it without the erased values.
    expect(rows.map((row) => row.record !== null)).toEqual([false, false, false, true, true]);
    for (const row of rows) {
      expect(row.record ?? '').not.toContain('Grace');
      expect(row.record ?? '').not.toContain('example.com');
      expect(row.record ?? '').not.toContain('555');
    }
    expect(JSON.parse(rows[3]!.record)).toMatchObject({ id, name: { erased: true }, email: { erased: true }, phone: { erased: true } });
    // What was waiting is sent as it is now: without the values.
    receiver.answer = () => 200;
    clock.advance(60_000);
    await receiver.waitFor(3);
    const sent = receiver.received.slice(1);
    expect(sent.map((request) => request.json.type)).toEqual(['party.update', 'party.erase']);
    for (const request of sent) expect(request.body).not.toMatch(/Grace|example\.com|555/);
    expect(sent[1]!.json.record).toMatchObject({ id, name: '[erased]', email: null, phone: null });
    expect(receiver.verifies(sent[1]!, webhook.secrets[0]!)).toBe(true);
  });
});

describe('delivery', () => {
  it('sends each event signed, in the order of its record, as the role sees the record', async () => {
    const asSales = await createWebhook({ as_role: 'sales', models: ['party'] });
    const asAccountant = await createWebhook({ as_role: 'accountant', models: ['party'] });
    expect(asSales.secrets).toHaveLength(1);
    expect(asSales.secrets[0]).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const party = await t.command(admin, 'party.create', { name: 'Ada Lovelace', email: 'ada@example.com', tax_id: 'GB-1' });
    const id = party.body.value.id;
    await t.command(admin, 'party.update', { id, phone: '+44 20 1234' });
    await receiver.waitFor(4);
    const bySecret = (secret: string) => receiver.received.filter((request) => receiver.verifies(request, secret));
    const sales = bySecret(asSales.secrets[0]!);
    const accountant = bySecret(asAccountant.secrets[0]!);
    expect(sales).toHaveLength(2);
    expect(accountant).toHaveLength(2);
    expect(sales.map((request) => request.json.type)).toEqual(['party.create', 'party.update']);
    const [createdEvent, updated] = sales;
    expect(Object.keys(createdEvent!.json)).toEqual(['id', 'type', 'at', 'record_id', 'actor', 'changes', 'record']);
    expect(createdEvent!.headers['webhook-id']).toBe(createdEvent!.json.id);
    expect(createdEvent!.json.record_id).toBe(id);
    expect(createdEvent!.json.at).toBe(new Date(clock.now()).toISOString());
    // sales does not read tax_id: absent from the record and from the changes.
    expect(createdEvent!.json.record).toEqual({ id, name: 'Ada Lovelace', email: 'ada@example.com', phone: null, kind: null, notes: null });
    expect(createdEvent!.json.changes).not.toContain('tax_id');
    expect(updated!.json.changes).toEqual(['phone']);
    expect(updated!.json.record.phone).toBe('+44 20 1234');
    expect(accountant[0]!.json.record.tax_id).toBe('GB-1');
    expect(accountant[0]!.json.changes).toContain('tax_id');
  });

  it("a receiver slow to answer holds only its own deliveries, not the record's next events to the other webhooks", async () => {
    const slow = await startReceiver();
    try {
      slow.hold = ({ index }) => (index === 0 ? 4_000 : 0);
      await createWebhook({ url: slow.url, models: ['lead'] });
      await createWebhook({ models: ['lead'] });
      const lead = await t.command(admin, 'lead.create', { title: 'Held elsewhere' });
      await slow.waitFor(1);
      await receiver.waitFor(1);
      const updatedAt = Date.now();
      await t.command(admin, 'lead.update', { id: lead.body.value.id, hot: true });
      // The other webhook gets the update while the slow receiver still holds the create (4 s).
      await receiver.waitFor(2, 3_000);
      expect(receiver.received[1]!.receivedAt - updatedAt).toBeLessThan(3_000);
      expect(slow.received).toHaveLength(1);
      expect(receiver.received.map((request) => request.json.type)).toEqual(['lead.create', 'lead.update']);
      // The slow one's order holds: its update comes after its create is answered.
      await slow.waitFor(2, 15_000);
      expect(slow.received.map((request) => request.json.type)).toEqual(['lead.create', 'lead.update']);
      expect(slow.received[1]!.receivedAt - slow.received[0]!.receivedAt).toBeGreaterThanOrEqual(4_000);
    } finally {
      await slow.close();
    }
  });

  it('shapes what it sends by the role the webhook has when it sends it', async () => {
    const webhook = await createWebhook({ as_role: 'admin', models: ['party'] });
    receiver.answer = () => 500;
    const party = await t.command(admin, 'party.create', { name: 'Role change', tax_id: 'RC-1' });
    await receiver.waitFor(1);
    await allNoted(webhook.id);
    expect(receiver.received[0]!.json.record.tax_id).toBe('RC-1');
    expect((await hook('update', { id: webhook.id, as_role: 'sales' })).status).toBe(200);
    receiver.answer = () => 200;
    clock.advance(60_000);
    await receiver.waitFor(2);
    const [first, second] = receiver.received;
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.json.record).not.toHaveProperty('tax_id');
    expect(second!.json.changes).not.toContain('tax_id');
    expect(second!.json.record.id).toBe(party.body.value.id);
  });

  it('drops, unsent, a waiting delivery the webhook no longer takes: a change of nothing its new role reads, a model it left out', async () => {
    const webhook = await createWebhook({ as_role: 'admin', models: ['party', 'lead'] });
    receiver.answer = () => 503;
    const party = await t.command(admin, 'party.create', { name: 'Dropped role' });
    await t.command(admin, 'party.update', { id: party.body.value.id, tax_id: 'DR-1' });
    const lead = await t.command(admin, 'lead.create', { title: 'Dropped model' });
    await receiver.waitFor(2);
    await allNoted(webhook.id);
    const waiting = (await hook('deliveries', { id: webhook.id })).body.value.rows as { event_id: string; status: string }[];
    expect(waiting).toHaveLength(3);
    // Sales reads no tax_id; and parties only from now on.
    expect((await hook('update', { id: webhook.id, as_role: 'sales', models: ['party'] })).status).toBe(200);
    receiver.answer = () => 204;
    receiver.received.length = 0;
    clock.advance(60_000);
    await receiver.waitFor(1);
    await expect.poll(async () => (await hook('deliveries', { id: webhook.id })).body.value.total, { timeout: 10_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received.map((request) => [request.json.type, request.json.changes])).toEqual([['party.create', expect.not.arrayContaining(['tax_id'])]]);
    const [left] = (await hook('deliveries', { id: webhook.id })).body.value.rows;
    expect(left).toMatchObject({ status: 'delivered' });
    expect(lead.status).toBe(200);
  });

  it('does not send a change of nothing the role reads', async () => {
    const party = await t.command(admin, 'party.create', { name: 'Quiet' });
    const webhook = await createWebhook({ as_role: 'sales', models: ['party'] });
    await t.command(admin, 'party.update', { id: party.body.value.id, tax_id: 'X-2' });
    await t.command(admin, 'party.update', { id: party.body.value.id, kind: 'company' });
    await receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received.map((request) => request.json.changes)).toEqual([['kind']]);
    expect(receiver.verifies(receiver.received[0]!, webhook.secrets[0]!)).toBe(true);
  });

  it('retries a receiver that fails with backoff, keeps the record’s order, and dies after 24 h', async () => {
    const webhook = await createWebhook({ models: ['lead'] });
    receiver.answer = ({ index }) => (index < 2 ? 500 : 200);
    const lead = await t.command(admin, 'lead.create', { title: 'Retry me' });
    const id = lead.body.value.id;
    await t.command(admin, 'lead.update', { id, probability: 5 });
    await receiver.waitFor(1);
    await allNoted(webhook.id);
    // The update waits for the create: nothing else is sent while it is being retried.
    expect(receiver.received.map((request) => [request.json.type, request.status])).toEqual([['lead.create', 500]]);
    let deliveries = (await hook('deliveries', { id: webhook.id })).body.value;
    const create = deliveries.rows.find((row: { type: string }) => row.type === 'lead.create');
    expect(create).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'answered 500' });
    expect(Date.parse(create.next_attempt_at) - clock.now()).toBeGreaterThanOrEqual(2_500);
    clock.advance(10_000);
    await receiver.waitFor(2);
    await allNoted(webhook.id);
    clock.advance(20_000);
    await receiver.waitFor(4);
    expect(receiver.received.map((request) => [request.json.type, request.status])).toEqual([
      ['lead.create', 500],
      ['lead.create', 500],
      ['lead.create', 200],
      ['lead.update', 200],
    ]);
    // Every attempt of one event has the same id.
    expect(new Set(receiver.received.slice(0, 3).map((request) => request.headers['webhook-id'])).size).toBe(1);
    deliveries = (await hook('deliveries', { id: webhook.id })).body.value;
    expect(deliveries.rows.map((row: { type: string; status: string; attempts: number }) => [row.type, row.status, row.attempts])).toEqual([
      ['lead.update', 'delivered', 1],
      ['lead.create', 'delivered', 3],
    ]);

    // A receiver that never succeeds: retried until 24 h have passed, then dead; then redelivered.
    receiver.answer = () => 503;
    await t.command(admin, 'lead.update', { id, probability: 6 });
    await receiver.waitFor(5);
    for (let hours = 0; hours < 26; hours++) {
      clock.advance(60 * 60 * 1000);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    // A day on, the session has expired.
    admin = await t.login();
    await expect.poll(async () => (await hook('deliveries', { id: webhook.id, status: 'dead' })).body.value.total, { timeout: 5_000 }).toBe(1);
    const dead = (await hook('deliveries', { id: webhook.id, status: 'dead' })).body.value.rows[0];
    expect(dead).toMatchObject({ type: 'lead.update', last_status: 503, last_error: 'answered 503', next_attempt_at: null });
    receiver.answer = () => 200;
    const count = receiver.received.length;
    const redelivered = await hook('redeliver', { id: webhook.id, dead: true });
    expect(redelivered.status).toBe(200);
    expect(redelivered.body).toEqual({ denied: [], value: { redelivered: 1 } });
    await receiver.waitFor(count + 1);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(dead.event_id);
    await expect.poll(async () => (await hook('deliveries', { id: webhook.id, event_id: dead.event_id })).body.value.rows[0].status).toBe('delivered');
  });

  it('redelivers one event, delivered or not, with its id', async () => {
    const webhook = await createWebhook({ models: ['lead'] });
    await t.command(admin, 'lead.create', { title: 'Once more' });
    await receiver.waitFor(1);
    await allNoted(webhook.id);
    const [first] = receiver.received;
    const res = await hook('redeliver', { id: webhook.id, event_id: first!.json.id });
    expect(res.body).toEqual({ denied: [], value: { redelivered: 1 } });
    await receiver.waitFor(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(first!.json.id);
    expect(receiver.received[1]!.json).toEqual(first!.json);
    await expect.poll(async () => (await hook('deliveries', { id: webhook.id })).body.value.rows[0]).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200 });
  });

  it('does not follow a redirect: a 3xx is a failure', async () => {
    const webhook = await createWebhook({ models: ['lead'] });
    receiver.answer = () => 302;
    await t.command(admin, 'lead.create', { title: 'Moved' });
    await receiver.waitFor(1);
    await expect
      .poll(async () => (await hook('deliveries', { id: webhook.id })).body.value.rows[0])
      .toMatchObject({ status: 'pending', attempts: 1, last_status: 302, last_error: 'answered 302: redirects are not followed' });
    expect(receiver.received).toHaveLength(1);
  });

  it('signs with both secrets while they are rotated', async () => {
    const secrets = ['whsec_' + Buffer.alloc(32, 1).toString('base64'), 'whsec_' + Buffer.alloc(24, 2).toString('base64')];
    const webhook = await createWebhook({ models: ['lead'], secrets });
    expect(webhook.secrets).toEqual(secrets);
    await t.command(admin, 'lead.create', { title: 'Rotated' });
    await receiver.waitFor(1);
    const [request] = receiver.received;
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(receiver.verifies(request!, secrets[0]!)).toBe(true);
    expect(receiver.verifies(request!, secrets[1]!)).toBe(true);
    expect(receiver.verifies(request!, 'whsec_' + Buffer.alloc(32, 3).toString('base64'))).toBe(false);
    // The old one goes: only the new one signs.
    expect((await hook('update', { id: webhook.id, secret: secrets[1] })).body.value.secret_count).toBe(1);
    await t.command(admin, 'lead.create', { title: 'Rotated again' });
    await receiver.waitFor(2);
    expect(receiver.verifies(receiver.received[1]!, secrets[0]!)).toBe(false);
    expect(receiver.verifies(receiver.received[1]!, secrets[1]!)).toBe(true);
  });
});

describe('the webhook commands', () => {
  it('never show a secret after create, and are audited without it', async () => {
    const secret = 'whsec_' + Buffer.alloc(40, 7).toString('base64');
    const webhook = await createWebhook({ secret, models: ['lead'], commands: ['create', 'qualify'] });
    const got = await hook('get', { id: webhook.id });
    expect(got.status).toBe(200);
    expect(got.body.value).toEqual({
      id: webhook.id,
      url: receiver.url,
      models: ['lead'],
      commands: ['create', 'qualify'],
      as_role: 'admin',
      secret_count: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      created_by: 'admin',
    });
    expect(JSON.stringify((await hook('list', {})).body)).not.toContain(secret.slice(6));
    const audit = t.inspect((db) => db.prepare("select input from rms_audit where command = 'webhook.create'").all()) as { input: string }[];
    for (const row of audit) expect(row.input).not.toContain(secret.slice(6));
  });

  it('audit a refused call without the secrets it carried, whatever their shape or key', async () => {
    const secret = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    const webhook = await createWebhook({});
    const refusedCount = () => Number((t.inspect((db) => db.prepare("select count(*) as n from rms_audit where command in ('webhook.create', 'webhook.update') and outcome = 'refused'").get()) as { n: number }).n);
    const before = refusedCount();
    const refusals: [string, Record<string, unknown>][] = [
      ['create', { url: receiver.url, as_role: 'admin', secrets: secret }],
      ['create', { url: receiver.url, as_role: 'admin', secrets: { new: secret } }],
      ['create', { url: receiver.url, as_role: 'admin', Secret: secret }],
      ['create', { url: receiver.url, as_role: 'admin', secrets: [[secret]] }],
      ['update', { id: webhook.id, secrets: secret }],
      ['update', { id: webhook.id, secrets: { old: secret, new: secret } }],
      ['update', { id: webhook.id, signing_secret: secret }],
      ['update', { id: webhook.id, notes: `the key is ${secret}` }],
      // A secret pasted where a name goes: the refusal names what was given.
      ['create', { url: receiver.url, as_role: 'admin', models: [secret] }],
      ['create', { url: receiver.url, as_role: secret }],
      ['create', { url: receiver.url, as_role: 'admin', commands: [secret] }],
      ['create', { url: receiver.url, as_role: 'admin', [secret]: 1 }],
    ];
    for (const [command, input] of refusals) expect((await hook(command, input)).status, JSON.stringify(Object.keys(input))).toBe(400);
    expect(refusedCount()).toBe(before + refusals.length);
    const rows = t.inspect((db) => db.prepare("select input, error from rms_audit where command like 'webhook.%'").all()) as { input: string | null; error: string | null }[];
    for (const row of rows) expect(row.input ?? '').not.toContain(secret.slice(6, 20));
    for (const row of rows) expect(row.error ?? '').not.toContain(secret.slice(6, 20));
    expect(rows.filter((row) => (row.error ?? '').includes('[secret]')).length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((row) => (row.input ?? '').includes('the key is [secret]'))).toHaveLength(1);
  });

  it('are only for admin: 404 for other people and for agents, and only admin’s /api/meta lists them', async () => {
    const sales = await t.addPerson('hooks-sales', ['sales']);
    const agent = await agentToken(t, admin, ['*.*']);
    for (const token of [sales, agent]) {
      const res = await hook('list', {}, token);
      expect(res.status).toBe(404);
    }
    expect((await t.request('GET', '/api/meta', undefined, admin)).body.service_commands).toEqual([
      'webhook.create',
      'webhook.list',
      'webhook.get',
      'webhook.update',
      'webhook.delete',
      'webhook.deliveries',
      'webhook.redeliver',
    ]);
    expect((await t.request('GET', '/api/meta', undefined, sales)).body).not.toHaveProperty('service_commands');
    expect((await t.request('GET', '/api/meta', undefined, agent)).body).not.toHaveProperty('service_commands');
    expect((await hook('nothing', {})).status).toBe(404);
  });

  it.each([
    [{ as_role: 'admin' }, 'url is required: the http or https URL events are sent to'],
    [{ url: 'ftp://example.com/x', as_role: 'admin' }, 'url must be an http or https URL, not ftp'],
    [{ url: 'not-a-url', as_role: 'admin' }, 'url must be an absolute http or https URL'],
    [{ url: 'http://u:p@127.0.0.1/x', as_role: 'admin' }, 'url must not carry a user name or password (the secret signs each request)'],
    [{ url: 'http://127.0.0.1/x' }, 'as_role is required: the role whose field rights shape what is sent'],
    [{ url: 'http://127.0.0.1/x', as_role: 'boss' }, /^as_role: no role named boss/],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', models: ['lead', 'nope'] }, 'models[1]: no model named nope'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', models: [] }, 'models must name at least one (leave it out, or null, for all)'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', models: ['party'], commands: ['qualify'] }, 'commands[0]: no model of party has a command qualify that changes records'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', commands: ['get'] }, 'commands[0]: no model has a command get that changes records'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', secret: 'abc' }, /^secret must start with whsec_/],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', secret: 'whsec_' + Buffer.alloc(23).toString('base64') }, 'secret must hold 24 to 64 bytes, not 23'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', secret: 'whsec_' + Buffer.alloc(65).toString('base64') }, 'secret must hold 24 to 64 bytes, not 65'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', secret: 'whsec_!!!!' }, 'secret must be whsec_ followed by base64'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', secrets: [] }, 'secrets must be a list of one or two secrets (the old and the new while rotating)'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', secrets: ['whsec_' + Buffer.alloc(24).toString('base64'), 'x'] }, /^secrets\[1\] must start with whsec_/],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', secret: 'whsec_' + Buffer.alloc(24).toString('base64'), secrets: [] }, 'give secret or secrets, not both'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', colour: 'red' }, /^webhook.create takes no colour/],
    [{ url: 5, as_role: 'admin' }, 'url must be a string: the http or https URL events are sent to'],
    [{ url: ['http://127.0.0.1/x'], as_role: 'admin' }, 'url must be a string: the http or https URL events are sent to'],
    [{ url: 'http://127.0.0.1/x', as_role: { name: 'admin' } }, 'as_role must be a string: the role whose field rights shape what is sent'],
    [{ url: ' http://127.0.0.1/x', as_role: 'admin' }, 'url must not contain spaces, backslashes or control characters (percent-encode them)'],
    [{ url: `http://127.0.0.1/${'x'.repeat(2100)}`, as_role: 'admin' }, 'url must be at most 2048 characters'],
    [{ url: 'http:127.0.0.1/x', as_role: 'admin' }, 'url must be an absolute http or https URL (http://host/…)'],
    [{ url: 'http://127.0.0.1/x', as_role: 'admin', secrets: ['whsec_' + Buffer.alloc(32, 7).toString('base64'), 'whsec_' + Buffer.alloc(32, 7).toString('base64').replace(/=$/, '') + '='] }, 'secrets[1] is the same as secrets[0]'],
  ])('create refuses %j: 400 naming the field, nothing stored', async (input, error) => {
    const before = (await hook('list', {})).body.value.length;
    const res = await hook('create', input);
    expect(res.status).toBe(400);
    if (typeof error === 'string') expect(res.body).toEqual({ error });
    else expect(res.body.error).toMatch(error);
    expect((await hook('list', {})).body.value).toHaveLength(before);
  });

  it('store a URL in its normal form, and refuse a secret spelled twice with the same bytes', async () => {
    const url = receiver.url.replace('http://', 'HTTP://');
    const webhook = await createWebhook({ url: `${url}/../hook` });
    expect((await hook('get', { id: webhook.id })).body.value.url).toBe(new URL(receiver.url).href);
    // The same 32 bytes, the second spelled with a last base64 digit that decodes the same.
    const same = Buffer.alloc(32, 7).toString('base64');
    const respelled = same.slice(0, -2) + String.fromCharCode(same.charCodeAt(same.length - 2) + 1) + '=';
    expect(Buffer.from(respelled, 'base64')).toEqual(Buffer.from(same, 'base64'));
    const res = await hook('update', { id: webhook.id, secrets: [`whsec_${same}`, `whsec_${respelled}`] });
    expect(res.body).toEqual({ error: 'secrets[1] is the same as secrets[0]' });
  });

  it("update: the webhook's own commands must still be of the models it is given, and an update must change something", async () => {
    const webhook = await createWebhook({ models: ['lead'], commands: ['qualify'] });
    const before = (await hook('get', { id: webhook.id })).body.value;
    expect((await hook('update', { id: webhook.id, models: ['party'] })).body).toEqual({
      error: "the webhook's commands[0]: no model of party has a command qualify that changes records (give commands with the models)",
    });
    expect((await hook('update', { id: webhook.id })).body).toEqual({ error: 'webhook.update has nothing to change: give one or more of url, models, commands, as_role, secret, secrets, rotate' });
    expect((await hook('get', { id: webhook.id })).body.value).toEqual(before);
    // With commands of the new models, or all commands, it changes.
    expect((await hook('update', { id: webhook.id, models: ['party'], commands: ['create'] })).body.value).toMatchObject({ models: ['party'], commands: ['create'] });
    expect((await hook('update', { id: webhook.id, models: ['lead'], commands: null })).body.value).toMatchObject({ models: ['lead'], commands: null });
  });

  it('refuse unknown webhooks and bad redeliveries', async () => {
    expect((await hook('get', { id: 'nope' })).body).toEqual({ error: 'webhook nope not found' });
    const webhook = await createWebhook({});
    expect((await hook('redeliver', { id: webhook.id })).body).toEqual({ error: 'webhook.redeliver takes event_id (one event) or dead: true (every dead one)' });
    expect((await hook('redeliver', { id: webhook.id, event_id: 'E1' })).body).toEqual({ error: `webhook.redeliver event_id: no event E1 was sent to webhook ${webhook.id}` });
    expect((await hook('deliveries', { id: webhook.id, status: 'lost' })).body).toEqual({ error: 'webhook.deliveries status must be pending, delivered or dead' });
    expect((await hook('delete', { id: webhook.id })).body).toEqual({ denied: [], value: { id: webhook.id } });
    expect((await hook('get', { id: webhook.id })).status).toBe(400);
  });
});

describe('without --allow-private-webhooks', () => {
  let strict: TestServer;
  let strictAdmin: string;
  beforeAll(async () => {
    strict = await startTestServer({ webhooks: { worker: false } });
    strictAdmin = await strict.login();
  });
  afterAll(async () => {
    await strict?.close();
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://127.1/hook',
    'http://2130706433/hook',
    'http://0x7f000001/hook',
    'http://localhost/hook',
    'http://0.0.0.0/hook',
    'http://10.1.2.3/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/hook',
    'http://[::1]/hook',
    'http://[::]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:7f00:1]/hook',
    'http://[::ffff:10.0.0.1]/hook',
    'http://[64:ff9b::a00:1]/hook',
    'http://[2002:c0a8:101::1]/hook',
    'http://[fc00::1]/hook',
    'http://[fd12:3456::1]/hook',
    'http://[fe80::1]/hook',
    'https://[ff02::1]/hook',
  ])('refuses %s', async (url) => {
    const res = await strict.request('POST', '/api/webhook/create', { url, as_role: 'admin' }, strictAdmin);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^url: .* is a loopback, private or reserved address, which webhooks may not reach \(serve --allow-private-webhooks allows it\)$/);
  });

  it('accepts a public address, and refuses an update to a private one', async () => {
    const res = await strict.request('POST', '/api/webhook/create', { url: 'https://93.184.215.14/hook', as_role: 'admin' }, strictAdmin);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const update = await strict.request('POST', '/api/webhook/update', { id: res.body.value.id, url: 'http://[::ffff:192.168.0.1]/' }, strictAdmin);
    expect(update.status).toBe(400);
    expect((await strict.request('POST', '/api/webhook/get', { id: res.body.value.id }, strictAdmin)).body.value.url).toBe('https://93.184.215.14/hook');
  });
});

describe('rotating a secret the caller cannot give back (rotate)', () => {
  it('adds a new secret answered once, both sign, then drops the old one; refuses what does not fit', async () => {
    const made = await createWebhook({ models: ['lead'] });
    const added = await hook('update', { id: made.id, rotate: 'add' });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const fresh = added.body.value.new_secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(added.body.value.secret_count).toBe(2);
    // Answered once: get and list never show it.
    expect(JSON.stringify((await hook('get', { id: made.id })).body)).not.toContain(fresh);
    await t.command(admin, 'lead.create', { title: 'Rotated' });
    await receiver.waitFor(1);
    expect(receiver.verifies(receiver.received[0]!, made.secrets[0]!)).toBe(true);
    expect(receiver.verifies(receiver.received[0]!, fresh)).toBe(true);
    for (const [input, status, error] of [
      [{ rotate: 'add' }, 400, 'rotate: add needs one secret, and the webhook has two: drop the old one first (rotate: drop_old)'],
      [{ rotate: 'again' }, 400, 'rotate must be add (a new secret besides the current one) or drop_old (keep only the newer one)'],
      [{ rotate: 'drop_old', secret: fresh }, 400, 'webhook.update takes rotate or secret(s), not both'],
    ] as const) {
      const refused = await hook('update', { id: made.id, ...input });
      expect([refused.status, refused.body.error]).toEqual([status, error]);
    }
    expect((await hook('update', { id: made.id, rotate: 'drop_old' })).body.value.secret_count).toBe(1);
    expect((await hook('update', { id: made.id, rotate: 'drop_old' })).body.error).toBe('rotate: drop_old needs two secrets, and the webhook has one');
    await t.command(admin, 'lead.create', { title: 'Rotated again' });
    await receiver.waitFor(2);
    expect(receiver.verifies(receiver.received[1]!, fresh)).toBe(true);
    expect(receiver.verifies(receiver.received[1]!, made.secrets[0]!)).toBe(false);
  });
});
