/**
 * Starts the service: open the database, migrate (system tables + model tables; additive only, so
 * an older release starting during a rolling deploy leaves a newer one's schema alone), make sure a
 * first person exists, compile the record service, listen. `close()` drains (see `drain`): `/healthz`
 * answers 503 at once, in-flight requests finish, connections close after their answers, then the
 * database closes.
 *
 * The agent side's routes, MCP and the web app plug in as `ServerExtension`s (tables and
 * routers), all wired here so that `serve` and `migrate` agree on what exists.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import type { Knex } from 'knex';
import type { ServiceInfo } from './api-shapes.ts';
import type { RequestHandler, Router } from 'express';
import { ensureAuditTables } from './audit/store.ts';
import { ensureHistoryTables } from './history/store.ts';
import { ensureMaskTables } from './masking/tables.ts';
import { plansAndAuditExtension } from './plans/extension.ts';
import { ensurePlanTables } from './plans/store.ts';
import { mcpExtension } from './mcp/extension.ts';
import { webAppExtension } from './web.ts';
import { ensureAdminUser, ensureAuthTables } from './auth/index.ts';
import { createAgentRateLimiter, DEFAULT_AGENT_LIMITS, ensureRateTables, type RateLimits } from './auth/rate-limits.ts';
import { ensureLogicTables, recordFreshLogic, staleComputedModels } from './commands/recompute.ts';
import { systemClock, type Clock } from './clock.ts';
import { createRecordService } from './commands/service.ts';
import type { RecordService } from './commands/types.ts';
import { openDatabase, type OpenOptions } from './db/connect.ts';
import { isAddedIndex, migrate, type SystemTableSetup } from './db/migrate.ts';
import type { ServerExtension } from './extension.ts';
import { createApp } from './http/app.ts';
import { fastCommandRoute } from './http/command-route.ts';
import { createCallers } from './http/callers.ts';
import { createSite } from './http/site.ts';
import type { Registry } from './registry.ts';
import { formatErrorLine, type LogFormat } from './log.ts';
import { createServerMetrics, type ServerMetrics } from './metrics.ts';
import { listenForMetrics, type MetricsListener } from './http/metrics-server.ts';
import { createRequestObserver } from './http/observe.ts';
import { countPlansByStatus } from './plans/store.ts';
import { ensureRetentionIndexes } from './retention/indexes.ts';
import { ensureLeaseTables } from './retention/lease.ts';
import type { RetentionPolicy } from './retention/policy.ts';
import type { BatchOptions } from './db/batched-delete.ts';
import { startPruner, type Pruner } from './retention/pruner.ts';
import { ensureWebhookTables } from './webhooks/tables.ts';
import { createWebhookRouter } from './webhooks/routes.ts';
import { startDeliveryWorker, type DeliveryWorker, type WorkerOptions } from './webhooks/worker.ts';

/** The extensions `serve` and `migrate` install. */
export const SERVER_EXTENSIONS: readonly ServerExtension[] = [plansAndAuditExtension, mcpExtension, webAppExtension()];

/**
 * Every system table setup, in order: what the command path itself uses (sign-in, masking, plans,
 * the audit trail), then the extensions'.
 */
export function systemTableSetups(extensions: readonly ServerExtension[] = SERVER_EXTENSIONS): SystemTableSetup[] {
  return [ensureAuthTables, ensureRateTables, ensureMaskTables, ensurePlanTables, ensureAuditTables, ensureHistoryTables, ensureLogicTables, ensureLeaseTables, ensureRetentionIndexes, ensureWebhookTables, ...extensions.flatMap((extension) => extension.systemTables ?? [])];
}

/** Where `serve` writes a generated first password of `admin`, relative to the working directory. */
export const DEFAULT_ADMIN_PASSWORD_FILE = 'data/initial-admin-password';

/**
 * Writes the first admin's generated password to `file`, readable by this user only, and returns
 * the line to log, which names the file and never holds the password (a log is read by more people,
 * and kept longer, than a file only its owner can open). A file that cannot be written leaves the
 * admin without a known password; the line says how to set one.
 */
