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
    super(storableText(message));
    this.name = 'HttpError';
  }
}

/**
 * An error text as it can be stored: NUL (which PostgreSQL's text cannot hold) and lone surrogates
 * (which UTF-8 cannot) written as `\u0000`-style escapes. An error text may echo what a caller sent
 * (`unknown field lead.<key>`), and every refused command's text goes to the audit trail.
 */
function storableText(text: string): string {
  return text.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** 400 with `{"error": message}`. */
export function badRequest(message: string): HttpError {
  return new HttpError(400, message);
}

/** The 404 that never says whether a command exists, is hidden, or is forbidden (SPEC 7). */
export function notFound(): HttpError {
  return new HttpError(404, 'not found');
}

/**
 * Fields of a database driver's error that name things (a table, a constraint, a routine), never
 * values: what the log keeps of such an error besides its stack's frames.
 */
const DATABASE_ERROR_NAMES = ['routine', 'table', 'column', 'constraint', 'dataType'] as const;

/** The statement (placeholders, never values) each database error came from, when knex ran it (connect.ts). */
const statements = new WeakMap<object, string>();

/** Keeps the statement of a database error for the log, which may not show its message (see `describeUnexpectedError`). */
export function rememberStatement(error: unknown, sql: unknown): void {
  if (typeof error === 'object' && error !== null && typeof sql === 'string') statements.set(error, sql);
}

/**
 * A database driver's error, whose message may quote the values of the statement: PostgreSQL's
 * (`invalid input syntax for type date: "…"`; its `detail`: `Key (email)=(…) already exists`), and
 * SQLite's (`fts5: syntax error near "…"`, `no such column: …` of a search). pg's errors carry a
 * five-character SQLSTATE and a severity, better-sqlite3's a `SQLITE_` code.
 */
function isDatabaseError(error: Error & { code?: unknown; severity?: unknown }): boolean {
  const code = error.code;
  if (typeof code !== 'string') return false;
  return code.startsWith('SQLITE_') || (typeof error.severity === 'string' && /^[0-9A-Z]{5}$/.test(code));
}

/**
 * Database errors whose messages name things (a constraint, a table, an index) and never quote a
 * value, so the log keeps them: PostgreSQL's connection (08), integrity (23: the value is only in
 * `detail`), transaction (25, 40), resource and limit (53, 54, 55), cancelled (57: a statement
 * timeout) and system (58) classes and unknown tables and columns; SQLite's constraints, locks and
 * I/O. Every other message — a data exception (22) quotes the input, SQLite's plain SQLITE_ERROR
 * may quote a search — is left out.
 */
const MESSAGES_WITHOUT_VALUES = /^(08|23|25|40|53|54|55|57|58)|^42P01$|^42703$|^SQLITE_(CONSTRAINT|BUSY|LOCKED|FULL|READONLY|IOERR|CORRUPT|CANTOPEN|NOTADB|PERM|ABORT|INTERRUPT|NOMEM|TOOBIG)/;

/**
 * How the server logs an unexpected error (a bug, a lost database): its stack, and its code when it
 * has one, and nothing else of it. A personal value, a password or a token must never reach a log:
 * database drivers attach values to their errors, so of a database error the log keeps its name,
 * its code, the names it carries (table, constraint, …), its statement (placeholders, never values)
 * and the frames of its stack, and its message only where that never quotes a value
 * (`MESSAGES_WITHOUT_VALUES`); never its `detail`. (knex is told not to write bound values into
 * messages either: connect.ts, `compileSqlOnError`.) A thrown value that is not an Error may be
 * anything, so only its type is shown.
 */
export function describeUnexpectedError(error: unknown): string {
  const parts = unexpectedErrorParts(error);
  if (parts.stack === undefined) return parts.summary;
  return [parts.stack, ...(parts.code === undefined ? [] : [`  code: ${parts.code}`]), ...Object.entries(parts.names).map(([key, value]) => `  ${key}: ${value}`)].join('\n');
}

/** What the log keeps of an unexpected error (see `describeUnexpectedError`), in parts, for the log's JSON lines. */
export interface UnexpectedErrorParts {
  /** `<name>: <message>`, or for a database error whose message may quote values, its name and why the message is left out. */
  readonly summary: string;
  /** The summary and the frames of its stack, as the text log shows them; undefined for a thrown value that is not an Error. */
  readonly stack: string | undefined;
  readonly code: string | undefined;
  /** Of a database error, the names it carries (table, constraint, …) and its statement. */
  readonly names: Readonly<Record<string, string>>;
}

export function unexpectedErrorParts(error: unknown): UnexpectedErrorParts {
  if (!(error instanceof Error)) return { summary: `unexpected error: a thrown ${typeof error}, not an Error`, stack: undefined, code: undefined, names: {} };
  const rawCode = (error as { code?: unknown }).code;
  const stack = error.stack ?? `${error.name}: ${error.message}`;
  if (!isDatabaseError(error)) {
    const code = typeof rawCode === 'string' || typeof rawCode === 'number' ? String(rawCode) : undefined;
    return { summary: `${error.name}: ${error.message}`, stack, code, names: {} };
  }
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  const names: Record<string, string> = {};
  for (const key of DATABASE_ERROR_NAMES) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (typeof value === 'string') names[key] = value;
  }
  const statement = statements.get(error);
  if (statement !== undefined) names.statement = statement;
  const summary = MESSAGES_WITHOUT_VALUES.test(String(rawCode)) ? `${error.name}: ${error.message}` : `${error.name} (a database error; its message is not logged: it may quote values)`;
  return { summary, stack: [summary, ...frames].join('\n'), code: String(rawCode), names };
}

/** The server's default error log (stderr): see `describeUnexpectedError`. */
export function logUnexpectedError(error: unknown): void {
  console.error(describeUnexpectedError(error));
}
