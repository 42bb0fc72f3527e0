/**
 * The front `rmsgen dev` listens on: the port people and programs use, which stays the same while
 * the server behind it is rebuilt and restarted. It forwards every request, as it is, to the
 * current `rmsgen serve` child (started on a free loopback port) and adds what only development
 * needs, so that neither `serve` nor the built web app carries any of it:
 *
 * - `GET /__rmsgen_dev/events`: a server-sent event stream: `hello` on connecting (the build
 *   number and the last build's problems), `reload` after each rebuild, `problems` when a build
 *   fails;
 * - `GET /__rmsgen_dev/reload.js`: the script that listens to it, reloads the page after a rebuild
 *   and shows a failed build's problems over the page; added to every HTML page served here
 *   (`script-src 'self'` allows it);
 * - while no server runs (the first build failed), `503` with the reason: JSON under `/api`,
 *   `/mcp` and `/healthz`, else a page that reloads itself once a build succeeds.
 *
 * The child sees itself addressed under its own names: a `Host` or `Origin` that names this front
 * (on loopback) is rewritten to the child's, so its same-origin and DNS-rebinding checks judge
 * requests as they would without the front; any other name reaches it as sent.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DEV_PATH = '/__rmsgen_dev';
const EVENTS_PATH = `${DEV_PATH}/events`;
const SCRIPT_PATH = `${DEV_PATH}/reload.js`;
export const RELOAD_SCRIPT_TAG = `<script type="module" src="${SCRIPT_PATH}"></script>`;

/** Connection-level headers: each hop sets its own. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];

export interface DevFront {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** The server requests go to from now on; undefined: none, answer 503 saying `why`. */
  setTarget(port: number | undefined, why?: string): void;
  /** After a successful rebuild: open pages reload. */
  reload(build: number): void;
  /** After a failed build: open pages show the problems (empty: hide them). */
  problems(lines: readonly string[]): void;
  close(): Promise<void>;
}

export async function startDevFront(options: { readonly host: string; readonly port: number }): Promise<DevFront> {
  let target: number | undefined;
  let why = 'the first build has not finished';
  let build = 0;
  let problems: readonly string[] = [];
  const streams = new Set<ServerResponse>();
  let ownOrigins: readonly string[] = [];

  const send = (res: ServerResponse, event: string, data: unknown): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const broadcast = (event: string, data: unknown): void => {
    for (const res of streams) send(res, event, data);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === EVENTS_PATH && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      send(res, 'hello', { build, problems });
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    if (path === SCRIPT_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(RELOAD_SCRIPT) });
      res.end(req.method === 'HEAD' ? undefined : RELOAD_SCRIPT);
      return;
    }
    if (target === undefined) {
      unavailable(req, res, why);
      return;
    }
    forward(req, res, target, ownOrigins);
  });
  // The event streams stay open; keep-alive pings keep proxies and idle timers from closing them.
  const ping = setInterval(() => {
    for (const res of streams) res.write(': ping\n\n');
  }, 20_000);
  ping.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  ownOrigins = ['127.0.0.1', 'localhost', '[::1]'].map((name) => `http://${name}:${port}`);
  return {
    url: `http://${options.host}:${port}`,
    port,
    setTarget(next, reason) {
      target = next;
      if (reason !== undefined) why = reason;
    },
    reload(number) {
      build = number;
      problems = [];
      broadcast('reload', { build });
    },
    problems(lines) {
      problems = lines;
      broadcast('problems', { problems });
    },
    close() {
      clearInterval(ping);
      for (const res of streams) res.end();
      streams.clear();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function forward(req: IncomingMessage, res: ServerResponse, port: number, ownOrigins: readonly string[]): void {
  const headers = withoutHopByHop(req.headers);
  const own = (origin: string) => ownOrigins.includes(origin.toLowerCase());
  if (headers.host !== undefined && own(`http://${headers.host}`)) headers.host = `127.0.0.1:${port}`;
  if (typeof headers.origin === 'string' && own(headers.origin)) headers.origin = `http://127.0.0.1:${port}`;

  const upstream = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers }, (answer) => {
    const answerHeaders = withoutHopByHop(answer.headers);
    const status = answer.statusCode ?? 502;
    const html = req.method === 'GET' && status === 200 && String(answer.headers['content-type'] ?? '').startsWith('text/html') && answer.headers['content-encoding'] === undefined;
    if (!html) {
      res.writeHead(status, answerHeaders);
      answer.pipe(res);
      return;
    }
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.on('end', () => {
      const page = withReloadScript(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(status, { ...answerHeaders, 'content-length': Buffer.byteLength(page) });
      res.end(page);
    });
    answer.on('error', () => res.destroy());
  });
  upstream.on('error', (error) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const message = `rmsgen dev: the server did not answer (${error.message}); it may be restarting, try again`;
    res.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ error: message }));
  });
  // A client gone (a closed page, an aborted stream) ends the request behind it too.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

