/**
 * JSON request bodies for `/api/*`: a body must be sent as `application/json` (415 otherwise),
 * at most 1 MB (413), and valid JSON (400). No body at all reads as `{}`.
 */
import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { HttpError } from '../errors.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const UNSUPPORTED_MEDIA_TYPE = 'Content-Type must be application/json';

/** `application/json`, optionally with parameters (`; charset=utf-8`). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const semicolon = value.indexOf(';');
  return (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase() === 'application/json';
}

/** Whether the request carries a body (an empty one does not count). */
export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** `type` of the body error for bytes that are not UTF-8 (mapped by the error handlers of REST and MCP). */
export const INVALID_UTF8 = 'entity.invalid.utf8';

/**
 * body-parser decodes with replacement: `a\xff\xfeb` would arrive as `a��b` and be stored so. A body
 * declared (or defaulted) UTF-8 must be UTF-8; anything else is refused before it is parsed.
 */
export function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer, encoding: string): void {
  if (encoding.toLowerCase() !== 'utf-8' || isUtf8(body)) return;
  throw Object.assign(new Error('body is not valid UTF-8'), { type: INVALID_UTF8, status: 400 });
}

export function jsonBody(options: { limit?: number } = {}): RequestHandler[] {
  const parse = express.json({ limit: options.limit ?? BODY_LIMIT_BYTES, strict: false, type: () => true, verify: refuseInvalidUtf8 });
  const length = (options.limit ?? BODY_LIMIT_BYTES);
  return [
    function requireJsonContentType(req: Request, _res: Response, next: NextFunction) {
      if (!hasBody(req)) {
        req.body = undefined;
        return next();
      }
      if (!isJsonContentType(req.headers['content-type'])) return next(new HttpError(415, UNSUPPORTED_MEDIA_TYPE));
      const declared = Number(req.headers['content-length']);
      if (declared > length) return next(new HttpError(413, 'body too large'));
      next();
    },
    parse,
  ];
}
