/**
 * The command route, `POST /api/<model>/<command>`: the one place REST calls a command.
 *
 * Most calls of a server are this route with a plain JSON body, and Express's router, its
 * request and response wrappers and body-parser's streams cost more than the command itself
 * (profile of lead.get under load: about a fifth of the server's time in express, router,
 * body-parser, raw-body and parseurl, and much of its garbage). So such calls are answered
 * straight from node:http (`fastCommandRoute`), and everything else — a query string, an encoded
 * path, another content type or encoding, a chunked body, a command that does not exist — goes
 * on to the Express app, whose route runs `answerCommand` too. Both read the body to the same
 * rules (body.ts) and answer errors with the same handler (error-handler.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { callCost } from '../auth/rate-limits.ts';
import { dryRunCommand, executeCommand } from '../commands/pipeline.ts';
import type { RecordService } from '../commands/types.ts';
import { BODY_LIMIT_BYTES, INVALID_UTF8 } from './body.ts';
import type { Callers } from './callers.ts';
import { sendError } from './error-handler.ts';
import { sendJson } from './send.ts';


/**
 * Runs command `id` for the request's caller with `input` (the parsed body, `{}` without one)
 * and sends its answer: authenticate (401), count an agent's call (429), then the command path.
 */
export async function answerCommand(
  service: RecordService,
  callers: Callers,
  call: { readonly id: string; readonly authorization: string | undefined; readonly input: unknown; readonly dryRun: boolean },
  res: ServerResponse,
): Promise<void> {
  // A dry run costs what the call would: trying writes is writing, as far as an agent's budget goes.
  const caller = await callers.of(call.authorization, res, call.id, callCost(service.commands.get(call.id)?.meta.kind));
  if (call.dryRun) return sendJson(res, 200, await dryRunCommand(service, caller, call.id, call.input));
  const outcome = await executeCommand(service, caller, call.id, call.input);
  sendJson(res, outcome.status, outcome.body);
}

/** A command path with nothing to decode: identifiers only, no query string. */
const PLAIN_COMMAND_URL = /^\/api\/([A-Za-z_][A-Za-z0-9_]*)\/([A-Za-z_][A-Za-z0-9_]*)$/;

/** The content types the fast route reads as they are; any other (another charset, say) is Express's. */
const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

export interface FastCommandRoute {
  /** Answers the request and returns true when it is a plain call of an existing command; otherwise returns false and leaves it untouched. */
  (req: IncomingMessage, res: ServerResponse): boolean;
}

export function fastCommandRoute(options: {
  readonly service: RecordService;
  readonly callers: Callers;
  readonly isClosing?: () => boolean;
}): FastCommandRoute {
  const { service, callers } = options;
  const logError = service.logError;
  return function commandRoute(req, res) {
    if (req.method !== 'POST') return false;
    const match = PLAIN_COMMAND_URL.exec(req.url ?? '');
    if (!match) return false;
    const id = `${match[1]}.${match[2]}`;
    if (!service.commands.has(id)) return false;
    const headers = req.headers;
    if (headers['transfer-encoding'] !== undefined) return false;
    const encoding = headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
    const length = headers['content-length'];
    const hasBody = length !== undefined && length !== '0';
    if (hasBody) {
      const type = headers['content-type'];
      if (type === undefined || !PLAIN_JSON.has(type.toLowerCase()) || !/^\d{1,7}$/.test(length) || Number(length) > BODY_LIMIT_BYTES) return false;
    }

    if (options.isClosing?.()) res.setHeader('Connection', 'close');
    const fail = (error: unknown) => sendError(res, error, logError);
    const run = (input: unknown) =>
      answerCommand(service, callers, { id, authorization: headers.authorization, input, dryRun: false }, res).catch(fail);
    if (!hasBody) {
      // Nothing to read; the request's end must still be consumed for the connection to be reused.
      req.resume();
      void run({});
      return true;
    }
    readBody(req, Number(length)).then((body) => {
      if (body !== undefined) void run(body);
    }, fail);
    return true;
  };
}

/**
 * The body as body-parser reads it for the Express route: exactly `declared` bytes (else 400),
 * UTF-8 (else 400), a leading byte order mark dropped, then JSON (`malformed JSON`); an empty
 * body is `{}`. Undefined when the client went away before sending it all.
 */
function readBody(req: IncomingMessage, declared: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > declared) {
        finish(() => reject(bodyError('request.size.invalid')));
        req.resume();
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () =>
      finish(() => {
        if (received !== declared) return reject(bodyError('request.size.invalid'));
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
        if (!isUtf8(body)) return reject(bodyError(INVALID_UTF8));
        let text = body.toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        if (text.length === 0) return resolve({});
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(bodyError('entity.parse.failed'));
        }
      }),
    );
    req.once('aborted', () => finish(() => resolve(undefined)));
    req.once('error', () => finish(() => resolve(undefined)));
  });
}

/** An error of the kind body-parser raises, by its `type`: the error handler answers it alike. */
function bodyError(type: string): Error {
  return Object.assign(new Error(type), { type, status: 400 });
}
