/**
 * Starts the service: open the database, migrate (system tables + model tables; additive only, so
 * an older release starting during a rolling deploy leaves a newer one's schema alone), make sure a
 * first person exists, compile the record service, listen. `close()` drains (see `drain`): `/healthz`
 * answers 503 at once, in-flight requests finish, connections close after their answers, then the
 * database closes.
 *
 * The agent side's routes, MCP and the web app plug in as `ServerExtension`s (routers), all wired
 * here. The service's own tables are one list (system-table-list.ts) that `migrate` uses too.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { dirname } from 'node:path';
import type { RequestHandler, Router } from 'express';
import { plansAndAuditExtension } from './plans/extension.ts';
import { mcpExtension } from './mcp/extension.ts';
import { webAppExtension } from './web.ts';
import { ensureAdminUser } from './auth/index.ts';
import { createAgentRateLimiter, DEFAULT_AGENT_LIMITS } from './auth/rate-limits.ts';
import { recordFreshLogic, staleComputedModels } from './commands/recompute.ts';
import { systemClock } from './clock.ts';
import { createRecordService } from './commands/service.ts';
import { openDatabase } from './db/connect.ts';
import { isAddedIndex, migrate } from './db/migrate.ts';
import { SYSTEM_TABLES } from './system-table-list.ts';
import type { DirectRoute, ServerExtension } from './extension.ts';
import { createApp } from './http/app.ts';
import { fastCommandRoute } from './http/command-route.ts';
import { createCallers } from './http/callers.ts';
import { createSite } from './http/site.ts';
import { logUnexpectedError } from './errors.ts';
import { formatErrorLine } from './log.ts';
import { createServerMetrics, type ServerMetrics } from './metrics.ts';
import { listenForMetrics, type MetricsListener } from './http/metrics-server.ts';
import { createRequestObserver } from './http/observe.ts';
import { countPlansByStatus } from './plans/store.ts';
import { startPruner } from './retention/pruner.ts';
import { DEFAULT_MAX_UPLOAD_BYTES, startFiles } from './files/service.ts';
import { isOversizedUpload } from './files/routes.ts';
import { defaultFileStorage } from './files/storage.ts';
import { DEFAULT_AGENT_FILE_BYTES_PER_DAY } from './files/budget.ts';
import { createWebhookRouter } from './webhooks/routes.ts';
import { startDeliveryWorker } from './webhooks/worker.ts';
import { DEFAULT_ADMIN_PASSWORD_FILE, httpServerOptions, type RunningServer, type ServerOptions } from './server-options.ts';

export { DEFAULT_TIMEOUTS, DRAIN_QUIET_MS, type HttpTimeouts, type RunningServer, type ServerOptions } from './server-options.ts';

/** The extensions `serve` installs (their routes; the system tables are SYSTEM_TABLES, system-table-list.ts). */
export const SERVER_EXTENSIONS: readonly ServerExtension[] = [plansAndAuditExtension, mcpExtension, webAppExtension()];

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
    const { changes, leftInPlace } = await migrate(db, registry, { systemTables: SYSTEM_TABLES, mode: 'additive' });
    for (const line of [...changes.filter(isAddedIndex), ...leftInPlace]) log(line);
    const admin = await ensureAdminUser(db, {
      ...(options.adminPassword === undefined ? {} : { password: options.adminPassword }),
      ...(options.passwordHashCost === undefined ? {} : { hashCost: options.passwordHashCost }),
    });
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
    // What the service says while it runs (the sweeps' and the pruner's counts): a JSON line in
    // JSON format, as a log collector reads the request lines.
    const runLog = logFormat === 'json' ? (line: string) => log(JSON.stringify({ time: new Date().toISOString(), level: 'info', message: line })) : log;
    const files = await startFiles({
      service,
      callers,
      storage: options.files ?? defaultFileStorage(options.dbUrl),
      limits: { maxBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES },
      agentBytesPerDay: options.agentFileBytesPerDay ?? DEFAULT_AGENT_FILE_BYTES_PER_DAY,
      log: runLog,
      logError: (error) => logError(error),
    });
    const beforeApi: (Router | RequestHandler)[] = [files.router];
    const allowPrivateWebhooks = options.webhooks?.allowPrivate ?? false;
    const api: (Router | RequestHandler)[] = [createWebhookRouter(service, callers, { allowPrivate: allowPrivateWebhooks })];
    const directRoutes: DirectRoute[] = [];
    for (const extension of extensions) {
      const routes = extension.routes?.(service, { site, callers, files: files.reading, isClosing: () => closing });
      directRoutes.push(...(routes?.direct ?? []));
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

    // Plain command calls and the extensions' direct routes (`/mcp`) are answered before Express
    // (see http/command-route.ts); the rest is the app's.
    const commandRoute = fastCommandRoute({ service, callers, isClosing: () => closing });
    const { keepAliveTimeout, ...serverOptions } = httpServerOptions(options.timeouts);
    const silent = silentConnections();
    const httpServer = createServer(serverOptions, (req, res) => {
      observer.start(req, res);
      if (commandRoute(req, res)) return;
      for (const route of directRoutes) if (route(req, res)) return;
      app(req, res);
    });
    httpServer.keepAliveTimeout = keepAliveTimeout;
    // A client that asks before sending its body (`Expect: 100-continue`, as curl does past 1 KiB)
    // is told to go on, except for an upload its Content-Length already puts over the limit: that
    // one is answered 413 at once, before any of its bytes are sent (Node would say 100 first).
    httpServer.on('checkContinue', (req, res) => {
      if (!isOversizedUpload(req, files.limits)) res.writeContinue();
      httpServer.emit('request', req, res);
    });
    httpServer.on('connection', (socket: Socket) => silent.accepted(socket));
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

    const pruner = options.retention ? startPruner({ db, policy: options.retention, clock, log: runLog, logError: (error) => logError(error), ...(options.pruneBatches ? { batches: options.pruneBatches } : {}) }) : undefined;

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
      files,
      ...(webhookWorker ? { webhookWorker } : {}),
      close() {
        closed ??= (async () => {
          closing = true;
          observer.closeAfterAnswers();
          await drain(httpServer, { graceMs: options.shutdownGraceMs ?? 10_000, quietMs: options.drainQuietMs ?? 0, lastRequestAt: observer.lastRequestAt, closeSilent: silent.closeOlderThan });
          // Its lease released, another instance takes the pruning over at once.
          await pruner?.stop().catch((error: unknown) => logError(error));
          await files.stop().catch((error: unknown) => logError(error));
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
async function drain(
  server: Server,
  options: { readonly graceMs: number; readonly quietMs: number; readonly lastRequestAt: () => number; readonly closeSilent: (ms: number) => void },
): Promise<void> {
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
    const closeIdle = () => {
      server.closeIdleConnections();
      options.closeSilent(SILENT_GRACE_MS);
    };
    const idle = setInterval(closeIdle, 50);
    const cut = setTimeout(() => server.closeAllConnections(), left);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve();
    });
    closeIdle();
  });
}

