/**
 * The delivery worker: a loop of its own in each server, outside requests, over the deliveries
 * the outbox made with each event (outbox.ts). Again and again (several claims in flight at once), it
 *
 * 1. claims due deliveries under a lease — on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so that
 *    instances never claim the same one — but only a record's earliest unfinished one per
 *    subscription, so that a later event of a record is never sent before an earlier one
 *    succeeded or died. A lease ends when it runs out, or, on PostgreSQL, as soon as its holder's
 *    worker lock is gone (worker-lock.ts: the instance was killed), so that another instance takes
 *    a killed one's claims over within its next claim rather than a lease later;
 * 2. sends each: `POST` of `{id, type, at, record_id, actor, changes, record}` signed as Standard
 *    Webhooks has it (secrets.ts); a 2xx within 10 s is success, anything else (a redirect too:
 *    none is followed) is retried with exponential backoff and jitter until 24 h have passed since
 *    the first attempt, then the delivery is dead;
 * 3. notes each attempt's outcome as soon as its answer arrives (answers that arrive while a note is
 *    being written are noted together in the next one).
 *
 * At least once: an instance killed after a receiver answered but before it noted the answer
 * sends that event again once another instance takes the delivery over; noting each answer at once
 * keeps that to the few answers of the last moments. Times come from the server's clock
 * (runtime/clock.ts), so tests move the backoff instead of waiting for it.
 */
import type { Clock } from '../clock.ts';
import type { RecordService } from '../commands/types.ts';
import { newId } from '../ids.ts';
import type { StoredRecord } from '../registry.ts';
import { recordsAsSeen } from '../view/caller-view.ts';
import { createDeliveryNotes, FIRST_BACKOFF_MS, NOT_WANTED, RETRY_FOR_MS, type Noted, type Outcome } from './notes.ts';
import { createWebhookPoster } from './post.ts';
import { signatureHeader } from './secrets.ts';
import { webhookOf, type DeliveryRow, type Webhook } from './store.ts';
import { roleViewOf, visibleChanges, wantsEvent, type RoleView } from './subscriptions.ts';
import { DELIVERIES_TABLE, EVENTS_TABLE, WEBHOOKS_TABLE } from './tables.ts';
import { holdWorkerLock, LIVE_WORKERS_SQL } from './worker-lock.ts';

export interface WorkerOptions {
  readonly service: RecordService;
  readonly clock: Clock;
  /** `serve --allow-private-webhooks`: requests may go to loopback and private addresses. */
  readonly allowPrivate: boolean;
  /** Names this instance in the leases it holds (on PostgreSQL followed by `/<n>`, its worker lock session: worker-lock.ts). */
  readonly instance?: string;
  /**
   * How long the worker rests when there was nothing to do (real time). Default on PostgreSQL 50 ms:
   * an event waits for the next look on average half of it, and what comes meanwhile is sent at
   * once, in a burst whose answers wait for each other (a kill of one of several instances cuts
   * more of them off). On SQLite 200 ms: its one process is not killed while others deliver, and
   * each claim takes the one writer from the requests.
   */
  readonly idleMs?: number;
  /**
   * How long a claim holds (server clock): longer than a request may take. Default 60 s. On
   * PostgreSQL a claim of a killed instance ends sooner, when its worker lock goes; this is for one that hangs.
   */
  readonly leaseMs?: number;
  /** How long a receiver has to answer (real time). Default 10 s. */
  readonly timeoutMs?: number;
  /** Retries stop this long after the first attempt (server clock). Default 24 h. */
  readonly retryForMs?: number;
  /** The first retry's delay (server clock), doubled for each next one. Default `FIRST_BACKOFF_MS`. */
  readonly firstBackoffMs?: number;
  /**
   * Deliveries claimed at a time. Default on PostgreSQL 16: what a killed instance had claimed but
   * not sent is taken over at once, but what it had sent and not noted is sent again, so little is
   * sent at once. On SQLite 64 (see `idleMs`).
   */
  readonly batch?: number;
  /** Deliveries in flight at most, over all groups claimed. Default 256. */
  readonly maxInFlight?: number;
  /** The jitter's randomness, [0, 1). */
  readonly random?: () => number;
  readonly logError: (error: unknown) => void;
}

export interface DeliveryWorker {
  /** One turn: claim, send, note; answers how many deliveries it handled. */
  turn(): Promise<number>;
  /** Stops the loop after the turn in progress (its deliveries finished or their leases left to run out). */
  stop(): Promise<void>;
}

