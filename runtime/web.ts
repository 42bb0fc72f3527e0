/**
 * Serves the built web app (`web/dist/`, see web/build.ts) at `/`: hashed assets with a long
 * cache, index.html never cached, and index.html for every other GET of an app path so that the
 * app's own routes (`/records/lead/…`) survive a reload. `/api` and `/mcp` are never answered
 * here; they fall through to the routes mounted after (or to the JSON 404).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { ServerExtension } from './extension.ts';

export interface WebAppRouterOptions {
  /** The build output; default `web/dist` of this package. */
  readonly distDir?: string;
}

export const DEFAULT_WEB_DIST = fileURLToPath(new URL('../web/dist/', import.meta.url));

const HTML_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-cache',
  'Content-Type': 'text/html; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  // Everything the app loads is its own; session tokens live in sessionStorage, so no inline script, ever.
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; frame-src blob:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
};

const NOT_BUILT_HTML = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Web app not built</title>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>The web app is not built</h1><p>Build it with <code>npx rmsgen build</code> (or <code>npm install</code>), then reload.</p>`;

export function createWebAppRouter(options: WebAppRouterOptions = {}): Router {
  const distDir = resolve(options.distDir ?? DEFAULT_WEB_DIST);
  const indexFile = join(distDir, 'index.html');
  const router = express.Router();

  router.use(
    '/assets',
    express.static(join(distDir, 'assets'), {
      index: false,
      redirect: false,
      fallthrough: true,
      etag: true,
      lastModified: false,
      setHeaders(res) {
        // File names carry a content hash: a changed file is a new URL.
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        res.setHeader('X-Content-Type-Options', 'nosniff');
      },
    }),
    function missingAsset(req: Request, res: Response, next: NextFunction) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      // A missing hashed asset must not be answered with index.html (the browser would run HTML as JS).
      res.status(404).set('Cache-Control', 'no-store').type('text/plain').send('not found');
    },
  );

  // index.html is small and changes on every build: read it per request (stat-checked) so a rebuild shows at once.
  let cached: { mtimeMs: number; html: Buffer } | undefined;
  function indexHtml(): Buffer | undefined {
    if (!existsSync(indexFile)) return undefined;
    const { mtimeMs } = statSync(indexFile);
    if (!cached || cached.mtimeMs !== mtimeMs) cached = { mtimeMs, html: readFileSync(indexFile) };
    return cached.html;
  }

  router.use(function webApp(req: Request, res: Response, next: NextFunction) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (isReservedPath(req.path)) return next();
    const html = indexHtml();
    res.set(HTML_HEADERS);
    if (!html) {
      res.status(503).send(NOT_BUILT_HTML);
      return;
    }
    // Paths that look like files (favicon.ico, robots.txt) are not app routes.
    if (/\.[A-Za-z0-9]{1,8}$/.test(req.path) && req.path !== '/index.html') {
      res.status(404).set('Cache-Control', 'no-store').type('text/plain').send('not found');
      return;
    }
    res.status(200).send(html);
  });

  return router;
}

/**
 * Paths the API owns: never answered with the app. `/metrics` is the metrics port's: asked of the
 * service's port (a scrape job pointed at the wrong one) it is a 404, not a page of HTML.
 */
function isReservedPath(path: string): boolean {
  return /^\/(api|mcp|healthz|metrics)(\/|$)/i.test(path);
}

/** The web app as a server extension: mounted before `/api` body parsing, it answers only GET/HEAD of app paths. */
export function webAppExtension(options: WebAppRouterOptions = {}): ServerExtension {
  return {
    name: 'web',
    routes: () => ({ beforeApi: [createWebAppRouter(options)] }),
  };
}
