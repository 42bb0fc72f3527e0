/**
 * The real server for the browser tests: `startTestServer` (./server.ts) serving the fixture modules
 * (or another registry) with every extension `rmsgen serve` mounts, the web app among them, always
 * on a temporary SQLite file (CI's PostgreSQL pass leaves the browser tests out).
 */
import type { ServiceInfo } from '../../runtime/api-shapes.ts';
import type { Registry } from '../../runtime/registry.ts';
import { startTestServer, type TestServer } from './server.ts';

export { ADMIN_PASSWORD } from './server.ts';

export type WebTestServer = TestServer;

export interface WebTestServerOptions {
  /** Default: the fixture modules' registry. */
  readonly registry?: Registry;
  /** What the service calls itself (`serve --name/--colour/--locale`); default: the server's default. */
  readonly serviceInfo?: ServiceInfo;
}

export function startWebTestServer(options: WebTestServerOptions = {}): Promise<WebTestServer> {
  return startTestServer({ onSqlite: true, ...(options.registry ? { registry: options.registry } : {}), ...(options.serviceInfo ? { serviceInfo: options.serviceInfo } : {}) });
}
