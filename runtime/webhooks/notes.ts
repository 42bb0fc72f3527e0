/**
 * What each attempt gave, noted in its delivery: delivered, dead after `retryForMs`, or due again
 * after an exponential backoff with jitter. Noted only while the worker that sent it still holds its
 * lease (a lease that ran out, or whose lock went, is another's now).
 */
import type { Knex } from 'knex';
import type { Clock } from '../clock.ts';
import type { DeliveryRow } from './store.ts';
import { DELIVERIES_TABLE } from './tables.ts';

export const RETRY_FOR_MS = 24 * 60 * 60 * 1000;
/** The first retry's delay; each next one doubles, up to `MAX_BACKOFF_MS`, each scaled by a jitter of 50–100 %. */
export const FIRST_BACKOFF_MS = 5_000;
export const MAX_BACKOFF_MS = 60 * 60 * 1000;

/** The delay before the attempt after `attempts` failed ones: exponential, capped, with jitter. */
export function backoffMs(attempts: number, random: number, firstMs: number = FIRST_BACKOFF_MS): number {
  const base = Math.min(firstMs * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);
  return Math.round(base * (0.5 + random / 2));
}

/**
 * An attempt's answer, or `notWanted`: the subscription no longer takes the event (its models,
 * commands or role changed since it was written), so the delivery goes without being sent, as if
 * it had never been made (subscriptions.ts, `wantsEvent`).
 */
export type Outcome = { readonly status: number | null; readonly error: string | null; readonly notWanted?: true };

/** The outcome of a delivery the subscription no longer takes. */
export const NOT_WANTED: Outcome = { status: null, error: null, notWanted: true };

/** An outcome to note, with the name its delivery was claimed under. */
export interface Noted {
  readonly claimant: string;
  readonly delivery: DeliveryRow;
  readonly outcome: Outcome;
}

/** A delivery's columns an outcome sets (null `next_at` and `delivered_at`: kept as they are). */
interface NoteRow {
  readonly status: 'delivered' | 'dead' | 'pending';
  readonly attempts: number;
  readonly last_at: string;
  readonly last_status: number | null;
  readonly last_error: string | null;
  readonly next_at: string | null;
  readonly delivered_at: string | null;
}

export interface DeliveryNotes {
  /** Notes one outcome as soon as a writer is free (PostgreSQL: see below). */
  add(claimant: string, delivery: DeliveryRow, outcome: Outcome): Promise<void>;
  /** Notes outcomes in one statement. */
  noteAll(group: readonly Noted[]): Promise<void>;
}

export function createDeliveryNotes(options: { readonly db: Knex; readonly clock: Clock; readonly random: () => number; readonly firstBackoffMs: number; readonly retryForMs: number }): DeliveryNotes {
  const { db, clock, random, firstBackoffMs, retryForMs } = options;

  /** What an attempt's outcome changes in its delivery: delivered, dead, or due again after a backoff. */
  function noteOf(delivery: DeliveryRow, outcome: Outcome): NoteRow {
    const now = clock.now();
    const nowIso = new Date(now).toISOString();
    const attempts = Number(delivery.attempts) + 1;
    const common = { attempts, last_at: nowIso, last_status: outcome.status, last_error: outcome.error, next_at: null, delivered_at: null };
    if (outcome.error === null) return { ...common, status: 'delivered', delivered_at: nowIso };
    const next = now + backoffMs(attempts, random(), firstBackoffMs);
    const dead = next > Date.parse(delivery.first_at) + retryForMs;
    return dead ? { ...common, status: 'dead' } : { ...common, status: 'pending', next_at: new Date(next).toISOString() };
  }

  /**
   * Notes outcomes in one statement (one round trip, one commit, whatever their number), each only
   * while the worker that sent it still holds its lease: a lease that ran out, or whose lock went,
   * is another's now.
   */
  async function noteAll(all: readonly Noted[]): Promise<void> {
    const dropped = all.filter(({ outcome }) => outcome.notWanted);
    if (dropped.length > 0) {
      const which = dropped.map(() => '(id = ? and leased_by = ?)').join(' or ');
      await db.raw(`delete from ${DELIVERIES_TABLE} where ${which}`, dropped.flatMap(({ claimant, delivery }) => [delivery.id, claimant]));
    }
    const group = all.filter(({ outcome }) => !outcome.notWanted);
    if (group.length === 0) return;
    const bindings: Knex.RawBinding[] = [];
    for (const { claimant, delivery, outcome } of group) {
      const row = noteOf(delivery, outcome);
      bindings.push(delivery.id, claimant, row.status, row.attempts, row.last_at, row.last_status, row.last_error, row.next_at, row.delivered_at);
    }
    const values = group.map(() => '(?, ?, ?, cast(? as integer), ?, cast(? as integer), ?, ?, ?)').join(', ');
    await db.raw(
      `with v (id, claimant, status, attempts, last_at, last_status, last_error, next_at, delivered_at) as (values ${values})
      update ${DELIVERIES_TABLE} as d set status = v.status, attempts = v.attempts, last_at = v.last_at, last_status = v.last_status, last_error = v.last_error,
        next_at = coalesce(v.next_at, d.next_at), delivered_at = coalesce(v.delivered_at, d.delivered_at), lease_until = null, leased_by = null
      from v where d.id = v.id and d.leased_by = v.claimant`,
      bindings,
    );
  }

  // On PostgreSQL outcomes are noted as their answers arrive: the fewer answers an instance holds
  // unnoted, the fewer a kill makes another instance send again. What arrives while every note
  // writer is busy goes into the next free one's statement (a write each would cost more than the
  // requests under load); several are written at once, so that an answer waits for no other note's
  // round trip. SQLite notes a claim's outcomes together once all are in: its one process is not
  // killed while another delivers, and each note takes its one writer from the requests (noted per
  // answer there, writes while a webhook delivered cost twice the CPU).
  const writers = 4;
  let queued: (Noted & { noted: () => void; failed: (error: unknown) => void })[] = [];
  let writing = 0;
  const write = async (): Promise<void> => {
    writing++;
    while (queued.length > 0) {
      const group = queued;
      queued = [];
      try {
        await noteAll(group);
        for (const one of group) one.noted();
      } catch (error) {
        for (const one of group) one.failed(error);
      }
    }
    writing--;
  };

  return {
    add(claimant, delivery, outcome) {
      return new Promise<void>((noted, failed) => {
        queued.push({ claimant, delivery, outcome, noted, failed });
        if (writing < writers) void write();
      });
    },
    noteAll,
  };
}
