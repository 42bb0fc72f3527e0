/**
 * The runtime's subcommands: `serve`, `migrate`, and the auth side's `user …`.
 */
import type { Command } from 'commander';
import { registerUserCommands } from './auth/index.ts';
import { DEFAULT_DB_URL, openDatabase, type OpenOptions } from './db/connect.ts';
import { MigrationRefusedError, migrate } from './db/migrate.ts';
import type { Registry } from './registry.ts';
import { startServer, systemTableSetups, type RunningServer } from './server.ts';

interface ServeOptions extends DatabaseOptions {
  readonly port?: string;
  readonly host?: string;
  readonly db?: string;
  readonly publicUrl?: string;
}

/** `--pool-size` and `--statement-timeout` (PostgreSQL only; SQLite has one connection and no timeout). */
interface DatabaseOptions {
  readonly poolSize?: string;
  readonly statementTimeout?: string;
}

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
    .action(async (options: ServeOptions) => {
      const port = parsePort(options.port ?? env('PORT') ?? '3000');
      const registry = await loadRegistry();
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
      server = await startServer({
        registry,
        dbUrl: databaseUrl(options.db),
        host: options.host ?? env('HOST') ?? '127.0.0.1',
        port,
        ...publicUrlOption(options.publicUrl ?? env('RMS_PUBLIC_URL')),
        database: databaseOptions(options),
        ...(env('RMS_ADMIN_PASSWORD') !== undefined ? { adminPassword: env('RMS_ADMIN_PASSWORD') } : {}),
      }).catch(failStartup);
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
        const { changes } = await migrate(db, registry, { systemTables: systemTableSetups() });
        if (changes.length === 0) console.log('schema is up to date');
        for (const change of changes) console.log(change);
      } catch (error) {
        if (!(error instanceof MigrationRefusedError)) throw error;
        console.error(error.message);
        process.exitCode = 1;
      } finally {
        await db.destroy();
      }
    });

  registerUserCommands(program, loadRegistry);
}

function shutDown(server: RunningServer, signal: string): void {
  console.log(`${signal}: shutting down`);
  server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

function databaseUrl(option: string | undefined): string {
  return option ?? env('RMS_DB') ?? DEFAULT_DB_URL;
}

const POOL_SIZE_ENV = 'RMS_DB_POOL_SIZE';
const STATEMENT_TIMEOUT_ENV = 'RMS_DB_STATEMENT_TIMEOUT_MS';

/** Pool size and statement timeout from the options, else the environment, else openDatabase's defaults. */
function databaseOptions(options: DatabaseOptions): OpenOptions {
  const poolSize = options.poolSize ?? env(POOL_SIZE_ENV);
  const statementTimeout = options.statementTimeout ?? env(STATEMENT_TIMEOUT_ENV);
  return {
    ...(poolSize !== undefined ? { poolSize: parseWhole(poolSize, `--pool-size / ${POOL_SIZE_ENV}`, 1, 1000) } : {}),
    ...(statementTimeout !== undefined
      ? { statementTimeoutMs: parseWhole(statementTimeout, `--statement-timeout / ${STATEMENT_TIMEOUT_ENV}`, 0, 2_147_483_647) }
      : {}),
  };
}

function parseWhole(value: string, name: string, min: number, max: number): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < min || number > max) {
    console.error(`invalid ${name} ${value}: use a whole number from ${min} to ${max}`);
    process.exit(1);
  }
  return number;
}

/** An environment variable, unset when empty. */
function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

function publicUrlOption(value: string | undefined): { publicUrl?: string } {
  if (value === undefined) return {};
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    console.error(`invalid --public-url / RMS_PUBLIC_URL ${value}: write it like https://rms.example.com`);
    process.exit(1);
  }
  return { publicUrl: url.origin };
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`invalid port ${value}: use a number from 0 to 65535`);
    process.exit(1);
  }
  return port;
}

function failStartup(error: unknown): never {
  if (error instanceof MigrationRefusedError) {
    console.error(error.message);
  } else if ((error as { code?: unknown }).code === 'EADDRINUSE') {
    console.error(`cannot listen: ${(error as Error).message}`);
  } else {
    console.error(error);
  }
  process.exit(1);
}
