/**
 * The options of the runtime's subcommands as the server takes them: each from its flag, else its
 * environment variable, else the default; a wrong value stops the start with one line naming the
 * flag, the variable and what is accepted.
 */
import { DEFAULT_AGENT_LIMITS, type RateLimits } from './auth/rate-limits.ts';
import { DEFAULT_DB_URL, parseDatabaseUrl, type OpenOptions } from './db/connect.ts';
import { MigrationRefusedError } from './db/migrate.ts';
import { CliError } from './cli-error.ts';
import { parseByteSize, SIZE_SYNTAX } from './files/media-types.ts';
import type { FileStorageChoice } from './files/storage.ts';
import { resolve } from 'node:path';
import { DAY_MS, DEFAULT_PRUNE_INTERVAL_MS, DEFAULT_RETENTION_DAYS, type RetentionPolicy } from './retention/policy.ts';
import { serviceInfo, ServiceSettingError } from './service-identity.ts';
import { createLineWriter, LOG_FORMATS, type LogFormat } from './log.ts';
import { DRAIN_QUIET_MS, type HttpTimeouts, type ServerOptions } from './server-options.ts';

export interface ServeOptions extends DatabaseOptions {
  readonly port?: string;
  readonly host?: string;
  readonly db?: string;
  readonly publicUrl?: string;
  readonly agentRequestsPerMinute?: string;
  readonly agentWritesPerMinute?: string;
  readonly trustProxy?: string;
  readonly adminPasswordFile?: string;
  readonly name?: string;
  readonly colour?: string;
  readonly locale?: string;
  readonly requestTimeout?: string;
  readonly keepAliveTimeout?: string;
  readonly shutdownTimeout?: string;
  readonly logFormat?: string;
  /** False with `--no-request-log`. */
  readonly requestLog?: boolean;
  readonly metricsPort?: string;
  readonly metricsHost?: string;
  readonly retainAuditDays?: string;
  readonly retainAuditReadsDays?: string;
  readonly retainHistoryDays?: string;
  readonly retainAgentDays?: string;
  readonly retainEventsDays?: string;
  readonly retainDeadEventsDays?: string;
  readonly files?: string;
  readonly maxUpload?: string;
  readonly agentFileBytesPerDay?: string;
  /** `--allow-private-webhooks`. */
  readonly allowPrivateWebhooks?: boolean;
}

/** `--pool-size` and `--statement-timeout` (PostgreSQL only; SQLite has one connection and no timeout). */
export interface DatabaseOptions {
  readonly poolSize?: string;
  readonly statementTimeout?: string;
}

export function databaseUrl(option: string | undefined): string {
  const url = option ?? env('RMS_DB') ?? DEFAULT_DB_URL;
  try {
    parseDatabaseUrl(url);
  } catch (error) {
    throw new CliError(`${option === undefined ? 'RMS_DB' : '--db'}: ${(error as Error).message}`);
  }
  return url;
}

export const POOL_SIZE_ENV = 'RMS_DB_POOL_SIZE';
export const STATEMENT_TIMEOUT_ENV = 'RMS_DB_STATEMENT_TIMEOUT_MS';

/** Pool size and statement timeout from the options, else the environment, else openDatabase's defaults. */
export function databaseOptions(options: DatabaseOptions): OpenOptions {
  const poolSize = options.poolSize ?? env(POOL_SIZE_ENV);
  const statementTimeout = options.statementTimeout ?? env(STATEMENT_TIMEOUT_ENV);
  return {
    ...(poolSize !== undefined ? { poolSize: parseWhole(poolSize, `--pool-size / ${POOL_SIZE_ENV}`, 1, 1000) } : {}),
    ...(statementTimeout !== undefined
      ? { statementTimeoutMs: parseWhole(statementTimeout, `--statement-timeout / ${STATEMENT_TIMEOUT_ENV}`, 0, 2_147_483_647) }
      : {}),
  };
}

export const AGENT_REQUESTS_ENV = 'RMS_AGENT_REQUESTS_PER_MINUTE';
export const AGENT_WRITES_ENV = 'RMS_AGENT_WRITES_PER_MINUTE';
export const TRUST_PROXY_ENV = 'RMS_TRUST_PROXY';

