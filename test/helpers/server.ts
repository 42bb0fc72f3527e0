/**
 * Starts the real server (runtime/server.ts) on loopback with a fresh SQLite file in a temp
 * folder, serving the fixture modules (test/fixtures) unless told another registry, and gives
 * tests small helpers for real HTTP calls. No mocks: everything goes over
 * the wire and into the database file, which tests may also open to check its contents.
 * With `RMS_TEST_PG_URL` set (`.ci/run` does, for its second pass) the server runs on a fresh
 * PostgreSQL database on that server instead, dropped on close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { registry } from '../fixtures/generated/registry.ts';
import { createPerson } from '../../runtime/auth/index.ts';
import { BCRYPT_COST, MIN_BCRYPT_COST } from '../../runtime/auth/people.ts';
import type { Registry } from '../../runtime/registry.ts';
import type { ServerExtension } from '../../runtime/extension.ts';
import { startServer, type RunningServer, type ServerOptions } from '../../runtime/server.ts';
import { expectDocumentedAnswer } from './openapi-answers.ts';
import { createTestDatabase, executeOn, postgresInspector, testPostgresUrl } from './postgres.ts';

export const ADMIN_PASSWORD = 'admin-test-password';

export interface TestServer {
  readonly url: string;
  readonly server: RunningServer;
  /** The SQLite file the server uses (on PostgreSQL, a path that does not exist: see `dbUrl`). */
  readonly dbFile: string;
  /** The database URL the server uses: `sqlite:<dbFile>`, or a fresh PostgreSQL database under RMS_TEST_PG_URL. */
  readonly dbUrl: string;
  /** Raw fetch against the server: `request('POST', '/api/lead/get', {id})`. */
  request(method: string, path: string, body?: unknown, token?: string, headers?: Record<string, string>): Promise<TestResponse>;
  /** Signs in and returns the session token (throws unless 200). */
  login(username?: string, password?: string): Promise<string>;
  /** `POST /api/<model>/<command>` with a JSON body; the answer must fit the server's OpenAPI document (test/helpers/openapi-answers.ts). */
  command(token: string, commandId: string, input?: unknown): Promise<TestResponse>;
  /** Adds a person with these roles (through the auth side's `createPerson`) and signs them in. */
  addPerson(username: string, roles: readonly string[], password?: string): Promise<string>;
  /**
   * Runs `fn` on the SQLite file opened read-only with better-sqlite3 (to check what was stored).
   * On PostgreSQL `fn` gets a stand-in with `prepare(sql).get/all`, values shaped as SQLite's.
   */
  inspect<T>(fn: (db: Database.Database) => T): T;
  /**
   * Runs statements on the server's database from a connection of the test's own: for set-up the
   * API cannot make, such as a trigger that makes a write fail. `sql` is per dialect: pass an object.
   */
  execute(sql: { readonly sqlite: string; readonly postgres: string }): Promise<void>;
  readonly dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  readonly body: any;
}

export interface TestServerOptions {
  readonly dbUrl?: string;
  /** On a fresh SQLite file even under RMS_TEST_PG_URL (the browser tests, which CI runs on SQLite only). */
  readonly onSqlite?: boolean;
  /** Defaults to the fixture modules' registry (test/fixtures/generated: see test/helpers/fixtures.ts), not the demo's. */
  readonly registry?: Registry;
  readonly extensions?: readonly ServerExtension[];
  /** Unexpected server errors; by default they fail loudly on stderr. */
  readonly logError?: ServerOptions['logError'];
  /** Passed to startServer as they are. */
  readonly agentLimits?: ServerOptions['agentLimits'];
  readonly trustProxy?: ServerOptions['trustProxy'];
  /** The server's clock for rate windows, the lockout and token expiry: a `TestClock` to move time (test/helpers/clock.ts). */
  readonly clock?: ServerOptions['clock'];
  /** Passed to startServer as they are: private receivers allowed, the delivery worker's settings. */
  readonly webhooks?: ServerOptions['webhooks'];
  readonly serviceInfo?: ServerOptions['serviceInfo'];
  /** Passed to startServer as they are: metrics on their own port, request lines and their format. */
  readonly metrics?: ServerOptions['metrics'];
  readonly requestLog?: ServerOptions['requestLog'];
  readonly logFormat?: ServerOptions['logFormat'];
  /** Passed to startServer as they are: background pruning and its batches; operator lines (none by default). */
  readonly retention?: ServerOptions['retention'];
  readonly pruneBatches?: ServerOptions['pruneBatches'];
  readonly log?: ServerOptions['log'];
  /** The HTTP timeouts (a request the server's keep-alive timeout cut as it was sent is sent again: see `sendOn`). */
  readonly timeouts?: ServerOptions['timeouts'];
  /** Passed to startServer as they are: where files' content lives, the largest upload. */
  readonly files?: ServerOptions['files'];
  readonly maxUploadBytes?: ServerOptions['maxUploadBytes'];
  readonly agentFileBytesPerDay?: ServerOptions['agentFileBytesPerDay'];
  /**
   * Leave the password hashes as the runtime makes them (bcrypt cost 10). By default the admin's and
   * `addPerson`'s hashes are made at cost 4 (the server's `passwordHashCost`), so that each hash and
   * sign-in takes about a millisecond instead of a tenth of a second: the cost is not what most
   * tests are about, and sign-in runs the same code on either hash. Tests of the stored hash itself
   * ask for the real ones.
   */
  readonly realPasswordHashes?: boolean;
}


