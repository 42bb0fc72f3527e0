/**
 * What the server can be extended with: tables and routes. The agent side (plans, audit), MCP and
 * the web app are extensions; tests add routes of their own. The command path itself is not
 * extended: masking, approval plans and the audit trail are called from it directly.
 */
import type { RequestHandler, Router } from 'express';
import type { RecordService } from './commands/types.ts';
import type { SystemTableSetup } from './db/migrate.ts';
import type { Site } from './http/site.ts';

export interface ServerExtension {
  readonly name: string;
  /** Tables it needs; created by `serve` and `rmsgen migrate` in the migration's transaction. */
  readonly systemTables?: readonly SystemTableSetup[];
  /** Routers: `beforeApi` sees raw requests (e.g. `/mcp`), `api` runs after JSON parsing and the auth router. */
  readonly routes?: (service: RecordService, site: Site) => {
    readonly beforeApi?: readonly (Router | RequestHandler)[];
    readonly api?: readonly (Router | RequestHandler)[];
  };
}
