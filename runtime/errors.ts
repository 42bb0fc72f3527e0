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

/**
 * How the server logs an unexpected error (a bug, a lost database): its stack, and its code when it
 * has one, and nothing else of it. Database drivers attach values of rows to their errors (pg's
 * `detail`: `Key (email)=(…) already exists`), and a personal value, a password or a token must
 * never reach a log; knex is told not to write bound values into messages either (connect.ts,
 * `compileSqlOnError`). A thrown value that is not an Error may be anything, so only its type is shown.
 */
export function describeUnexpectedError(error: unknown): string {
  if (!(error instanceof Error)) return `unexpected error: a thrown ${typeof error}, not an Error`;
  const code = (error as { code?: unknown }).code;
  const stack = error.stack ?? `${error.name}: ${error.message}`;
  return typeof code === 'string' || typeof code === 'number' ? `${stack}\n  code: ${code}` : stack;
}

/** The server's default error log (stderr): see `describeUnexpectedError`. */
export function logUnexpectedError(error: unknown): void {
  console.error(describeUnexpectedError(error));
}
