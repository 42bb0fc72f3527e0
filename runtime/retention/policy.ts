/**
 * How long the service keeps what grows with every request: the audit trail (reads and all of it),
 * record history, and the masking state of agent tokens that can no longer act. `serve` takes it in
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
  /** How often the server prunes (one instance at a time, whichever holds the lease). */
  readonly everyMs: number;
}

/** The defaults, in days: a year and a month of the trail, a month of reads, history for ever, a month of a gone agent's tokens. */
export const DEFAULT_RETENTION_DAYS = { audit: 400, auditReads: 30, history: 0, agent: 30 } as const;

/** Every five minutes: a pass then removes about five minutes' worth of rows, in small batches. */
export const DEFAULT_PRUNE_INTERVAL_MS = 5 * 60 * 1000;

export const DEFAULT_RETENTION: RetentionPolicy = {
  auditMs: DEFAULT_RETENTION_DAYS.audit * DAY_MS,
  auditReadsMs: DEFAULT_RETENTION_DAYS.auditReads * DAY_MS,
  historyMs: DEFAULT_RETENTION_DAYS.history * DAY_MS,
  agentMs: DEFAULT_RETENTION_DAYS.agent * DAY_MS,
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
  };
}
