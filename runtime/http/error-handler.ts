/**
 * REST's error answers: whatever a request path throws, answered as refusals.ts decides for both
 * transports (MCP's router answers the same refusal as a JSON-RPC error).
 */
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { hasBody } from './body.ts';
import { requestIdOf } from './observe.ts';
import { refusalOf, type Refusal } from './refusals.ts';
import { sendJson } from './send.ts';

export function errorHandler(logError: (error: unknown, requestId?: string) => void): ErrorRequestHandler {
  return function handleError(error, _req, res, next) {
    if (res.headersSent) return next(error);
    sendError(res, error, logError);
  };
}

/** Answers an error as the error handler does (the fast command route has no Express to call it). */
export function sendError(res: ServerResponse, error: unknown, logError: (error: unknown, requestId?: string) => void): void {
  const requestId = requestIdOf(res);
  if (res.headersSent) {
    // Too late to answer: the connection cannot carry a second response.
    logError(error, requestId);
    res.destroy();
    return;
  }
  const refusal = refusalOf(error, (unexpected) => logError(unexpected, requestId));
  setRefusalHeaders(res, refusal);
  sendJson(res, refusal.status, refusal.body);
}

/**
 * The headers of a refusal, on either transport: its own (a 401's challenge), and `Connection:
 * close` when the request's body was not read to its end — the rest of it would otherwise be
 * read for nothing before the next request on the connection.
 */
export function setRefusalHeaders(res: ServerResponse, refusal: Refusal): void {
  for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
  if (hasBody(res.req) && !res.req.readableEnded) res.setHeader('Connection', 'close');
}
