/**
 * What `startServer` (server.ts) takes and gives: its options, the HTTP timeouts, and the running
 * server. Apart from server.ts, which wires the parts, so that each stays readable.
 */
import type { Knex } from 'knex';
import type { ServiceInfo } from './api-shapes.ts';
import type { RateLimits } from './auth/rate-limits.ts';
import type { Clock } from './clock.ts';
import type { RecordService } from './commands/types.ts';
import type { BatchOptions } from './db/batched-delete.ts';
import type { OpenOptions } from './db/connect.ts';
import type { ServerExtension } from './extension.ts';
import type { Files } from './files/service.ts';
import type { FileStorageChoice } from './files/storage.ts';
import type { LogFormat } from './log.ts';
import type { Registry } from './registry.ts';
import type { RetentionPolicy } from './retention/policy.ts';
import type { Pruner } from './retention/pruner.ts';
import type { DeliveryWorker, WorkerOptions } from './webhooks/worker.ts';

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
  /**
   * bcrypt's cost for the first admin's hash: default 10 (`BCRYPT_COST`). Only tests lower it (to 4,
   * bcrypt's least), as test set-ups of other frameworks do: a cost-10 hash takes a tenth of a
   * second of CPU at each of the suite's hundreds of server starts, and sign-in checks either alike.
   */
  readonly passwordHashCost?: number;
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
  /** Where uploaded files' content lives (`serve --files`); default `defaultFileStorage(dbUrl)`. */
  readonly files?: FileStorageChoice;
  /** The largest upload in bytes (`serve --max-upload`); default 50 MB. */
  readonly maxUploadBytes?: number;
  /** What an agent token may read of files per UTC day, in bytes (`serve --agent-file-bytes-per-day`); default 1 GB. */
  readonly agentFileBytesPerDay?: number;
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

/** Where `serve` writes a generated first password of `admin`, relative to the working directory. */
export const DEFAULT_ADMIN_PASSWORD_FILE = 'data/initial-admin-password';

export const DEFAULT_TIMEOUTS: HttpTimeouts = { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 5_000 };

/** node:http's options for the timeouts (see `HttpTimeouts`). */
export function httpServerOptions(given: Partial<HttpTimeouts> = {}): { requestTimeout: number; headersTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number } {
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
  /** Uploaded files: their storage and the sweep of those no record or history entry holds. */
  readonly files: Files;
  /** The webhook delivery worker, unless turned off (`webhooks.worker: false`). */
  readonly webhookWorker?: DeliveryWorker;
  close(): Promise<void>;
}

/** `serve`'s quiet before it stops listening (see `ServerOptions.drainQuietMs`): longer than the gaps between requests of a steady load. */
export const DRAIN_QUIET_MS = 500;
