/**
 * How a request is refused, for REST and MCP alike: one table of the refusals of a request's
 * transport (its body, read by body.ts), and one mapping of anything a request path throws to its
 * status, headers, REST body and JSON-RPC error (`refusalOf`). REST answers the `body`, MCP the
 * `rpc` error, with the same status and headers — the bearer challenge of a 401 included.
 */
import { INVALID_TOKEN } from '../auth/authenticate.ts';
import { HttpError } from '../errors.ts';

export const INTERNAL_ERROR = 'internal error';
export const UNSUPPORTED_MEDIA_TYPE = 'Content-Type must be application/json';
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * JSON-RPC error codes (the MCP SDK's `ErrorCode`, written out: REST must not load the SDK, which
 * the MCP extension loads on the first call of /mcp). -32000 is a refusal of the transport, not of
 * a method, as the SDK's transport answers them.
 */
const TRANSPORT_ERROR = -32000;
const PARSE_ERROR = -32700;
const INTERNAL_RPC_ERROR = -32603;

interface RefusalText {
  readonly status: number;
  /** REST's `{"error": …}`. */
  readonly error: string;
  /** MCP's JSON-RPC error. */
  readonly rpc: { readonly code: number; readonly message: string };
}

/** The refusals of a request's body, by reason. */
const BODY_REFUSALS = {
  'not-json': {
    status: 415,
    error: UNSUPPORTED_MEDIA_TYPE,
    rpc: { code: TRANSPORT_ERROR, message: `Unsupported Media Type: ${UNSUPPORTED_MEDIA_TYPE}` },
  },
  charset: {
    status: 415,
    error: 'Content-Type charset must be utf-8',
    rpc: { code: TRANSPORT_ERROR, message: 'Unsupported Media Type: Content-Type charset must be utf-8' },
  },
  'unknown-encoding': {
    status: 415,
    error: 'unsupported Content-Encoding',
    rpc: { code: TRANSPORT_ERROR, message: 'Unsupported Media Type: unsupported Content-Encoding' },
  },
  'too-large': {
    status: 413,
    error: 'body too large',
    rpc: { code: TRANSPORT_ERROR, message: `Payload Too Large: Request body must not exceed ${BODY_LIMIT_BYTES} bytes` },
  },
  'bad-encoding': {
    status: 400,
    error: 'body does not match its Content-Encoding',
    rpc: { code: PARSE_ERROR, message: 'Parse error: body does not match its Content-Encoding' },
  },
  'invalid-utf8': {
    status: 400,
    error: 'body is not valid UTF-8',
    rpc: { code: PARSE_ERROR, message: 'Parse error: body is not valid UTF-8' },
  },
  'malformed-json': { status: 400, error: 'malformed JSON', rpc: { code: PARSE_ERROR, message: 'Parse error: Invalid JSON' } },
  'size-mismatch': {
    status: 400,
    error: 'request size did not match Content-Length',
    rpc: { code: TRANSPORT_ERROR, message: 'Bad Request: request size did not match Content-Length' },
  },
  aborted: { status: 400, error: 'request aborted', rpc: { code: TRANSPORT_ERROR, message: 'Bad Request: request aborted' } },
  /** MCP only: a REST call without a body is `{}`. */
  'empty-body': { status: 400, error: 'empty body', rpc: { code: PARSE_ERROR, message: 'Parse error: empty body' } },
} as const satisfies Record<string, RefusalText>;

export type BodyRefusalReason = keyof typeof BODY_REFUSALS;

/** A request refused for its body (see `BODY_REFUSALS`). */
export class BodyRefusal extends Error {
  constructor(readonly reason: BodyRefusalReason) {
    super(BODY_REFUSALS[reason].error);
    this.name = 'BodyRefusal';
  }
}

/** A refusal as both transports answer it. */
export interface Refusal {
  readonly status: number;
  /** What REST answers: `{"error": …}`, with an HttpError's extra fields. */
  readonly body: Record<string, unknown>;
  /** What MCP answers, in a JSON-RPC error object with `id: null`. */
  readonly rpc: { readonly code: number; readonly message: string };
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Anything a request path throws, as both transports answer it: a body refusal by the table; an
 * HttpError its status and text (a 401 with its bearer challenge); a path that does not
 * percent-decode 400; anything else is a bug: logged (see errors.ts, `describeUnexpectedError`)
 * and answered 500 without details. No stack, SQL text or path ever reaches the client.
 */
export function refusalOf(error: unknown, logError: (error: unknown) => void): Refusal {
  if (error instanceof BodyRefusal) {
    const { status, error: text, rpc } = BODY_REFUSALS[error.reason];
    return { status, body: { error: text }, rpc, headers: {} };
  }
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: { error: error.message, ...error.body },
      rpc: { code: TRANSPORT_ERROR, message: error.message },
      headers: error.status === 401 ? { 'WWW-Authenticate': bearerChallenge(error.message) } : {},
    };
  }
  // The router decodes path parameters (`/api/lead%FF/get`, `/api/plans/%ZZ`): a path that does not decode names nothing.
  if (error instanceof URIError) return plain(400, 'malformed percent-encoding in the path');
  // Express's own refusals (http-errors) that are safe to show, by their status only.
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && (error as { expose?: unknown }).expose === true) return plain(status, 'bad request');
  logError(error);
  return { status: 500, body: { error: INTERNAL_ERROR }, rpc: { code: INTERNAL_RPC_ERROR, message: INTERNAL_ERROR }, headers: {} };
}

function plain(status: number, text: string): Refusal {
  return { status, body: { error: text }, rpc: { code: TRANSPORT_ERROR, message: text }, headers: {} };
}

/**
 * HTTP requires a challenge on every 401 (RFC 9110); RFC 6750 says how a bearer one reads: a
 * token that does not work gets `error="invalid_token"`; a request without one (and wrong sign-in
 * credentials) the bare scheme, since it carried no credentials to be wrong.
 */
function bearerChallenge(message: string): string {
  return message === INVALID_TOKEN ? 'Bearer error="invalid_token"' : 'Bearer';
}
