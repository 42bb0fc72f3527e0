/**
 * The real server on a temporary SQLite file, serving the web app and the fixture modules
 * (test/fixtures: see test/helpers/fixtures.ts), for the browser tests.
 *
 * The web app served is the fixture package's build (`dist/fixture-package/web/dist/`, made by
 * vitest's global setup from this package's web/src): a project's web app bundles its generated
 * logic, and the fixture modules' computed fields are worked out with theirs. Everything else is
 * the server as `rmsgen serve` runs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_PACKAGE } from '../helpers/fixtures.ts';
import { registry as fixtureRegistry } from '../fixtures/generated/registry.ts';
import type { ServiceInfo } from '../../runtime/api-shapes.ts';
import type { ServerExtension } from '../../runtime/extension.ts';
import type { Registry } from '../../runtime/registry.ts';
import { SERVER_EXTENSIONS, startServer, type RunningServer } from '../../runtime/server.ts';
import { webAppExtension } from '../../runtime/web.ts';

export const ADMIN_PASSWORD = 'admin-web-test-pw';

/** The web app built for the fixture modules, with their generated logic. */
export const FIXTURE_WEB_DIST = join(FIXTURE_PACKAGE, 'web', 'dist');

export interface WebTestServer {
  readonly url: string;
  readonly server: RunningServer;
  readonly dbFile: string;
  request(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  login(username?: string, password?: string): Promise<string>;
  command(token: string, commandId: string, input?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export interface WebTestServerOptions {
  /** Default: the fixture modules' registry. */
  readonly registry?: Registry;
  /** What the service calls itself (`serve --name/--colour/--locale`); default: the server's default. */
  readonly serviceInfo?: ServiceInfo;
}

export async function startWebTestServer(options: WebTestServerOptions = {}): Promise<WebTestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-web-'));
  const dbFile = join(dir, 'rms.sqlite');
  const registry = options.registry ?? fixtureRegistry;
  const start = (extensions: readonly ServerExtension[]) =>
    startServer({
      registry,
      dbUrl: `sqlite:${dbFile}`,
      host: '127.0.0.1',
      port: 0,
      adminPassword: ADMIN_PASSWORD,
      log: () => {},
      extensions,
      ...(options.serviceInfo ? { serviceInfo: options.serviceInfo } : {}),
    });

  const server = await start([...SERVER_EXTENSIONS.filter((extension) => extension.name !== 'web'), webAppExtension({ distDir: FIXTURE_WEB_DIST })]);
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