/** How long a receiver has to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;

export function startDeliveryWorker(options: WorkerOptions): DeliveryWorker {
  const { service, clock } = options;
  const db = service.db;
  const instance = options.instance ?? `${process.pid}-${newId()}`;
  const leaseMs = options.leaseMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const retryForMs = options.retryForMs ?? RETRY_FOR_MS;
  const maxInFlight = options.maxInFlight ?? 256;
  const firstBackoffMs = options.firstBackoffMs ?? FIRST_BACKOFF_MS;
  const random = options.random ?? Math.random;
  const postgres = service.dialect === 'postgres';
  const idleMs = options.idleMs ?? (postgres ? 50 : 200);
  const batch = options.batch ?? (postgres ? 16 : 64);
  // SQLite: one process delivers, and its leases need no lock.
  const lock = postgres ? holdWorkerLock({ db, instance, logError: options.logError }) : undefined;
  const poster = createWebhookPoster({ allowPrivate: options.allowPrivate, timeoutMs, maxSockets: maxInFlight });
  const notes = createDeliveryNotes({ db, clock, random, firstBackoffMs, retryForMs });
  const roleViews = new Map<string, RoleView>();
  const roleView = (role: string, model: string): RoleView => {
    const key = `${role}\u0000${model}`;
    if (!roleViews.has(key)) roleViews.set(key, roleViewOf(service.registry, role, model));
    return roleViews.get(key)!;
  };

  /** Claims up to `limit` due deliveries under the name `claimant` leases under. */
  async function claim(claimant: string, limit: number): Promise<DeliveryRow[]> {
    const due = new Date(clock.now()).toISOString();
    if (!(await db(DELIVERIES_TABLE).where({ status: 'pending' }).andWhere('next_at', '<=', due).first('id'))) return [];
    return db.transaction(async (trx) => {
      const now = new Date(clock.now()).toISOString();
      const d = DELIVERIES_TABLE;
      // PostgreSQL: a lease whose holder's worker lock is gone is over; and nothing is claimed
      // unless this worker's own lock is held right now (its connection may have dropped).
      const sql = postgres
        ? `with live as (${LIVE_WORKERS_SQL})
          select d.* from ${d} d
          where exists (select 1 from live where objid = hashtext(?)::oid)
            and d.status = 'pending' and d.next_at <= ?
            and (d.lease_until is null or d.lease_until < ? or hashtext(d.leased_by)::oid not in (select objid from live))
            and not exists (${EARLIER_PENDING})
          order by d.next_at, d.id limit ? for update of d skip locked`
        : `select d.* from ${d} d
          where d.status = 'pending' and d.next_at <= ? and (d.lease_until is null or d.lease_until < ?)
            and not exists (${EARLIER_PENDING})
          order by d.next_at, d.id limit ?`;
      const result = await trx.raw(sql, postgres ? [claimant, now, now, limit] : [now, now, limit]);
      const rows = (postgres ? (result as { rows: DeliveryRow[] }).rows : (result as DeliveryRow[])) ?? [];
      if (rows.length === 0) return [];
      await trx(d).whereIn('id', rows.map((row) => row.id)).update({ lease_until: new Date(clock.now() + leaseMs).toISOString(), leased_by: claimant });
      return rows;
    });
  }

  /** Sends each claimed delivery, and notes each outcome as its answer arrives; `done` is called once per delivery. */
  async function send(claimant: string, claimed: readonly DeliveryRow[], done: () => void): Promise<void> {
    const events = new Map<string, EventRow>();
    const webhooks = new Map<string, Webhook>();
    try {
      // By the outbox's key, which the delivery carries.
      const keys = [...new Map(claimed.map((delivery) => [delivery.event_id, [delivery.model, delivery.record_id, Number(delivery.record_seq)]])).values()];
      for (const row of (await db(EVENTS_TABLE).whereIn(['model', 'record_id', 'record_seq'], keys)) as EventRow[]) events.set(row.id, row);
      for (const row of await db(WEBHOOKS_TABLE).whereIn('id', [...new Set(claimed.map((delivery) => delivery.webhook_id))])) webhooks.set(row.id, webhookOf(row));
    } catch (error) {
      // Nothing sent: the leases run out (or go with this worker's lock) and the deliveries are claimed again.
      claimed.forEach(() => done());
      throw error;
    }
    // SQLite: the claim's outcomes are noted together once all are in (see `notes`), or, while some
    // are still out, those in after STRAGGLER_MS: a receiver slow to answer then holds only its own
    // deliveries, not the next events of the same records to the other webhooks (the record's order
    // waits for an earlier event's note).
    const stragglers = postgres ? undefined : createStragglerNotes(claimed.length, (group) => notes.noteAll(group), options.logError);
    await Promise.all(
      claimed.map(async (delivery) => {
        try {
          const event = events.get(delivery.event_id);
          const webhook = webhooks.get(delivery.webhook_id);
          // Its subscription deleted meanwhile: nothing to send, nowhere to note it.
          if (!event || !webhook) return;
          // Asked of the subscription as it is now: `webhook.update` may have changed it since the event was written.
          const changes = JSON.parse(event.changes) as string[];
          const view = roleView(webhook.asRole, event.model);
          const wanted = view !== null && wantsEvent(service.registry, webhook, { model: event.model, command: event.command, changes }, view);
          const outcome = wanted ? await attempt(webhook, event, view, changes) : NOT_WANTED;
          if (postgres) await notes.add(claimant, delivery, outcome);
          else stragglers!.add({ claimant, delivery, outcome });
        } catch (error) {
          options.logError(error);
        } finally {
          if (postgres) done();
          else stragglers!.settled();
        }
      }),
    );
    if (postgres) return;
    try {
      await stragglers!.flushed();
    } finally {
      claimed.forEach(() => done());
    }
  }

  async function attempt(webhook: Webhook, event: EventRow, view: NonNullable<RoleView>, changes: readonly string[]): Promise<Outcome> {
    try {
      const body = JSON.stringify(await payloadOf(event, view, changes));
      const timestamp = Math.floor(clock.now() / 1000);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'rmsgen-webhooks',
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(webhook.secrets, event.id, timestamp, body),
      };
      const status = await poster.post(new URL(webhook.url), headers, body);
      if (status >= 200 && status < 300) return { status, error: null };
      return { status, error: status >= 300 && status < 400 ? `answered ${status}: redirects are not followed` : `answered ${status}` };
    } catch (error) {
      return { status: null, error: (error as Error).message };
    }
  }

  /** The event as the subscription's role sees it (view/caller-view.ts); `changes`: the event's changed names. */
  async function payloadOf(event: EventRow, view: NonNullable<RoleView>, changes: readonly string[]): Promise<Record<string, unknown>> {
    const stored = event.record === null ? null : (JSON.parse(event.record) as StoredRecord);
    const record = stored ? (await recordsAsSeen(db, view.caller, view.rights, [stored]))[0]! : null;
    return {
      id: event.id,
      type: event.command,
      at: event.at,
      record_id: event.record_id,
      actor: JSON.parse(event.actor) as unknown,
      changes: visibleChanges(view.rights, changes),
      record,
    };
  }

  /** The name this worker claims under now: none on PostgreSQL while it does not hold its lock. */
  const claimant = (): string | undefined => (lock ? lock.holder() : instance);

  async function turn(): Promise<number> {
    const name = lock ? await lock.whenHeld() : instance;
    if (name === undefined) return 0;
    const claimed = await claim(name, batch);
    if (claimed.length > 0) await send(name, claimed, () => undefined);
    return claimed.length;
  }

  // Claims are sent side by side, up to `maxInFlight` deliveries; each frees its slot once noted,
  // so a receiver that is slow to answer holds its own deliveries, not the others'. A full worker
  // claims again once a whole claim's slots are free: a claim for each slot freed would cost a
  // claim's statements per delivery (measured on SQLite: 201 events/s instead of 1,170).
  const claimSize = Math.min(batch, maxInFlight);
  let running = true;
  let inFlight = 0;
  const sending = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      let claimed: DeliveryRow[] = [];
      const name = claimant();
      if (maxInFlight - inFlight >= claimSize && name !== undefined) {
        try {
          claimed = await claim(name, claimSize);
        } catch (error) {
          if (running) options.logError(error);
        }
      }
      if (claimed.length > 0) {
        inFlight += claimed.length;
        const sent: Promise<void> = send(name!, claimed, () => {
          inFlight--;
          if (maxInFlight - inFlight >= claimSize) wake?.();
        })
          .catch((error: unknown) => options.logError(error))
          .finally(() => sending.delete(sent));
        sending.add(sent);
        continue;
      }
      if (!running) break;
      // Nothing due, too few slots free, or no lock held: until a claim's slots are free, or a while.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, idleMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  return {
    turn,
    async stop() {
      running = false;
      wake?.();
      await loop;
      await Promise.all([...sending]);
      // Only once every outcome is noted: with the lock, whatever this worker still holds is free to others.
      await lock?.stop();
      poster.destroy();
    },
  };
}

