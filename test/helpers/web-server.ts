/**
 * The real server for the browser tests: `startTestServer` (./server.ts) serving the fixture modules
 * with every extension `rmsgen serve` mounts, the web app among them, always on a temporary SQLite
 * file (CI's PostgreSQL pass leaves the browser tests out).
 */
import { startTestServer, type TestServer } from './server.ts';

export { ADMIN_PASSWORD } from './server.ts';

export type WebTestServer = TestServer;

export function startWebTestServer(): Promise<WebTestServer> {
  return startTestServer({ onSqlite: true });
}
