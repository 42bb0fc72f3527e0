/**
 * What a run of webhook deliveries comes to, from the committed events (the outbox, read from the
 * database) and what a receiver got: the figures the issue sets goals for. One copy of these rules
 * for the multi-instance test (test/multi-instance/webhooks.test.ts) and the full-size measurement
 * (bench/webhooks.ts, `--webhook-kill`).
 */

/** A committed event, as `rms_events` holds it. */
export interface CommittedEvent {
  readonly id: string;
  readonly record_id: string;
  readonly record_seq: number | string;
  /** ISO-8601: its write's time. */
  readonly at: string;
}

/** A request the receiver got. */
export interface ReceivedAttempt {
  /** The event id it carried (`Webhook-Id`, the body's `id`). */
  readonly id: string;
  readonly record_id: string;
  /** Whether the receiver answered it with a 2xx. */
  readonly accepted: boolean;
  /** When it came (ms since the epoch, this machine's clock: the events' times are too). */
  readonly receivedAt: number;
}

export interface DeliveryFigures {
  readonly events: number;
  readonly attempts: number;
  /** Committed events never accepted. */
  readonly lost: number;
  /** Requests whose event is no committed event (a rolled-back write's, or made up). */
  readonly uncommitted: number;
  /** Accepted events that came after an accepted later event of the same record (first acceptance of each). */
  readonly inversions: number;
  /** Acceptances beyond the first of each event. */
  readonly duplicates: number;
  /** From each event's commit to its first attempt, in ms, ascending. */
  readonly firstAttemptLagsMs: readonly number[];
}

export function deliveryFigures(events: readonly CommittedEvent[], received: readonly ReceivedAttempt[]): DeliveryFigures {
  const byId = new Map(events.map((event) => [event.id, event]));
  const accepted = received.filter((attempt) => attempt.accepted);
  const deliveredIds = new Set(accepted.map((attempt) => attempt.id).filter((id) => byId.has(id)));
  let inversions = 0;
  const lastSeq = new Map<string, number>();
  const firstAccepted = new Set<string>();
  for (const attempt of accepted) {
    const event = byId.get(attempt.id);
    if (!event || firstAccepted.has(attempt.id)) continue;
    firstAccepted.add(attempt.id);
    const seq = Number(event.record_seq);
    if (seq < (lastSeq.get(event.record_id) ?? 0)) inversions++;
    lastSeq.set(event.record_id, seq);
  }
  const firstAttempt = new Map<string, number>();
  for (const attempt of received) {
    const event = byId.get(attempt.id);
    if (event && !firstAttempt.has(attempt.id)) firstAttempt.set(attempt.id, attempt.receivedAt - Date.parse(event.at));
  }
  return {
    events: events.length,
    attempts: received.length,
    lost: events.length - deliveredIds.size,
    uncommitted: received.filter((attempt) => !byId.has(attempt.id)).length,
    inversions,
    duplicates: accepted.filter((attempt) => byId.has(attempt.id)).length - deliveredIds.size,
    firstAttemptLagsMs: [...firstAttempt.values()].sort((a, b) => a - b),
  };
}

/** The `p`th percentile of ascending values (the nearest rank at or above). */
export function percentile(ascending: readonly number[], p: number): number {
  return ascending[Math.min(ascending.length - 1, Math.floor((ascending.length * p) / 100))]!;
}