/** The server's limits for agent tokens without their own: options, else the environment, else the defaults. */
export function agentLimits(options: ServeOptions): RateLimits {
  const requests = options.agentRequestsPerMinute ?? env(AGENT_REQUESTS_ENV);
  const writes = options.agentWritesPerMinute ?? env(AGENT_WRITES_ENV);
  return {
    requestsPerMinute: requests === undefined ? DEFAULT_AGENT_LIMITS.requestsPerMinute : parseWhole(requests, `--agent-requests-per-minute / ${AGENT_REQUESTS_ENV}`, 0, 1_000_000),
    writesPerMinute: writes === undefined ? DEFAULT_AGENT_LIMITS.writesPerMinute : parseWhole(writes, `--agent-writes-per-minute / ${AGENT_WRITES_ENV}`, 0, 1_000_000),
  };
}

export const REQUEST_TIMEOUT_ENV = 'RMS_REQUEST_TIMEOUT_MS';
export const KEEP_ALIVE_TIMEOUT_ENV = 'RMS_KEEP_ALIVE_TIMEOUT_MS';

/** The HTTP timeouts from the options, else the environment, else the server's defaults. */
export function timeouts(options: ServeOptions): Partial<HttpTimeouts> {
  const request = options.requestTimeout ?? env(REQUEST_TIMEOUT_ENV);
  const keepAlive = options.keepAliveTimeout ?? env(KEEP_ALIVE_TIMEOUT_ENV);
  return {
    ...(request !== undefined ? { requestMs: parseWhole(request, `--request-timeout / ${REQUEST_TIMEOUT_ENV}`, 0, 2_147_483_647) } : {}),
    ...(keepAlive !== undefined ? { keepAliveMs: parseWhole(keepAlive, `--keep-alive-timeout / ${KEEP_ALIVE_TIMEOUT_ENV}`, 0, 2_147_483_647) } : {}),
  };
}

export const SHUTDOWN_TIMEOUT_ENV = 'RMS_SHUTDOWN_TIMEOUT_MS';
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
export const LOG_FORMAT_ENV = 'RMS_LOG_FORMAT';
export const REQUEST_LOG_ENV = 'RMS_REQUEST_LOG';
export const METRICS_PORT_ENV = 'RMS_METRICS_PORT';
export const METRICS_HOST_ENV = 'RMS_METRICS_HOST';

/**
 * What `serve` logs and measures, and how it stops: the log's format (text on a terminal, JSON
 * lines otherwise, for a log collector), one line per request unless `--no-request-log`, metrics on
 * their own port when one is given, the drain's bound and quiet. Request lines go out in batches
 * (log.ts); `flushLog` writes what is pending.
 */
export function observabilityOptions(options: ServeOptions): Pick<ServerOptions, 'logFormat' | 'requestLog' | 'metrics' | 'shutdownGraceMs' | 'drainQuietMs'> & { flushLog: () => void } {
  const format = options.logFormat ?? env(LOG_FORMAT_ENV) ?? (process.stdout.isTTY ? 'text' : 'json');
  if (!(LOG_FORMATS as readonly string[]).includes(format)) throw new CliError(`invalid --log-format / ${LOG_FORMAT_ENV} ${format}: use ${LOG_FORMATS.join(' or ')}`);
  const requestLogSetting = env(REQUEST_LOG_ENV);
  if (requestLogSetting !== undefined && requestLogSetting !== 'on' && requestLogSetting !== 'off') throw new CliError(`invalid ${REQUEST_LOG_ENV} ${requestLogSetting}: use on or off`);
  const logRequests = options.requestLog !== false && requestLogSetting !== 'off';
  const writer = createLineWriter(process.stdout);
  const metricsPort = options.metricsPort ?? env(METRICS_PORT_ENV);
  const shutdown = options.shutdownTimeout ?? env(SHUTDOWN_TIMEOUT_ENV);
  return {
    logFormat: format as LogFormat,
    ...(logRequests ? { requestLog: writer.write } : {}),
    ...(metricsPort !== undefined ? { metrics: { host: options.metricsHost ?? env(METRICS_HOST_ENV) ?? '127.0.0.1', port: parsePort(metricsPort) } } : {}),
    shutdownGraceMs: shutdown === undefined ? DEFAULT_SHUTDOWN_TIMEOUT_MS : parseWhole(shutdown, `--shutdown-timeout / ${SHUTDOWN_TIMEOUT_ENV}`, 0, 2_147_483_647),
    drainQuietMs: DRAIN_QUIET_MS,
    flushLog: writer.flush,
  };
}

