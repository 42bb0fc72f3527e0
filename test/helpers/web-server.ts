/**
 * The real server on a temporary SQLite file, serving the web app and the fixture modules
 * (test/fixtures: see test/helpers/fixtures.ts), for the browser tests.
 *
 * Until the server mounts the web app itself (see `webAppExtension` in runtime/web.ts), this
 * helper adds it: the server is probed once and restarted with the extension when `/` is not
 * answered with HTML. Everything else is the server as `rmsgen serve` runs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registry } from '../fixtures/generated/registry.ts';
import type { ServerExtension } from '../../runtime/extension.ts';
import { SERVER_EXTENSIONS, startServer, type RunningServer } from '../../runtime/server.ts';
import { webAppExtension } from '../../runtime/web.ts';

export const ADMIN_PASSWORD = 'admin-web-test-pw';

export interface WebTestServer {
  readonly url: string;
  readonly server: RunningServer;
  readonly dbFile: string;
  /** True when this helper mounted the web app because the server did not. */
  readonly addedWebApp: boolean;
  request(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  login(username?: string, password?: string): Promise<string>;
  command(token: string, commandId: string, input?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startWebTestServer(): Promise<WebTestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-web-'));
  const dbFile = join(dir, 'rms.sqlite');
  const start = (extensions: readonly ServerExtension[]) =>
    startServer({ registry, dbUrl: `sqlite:${dbFile}`, host: '127.0.0.1', port: 0, adminPassword: ADMIN_PASSWORD, log: () => {}, extensions });

  let server = await start(SERVER_EXTENSIONS);
  const root = await fetch(`${server.url}/`);
  await root.arrayBuffer();
  const addedWebApp = !(root.ok && (root.headers.get('content-type') ?? '').includes('text/html'));
  if (addedWebApp) {
    await server.close();
    server = await start([...SERVER_EXTENSIONS, webAppExtension()]);
  }
  const url = server.url;

  async function request(method: string, path: string, body?: unknown, token?: string) {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the text
    }
    return { status: res.status, body: parsed as any };
  }

  return {
    url,
    server,
    dbFile,
    addedWebApp,
    request,
    async login(username = 'admin', password = ADMIN_PASSWORD) {
      const res = await request('POST', '/api/auth/login', { username, password });
      if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${JSON.stringify(res.body)}`);
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