/** A later delivery's earlier one of the same record and subscription, still pending (its order waits for it). */
const EARLIER_PENDING = `select 1 from ${DELIVERIES_TABLE} e where e.webhook_id = d.webhook_id and e.model = d.model and e.record_id = d.record_id and e.record_seq < d.record_seq and e.status = 'pending'`;

interface EventRow {
  id: string;
  at: string;
  model: string;
  record_id: string;
  record_seq: number;
  command: string;
  changes: string;
  actor: string;
  record: string | null;
}

/** How long answers already in wait for a claim's slower ones before they are noted (SQLite). */
export const STRAGGLER_MS = 250;

/**
 * A claim's outcomes on SQLite, noted in as few statements as its answers allow: all together when
 * every delivery has settled, or what is in STRAGGLER_MS after the first answer not yet noted.
 */
function createStragglerNotes(count: number, noteAll: (group: readonly Noted[]) => Promise<void>, logError: (error: unknown) => void) {
  let pending: Noted[] = [];
  let unsettled = count;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const group = pending;
    pending = [];
    if (group.length > 0) writing = writing.then(() => noteAll(group)).catch(logError);
  };
  return {
    add(noted: Noted): void {
      pending.push(noted);
      timer ??= setTimeout(flush, STRAGGLER_MS);
    },
    /** A delivery is done, noted or not (sent, failed to send, or nothing to send). */
    settled(): void {
      if (--unsettled === 0) flush();
    },
    /** Once every outcome added is noted. */
    async flushed(): Promise<void> {
      flush();
      await writing;
    },
  };
}