export const RETAIN_AUDIT_ENV = 'RMS_RETAIN_AUDIT_DAYS';
export const RETAIN_AUDIT_READS_ENV = 'RMS_RETAIN_AUDIT_READS_DAYS';
export const RETAIN_HISTORY_ENV = 'RMS_RETAIN_HISTORY_DAYS';
export const RETAIN_AGENT_ENV = 'RMS_RETAIN_AGENT_DAYS';
export const RETAIN_EVENTS_ENV = 'RMS_RETAIN_EVENTS_DAYS';
export const RETAIN_DEAD_EVENTS_ENV = 'RMS_RETAIN_DEAD_EVENTS_DAYS';
/** A century: beyond it a number of days is a mistake, not a policy. */
export const MAX_RETAIN_DAYS = 36_500;

/** What the server keeps and prunes: options, else the environment, else the defaults (runtime/retention/policy.ts). */
export function retentionPolicy(options: ServeOptions): RetentionPolicy {
  const days = (option: string | undefined, flag: string, variable: string, fallback: number) => {
    const value = option ?? env(variable);
    return (value === undefined ? fallback : parseWhole(value, `${flag} / ${variable}`, 0, MAX_RETAIN_DAYS)) * DAY_MS;
  };
  return {
    auditMs: days(options.retainAuditDays, '--retain-audit-days', RETAIN_AUDIT_ENV, DEFAULT_RETENTION_DAYS.audit),
    auditReadsMs: days(options.retainAuditReadsDays, '--retain-audit-reads-days', RETAIN_AUDIT_READS_ENV, DEFAULT_RETENTION_DAYS.auditReads),
    historyMs: days(options.retainHistoryDays, '--retain-history-days', RETAIN_HISTORY_ENV, DEFAULT_RETENTION_DAYS.history),
    agentMs: days(options.retainAgentDays, '--retain-agent-days', RETAIN_AGENT_ENV, DEFAULT_RETENTION_DAYS.agent),
    eventsMs: days(options.retainEventsDays, '--retain-events-days', RETAIN_EVENTS_ENV, DEFAULT_RETENTION_DAYS.events),
    deadEventsMs: days(options.retainDeadEventsDays, '--retain-dead-events-days', RETAIN_DEAD_EVENTS_ENV, DEFAULT_RETENTION_DAYS.deadEvents),
    everyMs: DEFAULT_PRUNE_INTERVAL_MS,
  };
}

/** Express's `trust proxy` from `--trust-proxy`: true/false, a hop count, or a list of addresses and subnets. */
export const FILES_ENV = 'RMS_FILES';
export const MAX_UPLOAD_ENV = 'RMS_MAX_UPLOAD';
export const AGENT_FILE_BYTES_ENV = 'RMS_AGENT_FILE_BYTES_PER_DAY';

/**
 * `--files disk:<dir>` or `--files db`, `--max-upload <size>` ('50MB') and
 * `--agent-file-bytes-per-day <size>`; absent: the server's defaults (files/service.ts, files/budget.ts).
 */
export function filesOptions(options: ServeOptions): Pick<ServerOptions, 'files' | 'maxUploadBytes' | 'agentFileBytesPerDay'> {
  const files = options.files ?? env(FILES_ENV);
  const maxUpload = options.maxUpload ?? env(MAX_UPLOAD_ENV);
  const budget = options.agentFileBytesPerDay ?? env(AGENT_FILE_BYTES_ENV);
  const out: { files?: FileStorageChoice; maxUploadBytes?: number; agentFileBytesPerDay?: number } = {};
  if (files !== undefined) {
    const trimmed = files.trim();
    if (trimmed === 'db') out.files = { kind: 'db' };
    else if (/^disk:.+/.test(trimmed)) out.files = { kind: 'disk', dir: resolve(trimmed.slice('disk:'.length)) };
    else throw new CliError(`invalid --files / ${FILES_ENV} ${files} (use disk:<directory> or db)`);
  }
  if (maxUpload !== undefined) {
    const bytes = parseByteSize(maxUpload);
    if (bytes === undefined) throw new CliError(`invalid --max-upload / ${MAX_UPLOAD_ENV} ${maxUpload} (use ${SIZE_SYNTAX})`);
    out.maxUploadBytes = bytes;
  }
  if (budget !== undefined) {
    const bytes = parseByteSize(budget);
    if (bytes === undefined) throw new CliError(`invalid --agent-file-bytes-per-day / ${AGENT_FILE_BYTES_ENV} ${budget} (use ${SIZE_SYNTAX})`);
    out.agentFileBytesPerDay = bytes;
  }
  return out;
}

