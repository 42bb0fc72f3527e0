/**
 * The outbox's retention through the real server (runtime/webhooks/prune.ts), on SQLite and (under
 * RMS_TEST_PG_URL) PostgreSQL: events and deliveries are made by real requests and sent by the
 * server's own worker to real receivers (one that accepts, one that fails: its deliveries die on
 * their first failure here), turn by turn; then the server's clock (a TestClock) is moved across
 * the windows and a pass is run, and the rows left in `rms_events` and `rms_webhook_deliveries` are
 * checked exactly. An event goes when no delivery of it is left (none wanted it; its deliveries went
 * out of their windows; its subscription was deleted), never while one is pending, and a record's
 * last event stays (its sequence continues from it) without its copy of the record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, type RetentionPolicy } from '../../runtime/retention/policy.ts';
import type { PassOutcome } from '../../runtime/retention/pruner.ts';
import { TestClock } from '../helpers/clock.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

// Only the outbox's windows: everything else kept (sessions, which every pass ends, aside).
const POLICY: RetentionPolicy = { auditMs: 0, auditReadsMs: 0, historyMs: 0, agentMs: 0, eventsMs: 7 * DAY_MS, deadEventsMs: 30 * DAY_MS, everyMs: 60 * 60_000 };

let t: TestServer;
let accepting: Receiver;
let failing: Receiver;
const clock = new TestClock(Date.parse('2026-03-02T10:00:00.000Z'));
let admin: string;

beforeAll(async () => {
  // The worker sleeps between turns the test runs itself; a failure is final at once (retries for 0 ms).
  t = await startTestServer({ clock, retention: POLICY, webhooks: { allowPrivate: true, worker: { idleMs: 2_000_000_000, retryForMs: 0 } } });
  admin = await t.login();
  accepting = await startReceiver();
  failing = await startReceiver();
  failing.answer = () => 500;
});
afterAll(async () => {
  await t?.close();
  await accepting?.close();
  await failing?.close();
});

async function ok(res: Promise<{ status: number; body: any }>): Promise<any> {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.value;
}

const hook = (command: string, input: unknown) => ok(t.request('POST', `/api/webhook/${command}`, input, admin));
const db = () => t.server.db;
const names = new Map<string, string>();
const webhookNames = new Map<string, string>();

/** Every event left: `<record>#<seq>`, and whether it still holds its copy of the record. */
async function eventsLeft(): Promise<string[]> {
  const rows = (await db()('rms_events').select('record_id', 'record_seq', 'record')) as { record_id: string; record_seq: number | string; record: string | null }[];
  return rows.map((row) => `${names.get(row.record_id) ?? row.record_id}#${Number(row.record_seq)}${row.record === null ? '' : ' +record'}`).sort();
}

/** Every delivery left: `<record>#<seq> <webhook> <status>`. */
async function deliveriesLeft(): Promise<string[]> {
  const rows = (await db()('rms_webhook_deliveries').select('record_id', 'record_seq', 'webhook_id', 'status')) as { record_id: string; record_seq: number | string; webhook_id: string; status: string }[];
  return rows.map((row) => `${names.get(row.record_id) ?? row.record_id}#${Number(row.record_seq)} ${webhookNames.get(row.webhook_id) ?? row.webhook_id} ${row.status}`).sort();
}

async function pass(): Promise<{ deliveries: number; events: number }> {
  const outcome = (await t.server.pruner!.runPass()) as PassOutcome & { ran: true };
  expect(outcome.ran).toBe(true);
  return { deliveries: outcome.report.deliveries, events: outcome.report.events };
}

/** Sends what is due (one worker turn at a time, until none is left). */
async function sendDue(): Promise<void> {
  while ((await t.server.webhookWorker!.turn()) > 0);
}

async function lead(name: string, title: string): Promise<string> {
  const id = (await ok(t.command(admin, 'lead.create', { title }))).id as string;
  names.set(id, name);
  return id;
}

/** Moves the server's clock and signs in again (a session lasts less than the windows). */
async function later(ms: number): Promise<void> {
  clock.advance(ms);
  admin = await t.login();
}