function keepGeneratedPassword(file: string, password: string): string {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    chmodSync(file, 0o600); // a file left from an earlier database keeps its mode on overwrite
  } catch (error) {
    return `created person admin, but could not write its password to ${file} (${(error as Error).message}); set one with \`rmsgen user passwd admin\``;
  }
  return `created person admin; its password is in ${file} (readable by this user only): sign in, set your own with \`rmsgen user passwd admin\`, and delete the file`;
}

export interface ServerOptions {
  readonly registry: Registry;
  readonly dbUrl: string;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 3000; 0 picks a free port. */
  readonly port?: number;
  /** The URL people and clients reach the server at (behind a proxy); its origin counts as the server's own. */
  readonly publicUrl?: string;
  /** Password of the first person `admin`; generated when absent, and written to `adminPasswordFile`. */
  readonly adminPassword?: string;
  /**
   * Where a generated first password is written (readable by the server's user only), never to the
   * log. Default `data/initial-admin-password` in the working directory (`DEFAULT_ADMIN_PASSWORD_FILE`).
   */
  readonly adminPasswordFile?: string;
  /** Operator-facing lines (`listening on …`). Default: stdout. */
  readonly log?: (line: string) => void;
  /** Unexpected errors (answered 500 without details), with the id of the request they happened in. Default: stderr, in `logFormat`. */
  readonly logError?: (error: unknown, requestId?: string) => void;
  /** The format of request lines and of the default error log (`serve --log-format`). Default text. */
  readonly logFormat?: LogFormat;
  /** Where one line per request goes, in `logFormat` (see log.ts); none: no request lines. */
  readonly requestLog?: (line: string) => void;
  /** Serve `GET /metrics` on this address (`serve --metrics-port`, `--metrics-host`); none: no metrics are kept. */
  readonly metrics?: { readonly host: string; readonly port: number };
  readonly database?: OpenOptions;
  /** What an agent token without limits of its own may do per minute (0: unlimited). Default 600 requests, 120 writes. */
  readonly agentLimits?: RateLimits;
  /** Express's `trust proxy` (see `serve --trust-proxy`). Default none. */
  readonly trustProxy?: boolean | number | string;
  readonly extensions?: readonly ServerExtension[];
  /** What the service calls itself for people (`serve --name`, `--colour`, `--locale`); default `DEFAULT_SERVICE_INFO`. */
  readonly serviceInfo?: ServiceInfo;
  /** How long `close()` may take before it cuts the connections left (`serve --shutdown-timeout`). Default 10 s. */
  readonly shutdownGraceMs?: number;
  /**
   * While draining, the server keeps accepting (each answer closing its connection) until no
   * request but `/healthz` has come for this long — time for a load balancer to see `/healthz`
   * answer 503 and stop sending — or half of `shutdownGraceMs` has passed; only then does it stop
   * listening and close idle connections. 0 (the default for embedders and tests): at once.
   * `serve`: `DRAIN_QUIET_MS`.
   */
  readonly drainQuietMs?: number;
  /** How long clients may take to send requests, and idle connections are kept (`DEFAULT_TIMEOUTS`). */
  readonly timeouts?: Partial<HttpTimeouts>;
  /** The time for rate windows, the sign-in lockout, token expiry, retention and writes' `'today'` and `'now'` (runtime/clock.ts); the system's by default. */
  readonly clock?: Clock;
  /**
   * What the server prunes in the background, and how often (runtime/retention/). `serve` always
   * passes one (`--retain-audit-days` and the others); absent, nothing is pruned.
   */
  readonly retention?: RetentionPolicy;
  /** The pruner's batch sizes and pauses (runtime/db/batched-delete.ts); its defaults suit a server. */
  readonly pruneBatches?: BatchOptions;
  /**
   * Webhooks (runtime/webhooks/): `allowPrivate` is `serve --allow-private-webhooks`; `worker`
   * tunes the delivery worker, or `false` runs none (the instance only writes events).
   */
  readonly webhooks?: {
    readonly allowPrivate?: boolean;
    readonly worker?: false | Omit<WorkerOptions, 'service' | 'clock' | 'allowPrivate' | 'logError'>;
  };
}

