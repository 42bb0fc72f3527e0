/**
 * The one HTTP error type. Anything thrown on a request path that is not an HttpError is a bug:
 * the error handler logs it and answers 500 without details.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra fields merged into the JSON body next to `error`. */
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** 400 with `{"error": message}`. */
export function badRequest(message: string): HttpError {
  return new HttpError(400, message);
}

/** The 404 that never says whether a command exists, is hidden, or is forbidden (SPEC 7). */
export function notFound(): HttpError {
  return new HttpError(404, 'not found');
}
// x
