import type { ServerResponse } from 'node:http';
import { jsonText } from '../query/stored-json.ts';

/**
 * Sends a JSON body (stored JSON in it written as it is: query/stored-json.ts). Records may hold
 * personal data: no caching anywhere on the way.
 * The headers go in one `writeHead` (headers set before, such as `Connection: close`, are kept).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = jsonText(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}
