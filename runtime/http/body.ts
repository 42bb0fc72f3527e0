/**
 * The one reader of JSON request bodies, for REST (the fast command route and the Express app)
 * and MCP. A body must be sent as `application/json`, in UTF-8 (any other charset is refused:
 * 415), in no Content-Encoding or gzip, deflate or br (another: 415; one that does not decode:
 * 400), at most 1 MB before and after decoding (413), exactly as long as its Content-Length (400),
 * UTF-8 (400: invalid bytes are never replaced) and JSON (400). A leading byte order mark is
 * dropped. Every refusal is a BodyRefusal, answered by refusals.ts for either transport.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { SIGN_IN_PATH } from '../auth/authenticate.ts';
import type { Callers } from './callers.ts';
import { BODY_LIMIT_BYTES, BodyRefusal, type BodyRefusalReason } from './refusals.ts';

export { BODY_LIMIT_BYTES };

/** Whether the request carries a body (an empty one does not count). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The usual spellings, decided without parsing (nearly every request sends one of them). */
const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/**
 * Why a Content-Type is refused, or undefined for `application/json` with no charset or UTF-8 (any
 * case, the charset quoted or not). JSON is UTF-8 (RFC 8259); a body declared UTF-16 would be
 * decoded as something else than what the client meant, so it is refused rather than guessed.
 */
export function contentTypeRefusal(value: string | undefined): BodyRefusalReason | undefined {
  if (value === undefined) return 'not-json';
  const lower = value.toLowerCase();
  if (PLAIN_JSON.has(lower)) return undefined;
  const [type, ...parameters] = lower.split(';');
  if (type!.trim() !== 'application/json') return 'not-json';
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals < 0 || parameter.slice(0, equals).trim() !== 'charset') continue;
    const charset = parameter.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1');
    if (charset !== 'utf-8' && charset !== 'utf8') return 'charset';
  }
  return undefined;
}

/** The decoder of a Content-Encoding, null for none; undefined for one we do not read. */
function decoderFor(encoding: string | undefined): Transform | null | undefined {
  switch (encoding === undefined ? 'identity' : encoding.trim().toLowerCase()) {
    case 'identity':
      return null;
    case 'gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** The most a body refused by its Content-Length may declare and still be read (and dropped) before the refusal is answered. */
const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;
/** How long such a body is waited for. */
const DRAIN_MS = 5_000;

/**
 * Reads a body refused by its Content-Length to its end, and drops it, before the refusal is
 * answered — when it is not much: answered while the client still writes it, its connection
 * closed, the client would see the connection reset before it read the answer. A larger body,
 * one slower than `DRAIN_MS`, and one whose client waits to be told to send it (`Expect:
 * 100-continue`: it is answered at once, and sends nothing) are not read: the answer then closes
 * the connection.
 */
export async function drainRefusedBody(req: IncomingMessage, declared: number): Promise<void> {
  if (declared > DRAIN_LIMIT_BYTES || req.readableEnded || /100-continue/i.test(req.headers.expect ?? '')) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, DRAIN_MS);
    function done(): void {
      clearTimeout(timer);
      resolve();
    }
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

/**
 * The request's body, parsed; undefined when there is none (no bytes, or only a byte order mark).
 * Rejects with a BodyRefusal. What the client sends after a refusal is not read: the answer then
 * closes the connection (refusals.ts users check `req.readableEnded`).
 */
export function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  if (!hasBody(req)) {
    // Nothing to read; the request's end must still be consumed for the connection to be reused.
    req.resume();
    return Promise.resolve(undefined);
  }
  const typeRefusal = contentTypeRefusal(req.headers['content-type']);
  if (typeRefusal !== undefined) return Promise.reject(new BodyRefusal(typeRefusal));
  const decoder = decoderFor(req.headers['content-encoding']);
  if (decoder === undefined) return Promise.reject(new BodyRefusal('unknown-encoding'));
  const length = req.headers['content-length'];
  const declared = length === undefined ? undefined : Number(length);
  if (declared !== undefined && declared > limit) return drainRefusedBody(req, declared).then(() => Promise.reject(new BodyRefusal('too-large')));

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let decoded = 0;
    let done = false;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      req.off('data', onRaw);
      decoder?.off('data', onDecoded);
      outcome();
    };
    const refuse = (reason: BodyRefusalReason) =>
      finish(() => {
        // Stop reading: the answer closes the connection.
        if (decoder) {
          req.unpipe(decoder);
          decoder.destroy();
        }
        req.pause();
        reject(new BodyRefusal(reason));
      });
    const onRaw = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return refuse('too-large');
      if (declared !== undefined && received > declared) return refuse('size-mismatch');
      if (!decoder) chunks.push(chunk);
    };
    const onDecoded = (chunk: Buffer) => {
      decoded += chunk.length;
      if (decoded > limit) return refuse('too-large');
      chunks.push(chunk);
    };
    const complete = () =>
      finish(() => {
        if (declared !== undefined && received !== declared) return reject(new BodyRefusal('size-mismatch'));
        const size = decoder ? decoded : received;
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        try {
          resolve(parseJson(body));
        } catch (error) {
          reject(error);
        }
      });

    req.on('data', onRaw);
    if (decoder) {
      decoder.on('data', onDecoded);
      decoder.once('end', complete);
      decoder.once('error', () => refuse('bad-encoding'));
      req.pipe(decoder);
    } else {
      req.once('end', complete);
    }
    // The client went away (or the server's request timeout cut it off) before the body was in.
    req.once('close', () => {
      if (!req.complete) refuse('aborted');
    });
    req.once('error', () => refuse('aborted'));
  });
}

/** UTF-8 bytes → the JSON value; undefined for no text at all. */
function parseJson(body: Buffer): unknown {
  if (!isUtf8(body)) throw new BodyRefusal('invalid-utf8');
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyRefusal('malformed-json');
  }
}

/**
 * The reader as Express middleware for `/api/*`: `req.body` is the parsed body, or undefined.
 * A refused body of an agent's request costs the agent a request all the same (`Callers.chargeRefusal`).
 */
export function jsonBody(callers: Callers): RequestHandler {
  return function readBody(req: Request, res: Response, next: NextFunction) {
    readJsonBody(req).then(
      (body) => {
        req.body = body;
        next();
      },
      (error: unknown) => {
        // The sign-in is the one call without a token: its body's refusal is told as it is.
        if (req.method === 'POST' && req.originalUrl.split('?')[0] === SIGN_IN_PATH) return next(error);
        callers.chargeRefusal(req.headers.authorization, res, `${req.method} ${req.path}`).then(() => next(error), next);
      },
    );
  };
}
