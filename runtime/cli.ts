/**
 * The runtime's subcommands: `serve`, `migrate`, `seed`, `history prune`, `audit prune`, `backup`, `restore`, and the auth side's `user …`.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { registerUserCommands } from './auth/cli.ts';
import { DEFAULT_AGENT_LIMITS } from './auth/rate-limits.ts';
import { DEFAULT_DB_URL, openDatabase } from './db/connect.ts';
import { BackupRefusedError, backupDatabase, restoreDatabase, sqliteFileOf } from './db/backup.ts';
import { backupFilesDir, copyContentFiles } from './files/backup.ts';
import { defaultFileStorage } from './files/storage.ts';
import { RecomputeError, recomputeStale, recordFreshLogic } from './commands/recompute.ts';
import { createRecordService } from './commands/service.ts';
import { MigrationRefusedError, migrate } from './db/migrate.ts';
import { CliError } from './cli-error.ts';
import { HttpError } from './errors.ts';
import { pruneHistory } from './history/store.ts';
import { progressBar } from './cli-progress.ts';
import type { Registry } from './registry.ts';
import {
  AGENT_REQUESTS_ENV,
  AGENT_WRITES_ENV,
  agentLimits,
  databaseOptions,
  databaseUrl,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  env,
  failStartup,
  KEEP_ALIVE_TIMEOUT_ENV,
  LOCALE_ENV,
  LOG_FORMAT_ENV,
  METRICS_HOST_ENV,
  METRICS_PORT_ENV,
  observabilityOptions,
  parseDay,
  parseLineCount,
  parsePort,
  parseWhole,
  POOL_SIZE_ENV,
  publicUrlOption,
  REQUEST_LOG_ENV,
  REQUEST_TIMEOUT_ENV,
  RETAIN_AGENT_ENV,
  RETAIN_AUDIT_ENV,
  RETAIN_AUDIT_READS_ENV,
  RETAIN_DEAD_EVENTS_ENV,
  RETAIN_EVENTS_ENV,
  RETAIN_HISTORY_ENV,
  retentionPolicy,
  filesOptions,
  FILES_ENV,
  MAX_UPLOAD_ENV,
  AGENT_FILE_BYTES_ENV,
  type ServeOptions,
  SERVICE_COLOUR_ENV,
  SERVICE_NAME_ENV,
  serviceIdentityOption,
  SHUTDOWN_TIMEOUT_ENV,
  STATEMENT_TIMEOUT_ENV,
  timeouts,
  TRUST_PROXY_ENV,
  trustProxyOption,
  fileOption,
} from './cli-options.ts';
import { DEFAULT_RETENTION_DAYS } from './retention/policy.ts';
import { prune } from './retention/prune.ts';
import { MAX_SEED_COUNT, SeedRefusedError, seedRecords } from './seed/seed.ts';
import { DEFAULT_SERVICE_INFO } from './service-identity.ts';
import { DEFAULT_ADMIN_PASSWORD_FILE, DEFAULT_TIMEOUTS, type RunningServer } from './server-options.ts';
import { SYSTEM_TABLES } from './system-table-list.ts';

export function registerRuntimeCommands(program: Command, loadRegistry: () => Promise<Registry>): void {
  const dbHelp = `database URL: sqlite:<file> or postgres://user:pass@host:port/db (default: env RMS_DB, else ${DEFAULT_DB_URL})`;
  const statementTimeoutHelp = `PostgreSQL statement timeout in milliseconds, 0 for none (default: env ${STATEMENT_TIMEOUT_ENV}, else 30000)`;

  program
    .command('serve')
    .description('Serve the generated commands over HTTP (first adds missing tables, columns and indexes; other schema changes need rmsgen migrate)')
    .option('--port <port>', 'port to listen on (default: env PORT, else 3000; 0 picks a free one)')
    .option('--host <host>', 'address to listen on (default: env HOST, else 127.0.0.1)')
    .option('--public-url <url>', 'URL clients reach the server at, e.g. behind a proxy; MCP treats its origin as the server\'s own (default: env RMS_PUBLIC_URL)')
    .option('--db <url>', dbHelp)
    .option('--pool-size <n>', `PostgreSQL connections per instance (default: env ${POOL_SIZE_ENV}, else 10)`)
    .option('--statement-timeout <ms>', statementTimeoutHelp)
    .option('--agent-requests-per-minute <n>', `requests an agent token may make per minute unless it has its own limit; 0 for unlimited (default: env ${AGENT_REQUESTS_ENV}, else ${DEFAULT_AGENT_LIMITS.requestsPerMinute})`)
    .option('--agent-writes-per-minute <n>', `creates, updates, deletes, actions and proposals an agent token may make per minute; 0 for unlimited (default: env ${AGENT_WRITES_ENV}, else ${DEFAULT_AGENT_LIMITS.writesPerMinute})`)
    .option('--trust-proxy <value>', `behind a load balancer: which proxies' X-Forwarded-For names the client, for the sign-in throttle: the proxies' addresses/subnets such as loopback,10.0.0.0/8, or a hop count; true and a hop count trust any sender, so only when nothing reaches the server but through the proxy (default: env ${TRUST_PROXY_ENV}, else none)`)
    .option('--request-timeout <ms>', `how long a client may take to send a whole request, body included, before it is answered 408 and its connection closed; 0 for none (default: env ${REQUEST_TIMEOUT_ENV}, else ${DEFAULT_TIMEOUTS.requestMs})`)
    .option('--keep-alive-timeout <ms>', `how long an idle keep-alive connection is kept; behind a load balancer, longer than its idle timeout (default: env ${KEEP_ALIVE_TIMEOUT_ENV}, else ${DEFAULT_TIMEOUTS.keepAliveMs})`)
    .option('--shutdown-timeout <ms>', `on SIGTERM, how long the server may take to drain (in-flight requests finish, connections close after their answers) before it cuts what is left (default: env ${SHUTDOWN_TIMEOUT_ENV}, else ${DEFAULT_SHUTDOWN_TIMEOUT_MS})`)
    .option('--log-format <format>', `json or text: the format of the line logged per request and of error lines (default: env ${LOG_FORMAT_ENV}, else text on a terminal, json otherwise)`)
    .option('--no-request-log', `log no line per request (errors and start-up lines still); env ${REQUEST_LOG_ENV}=off`)
    .option('--metrics-port <port>', `serve GET /metrics (Prometheus) on this port; 0 picks a free one (default: env ${METRICS_PORT_ENV}, else no metrics)`)
    .option('--metrics-host <host>', `address the metrics port listens on (default: env ${METRICS_HOST_ENV}, else 127.0.0.1)`)
    .option('--retain-audit-days <n>', `days the audit trail is kept, then removed in the background (decided plans with it); 0 keeps it for ever (default: env ${RETAIN_AUDIT_ENV}, else ${DEFAULT_RETENTION_DAYS.audit})`)
    .option('--retain-audit-reads-days <n>', `days audit rows of reads (get, list, search, history) are kept; 0: as long as the rest of the trail (default: env ${RETAIN_AUDIT_READS_ENV}, else ${DEFAULT_RETENTION_DAYS.auditReads})`)
    .option('--retain-history-days <n>', `days record history entries are kept; 0 keeps them for ever (default: env ${RETAIN_HISTORY_ENV}, else ${DEFAULT_RETENTION_DAYS.history})`)
    .option('--retain-agent-days <n>', `days the masking tokens and bindings of an agent token are kept after it was revoked or expired; 0 keeps them for ever (default: env ${RETAIN_AGENT_ENV}, else ${DEFAULT_RETENTION_DAYS.agent})`)
    .option('--retain-events-days <n>', `days webhook deliveries are kept once delivered (an event goes with the last of its deliveries; a record's last event stays, without its data); 0 keeps them for ever (default: env ${RETAIN_EVENTS_ENV}, else ${DEFAULT_RETENTION_DAYS.events})`)
    .option('--retain-dead-events-days <n>', `days webhook deliveries that died are kept, for webhook.redeliver; 0 keeps them for ever (default: env ${RETAIN_DEAD_EVENTS_ENV}, else ${DEFAULT_RETENTION_DAYS.deadEvents})`)
    .option('--files <where>', `where uploaded files' content lives: disk:<directory>, or db (chunks in the database, shared by every instance) (default: env ${FILES_ENV}, else disk:<the SQLite file's folder>/files, db on PostgreSQL)`)
    .option('--max-upload <size>', `the largest upload, e.g. 50MB (default: env ${MAX_UPLOAD_ENV}, else 50MB)`)
    .option('--agent-file-bytes-per-day <size>', `what an agent token may read of files (downloads, MCP resources) per UTC day, e.g. 1GB (default: env ${AGENT_FILE_BYTES_ENV}, else 1GB)`)
    .option('--admin-password-file <path>', `where the first start writes the generated password of admin when RMS_ADMIN_PASSWORD is not set (default: env RMS_ADMIN_PASSWORD_FILE, else ${DEFAULT_ADMIN_PASSWORD_FILE})`)
    .option('--name <name>', `the service's name in the web app (default: env ${SERVICE_NAME_ENV}, else ${DEFAULT_SERVICE_INFO.name})`)
    .option('--colour <#rrggbb>', `the web app's top bar colour (default: env ${SERVICE_COLOUR_ENV}, else ${DEFAULT_SERVICE_INFO.colour})`)
    .option('--allow-private-webhooks', 'let webhooks send to loopback and private addresses (a receiver on the same host or network); refused by default, so that a webhook cannot probe the internal network')
    .option('--locale <tag>', `the locale the web app writes amounts and dates in, e.g. en-GB (default: env ${LOCALE_ENV}, else each reader's browser locale)`)
    .action(async (options: ServeOptions) => {
      const port = parsePort(options.port ?? env('PORT') ?? '3000');
      const identity = serviceIdentityOption(options);
      const trustProxy = await trustProxyOption(options.trustProxy ?? env(TRUST_PROXY_ENV));
      // The server (Express, the routes, MCP's glue) loads for `serve` only: the other commands
      // start without it.
      const [registry, { shutDown, startServer }] = await Promise.all([loadRegistry(), import('./server.ts')]);
      // Signals are handled from the start: one that arrives while starting stops the server once it is up.
      let server: RunningServer | undefined;
      let stopRequested: string | undefined;
      const stop = (signal: string) => {
        if (stopRequested !== undefined) return;
        stopRequested = signal;
        if (server) shutDown(server, signal);
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      const observability = observabilityOptions(options);
      const retention = retentionPolicy(options);
      server = await startServer({
        retention,
        ...observability,
        registry,
        dbUrl: databaseUrl(options.db),
        host: options.host ?? env('HOST') ?? '127.0.0.1',
        port,
        ...publicUrlOption(options.publicUrl ?? env('RMS_PUBLIC_URL')),
        database: databaseOptions(options),
        agentLimits: agentLimits(options),
        ...trustProxy,
        ...(env('RMS_ADMIN_PASSWORD') !== undefined ? { adminPassword: env('RMS_ADMIN_PASSWORD') } : {}),
        adminPasswordFile: options.adminPasswordFile ?? env('RMS_ADMIN_PASSWORD_FILE') ?? DEFAULT_ADMIN_PASSWORD_FILE,
        serviceInfo: identity,
        timeouts: timeouts(options),
        ...filesOptions(options),
        webhooks: { allowPrivate: options.allowPrivateWebhooks === true },
      }).catch(failStartup);
      process.once('exit', observability.flushLog);
      if (stopRequested !== undefined) shutDown(server, stopRequested);
    });

  program
    .command('migrate')
    .description('Bring the tables to the current definitions (also drops what is empty and unused); refuses changes that would lose data')
    .option('--db <url>', dbHelp)
    .option('--statement-timeout <ms>', statementTimeoutHelp)
    .action(async (options: { db?: string; statementTimeout?: string }) => {
      const registry = await loadRegistry();
      const db = openDatabase(databaseUrl(options.db), databaseOptions(options));
      try {
        const { changes } = await migrate(db, registry, { systemTables: SYSTEM_TABLES });
        if (changes.length === 0) console.log('schema is up to date');
        for (const change of changes) console.log(change);
        // Stored computed values made by functions that changed since: computed again, in batches.
        const service = createRecordService({ registry, db });
        await recordFreshLogic(service);
        const progress = progressBar(process.stdout);
        let said = 0;
        const lines = await recomputeStale(service, (model, done, total) => {
          progress.update(done, total);
          // Without a terminal to redraw on, a line at every tenth of the way.
          if (!process.stdout.isTTY && (done === total || Math.floor((done / total) * 10) > said)) {
            said = done === total ? 0 : Math.floor((done / total) * 10);
            console.log(`recomputing ${model}: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} records`);
          }
        });
        progress.done();
        for (const line of lines) console.log(line);
      } catch (error) {
        if (error instanceof RecomputeError) throw new CliError(error.message);
        if (!(error instanceof MigrationRefusedError)) throw error;
        throw new CliError(error.message);
      } finally {
        await db.destroy();
      }
    });

  program
    .command('seed')
    .description('Fill a model with plausible records to try the service at size, each value by its field\'s kind and name: the same --seed (and --today) gives the same values; refs spread over the records of their targets (seeded first when there are none); governed states only as the actions reach them; lines of each line list (1 to 10 per record unless --lines says), computed fields worked out by the model\'s own functions, its checks, rules and uniques kept')
    .requiredOption('--model <name>', 'model to fill, e.g. lead')
    .requiredOption('--count <n>', `how many records, 1 to ${MAX_SEED_COUNT.toLocaleString('en-US')}`)
    .option('--seed <n>', 'picks the values (default 1)')
    .option('--today <YYYY-MM-DD>', 'the day dates are spread around, a year either side (default: today, UTC)')
    .option('--lines <n|min-max>', `lines per record in each line list, within the list's own min and max (default 1-10)`)
    .option('--db <url>', dbHelp)
    .action(async (options: { model: string; count: string; seed?: string; today?: string; lines?: string; db?: string }) => {
      const count = parseWhole(options.count, '--count', 1, MAX_SEED_COUNT);
      const seed = options.seed === undefined ? 1 : parseWhole(options.seed, '--seed', 0, 2_147_483_647);
      const today = options.today === undefined ? undefined : parseDay(options.today, '--today');
      const lines = options.lines === undefined ? undefined : parseLineCount(options.lines);
      const registry = await loadRegistry();
      if (!registry.models[options.model]) {
        throw new CliError(`unknown model ${options.model}: the models are ${Object.keys(registry.models).join(', ')}`);
      }
      const db = openDatabase(databaseUrl(options.db));
      const progress = progressBar(process.stdout);
      const started = performance.now();
      try {
        // Brings a new or older database up to the definitions first, as serve would.
        await migrate(db, registry, { systemTables: SYSTEM_TABLES, mode: 'additive' });
        const seeded = await seedRecords(db, registry, {
          model: options.model,
          count,
          seed,
          ...(today === undefined ? {} : { today }),
          ...(lines === undefined ? {} : { lines }),
          onProgress: progress.update,
          log: (line) => progress.print(line),
        });
        progress.done();
        const seconds = (performance.now() - started) / 1000;
        const total = seeded.reduce((sum, step) => sum + step.count, 0);
        const lineCount = seeded.reduce((sum, step) => sum + (step.lines ?? 0), 0);
        const what = seeded.map((step) => `${step.count.toLocaleString('en-US')} ${step.model}${step.lines === undefined ? '' : ` with ${step.lines.toLocaleString('en-US')} lines`}`).join(', ');
        const rate = (n: number) => Math.round(n / seconds).toLocaleString('en-US');
        const lineRate = seeded.some((step) => step.lines !== undefined) ? `, ${rate(lineCount)} lines/s` : '';
        console.log(`seeded ${what} in ${seconds.toFixed(1)} s (${rate(total)} records/s${lineRate})`);
      } catch (error) {
        progress.done();
        if (!(error instanceof SeedRefusedError || error instanceof MigrationRefusedError || error instanceof HttpError)) throw error;
        throw new CliError(error.message);
      } finally {
        await db.destroy();
      }
    });

  const historyCommand = program.command('history').description("Operators' upkeep of record history");
  historyCommand
    .command('prune')
    .description('Remove history entries made before a day (UTC): records keep their values; only what changed before then is forgotten')
    .requiredOption('--before <YYYY-MM-DD>', 'remove the entries made before this day (UTC); not after today')
    .option('--db <url>', dbHelp)
    .action(async (options: { before: string; db?: string }) => {
      const before = parseDay(options.before, '--before');
      const today = new Date().toISOString().slice(0, 10);
      if (before > today) {
        throw new CliError(`--before ${before} is after today (${today}): that would remove entries not yet made; use today or an earlier day`);
      }
      const registry = await loadRegistry();
      const db = openDatabase(databaseUrl(options.db));
      try {
        await migrate(db, registry, { systemTables: SYSTEM_TABLES, mode: 'additive' });
        const removed = await pruneHistory(db, `${before}T00:00:00.000Z`);
        console.log(`removed ${removed.toLocaleString('en-US')} history ${removed === 1 ? 'entry' : 'entries'} made before ${before}`);
      } finally {
        await db.destroy();
      }
    });

  const auditCommand = program.command('audit').description("Operators' upkeep of the audit trail");
  auditCommand
    .command('prune')
    .description('Remove audit rows made before a day (UTC), and plans decided before it with theirs; a pending plan keeps its rows. With --reads-only, only the rows of reads (get, list, search, history)')
    .requiredOption('--before <YYYY-MM-DD>', 'remove the rows made before this day (UTC); not after today')
    .option('--reads-only', 'remove only the rows of reads')
    .option('--db <url>', dbHelp)
    .action(async (options: { before: string; readsOnly?: boolean; db?: string }) => {
      const before = parseDay(options.before, '--before');
      const today = new Date().toISOString().slice(0, 10);
      if (before > today) {
        throw new CliError(`--before ${before} is after today (${today}): that would remove rows not yet made; use today or an earlier day`);
      }
      const registry = await loadRegistry();
      const db = openDatabase(databaseUrl(options.db));
      try {
        await migrate(db, registry, { systemTables: SYSTEM_TABLES, mode: 'additive' });
        const cutoff = `${before}T00:00:00.000Z`;
        const report = await prune(db, options.readsOnly ? { auditReadsBefore: cutoff } : { auditBefore: cutoff });
        const rows = report.auditReads + report.audit;
        const what = `${rows.toLocaleString('en-US')} audit ${rows === 1 ? 'row' : 'rows'}${options.readsOnly ? ' of reads' : ''} made before ${before}`;
        const plans = options.readsOnly ? '' : `, and ${report.plans.toLocaleString('en-US')} ${report.plans === 1 ? 'plan' : 'plans'} decided before then`;
        console.log(`removed ${what}${plans}`);
      } finally {
        await db.destroy();
      }
    });

  program
    .command('backup')
    .description('Copy a live SQLite database to a new file, consistently, while servers keep serving (PostgreSQL: pg_dump or point-in-time recovery, see docs/operations.md)')
    .requiredOption('--to <file>', 'the backup file to write; must not exist', fileOption('--to'))
    .option('--db <url>', dbHelp)
    .option('--files <where>', `where the server keeps uploaded files (as serve's --files); disk storage is copied to <file>.files/ after the database (default: env ${FILES_ENV}, else files/ beside the SQLite file)`)
    .action(async (options: { to: string; db?: string; files?: string }) => {
      try {
        const dbUrl = databaseUrl(options.db);
        const source = sqliteFileOf(dbUrl);
        const started = performance.now();
        const result = await backupDatabase(source, resolve(options.to));
        const seconds = (performance.now() - started) / 1000;
        console.log(`backed up ${source} to ${result.file}: ${result.tables} tables, ${(result.bytes / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(1)} s`);
        const storage = filesOptions(options).files ?? defaultFileStorage(dbUrl);
        const copied = storage.kind === 'disk' ? copyContentFiles(storage.dir, backupFilesDir(result.file)) : { files: 0, bytes: 0 };
        if (copied.files > 0) console.log(`copied ${copied.files} uploaded files, ${(copied.bytes / 2 ** 20).toFixed(1)} MiB, to ${backupFilesDir(result.file)}`);
      } catch (error) {
        if (!(error instanceof BackupRefusedError)) throw error;
        throw new CliError(error.message);
      }
    });

  program
    .command('restore')
    .description('Replace a SQLite database with a backup, its schema brought to this build as serve would (additively); a database that holds tables only with --force')
    .requiredOption('--from <file>', 'the backup file (made by rmsgen backup)', fileOption('--from'))
    .option('--db <url>', dbHelp)
    .option('--force', 'replace a database that holds tables (stop every server using it first)')
    .option('--files <where>', `where the server keeps uploaded files (as serve's --files); a backup's <file>.files/ is copied into disk storage (default: env ${FILES_ENV}, else files/ beside the SQLite file)`)
    .action(async (options: { from: string; db?: string; force?: boolean; files?: string }) => {
      const registry = await loadRegistry();
      try {
        const dbUrl = databaseUrl(options.db);
        const target = sqliteFileOf(dbUrl);
        const result = await restoreDatabase(resolve(options.from), target, {
          force: options.force === true,
          async migrate(copyUrl) {
            const db = openDatabase(copyUrl);
            try {
              const { changes, leftInPlace } = await migrate(db, registry, { systemTables: SYSTEM_TABLES, mode: 'additive' });
              return [...changes, ...leftInPlace];
            } finally {
              await db.destroy();
            }
          },
        });
        for (const line of result.schemaChanges) console.log(line);
        console.log(`restored ${resolve(options.from)} to ${target}: ${result.tables} tables; ${result.schemaChanges.length === 0 ? "the backup's schema matches this build" : "the backup's schema was brought up to this build (above)"}`);
        const storage = filesOptions(options).files ?? defaultFileStorage(dbUrl);
        const copied = storage.kind === 'disk' ? copyContentFiles(backupFilesDir(resolve(options.from)), storage.dir) : { files: 0, bytes: 0 };
        if (copied.files > 0 && storage.kind === 'disk') console.log(`copied ${copied.files} uploaded files, ${(copied.bytes / 2 ** 20).toFixed(1)} MiB, to ${storage.dir}`);
      } catch (error) {
        if (error instanceof BackupRefusedError) throw new CliError(error.message);
        if (error instanceof MigrationRefusedError) throw new CliError(new MigrationRefusedError(error.problems, "the backup's schema does not fit this build; nothing was restored").message);
        throw error;
      }
    });

  registerUserCommands(program, loadRegistry);
}
