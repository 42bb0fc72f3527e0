/**
 * How long the service keeps what grows with every request: the audit trail (reads and all of it),
 * record history, the masking state of agent tokens that can no longer act, and the webhooks'
 * outbox (events and their deliveries, once final). `serve` takes it in
 * days (`--retain-audit-days` and the others, runtime/cli.ts); the server prunes by it in the
 * background (pruner.ts). docs/operations.md gives the defaults and what each table costs.
 */

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionPolicy {
  /** Audit rows, reads and writes alike, are kept this long; 0: for ever. */
  readonly auditMs: number;
  /** Audit rows of reads (`access` read: get, list, search, history) are kept this long; 0: as long as the others. */
  readonly auditReadsMs: number;
  /** History entries are kept this long; 0: for ever. */
  readonly historyMs: number;
  /** Masking tokens and bindings of an agent token revoked or expired are kept this long after; 0: for ever. */
  readonly agentMs: number;
  /** Deliveries of events, once delivered, are kept this long (the events with the last of them); 0: for ever. */
  readonly eventsMs: number;
  /** Deliveries that died are kept this long, so that `webhook.redeliver` can send them again; 0: for ever. */
  readonly deadEventsMs: number;
  /** How often the server prunes (one instance at a time, whichever holds the lease). */
  readonly everyMs: number;
}

/**
 * The defaults, in days: a year and a month of the trail, a month of reads, history for ever, a
 * month of a gone agent's tokens; a week of delivered events (a receiver's own log keeps them) and
 * a month of dead ones (time to mend the receiver and redeliver).
 */
export const DEFAULT_RETENTION_DAYS = { audit: 400, auditReads: 30, history: 0, agent: 30, events: 7, deadEvents: 30 } as const;

/** Every five minutes: a pass then removes about five minutes' worth of rows, in small batches. */
export const DEFAULT_PRUNE_INTERVAL_MS = 5 * 60 * 1000;

export const DEFAULT_RETENTION: RetentionPolicy = {
  auditMs: DEFAULT_RETENTION_DAYS.audit * DAY_MS,
  auditReadsMs: DEFAULT_RETENTION_DAYS.auditReads * DAY_MS,
  historyMs: DEFAULT_RETENTION_DAYS.history * DAY_MS,
  agentMs: DEFAULT_RETENTION_DAYS.agent * DAY_MS,
  eventsMs: DEFAULT_RETENTION_DAYS.events * DAY_MS,
  deadEventsMs: DEFAULT_RETENTION_DAYS.deadEvents * DAY_MS,
  everyMs: DEFAULT_PRUNE_INTERVAL_MS,
};

/** What a pass removes, as of `now`: the instants before which each kind of row goes (absent: kept for ever). */
export interface PruneCutoffs {
  /** Audit rows of reads made before it. */
  readonly auditReadsBefore?: string;
  /** Audit rows made before it (but those of pending plans), and plans decided before it with their audit rows. */
  readonly auditBefore?: string;
  /** History entries made before it. */
  readonly historyBefore?: string;
  /** Masking tokens and bindings of agent tokens revoked or expired before it. */
  readonly agentsGoneBefore?: string;
  /** Webhook deliveries delivered before it (and events none is left of). */
  readonly deliveredEventsBefore?: string;
  /** Webhook deliveries that died before it. */
  readonly deadEventsBefore?: string;
  /** Sessions (people's sign-ins) revoked or expired before it: in the server's passes, the pass's own instant, whatever the policy. */
  readonly sessionsGoneBefore?: string;
}

/** The cutoffs of the policy at `now` (ms since the epoch). */
export function cutoffsAt(policy: RetentionPolicy, now: number): PruneCutoffs {
  const before = (ms: number) => (ms > 0 ? new Date(now - ms).toISOString() : undefined);
  const audit = before(policy.auditMs);
  const reads = before(policy.auditReadsMs);
  // A reads' window longer than the trail's is the trail's: reads go with the rest.
  const readsBefore = reads !== undefined && (audit === undefined || reads > audit) ? reads : undefined;
  return {
    // A session that has ended can never be used again, and nothing refers to it (the audit names the person).
    sessionsGoneBefore: new Date(now).toISOString(),
    ...(readsBefore !== undefined ? { auditReadsBefore: readsBefore } : {}),
    ...(audit !== undefined ? { auditBefore: audit } : {}),
    ...(before(policy.historyMs) !== undefined ? { historyBefore: before(policy.historyMs)! } : {}),
    ...(before(policy.agentMs) !== undefined ? { agentsGoneBefore: before(policy.agentMs)! } : {}),
    ...(before(policy.eventsMs) !== undefined ? { deliveredEventsBefore: before(policy.eventsMs)! } : {}),
    ...(before(policy.deadEventsMs) !== undefined ? { deadEventsBefore: before(policy.deadEventsMs)! } : {}),
  };
}