export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-test-'));
  const dbFile = join(dir, 'rms.sqlite');
  // With RMS_TEST_PG_URL set, each server gets a fresh PostgreSQL database, dropped on close.
  const pgServerUrl = options.dbUrl === undefined && !options.onSqlite ? testPostgresUrl() : undefined;
  const pgDatabase = pgServerUrl === undefined ? undefined : await createTestDatabase(pgServerUrl);
  const dbUrl = options.dbUrl ?? pgDatabase?.url ?? `sqlite:${dbFile}`;
  const servedRegistry = options.registry ?? registry;
  const server = await startServer({
    registry: servedRegistry,
    dbUrl,
    host: '127.0.0.1',
    port: 0,
    adminPassword: ADMIN_PASSWORD,
    ...(options.realPasswordHashes ? {} : { passwordHashCost: MIN_BCRYPT_COST }),
    log: options.log ?? (() => {}),
    ...(options.retention ? { retention: options.retention } : {}),
    ...(options.pruneBatches ? { pruneBatches: options.pruneBatches } : {}),
    ...(options.extensions ? { extensions: options.extensions } : {}),
    ...(options.serviceInfo ? { serviceInfo: options.serviceInfo } : {}),
    ...(options.logError ? { logError: options.logError } : {}),
    ...(options.agentLimits ? { agentLimits: options.agentLimits } : {}),
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.requestLog ? { requestLog: options.requestLog } : {}),
    ...(options.logFormat ? { logFormat: options.logFormat } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.files ? { files: options.files } : {}),
    ...(options.maxUploadBytes !== undefined ? { maxUploadBytes: options.maxUploadBytes } : {}),
    ...(options.agentFileBytesPerDay !== undefined ? { agentFileBytesPerDay: options.agentFileBytesPerDay } : {}),
  }).catch(async (error: unknown) => {
    await pgDatabase?.drop();
    throw error;
  });
  const url = server.url;
  const hashCost = options.realPasswordHashes ? BCRYPT_COST : MIN_BCRYPT_COST;

  // node:http, not fetch: undici's fetch cost about twice the CPU per request of the server and
  // node:http together (measured in a test file: 2.9 against 1.4 ms), in a suite of tens of
  // thousands of requests. What fetch did that a test could see is kept: redirects are not followed
  // by the API anyway, and the body is decoded as fetch decodes it (UTF-8, a leading BOM dropped).
  const agent = new HttpAgent({ keepAlive: true });
  function request(method: string, path: string, body?: unknown, token?: string, headers: Record<string, string> = {}): Promise<TestResponse> {
    const sent: Record<string, string> = { ...headers };
    if (token) sent.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      sent['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      sent['content-length'] ??= String(Buffer.byteLength(payload));
    }
    return sendOn(agent, url + path, method, sent, payload);
  }

  async function login(username = 'admin', password = ADMIN_PASSWORD): Promise<string> {
    const res = await request('POST', '/api/auth/login', { username, password });
    if (res.status !== 200) throw new Error(`login ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }

  return {
    url,
    server,
    dbFile,
    dbUrl,
    request,
    login,
    async command(token, commandId, input = {}) {
      const [model, command] = commandId.split('.');
      const answer = await request('POST', `/api/${model}/${command}`, input, token);
      await expectDocumentedAnswer(servedRegistry, token, commandId, answer);
      return answer;
    },
    async addPerson(username, roles, password = `${username}-test-password`) {
      await createPerson(server.db, { username, password, roles }, hashCost);
      return login(username, password);
    },
    inspect(fn) {
      const db = pgDatabase ? postgresInspector(pgDatabase.url) : new Database(dbFile, { readonly: true, fileMustExist: true });
      try {
        return fn(db);
      } finally {
        db.close();
      }
    },
    dialect: pgDatabase ? 'postgres' : 'sqlite',
    async execute(sql) {
      if (pgDatabase) return executeOn(pgDatabase.url, sql.postgres);
      const db = new Database(dbFile, { fileMustExist: true });
      try {
        db.exec(sql.sqlite);
      } finally {
        db.close();
      }
    },
    async close() {
      agent.destroy();
      await server.close();
      await pgDatabase?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Issues an agent token as `person` (a session token) over `POST /api/auth/agent-token`, and returns it. */
export async function agentToken(t: TestServer, person: string, scopes: readonly string[], label = 'agent'): Promise<string> {
  const res = await t.request('POST', '/api/auth/agent-token', { scopes, label }, person);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(typeof res.body.token).toBe('string');
  return res.body.token as string;
}

/**
 * Sends one request on `agent`'s connections and reads the whole answer. A request written on a
 * kept-alive connection just as the server closes it for being idle (its keep-alive timeout)
 * fails with ECONNRESET before the server has read a byte of it. That happens whenever the test
 * holds the process longer than the timeout between two requests (a synchronous `tsc`, a CPU-heavy
 * check on a busy machine: the in-process server's timer then fires right after the next request
 * is written). Node's documented remedy (`request.reusedSocket`) is to send it again, which the
 * server never saw: so here, while the failed attempt went out on a reused connection and no
 * answer had begun. A request on a fresh connection that fails, or whose answer was cut, fails.
 */
export function sendOn(agent: HttpAgent, target: string, method: string, headers: Record<string, string>, payload: string | undefined): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = httpRequest(target, { method, headers, agent }, (incoming) => {
      answered = true;
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const text = new TextDecoder().decode(Buffer.concat(chunks));
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        const received = new Headers();
        for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) received.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
        resolve({ status: incoming.statusCode!, headers: received, body: parsed });
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (outgoing.reusedSocket && !answered && error.code === 'ECONNRESET') resolve(sendOn(agent, target, method, headers, payload));
      else reject(error);
    });
    outgoing.end(payload);
  });
}
