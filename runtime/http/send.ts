import type { ServerResponse } from 'node:http';

/**
 * Sends a JSON body. Records may hold personal data: no caching anywhere on the way.
 * The headers go in one `writeHead` (headers set before, such as `Connection: close`, are kept).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}
