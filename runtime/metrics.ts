/**
 * What an operator scrapes at `GET /metrics` (`serve --metrics-port`), in the Prometheus text
 * format, written by prom-client. Two kinds of figures:
 *
 * - Counted where they happen, below the HTTP layer, for the whole process: audit rows and history
 *   entries written, background prune runs (`recordPruneRun`). Plain numbers, so that counting costs
 *   nothing when no one scrapes and the code that counts needs neither prom-client nor the server.
 * - The server's own (`createServerMetrics`): requests, their latency, rate-limit refusals, sign-in
 *   failures and lockouts (http/observe.ts feeds them at the end of each request), and what is read
 *   at scrape time: plans by status, the database pool, the event loop's delay, memory.
 *
 * No label holds a value a caller chose beyond a bounded set: models, command kinds, interfaces,
 * caller kinds and statuses only — never a path, a username, a token or a record's value.
 */
import type { Knex } from 'knex';
import type * as PromClient from 'prom-client';

/** The system tables whose writes are counted (see `countRowsWritten`). */
export type CountedTable = 'audit' | 'history';

/** What a background prune run ended with. */
export type PruneOutcome = 'done' | 'failed';

const rowsWritten: Record<CountedTable, number> = { audit: 0, history: 0 };
const pruneRuns = new Map<string, { done: number; failed: number; removed: number }>();

/** Rows stored in a system table (counted as they are inserted: a transaction rolled back afterwards counts too). */
export function countRowsWritten(table: CountedTable, rows: number): void {
  rowsWritten[table] += rows;
}

/**
 * One run of a background pruner ended: `target` names what it prunes (a short fixed name such as
 * `audit`, `audit_reads`, `history`, `masking`, `plans`: it becomes a label), `removed` the rows it
 * removed. Exposed as `rms_prune_runs_total{target,outcome}` and `rms_pruned_rows_total{target}`.
 */
export function recordPruneRun(target: string, outcome: PruneOutcome, removed = 0): void {
  let runs = pruneRuns.get(target);
  if (!runs) pruneRuns.set(target, (runs = { done: 0, failed: 0, removed: 0 }));
  runs[outcome] += 1;
  runs.removed += removed;
}

/** Where a request came in. `web`: the service's own web app (a browser's same-origin request). */
export type RequestInterface = 'rest' | 'mcp' | 'web';

/** Who made it: a person, an agent, or no one known (no token, a refused one, a sign-in). */
export type CallerKind = 'person' | 'agent' | 'none';

/** How a sign-in attempt ended, as counted. */
export type SignInOutcome = 'ok' | 'invalid' | 'locked' | 'throttled';

/** One finished request, as the metrics count it. */
export interface ObservedRequest {
  readonly interface: RequestInterface;
  /** The command's model and kind; empty for a request that calls no command. */
  readonly model: string;
  readonly kind: string;
  readonly caller: CallerKind;
  readonly status: number;
  readonly seconds: number;
  readonly rateLimited: boolean;
  readonly signIn: SignInOutcome | undefined;
}

export interface ServerMetrics {
  observe(request: ObservedRequest): void;
  /** The exposition, and its content type. */
  render(): Promise<{ readonly contentType: string; readonly text: string }>;
}

export interface ServerMetricsOptions {
  readonly db: Knex;
  /** Plans by status, read at each scrape (from the database: the same on every instance). */
  readonly planCounts: () => Promise<Readonly<Record<string, number>>>;
}

/** Request latencies, in seconds: a fast read is a millisecond, a slow list a second. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The plan statuses always exposed, 0 when there are none. */
const PLAN_STATUSES = ['pending', 'approved', 'rejected', 'failed'];

/**
 * The server's metrics. prom-client is loaded here, only by a server that serves metrics, so that
 * one that does not loads none of it.
 */