export async function trustProxyOption(value: string | undefined): Promise<{ trustProxy?: boolean | number | string }> {
  if (value === undefined) return {};
  const trimmed = value.trim();
  const trustProxy = trimmed === 'true' || trimmed === 'false' ? trimmed === 'true' : /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
  // Express (loaded here, for `serve` only) compiles the setting, refusing what is not an address,
  // subnet or name it knows.
  const { default: express } = await import('express');
  try {
    express().set('trust proxy', trustProxy);
  } catch (error) {
    throw new CliError(`invalid --trust-proxy / ${TRUST_PROXY_ENV} ${value}: ${(error as Error).message} (use the proxies' addresses and subnets such as loopback,10.0.0.0/8, a hop count, or true)`);
  }
  return { trustProxy };
}

export const SERVICE_NAME_ENV = 'RMS_SERVICE_NAME';
export const SERVICE_COLOUR_ENV = 'RMS_SERVICE_COLOUR';
export const LOCALE_ENV = 'RMS_LOCALE';

/** The service's name, colour and locale: options, else the environment, else the defaults; a wrong one stops the start. */
export function serviceIdentityOption(options: ServeOptions) {
  try {
    return serviceInfo(
      { name: options.name ?? env(SERVICE_NAME_ENV), colour: options.colour ?? env(SERVICE_COLOUR_ENV), locale: options.locale ?? env(LOCALE_ENV) },
      { name: `--name / ${SERVICE_NAME_ENV}`, colour: `--colour / ${SERVICE_COLOUR_ENV}`, locale: `--locale / ${LOCALE_ENV}` },
    );
  } catch (error) {
    if (!(error instanceof ServiceSettingError)) throw error;
    throw new CliError(error.message);
  }
}

/** A real calendar date `YYYY-MM-DD`. */
export function parseDay(value: string, name: string): string {
  const day = value.trim();
  const date = new Date(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== day) {
    throw new CliError(`invalid ${name} ${value}: use a real calendar date YYYY-MM-DD`);
  }
  return day;
}

/** `--lines 10` or `--lines 1-10`: lines per record, 0 to 1,000. */
export function parseLineCount(value: string): { min: number; max: number } {
  const match = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  const [min, max] = match ? [Number(match[1]), Number(match[2] ?? match[1])] : [Number.NaN, Number.NaN];
  if (!(min >= 0 && max >= min && max <= 1000)) {
    throw new CliError(`invalid --lines ${value}: use a number of lines per record or a range such as 1-10, from 0 to 1000`);
  }
  return { min, max };
}

export function parseWhole(value: string, name: string, min: number, max: number): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new CliError(`invalid ${name} ${value}: use a whole number from ${min} to ${max}`);
  }
  return number;
}

/** An environment variable, unset when empty. */
export function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function publicUrlOption(value: string | undefined): { publicUrl?: string } {
  if (value === undefined) return {};
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new CliError(`invalid --public-url / RMS_PUBLIC_URL ${value}: write it like https://rms.example.com`);
  }
  return { publicUrl: url.origin };
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CliError(`invalid port ${value}: use a number from 0 to 65535`);
  }
  return port;
}

/** A start refused for a reason the person can act on is a CliError; anything else stays what it is, a bug. */
export function failStartup(error: unknown): never {
  if (error instanceof MigrationRefusedError) throw new CliError(error.message);
  if (LISTEN_REFUSALS.has(String((error as { code?: unknown }).code))) throw new CliError(`cannot listen: ${(error as Error).message}`);
  throw error;
}

/** Why a port cannot be listened on that the person can act on: taken, an address not this machine's or no address at all, a port they may not use. */
const LISTEN_REFUSALS: ReadonlySet<string> = new Set(['EADDRINUSE', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EACCES']);

/** A file option's parser: an empty or blank name names no file (resolved, it would be the folder the command runs in). */
export function fileOption(flag: string): (value: string) => string {
  return (value) => {
    if (value.trim() === '') throw new CliError(`${flag} needs a file name`);
    return value;
  };
}
