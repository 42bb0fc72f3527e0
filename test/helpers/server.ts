/**
 * Starts the real server (runtime/server.ts) on loopback with a fresh SQLite file in a temp
 * folder, and gives tests small helpers for real HTTP calls. No mocks: everything goes over
 * the wire and into the database file, which tests may also open to check its contents.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registry } from '../../generated/registry.ts';
import { startServer, type RunningServer } from '../../runtime/server.ts';

export const ADMIN_PASSWORD = 'admin-test-password';

export interface TestServer {
  readonly url: string;
  readonly server: RunningServer;
  /** The SQLite file the server uses. */
  readonly dbFile: string;
  /** Raw fetch against the server: `request('POST', '/api/lead/get', {id})`. */
  request(method: string, path: string, body?: unknown, token?: string, headers?: Record<string, string>): Promise<TestResponse>;
  /** Signs in and returns the session token (throws unless 200). */
  login(username?: string, password?: string): Promise<string>;
  /** `POST /api/<model>/<command>` with a JSON body. */
  command(token: string, commandId: string, input?: unknown): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  readonly body: any;
}

export async function startTestServer(options: { dbUrl?: string } = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-test-'));
  const dbFile = join(dir, 'rms.sqlite');
  const server = await startServer({
    registry,
    dbUrl: options.dbUrl ?? `sqlite:${dbFile}`,
    host: '127.0.0.1',
    port: 0,
    adminPassword: ADMIN_PASSWORD,
    log: () => {},
  });
  const url = server.url;

  async function request(method: string, path: string, body?: unknown, token?: string, headers: Record<string, string> = {}): Promise<TestResponse> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (token) (init.headers as Record<string, string>).authorization = `Bearer ${token}`;
    if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(url + path, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  return {
    url,
    server,
    dbFile,
    request,
    async login(username = 'admin', password = ADMIN_PASSWORD) {
      const res = await request('POST', '/api/auth/login', { username, password });
      if (res.status !== 200) throw new Error(`login ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.token as string;
    },
    command(token, commandId, input = {}) {
      const [model, command] = commandId.split('.');
      return request('POST', `/api/${model}/${command}`, input, token);
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
