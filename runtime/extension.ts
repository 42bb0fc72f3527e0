/**
 * What the server can be extended with: routes. The agent side (plans, audit), MCP and
 * the web app are extensions; tests add routes of their own. The command path itself is not
 * extended: masking, approval plans and the audit trail are called from it directly.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Router } from 'express';
import type { RecordService } from './commands/types.ts';
import type { Callers } from './http/callers.ts';
import type { Site } from './http/site.ts';
import type { FileReading } from './files/budget.ts';

/** What routes get besides the record service. */
export interface RouteContext {
  /** The server's own names (what same-origin means). */
  readonly site: Site;
  /** Who is calling: bearer tokens resolved, agents counted against their rate limits. */
  readonly callers: Callers;
  /** Uploaded files' content and agents' daily budget of it (MCP reads them for `resources/read`). */
  readonly files: FileReading;
  /** True once the server is shutting down: a direct route's responses then close their connection. */
  readonly isClosing: () => boolean;
}

/**
 * A route answered straight from node:http, before Express (see http/command-route.ts for why):
 * returns true when it takes the request (and answers it), false to leave it untouched.
 */
export type DirectRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface ServerExtension {
  readonly name: string;
  /**
   * Routes: `direct` ones see requests before Express (e.g. `/mcp`), `beforeApi` routers see raw
   * requests in Express, `api` ones run after JSON parsing and the auth router.
   */
  readonly routes?: (service: RecordService, context: RouteContext) => {
    readonly direct?: readonly DirectRoute[];
    readonly beforeApi?: readonly (Router | RequestHandler)[];
    readonly api?: readonly (Router | RequestHandler)[];
  };
}