describe('the outbox\'s retention', () => {
  it('removes deliveries once final and out of their window, and events none is left of, but never a pending one or a record\'s last', async () => {
    // Before any subscription: events no one wants.
    const x = await lead('x', 'Boiler');
    await ok(t.command(admin, 'lead.update', { id: x, title: 'Boiler 2' }));
    const good = (await hook('create', { url: accepting.url, as_role: 'admin', models: ['lead'] })).id as string;
    const bad = (await hook('create', { url: failing.url, as_role: 'admin', models: ['lead'] })).id as string;
    webhookNames.set(good, 'good').set(bad, 'bad');
    await ok(t.command(admin, 'lead.update', { id: x, title: 'Boiler 3' }));
    const y = await lead('y', 'Pump');
    await sendDue();
    const party = (await ok(t.command(admin, 'party.create', { name: 'Ada Lovelace' }))).id as string;
    names.set(party, 'party');

    expect(await deliveriesLeft()).toEqual(['x#3 bad dead', 'x#3 good delivered', 'y#1 bad dead', 'y#1 good delivered']);
    // x's first two events were wanted by no one: they go at once; a record's last event (the party's) stays.
    expect(await pass()).toEqual({ deliveries: 0, events: 2 });
    expect(await eventsLeft()).toEqual(['party#1', 'x#3 +record', 'y#1 +record']);

    // A day on: y changes, its deliveries left pending (not sent yet).
    await later(DAY_MS);
    await ok(t.command(admin, 'lead.update', { id: y, title: 'Pump 2' }));
    expect(await pass()).toEqual({ deliveries: 0, events: 0 });

    // Just within the delivered window: nothing goes.
    await later(6 * DAY_MS - 60_000);
    expect(await pass()).toEqual({ deliveries: 0, events: 0 });
    // Past it: the delivered ones go, the dead ones stay (they may be redelivered), and so do their events.
    await later(2 * 60_000);
    expect(await pass()).toEqual({ deliveries: 2, events: 0 });
    expect(await deliveriesLeft()).toEqual(['x#3 bad dead', 'y#1 bad dead', 'y#2 bad pending', 'y#2 good pending']);
    expect(await eventsLeft()).toEqual(['party#1', 'x#3 +record', 'y#1 +record', 'y#2 +record']);

    // A dead one can still be sent again: redelivered a day on, it is pending (and kept) until it dies once more.
    await later(DAY_MS);
    expect(await hook('redeliver', { id: bad, event_id: await eventIdOf(y, 1) })).toEqual({ redelivered: 1 });

    // Past the dead window of the first deaths: x's dead delivery goes, and with it x's event — but
    // it is x's last, so it stays without its record. y#1 is pending again: kept, as is y#2's.
    await later(23 * DAY_MS);
    expect(await pass()).toEqual({ deliveries: 1, events: 0 });
    expect(await deliveriesLeft()).toEqual(['y#1 bad pending', 'y#2 bad pending', 'y#2 good pending']);
    expect(await eventsLeft()).toEqual(['party#1', 'x#3', 'y#1 +record', 'y#2 +record']);

    // Sent now: y#1 dies again (at this instant), y#2 is delivered to one and dies at the other.
    await sendDue();
    expect(await deliveriesLeft()).toEqual(['y#1 bad dead', 'y#2 bad dead', 'y#2 good delivered']);
    await later(7 * DAY_MS + 60_000);
    expect(await pass()).toEqual({ deliveries: 1, events: 0 });
    expect(await deliveriesLeft()).toEqual(['y#1 bad dead', 'y#2 bad dead']);

    // Deleting a subscription removes its deliveries: an event none is left of goes at the next pass, a record's last stays.
    await hook('delete', { id: bad });
    expect(await deliveriesLeft()).toEqual([]);
    expect(await pass()).toEqual({ deliveries: 0, events: 1 });
    expect(await eventsLeft()).toEqual(['party#1', 'x#3', 'y#2']);

    // The sequence goes on from the kept event: receivers' order holds.
    await ok(t.command(admin, 'lead.update', { id: x, title: 'Boiler 4' }));
    await sendDue();
    expect(accepting.received.at(-1)!.json).toMatchObject({ record_id: x, type: 'lead.update' });
    expect(await eventsLeft()).toEqual(['party#1', 'x#3', 'x#4 +record', 'y#2']);
    expect(await deliveriesLeft()).toEqual(['x#4 good delivered']);
  });
});

async function eventIdOf(recordId: string, seq: number): Promise<string> {
  const row = (await db()('rms_events').where({ record_id: recordId, record_seq: seq }).first('id')) as { id: string };
  return row.id;
}