/** The HTTP server's timeouts, in milliseconds; 0 turns one off. */
export interface HttpTimeouts {
  /**
   * Receiving a whole request, headers and body: a client that has not sent it all by then is
   * answered 408 and its connection closed, so that requests whose bodies never arrive cannot hold
   * connections (and memory) for long. 30 s carry a 1 MB body at about 35 kB/s.
   */
  readonly requestMs: number;
  /** Receiving a request's headers (at most `requestMs`). */
  readonly headersMs: number;
  /** Keeping an idle keep-alive connection. Behind a load balancer, make it longer than the balancer's own idle timeout. */
  readonly keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 5_000 };

/** node:http's options for the timeouts (see `HttpTimeouts`). */
function httpServerOptions(given: Partial<HttpTimeouts> = {}): { requestTimeout: number; headersTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number } {
  const { requestMs, headersMs, keepAliveMs } = { ...DEFAULT_TIMEOUTS, ...given };
  const headersTimeout = requestMs === 0 ? headersMs : headersMs === 0 ? requestMs : Math.min(headersMs, requestMs);
  const shortest = Math.min(...[requestMs, headersTimeout].filter((ms) => ms > 0), 4_000);
  return {
    requestTimeout: requestMs,
    headersTimeout,
    keepAliveTimeout: keepAliveMs,
    // node:http checks the first two on this interval (by default every 30 s: a request could outlive its timeout by that much).
    connectionsCheckingInterval: Math.max(10, Math.floor(shortest / 4)),
  };
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly db: Knex;
  readonly service: RecordService;
  /** `GET /metrics`'s URL when the server keeps metrics. */
  readonly metricsUrl?: string;
  /** The background pruner, when the server has a retention policy. */
  readonly pruner?: Pruner;
  /** The webhook delivery worker, unless turned off (`webhooks.worker: false`). */
  readonly webhookWorker?: DeliveryWorker;
  close(): Promise<void>;
}

