/**
 * The Express app: JSON bodies for `/api/*`, the auth and catalogue routers, extension routers, the one command
 * route, a JSON 404 and the one error handler. REST is a thin adapter over `executeCommand`.
 */
import express, { type Express, type Request, type RequestHandler, type Response, type Router } from 'express';
import { createAuthRouter } from '../auth/index.ts';
import type { ServiceInfo } from '../api-shapes.ts';
import type { RecordService } from '../commands/types.ts';
import { HttpError, badRequest } from '../errors.ts';
import { jsonBody } from './body.ts';
import type { Callers } from './callers.ts';
import { answerCommand } from './command-route.ts';
import { createCatalogueRouter } from './catalogue.ts';
import { createOpenApiRouter } from './openapi.ts';
import { errorHandler } from './error-handler.ts';
import { sendJson } from './send.ts';

export interface AppOptions {
  readonly service: RecordService;
  /** Who is calling (bearer tokens, agents' rate limits). */
  readonly callers: Callers;
  /**
   * Express's `trust proxy`: which proxies' `X-Forwarded-For` gives the client's address (for the
   * sign-in throttle). Default: none, the socket's address. See `serve --trust-proxy`.
   */
  readonly trustProxy?: boolean | number | string;
  /**
   * Mounted before `/api` body parsing (e.g. `/mcp` with its own rules, the web app). They never
   * see a call of an existing command: that route comes first (see `createApp`).
   */
  readonly beforeApi?: readonly (Router | RequestHandler)[];
  /** Mounted after the auth router, before the command route (e.g. `/api/commands`, `/api/approve/:id`). */
  readonly api?: readonly (Router | RequestHandler)[];
  /** True once the server is shutting down: responses then close their connection. */
  readonly isClosing?: () => boolean;
  /** What the service calls itself (`GET /api/service`); default `DEFAULT_SERVICE_INFO`. */
  readonly serviceInfo?: ServiceInfo;
}

/** How long `GET /healthz` waits for the database before answering 503. */
const HEALTH_TIMEOUT_MS = 2_000;

/** The one command route: `POST /api/<model>/<command>`, looked up in `service.commands`. */
const COMMAND_PATH = '/api/:model/:command';

export function createApp(options: AppOptions): Express {
  const { service, callers } = options;
  const { db, registry } = service;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', options.trustProxy ?? false);

  if (options.isClosing) {
    const isClosing = options.isClosing;
    app.use(function closeWhenDraining(_req: Request, res: Response, next) {
      if (isClosing()) res.setHeader('Connection', 'close');
      next();
    });
  }

  // For load balancers: 503 when the database does not answer within HEALTH_TIMEOUT_MS (a hung
  // connection must not hang the check) and while this instance drains for shutdown.
  app.get('/healthz', async function health(_req: Request, res: Response) {
    if (options.isClosing?.()) return sendJson(res, 503, { ok: false, draining: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('database health check timed out')), HEALTH_TIMEOUT_MS);
    });
    try {
      await Promise.race([db.raw('select 1'), timeout]);
      sendJson(res, 200, { ok: true, database: 'up' });
    } catch {
      sendJson(res, 503, { ok: false, database: 'down' });
    } finally {
      clearTimeout(timer);
    }
  });

  async function command(req: Request, res: Response) {
    const input: unknown = req.body === undefined ? {} : req.body;
    const dryRun = dryRunOf(req);
    // A bulk command's body may say dry_run too: the two must not disagree.
    if (dryRun && typeof input === 'object' && input !== null && (input as { dry_run?: unknown }).dry_run === false) {
      throw badRequest('dry_run=true in the query and "dry_run": false in the body disagree');
    }
    const call = { id: commandIdOf(req), authorization: req.headers.authorization, input, dryRun };
    await answerCommand(service, callers, call, res);
  }

  // Plain calls never get here (`fastCommandRoute` answers them before Express); the others: a
  // call of an existing command is routed first, so it does not walk the routers of every other endpoint. None of them can answer such a call: their first path segments
  // (`auth`, `approve`, `plans`, …) are reserved model names, and `beforeApi` handlers serve their
  // own paths (`/mcp`, the web app's GETs). Any other path goes on to them (`next('route')`).
  app.post(
    COMMAND_PATH,
    function existingCommand(req: Request, _res: Response, next) {
      next(service.commands.has(commandIdOf(req)) ? undefined : 'route');
    },
    jsonBody(callers),
    command,
  );

  for (const handler of options.beforeApi ?? []) app.use(handler);
  app.use('/api', jsonBody(callers));
  app.use(createAuthRouter({ db, registry, callers }));
  app.use(createCatalogueRouter(service, callers, options.serviceInfo));
  app.use(createOpenApiRouter(service, callers, options.serviceInfo));
  for (const handler of options.api ?? []) app.use(handler);

  // A command that does not exist: authenticated first all the same (401 without a valid token),
  // then the 404 of `executeCommand`, so a caller cannot tell unknown commands from forbidden ones.
  app.post(COMMAND_PATH, command);
  // Commands are POSTed. Any other method on a command-shaped path is told so, whether or not
  // the command exists (which must not show).
  app.all(COMMAND_PATH, function postOnly(_req: Request, res: Response, next) {
    res.setHeader('Allow', 'POST');
    next(new HttpError(405, 'method not allowed: commands are called with POST'));
  });

  app.use(function notFoundRoute(_req: Request, _res: Response, next) {
    next(new HttpError(404, 'not found'));
  });
  app.use(errorHandler(service.logError));
  return app;
}

/** `?dry_run=true`: run the checks and the command, change nothing (see `dryRunCommand`). */
function dryRunOf(req: Request): boolean {
  const value = req.query.dry_run;
  if (value === undefined) return false;
  if (value === 'true') return true;
  throw badRequest('dry_run must be true (or left out)');
}

function commandIdOf(req: Request): string {
  return `${req.params.model}.${req.params.command}`;
}