/** The page with the reload script before `</head>` (or at the end). */
export function withReloadScript(page: string): string {
  const head = page.search(/<\/head>/i);
  return head === -1 ? `${page}\n${RELOAD_SCRIPT_TAG}\n` : `${page.slice(0, head)}${RELOAD_SCRIPT_TAG}\n${page.slice(head)}`;
}

function unavailable(req: IncomingMessage, res: ServerResponse, why: string): void {
  const message = `rmsgen dev: no server is running: ${why}`;
  const path = req.url ?? '/';
  if (/^\/(api|mcp|healthz)(\/|$|\?)/i.test(path) || req.method !== 'GET') {
    res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ error: message }));
    return;
  }
  const page = withReloadScript(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rmsgen dev</title></head>\n<body><h1>No server yet</h1><p>${escapeHtml(message)}.</p><p>This page reloads once a build succeeds.</p></body></html>`,
  );
  res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(page) });
  res.end(page);
}

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const copy: IncomingHttpHeaders = { ...headers };
  for (const name of HOP_BY_HOP) delete copy[name];
  return copy;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char] ?? char);
}

/**
 * Served at /__rmsgen_dev/reload.js. A page reloads when a rebuild is announced, and when it
 * reconnects (rmsgen dev restarted, or the page was asleep) to a different build than it loaded.
 * A failed build's problems show in a box at the bottom of the page (styles set through the DOM:
 * the app's CSP allows no inline styles), gone after the next good build. The page is marked with
 * the build it shows (`<html data-rmsgen-dev="3">`) once it listens.
 */
const RELOAD_SCRIPT = `// rmsgen dev: reloads this page after each rebuild. Only \`rmsgen dev\` serves this file.
const events = new EventSource('${EVENTS_PATH}');
let loaded;
let box;
function show(problems) {
  if (problems.length === 0) { box?.remove(); box = undefined; return; }
  if (!box) {
    box = document.createElement('pre');
    box.id = 'rmsgen-dev-problems';
    Object.assign(box.style, { position: 'fixed', left: '0', right: '0', bottom: '0', margin: '0', padding: '0.75rem 1rem', maxHeight: '40vh', overflow: 'auto', background: '#2b0b0b', color: '#ffd7d7', font: '12px/1.4 ui-monospace, monospace', whiteSpace: 'pre-wrap', zIndex: '2147483647' });
    document.body.append(box);
  }
  box.textContent = 'rmsgen dev: the last build failed; this page shows the last good one.\\n\\n' + problems.join('\\n');
}
events.addEventListener('hello', (event) => {
  const { build, problems } = JSON.parse(event.data);
  if (loaded !== undefined && build !== loaded) { location.reload(); return; }
  loaded = build;
  document.documentElement.dataset.rmsgenDev = String(build);
  show(problems);
});
events.addEventListener('reload', () => location.reload());
events.addEventListener('problems', (event) => show(JSON.parse(event.data).problems));
`;
