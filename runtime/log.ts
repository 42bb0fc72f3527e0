/**
 * The server's log lines (`serve --log-format json|text`): one line per request on stdout, and
 * unexpected errors on stderr, with their stack and code (never a bound value: errors.ts decides
 * what of an error is kept). Start-up and shutdown lines (`listening on …`) stay plain text in
 * either format: scripts wait for the ready line.
 *
 * A request line never holds a token, a password or a value of a record: the caller is named by
 * its kind and label (a person's username, an agent token's label), the path is written without
 * its query string.
 */
import { describeUnexpectedError, unexpectedErrorParts } from './errors.ts';

export type LogFormat = 'json' | 'text';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

/** One finished request, as its log line tells it. */
export interface RequestLogEntry {
  /** When the answer ended (or the client went away), ISO 8601 UTC. */
  readonly time: string;
  readonly requestId: string;
  readonly method: string;
  /** Without the query string. */
  readonly path: string;
  /** `rest`, `mcp` or `web` (see http/observe.ts). */
  readonly interface: string;
  /** The command's id (`lead.get`), or undefined for a request that calls none. */
  readonly command: string | undefined;
  readonly callerKind: 'person' | 'agent' | 'none';
  /** A person's username, an agent token's label; undefined when there is no known caller. */
  readonly callerLabel: string | undefined;
  /** 499 when the client went away before the answer was sent. */
  readonly status: number;
  readonly durationMs: number;
  /** What the answer put on the connection, headers included. */
  readonly bytes: number;
}

/** A request's line in `format`, without its newline. */
export function formatRequestLine(format: LogFormat, entry: RequestLogEntry): string {
  const duration = Math.round(entry.durationMs * 1000) / 1000;
  if (format === 'json') {
    // Written out rather than JSON.stringify of an object: this runs for every request. Strings a
    // client chose (path, label) are escaped by JSON.stringify; the others are known to be plain.
    return (
      `{"time":"${entry.time}","level":"info","request_id":${JSON.stringify(entry.requestId)},"method":${JSON.stringify(entry.method)},` +
      `"path":${JSON.stringify(entry.path)},"interface":"${entry.interface}","command":${entry.command === undefined ? 'null' : `"${entry.command}"`},` +
      `"caller_kind":"${entry.callerKind}","caller_label":${entry.callerLabel === undefined ? 'null' : JSON.stringify(entry.callerLabel)},` +
      `"status":${entry.status},"duration_ms":${duration},"bytes":${entry.bytes}}`
    );
  }
  return [
    entry.time,
    entry.requestId,
    plainText(entry.method),
    plainText(entry.path),
    entry.interface,
    entry.command ?? '-',
    entry.callerKind,
    entry.callerLabel === undefined ? '-' : plainText(entry.callerLabel),
    String(entry.status),
    `${duration}ms`,
    `${entry.bytes}B`,
  ].join(' ');
}

/** A word of a text line: as it is when it is plain, else quoted (spaces, quotes, control characters). */
function plainText(value: string): string {
  return value !== '' && /^[\x21-\x7e]*$/.test(value) && !value.includes('"') ? value : JSON.stringify(value);
}

/** An unexpected error's line(s) in `format`, without the final newline (see errors.ts for what is kept of it). */
export function formatErrorLine(format: LogFormat, error: unknown, requestId: string | undefined, time: string = new Date().toISOString()): string {
  if (format === 'json') {
    const parts = unexpectedErrorParts(error);
    return JSON.stringify({
      time,
      level: 'error',
      request_id: requestId ?? null,
      error: parts.summary,
      code: parts.code ?? null,
      stack: parts.stack ?? null,
      ...parts.names,
    });
  }
  const text = describeUnexpectedError(error);
  return requestId === undefined ? text : `${text}\n  request: ${requestId}`;
}

/**
 * Lines written to a stream in batches: the lines of one turn of the event loop go in one write
 * (a write to a pipe or a file is a system call, and synchronous), or sooner past 64 kB. `flush`
 * writes what is pending at once (on shutdown).
 */
export interface LineWriter {
  write(line: string): void;
  flush(): void;
}

const FLUSH_BYTES = 64 * 1024;

export function createLineWriter(stream: NodeJS.WritableStream): LineWriter {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    stream.write(text);
  };
  return {
    write(line) {
      pending += `${line}\n`;
      if (pending.length >= FLUSH_BYTES) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