/**
 * How long the drain waits for the first request of a connection accepted before it stopped
 * listening (a balancer opens one to send a request at once): one that sends nothing by then is
 * closed, rather than holding the shutdown until the grace ends (or the headers' timeout).
 */
const SILENT_GRACE_MS = 1_000;

/**
 * The open connections and when each was accepted, for the drain: one that has sent nothing yet
 * (not a byte read) is left by Node's `closeIdleConnections` (its request may be on its way), so
 * the drain closes those silent for longer than a moment itself. Nothing here runs per request.
 */
function silentConnections() {
  const acceptedAt = new Map<Socket, number>();
  return {
    accepted(socket: Socket): void {
      acceptedAt.set(socket, performance.now());
      socket.once('close', () => acceptedAt.delete(socket));
    },
    closeOlderThan(ms: number): void {
      const now = performance.now();
      for (const [socket, at] of acceptedAt) if (socket.bytesRead === 0 && now - at >= ms) socket.destroy();
    },
  };
}

/**
 * Drains and closes the server. Nothing else keeps the process alive then (the database is closed,
 * every connection cut), so it ends by itself: exit status 0, or 1 when closing failed.
 */
export function shutDown(server: RunningServer, signal: string): void {
  console.log(`${signal}: shutting down`);
  server.close().catch((error: unknown) => {
    logUnexpectedError(error);
    process.exitCode = 1;
  });
}
