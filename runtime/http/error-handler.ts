/**
 * The one error handler: HttpError → its status and `{"error": message}`; body parser failures →
 * 400/413/415; anything else is a bug: logged server-side, answered with a bare 500. No stack,
 * SQL text or path ever reaches the client.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { INVALID_TOKEN } from '../auth/authenticate.ts';
import { HttpError } from '../errors.ts';
import { INVALID_UTF8, UNSUPPORTED_MEDIA_TYPE } from './body.ts';
import { sendJson } from './send.ts';

export const INTERNAL_ERROR = 'internal error';

/** Errors of body-parser / raw-body, by their `type`. */
const BODY_ERRORS: Record<string, { status: number; message: string }> = {
  'entity.too.large': { status: 413, message: 'body too large' },
  'entity.parse.failed': { status: 400, message: 'malformed JSON' },
  'charset.unsupported': { status: 415, message: UNSUPPORTED_MEDIA_TYPE },
  'encoding.unsupported': { status: 415, message: 'unsupported Content-Encoding' },
  'request.aborted': { status: 400, message: 'request aborted' },
  'request.size.invalid': { status: 400, message: 'request size did not match Content-Length' },
  [INVALID_UTF8]: { status: 400, message: 'body is not valid UTF-8' },
};

/** A body that does not decode with its Content-Encoding (gzip, deflate, br): zlib's error codes. */
export function isBadEncoding(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(Z_|ERR__ERROR_|ERR_BROTLI)/.test(code);
}

export function errorResponse(error: unknown, logError: (error: unknown) => void): { status: number; body: Record<string, unknown> } {
  if (error instanceof HttpError) return { status: error.status, body: { ...error.body, error: error.message } };
  // The router decodes path parameters (`/api/lead%FF/get`, `/api/plans/%ZZ`): a path that does not decode names nothing.
  if (error instanceof URIError) return { status: 400, body: { error: 'malformed percent-encoding in the path' } };
  if (isBadEncoding(error)) return { status: 400, body: { error: 'body does not match its Content-Encoding' } };
  const type = (error as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && BODY_ERRORS[type]) {
    const { status, message } = BODY_ERRORS[type]!;
    return { status, body: { error: message } };
  }
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && (error as { expose?: unknown }).expose === true) {
    return { status, body: { error: 'bad request' } };
  }
  logError(error);
  return { status: 500, body: { error: INTERNAL_ERROR } };
}

export function errorHandler(logError: (error: unknown) => void): ErrorRequestHandler {
  return function handleError(error, _req, res, next) {
    if (res.headersSent) return next(error);
    sendError(res, error, logError);
  };
}

/** Answers an error as the error handler does (the fast command route has no Express to call it). */
export function sendError(res: ServerResponse, error: unknown, logError: (error: unknown) => void): void {
  if (res.headersSent) {
    // Too late to answer: the connection cannot carry a second response.
    logError(error);
    res.destroy();
    return;
  }
  const { status, body } = errorResponse(error, logError);
  if (status === 413 || status === 415) {
    // The unread rest of the body would otherwise be parsed as the next request.
    res.setHeader('Connection', 'close');
  }
  if (status === 401) res.setHeader('WWW-Authenticate', bearerChallenge(body.error));
  sendJson(res, status, body);
}

/**
 * HTTP requires a challenge on every 401 (RFC 9110); RFC 6750 says how a bearer one reads: a
 * token that does not work gets `error="invalid_token"`; a missing token, and wrong sign-in
 * credentials, get the bare scheme.
 */
function bearerChallenge(message: unknown): string {
  return message === INVALID_TOKEN ? 'Bearer error="invalid_token"' : 'Bearer';
}
