/**
 * The server's background pruning: every `policy.everyMs` a pass removes what the retention policy
 * (policy.ts) no longer keeps, in small batches (prune.ts, db/batched-delete.ts). Several instances
 * on one database share the work through a lease (lease.ts): the instance that holds it prunes and
 * keeps it from pass to pass, renewing it before every batch; the others skip their passes while it
 * is held, and take over once it has run out (its holder died) or been released (its holder
 * stopped). So no two instances run a batch at the same time, and no row is removed twice.
 *
 * Time is read from the server's clock (runtime/clock.ts) for the cutoffs and the lease, so that
 * tests move time instead of waiting for a retention window. A pass that removed something logs one
 * line of counts (never a value), and each pass is counted in the metrics (`rms_prune_runs_total`).
 */
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Clock } from '../clock.ts';
import { newId } from '../ids.ts';
import { recordPruneRun } from '../metrics.ts';
import { releaseLease, takeLease } from './lease.ts';
import { cutoffsAt, type PruneCutoffs, type RetentionPolicy } from './policy.ts';
import { prune, removedAny, type PruneReport } from './prune.ts';
import type { BatchOptions } from '../db/batched-delete.ts';

/** The lease's name in `rms_leases`. */
export const PRUNE_LEASE = 'retention';

/** What one pass did: pruned (with its counts), or skipped because another instance holds the lease. */
export type PassOutcome = { readonly ran: true; readonly cutoffs: PruneCutoffs; readonly report: PruneReport } | { readonly ran: false };

export interface Pruner {
  /** The instance's name in the lease (host, process and a random part). */
  readonly holder: string;
  /** Runs a pass now (the timer runs them too); one at a time per instance. */
  runPass(): Promise<PassOutcome>;
  /** Stops the timer, lets a running pass end after its current batch, and releases the lease. */
  stop(): Promise<void>;
}

export interface PrunerOptions {
  readonly db: Knex;
  readonly policy: RetentionPolicy;
  readonly clock: Clock;
  /** Where the line of a pass that removed rows goes. */
  readonly log: (line: string) => void;
  readonly logError: (error: unknown) => void;
  /** Batch sizes and pauses (db/batched-delete.ts); the defaults suit a server. */
  readonly batches?: BatchOptions;
}

/**
 * How long a lease lasts without renewal: beyond the gap between two passes, so that the holder
 * keeps it from one pass to the next, and long enough that no batch outlasts it.
 */
export function leaseTtlMs(policy: RetentionPolicy): number {
  return 2 * policy.everyMs + 60_000;
}

/** The metric targets a pass reports (`rms_prune_runs_total{target}`), with the counts that are theirs. */
const TARGETS: readonly [string, (report: PruneReport) => number][] = [
  ['audit_reads', (report) => report.auditReads],
  ['audit', (report) => report.audit],
  ['plans', (report) => report.plans],
  ['history', (report) => report.history],
  ['masking', (report) => report.maskTokens + report.bindings],
  ['sessions', (report) => report.sessions],
  ['webhook_deliveries', (report) => report.deliveries],
  ['events', (report) => report.events],
];

/** Creates the pruner and starts its timer (unref'd: it never keeps a process alive). */
export function startPruner(options: PrunerOptions): Pruner {
  const { db, policy, clock } = options;
  const holder = `${hostname()}:${process.pid}:${newId()}`;
  const ttlMs = leaseTtlMs(policy);
  let stopping = false;
  let running: Promise<PassOutcome> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function pass(): Promise<PassOutcome> {
    if (!(await takeLease(db, PRUNE_LEASE, holder, clock.now(), ttlMs))) return { ran: false };
    const cutoffs = cutoffsAt(policy, clock.now());
    try {
      const report = await prune(db, cutoffs, {
        ...options.batches,
        // Before each batch: still running, and still the holder (renewed), else stop where it is.
        proceed: async () => !stopping && (await takeLease(db, PRUNE_LEASE, holder, clock.now(), ttlMs)),
      });
      for (const [target, count] of TARGETS) recordPruneRun(target, 'done', count(report));
      if (removedAny(report)) options.log(describePass(report));
      return { ran: true, cutoffs, report };
    } catch (error) {
      for (const [target] of TARGETS) recordPruneRun(target, 'failed');
      throw error;
    }
  }

  function runPass(): Promise<PassOutcome> {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(): void {
    if (stopping) return;
    timer = setTimeout(() => {
      runPass()
        .catch((error: unknown) => options.logError(error))
        .finally(schedule);
    }, policy.everyMs);
    timer.unref();
  }
  schedule();

  return {
    holder,
    runPass,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running?.catch(() => {});
      await releaseLease(db, PRUNE_LEASE, holder);
    },
  };
}

/** The log line of a pass: counts by kind of row, nothing else. */
export function describePass(report: PruneReport): string {
  const parts = [
    `${report.auditReads} audit rows of reads`,
    `${report.audit} other audit rows`,
    `${report.plans} decided plans`,
    `${report.history} history entries`,
    `${report.maskTokens} masking tokens`,
    `${report.bindings} masking bindings`,
    `${report.sessions} ended sessions`,
    `${report.deliveries} webhook deliveries`,
    `${report.events} events`,
  ];
  return `retention: removed ${parts.join(', ')}`;
}
