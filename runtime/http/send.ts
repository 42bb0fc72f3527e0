import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { jsonText } from '../query/stored-json.ts';
import { ROWS_PER_PAGE } from '../query/list-pages.ts';
import { RecordPages } from '../view/record-pages.ts';

/** The headers of every JSON answer: records may hold personal data, so no caching anywhere on the way. */
const JSON_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;

/**
 * Sends a JSON body (stored JSON in it written as it is: query/stored-json.ts).
 * The headers go in one `writeHead` (headers set before, such as `Connection: close`, are kept).
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = jsonText(body);
  res.writeHead(status, { ...JSON_HEADERS, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Sends a command's answer: as `sendJson` does, or, for a list without a limit (`RecordPages`),
 * page by page as it is read, each written before the next is read and only as fast as the client
 * takes them. A failure to read the first page is answered as any error is (nothing is sent
 * before it); one after that can only end the connection (error-handler.ts), which the client sees
 * as an answer cut short.
 */
export async function sendAnswer(res: ServerResponse, status: number, body: object): Promise<void> {
  const paged = (body as { readonly value?: unknown }).value;
  if (!(paged instanceof RecordPages)) return sendJson(res, status, body);
  const opened = await paged.open();
  const first = await opened.pages.next();
  const firstPage = first.done ? [] : first.value;
  if (firstPage.length < ROWS_PER_PAGE) {
    // The only page: sent whole, with its length, as any answer.
    await opened.pages.return();
    return sendJson(res, status, { ...body, value: paged.search ? { rows: firstPage, total: opened.total } : firstPage });
  }
  // The envelope around the records, written as sendJson writes it, with their place marked.
  const [before, after] = jsonText({ ...body, value: paged.search ? { rows: PAGES_MARK, total: opened.total } : PAGES_MARK }).split(PAGES_MARK_JSON) as [string, string];
  res.writeHead(status, JSON_HEADERS);
  let separator = '';
  res.write(`${before}[`);
  for await (const page of withFirst(firstPage, opened.pages)) {
    if (res.destroyed) break;
    if (page.length === 0) continue;
    const text = jsonText(page);
    // Waits for the client, then lets other requests be served: when the socket takes a page at
    // once, its `drain` comes on the next tick, and the next page would be read before any other
    // request (a list of 1,000,000 leads kept the event loop for its 10 s).
    if (!res.write(separator + text.slice(1, -1))) await writable(res);
    await setImmediate();
    separator = ',';
  }
  if (!res.destroyed) res.end(`]${after}`);
}

/** The pages: the first, read already, then the rest. */
async function* withFirst<Page>(first: Page, rest: AsyncGenerator<Page, void, undefined>): AsyncGenerator<Page, void, undefined> {
  yield first;
  yield* rest;
}

/** Where the records go in a paged answer's envelope: a string no value holds without knowing this process's random part. */
const PAGES_MARK = `\u0000record-pages:${randomBytes(16).toString('base64url')}`;
const PAGES_MARK_JSON = JSON.stringify(PAGES_MARK);

/** Resolves once the response takes more (`drain`), or is gone (`close`). */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
