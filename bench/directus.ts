/**
 * Directus beside rmsgen (issue 25: rmsgen's `create` at least ten times Directus's create), on
 * the same database kind, loaded by the same wrk in the same rounds.
 *
 * Directus is not a dependency of the project: the bench installs the version the issue measured
 * into bench/.directus/ (git-ignored) on its first full run, from the npm registry. That takes a few
 * minutes (its sqlite3 driver builds from source when no prebuilt binary can be downloaded) and
 * some 400 MB; later runs reuse it. `npm run bench -- --no-directus` leaves it out, and a failed
 * install leaves the row saying why instead of failing the run.
 *
 * What is measured is Directus's own write path for the same record: `POST /items/lead` of a title
 * and a note, as an administrator with a bearer token, its activity and revision rows on (its
 * default, as rmsgen's history and audit rows are). Its cache, rate limiter and telemetry are off,
 * and it writes no line per measured request, as the rmsgen server it is set against writes none.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { post } from './api.ts';
import { freePort, runCommand, runNode, startNode, type StartedProcess } from './processes.ts';
import { DIRECTUS_VERSION, type Dialect } from './report.ts';

/** Directus 11.3.5's own pins of its database drivers (@directus/api 23.3.2). */
const DRIVERS = ['sqlite3@5.1.7', 'pg@8.13.0'];

const INSTALL_DIR = fileURLToPath(new URL('./.directus/', import.meta.url));
const CLI = join(INSTALL_DIR, 'node_modules', 'directus', 'cli.js');

const ADMIN_EMAIL = 'bench@example.com';
const ADMIN_PASSWORD = 'bench-Password-1';

export interface RunningDirectus {
  readonly server: StartedProcess;
  /** The administrator's access token (valid for the whole run). */
  readonly token: string;
}

/** Installs Directus on first use: nothing when it is there, else why it could not be installed. */
export async function installDirectus(log: (line: string) => void): Promise<string | undefined> {
  if (installedVersion() === DIRECTUS_VERSION) return undefined;
  log(`installing Directus ${DIRECTUS_VERSION} into bench/.directus/ (once; a few minutes)`);
  mkdirSync(INSTALL_DIR, { recursive: true });
  writeFileSync(join(INSTALL_DIR, 'package.json'), `${JSON.stringify({ name: 'rmsgen-bench-directus', private: true }, null, 2)}\n`);
  // Native modules build against the system's Node headers where the project's own install does (.ci/run).
  const nodedir = process.env.npm_config_nodedir === undefined && existsSync('/usr/include/node/node.h') ? { npm_config_nodedir: '/usr' } : undefined;
  // With its optional dependencies: they hold the platform's binaries of some of its modules.
  const npm = await runCommand('npm', ['install', `directus@${DIRECTUS_VERSION}`, ...DRIVERS, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: INSTALL_DIR, timeoutMs: 20 * 60_000, env: nodedir });
  if (npm.code !== 0 || installedVersion() !== DIRECTUS_VERSION) {
    return `Directus ${DIRECTUS_VERSION} could not be installed (npm install exited ${npm.code}: ${lastLine(npm.output)})`;
  }
  return undefined;
}

/**
 * A Directus of its own on a fresh database (`databaseUrl`: `sqlite:<file>` or a PostgreSQL URL),
 * bootstrapped with an administrator and a `lead` collection of a title and a note.
 */
export async function startDirectus(dialect: Dialect, databaseUrl: string, workDir: string): Promise<RunningDirectus> {
  mkdirSync(join(workDir, 'uploads'), { recursive: true });
  mkdirSync(join(workDir, 'extensions'), { recursive: true });
  const port = await freePort();
  const env: Record<string, string> = {
    ...(dialect === 'sqlite' ? { DB_CLIENT: 'sqlite3', DB_FILENAME: databaseUrl.replace(/^sqlite:/, '') } : { DB_CLIENT: 'pg', DB_CONNECTION_STRING: databaseUrl }),
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    KEY: 'rmsgen-bench-directus-key',
    SECRET: 'rmsgen-bench-directus-secret',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    ACCESS_TOKEN_TTL: '6h',
    CACHE_ENABLED: 'false',
    RATE_LIMITER_ENABLED: 'false',
    TELEMETRY: 'false',
    WEBSOCKETS_ENABLED: 'false',
    // Its start line, but no line per measured request: the rmsgen server beside it writes none.
    LOG_LEVEL: 'info',
    LOG_HTTP_IGNORE_PATHS: '/items/lead',
    LOG_STYLE: 'raw',
    STORAGE_LOCATIONS: 'local',
    STORAGE_LOCAL_ROOT: join(workDir, 'uploads'),
    EXTENSIONS_PATH: join(workDir, 'extensions'),
  };
  // Directus looks for extensions in its working folder's package.json.
  writeFileSync(join(workDir, 'package.json'), `${JSON.stringify({ name: 'rmsgen-bench-directus-project', private: true })}\n`);
  const bootstrap = await runNode([CLI, 'bootstrap'], { cwd: workDir, env, timeoutMs: 180_000 });
  if (bootstrap.code !== 0) throw new Error(`Directus bootstrap exited ${bootstrap.code}:\n${bootstrap.output}`);
  const server = await startNode(`Directus ${DIRECTUS_VERSION}`, [CLI, 'start'], { cwd: workDir, env, ready: /Server started at (http:\/\/[^\s"]+)/, timeoutMs: 120_000 });
  try {
    const login = await post(`${server.url}/auth/login`, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const token = (login.json as { data?: { access_token?: string } }).data?.access_token;
    if (login.status !== 200 || token === undefined) throw new Error(`Directus login answered ${login.status}`);
    const collection = await post(
      `${server.url}/collections`,
      {
        collection: 'lead',
        schema: {},
        meta: {},
        fields: [
          { field: 'id', type: 'uuid', meta: { special: ['uuid'], hidden: true, readonly: true }, schema: { is_primary_key: true, length: 36 } },
          { field: 'title', type: 'string', schema: { is_nullable: false } },
          { field: 'notes', type: 'text' },
        ],
      },
      { authorization: `Bearer ${token}` },
    );
    if (collection.status !== 200) throw new Error(`Directus POST /collections answered ${collection.status}: ${JSON.stringify(collection.json)}`);
    return { server, token };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

function installedVersion(): string | undefined {
  const manifest = join(INSTALL_DIR, 'node_modules', 'directus', 'package.json');
  if (!existsSync(manifest) || !existsSync(CLI)) return undefined;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
}

function lastLine(output: string): string {
  return output.trim().split('\n').pop() ?? '';
}
