/**
 * Every request, as the operator sees it: its id, its log line and its metrics.
 *
 * A request's id is the client's `X-Request-Id` when that is sane (1 to 128 of the characters
 * letters, digits and `-._~:+/=@`), else a new UUID; the answer echoes it in `X-Request-Id`, the
 * caller resolved for it carries it to the audit rows it writes (`callerOfRequest`), and its log
 * line and error lines name it — so a client's report, a log line and an audit entry meet.
 *
 * What the request turned out to be is noted on its record as the request path learns it: the
 * command (`noteCommand`), the caller (`callerOfRequest`), a rate-limit refusal or a sign-in's
 * outcome (`noteEvent`). When the answer ends, one line is logged and the metrics count it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../caller.ts';
import { formatRequestLine, type LogFormat } from '../log.ts';
import type { CallerKind, RequestInterface, ServerMetrics, SignInOutcome } from '../metrics.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';

const SANE_REQUEST_ID = /^[A-Za-z0-9\-._~:+/=@]{1,128}$/;

/** The client's request id when it is sane, else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** What is known of a request in flight. */
interface RequestRecord {
  readonly id: string;
  readonly started: number;
  readonly bytesBefore: number;
  readonly interface: RequestInterface;
  /** The path as it arrived, without its query: Express strips a mount's prefix from `req.url` while it routes. */
  readonly path: string;
  model: string;
  kind: string;
  command: string | undefined;
  callerKind: CallerKind;
  callerLabel: string | undefined;
  rateLimited: boolean;
  signIn: SignInOutcome | undefined;
}

const records = new WeakMap<ServerResponse, RequestRecord>();

/** The request's id (undefined for a response the observer did not start, such as one made by a test). */
export function requestIdOf(res: ServerResponse): string | undefined {
  return records.get(res)?.id;
}

/** The request calls this command. */
export function noteCommand(res: ServerResponse, command: { readonly id: string; readonly model: string; readonly kind: string }): void {
  const record = records.get(res);
  if (!record) return;
  record.command = command.id;
  record.model = command.model;
  record.kind = command.kind;
}

/** The request was refused for an agent's rate limits, or was a sign-in that ended so. */
export function noteEvent(res: ServerResponse, event: { readonly rateLimited: true } | { readonly signIn: SignInOutcome }): void {
  const record = records.get(res);
  if (!record) return;
  if ('rateLimited' in event) record.rateLimited = true;
  else record.signIn = event.signIn;
}

/** The caller resolved for the request, carrying the request's id (for its audit rows); noted for the log. */
export function callerOfRequest<C extends Caller>(caller: C, res: ServerResponse): C {
  const record = records.get(res);
  if (!record) return caller;
  record.callerKind = caller.kind;
  record.callerLabel = caller.kind === 'person' ? caller.username : caller.label;
  return { ...caller, requestId: record.id };
}

export interface RequestObserverOptions {
  readonly metrics?: ServerMetrics | undefined;
  /** Where a request's line goes, in `logFormat`; none: no request lines. */
  readonly requestLog?: ((line: string) => void) | undefined;
  readonly logFormat?: LogFormat;
  /** True once the server drains: answers then close their connection. */
  readonly isClosing: () => boolean;
}

export interface RequestObserver {
  /** Starts observing a request: its id (echoed at once), its record, its line and metrics when it ends. */
  start(req: IncomingMessage, res: ServerResponse): void;
  /** When the last request other than `/healthz` arrived (`performance.now()`), for the drain's quiet. */
  lastRequestAt(): number;
  /** Answers not yet sent close their connection (the drain has begun). */
  closeAfterAnswers(): void;
}

export function createRequestObserver(options: RequestObserverOptions): RequestObserver {
  const { metrics, requestLog } = options;
  const format = options.logFormat ?? 'text';
  const watched = metrics !== undefined || requestLog !== undefined;
  const inFlight = new Set<ServerResponse>();
  let lastRequestAt = performance.now();

  function finished(req: IncomingMessage, res: ServerResponse, record: RequestRecord): void {
    inFlight.delete(res);
    if (!watched) return;
    const status = res.writableFinished ? res.statusCode : 499;
    const ms = performance.now() - record.started;
    metrics?.observe({
      interface: record.interface,
      model: record.model,
      kind: record.kind,
      caller: record.callerKind,
      status,
      seconds: ms / 1000,
      rateLimited: record.rateLimited,
      signIn: record.signIn,
    });
    if (requestLog) {
      requestLog(
        formatRequestLine(format, {
          time: new Date().toISOString(),
          requestId: record.id,
          method: req.method ?? '',
          path: record.path,
          interface: record.interface,
          command: record.command,
          callerKind: record.callerKind,
          callerLabel: record.callerLabel,
          status,
          durationMs: ms,
          bytes: req.socket.bytesWritten - record.bytesBefore,
        }),
      );
    }
  }

  return {
    start(req, res) {
      const record: RequestRecord = {
        id: requestIdFrom(req.headers['x-request-id']),
        started: performance.now(),
        bytesBefore: watched ? req.socket.bytesWritten : 0,
        interface: interfaceOf(req),
        path: pathOf(req.url ?? ''),
        model: '',
        kind: '',
        command: undefined,
        callerKind: 'none',
        callerLabel: undefined,
        rateLimited: false,
        signIn: undefined,
      };
      records.set(res, record);
      res.setHeader(REQUEST_ID_HEADER, record.id);
      if (options.isClosing()) res.setHeader('Connection', 'close');
      if (req.url !== '/healthz') lastRequestAt = record.started;
      inFlight.add(res);
      res.once('close', () => finished(req, res, record));
    },
    lastRequestAt: () => lastRequestAt,
    closeAfterAnswers() {
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    },
  };
}

/** A request's path for its log line: without the query string, at most 300 characters. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return (query < 0 ? url : url.slice(0, query)).slice(0, 300);
}

/** `/mcp` is MCP; a browser's same-origin request is the web app (browsers send Sec-Fetch-Site); anything else REST. */
function interfaceOf(req: IncomingMessage): RequestInterface {
  const url = req.url ?? '';
  if (url === '/mcp' || url.startsWith('/mcp?') || url.startsWith('/mcp/')) return 'mcp';
  return req.headers['sec-fetch-site'] === 'same-origin' ? 'web' : 'rest';
}