/** `serve`'s quiet before it stops listening (see `ServerOptions.drainQuietMs`): longer than the gaps between requests of a steady load. */
export const DRAIN_QUIET_MS = 500;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  const logFormat = options.logFormat ?? 'text';
  const logError = options.logError ?? ((error: unknown, requestId?: string) => void process.stderr.write(`${formatErrorLine(logFormat, error, requestId)}\n`));
  const host = options.host ?? '127.0.0.1';
  const extensions = options.extensions ?? SERVER_EXTENSIONS;
  const { registry } = options;

  const db = openDatabase(options.dbUrl, options.database);
  let server: Server | undefined;
  let metricsListener: MetricsListener | undefined;
  try {
    // Additive: creates what this version is missing; drops and kind changes wait for `rmsgen migrate`.
    const { changes, leftInPlace } = await migrate(db, registry, { systemTables: systemTableSetups(extensions), mode: 'additive' });
    for (const line of [...changes.filter(isAddedIndex), ...leftInPlace]) log(line);
    const admin = await ensureAdminUser(db, options.adminPassword === undefined ? {} : { password: options.adminPassword });
    if (admin.created && admin.password !== undefined) log(keepGeneratedPassword(options.adminPasswordFile ?? DEFAULT_ADMIN_PASSWORD_FILE, admin.password));

    const clock = options.clock ?? systemClock;
    const service = createRecordService({ registry, db, logError, clock });
    await recordFreshLogic(service);
    for (const model of await staleComputedModels(service)) {
      log(`${model.meta.name}: its computed fields' functions changed since their values were stored; run \`npx rmsgen migrate\` to recompute them`);
    }

    let closing = false;
    const site = createSite(host, options.publicUrl);
    const callers = createCallers(db, createAgentRateLimiter(db, options.agentLimits ?? DEFAULT_AGENT_LIMITS, clock), logError, clock);
    const beforeApi: (Router | RequestHandler)[] = [];
    const allowPrivateWebhooks = options.webhooks?.allowPrivate ?? false;
    const api: (Router | RequestHandler)[] = [createWebhookRouter(service, callers, { allowPrivate: allowPrivateWebhooks })];
    for (const extension of extensions) {
      const routes = extension.routes?.(service, { site, callers });
      beforeApi.push(...(routes?.beforeApi ?? []));
      api.push(...(routes?.api ?? []));
    }
    const app = createApp({
      service,
      callers,
      beforeApi,
      api,
      isClosing: () => closing,
      ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
      ...(options.serviceInfo ? { serviceInfo: options.serviceInfo } : {}),
    });

    let metrics: ServerMetrics | undefined;
    if (options.metrics) {
      metrics = await createServerMetrics({ db, planCounts: () => countPlansByStatus(db) });
      metricsListener = await listenForMetrics(metrics, options.metrics.host, options.metrics.port, logError);
      log(`metrics on ${metricsListener.url}`);
    }
    const observer = createRequestObserver({ metrics, requestLog: options.requestLog, logFormat, isClosing: () => closing });

    // Plain command calls are answered before Express (see http/command-route.ts); the rest is the app's.
    const commandRoute = fastCommandRoute({ service, callers, isClosing: () => closing });
    const { keepAliveTimeout, ...serverOptions } = httpServerOptions(options.timeouts);
    const httpServer = createServer(serverOptions, (req, res) => {
      observer.start(req, res);
      if (!commandRoute(req, res)) app(req, res);
    });
    httpServer.keepAliveTimeout = keepAliveTimeout;
    server = httpServer;
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(options.port ?? 3000, host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
    const port = (httpServer.address() as AddressInfo).port;
    site.listening(port);
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    log(`listening on ${url}`);

    const pruner = options.retention ? startPruner({ db, policy: options.retention, clock, log, logError: (error) => logError(error), ...(options.pruneBatches ? { batches: options.pruneBatches } : {}) }) : undefined;

    const workerOptions = options.webhooks?.worker;
    const webhookWorker = workerOptions === false ? undefined : startDeliveryWorker({ ...workerOptions, service, clock, allowPrivate: allowPrivateWebhooks, logError: (error) => logError(error) });

    let closed: Promise<void> | undefined;
    const listener = metricsListener;
    return {
      url,
      port,
      db,
      service,
      ...(listener ? { metricsUrl: listener.url } : {}),
      ...(pruner ? { pruner } : {}),
      ...(webhookWorker ? { webhookWorker } : {}),
      close() {
        closed ??= (async () => {
          closing = true;
          observer.closeAfterAnswers();
          await drain(httpServer, { graceMs: options.shutdownGraceMs ?? 10_000, quietMs: options.drainQuietMs ?? 0, lastRequestAt: observer.lastRequestAt });
          // Its lease released, another instance takes the pruning over at once.
          await pruner?.stop().catch((error: unknown) => logError(error));
          // Deliveries in flight finish (each within its timeout); what is left waits for the next start.
          await webhookWorker?.stop().catch((error: unknown) => logError(error));
          await listener?.close();
          await db.destroy();
        })();
        return closed;
      },
    };
  } catch (error) {
    server?.close();
    await metricsListener?.close();
    await db.destroy();
    throw error;
  }
}

/**
 * Drains the server (`closing` is already set: `/healthz` answers 503, every answer from now on
 * closes its connection). First, with a quiet, it keeps accepting until no request has come for
 * that long or half the grace has passed, so that a load balancer stops sending before anything is
 * refused; then it stops accepting, closes idle connections (and those that become idle), and
 * waits for in-flight requests; at the end of the grace it cuts what is left.
 */
async function drain(server: Server, options: { readonly graceMs: number; readonly quietMs: number; readonly lastRequestAt: () => number }): Promise<void> {
  const started = performance.now();
  const { graceMs, quietMs } = options;
  if (quietMs > 0) {
    const lameDuckEnd = started + graceMs / 2;
    for (;;) {
      const now = performance.now();
      const quietUntil = options.lastRequestAt() + quietMs;
      if (now >= quietUntil || now >= lameDuckEnd) break;
      await new Promise((resolve) => setTimeout(resolve, Math.max(5, Math.min(quietUntil, lameDuckEnd) - now)));
    }
  }
  const left = Math.max(0, graceMs - (performance.now() - started));
  return new Promise((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), left);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}
