/**
 * The real server for the browser tests: `startTestServer` (./server.ts) serving the fixture modules
 * (or another registry) with every extension `rmsgen serve` mounts, the web app among them, always
 * on a temporary SQLite file (CI's PostgreSQL pass leaves the browser tests out).
 *
 * The web app served is the fixture package's build (`dist/fixture-package/web/dist/`, made by
 * vitest's global setup from this package's web/src): a project's web app bundles its generated
 * logic, and the fixture modules' computed fields are worked out in the browser with theirs.
 */
import { join } from 'node:path';
import type { ServiceInfo } from '../../runtime/api-shapes.ts';
import type { Registry } from '../../runtime/registry.ts';
import { SERVER_EXTENSIONS, type ServerOptions } from '../../runtime/server.ts';
import { webAppExtension } from '../../runtime/web.ts';
import { FIXTURE_PACKAGE } from './fixtures.ts';
import { startTestServer, type TestServer } from './server.ts';

/** The web app built for the fixture modules, with their generated logic. */
export const FIXTURE_WEB_DIST = join(FIXTURE_PACKAGE, 'web', 'dist');

export { ADMIN_PASSWORD } from './server.ts';

export type WebTestServer = TestServer;

export interface WebTestServerOptions {
  /** Default: the fixture modules' registry. */
  readonly registry?: Registry;
  /** What the service calls itself (`serve --name/--colour/--locale`); default: the server's default. */
  readonly serviceInfo?: ServiceInfo;
  /** The webhooks' settings (test/web/webhooks.test.ts). */
  readonly webhooks?: ServerOptions['webhooks'];
}

export function startWebTestServer(options: WebTestServerOptions = {}): Promise<WebTestServer> {
  return startTestServer({
    onSqlite: true,
    extensions: [...SERVER_EXTENSIONS.filter((extension) => extension.name !== 'web'), webAppExtension({ distDir: FIXTURE_WEB_DIST })],
    ...(options.registry ? { registry: options.registry } : {}),
    ...(options.serviceInfo ? { serviceInfo: options.serviceInfo } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
  });
}