export async function createServerMetrics(options: ServerMetricsOptions): Promise<ServerMetrics> {
  const prom: typeof PromClient = await import('prom-client');
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });

  const requests = new prom.Counter({
    name: 'rms_requests_total',
    help: 'HTTP requests by interface (rest, mcp, web), command model and kind (empty for requests that call no command), caller kind (person, agent, none) and status',
    labelNames: ['interface', 'model', 'kind', 'caller', 'status'] as const,
    registers: [registry],
  });
  const latency = new prom.Histogram({
    name: 'rms_request_duration_seconds',
    help: 'Time from a request\'s arrival to the end of its response, by interface, command model and kind',
    labelNames: ['interface', 'model', 'kind'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new prom.Counter({
    name: 'rms_rate_limit_refusals_total',
    help: 'Requests of agents refused (429) for their rate limits, by interface',
    labelNames: ['interface'] as const,
    registers: [registry],
  });
  const signIns = new prom.Counter({
    name: 'rms_sign_ins_total',
    help: 'Sign-in attempts by outcome: ok, invalid (wrong username or password), locked (the username is locked out), throttled (too many failures from the address)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['ok', 'invalid', 'locked', 'throttled']) signIns.inc({ outcome }, 0);

  new prom.Gauge({
    name: 'rms_plans',
    help: 'Approval plans by status, in the database (the same on every instance: aggregate with max, not sum)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const counts = await options.planCounts();
        for (const status of new Set([...PLAN_STATUSES, ...Object.keys(counts)])) this.set({ status }, counts[status] ?? 0);
      } catch {
        // A database that does not answer leaves the gauge empty for this scrape (/healthz says so).
      }
    },
  });
  new prom.Counter({
    name: 'rms_audit_rows_written_total',
    help: 'Audit rows written by this process',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(rowsWritten.audit);
    },
  });
  new prom.Counter({
    name: 'rms_history_entries_written_total',
    help: 'Record history entries written by this process',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(rowsWritten.history);
    },
  });
  new prom.Counter({
    name: 'rms_prune_runs_total',
    help: 'Background prune runs of this process, by what they prune and outcome (done, failed)',
    labelNames: ['target', 'outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [target, runs] of pruneRuns) {
        this.inc({ target, outcome: 'done' }, runs.done);
        this.inc({ target, outcome: 'failed' }, runs.failed);
      }
    },
  });
  new prom.Counter({
    name: 'rms_pruned_rows_total',
    help: 'Rows removed by background prune runs of this process, by what they prune',
    labelNames: ['target'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [target, runs] of pruneRuns) this.inc({ target }, runs.removed);
    },
  });
  const pool = poolOf(options.db);
  new prom.Gauge({
    name: 'rms_db_pool_connections',
    help: 'Database connections of this process by state: in_use (lent to a query or transaction), idle, max (the pool size)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'in_use' }, pool?.numUsed() ?? 0);
      this.set({ state: 'idle' }, pool?.numFree() ?? 0);
      this.set({ state: 'max' }, pool?.max ?? 0);
    },
  });
  new prom.Gauge({
    name: 'rms_db_pool_waiting',
    help: 'Queries and transactions waiting for a database connection of this process',
    registers: [registry],
    collect() {
      this.set(pool?.numPendingAcquires() ?? 0);
    },
  });

  return {
    observe(request) {
      const status = String(request.status);
      requests.inc({ interface: request.interface, model: request.model, kind: request.kind, caller: request.caller, status });
      latency.observe({ interface: request.interface, model: request.model, kind: request.kind }, request.seconds);
      if (request.rateLimited) rateLimited.inc({ interface: request.interface });
      if (request.signIn !== undefined) signIns.inc({ outcome: request.signIn });
    },
    async render() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}

/** The parts of knex's pool (tarn) the gauges read. */
interface Pool {
  readonly max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

function poolOf(db: Knex): Pool | undefined {
  const pool = (db.client as { pool?: Partial<Pool> }).pool;
  return pool && typeof pool.numUsed === 'function' ? (pool as Pool) : undefined;
}
