/**
 * The command route, `POST /api/<model>/<command>`: the one place REST calls a command.
 *
 * Most calls of a server are this route with a plain JSON body, and Express's router, its
 * request and response wrappers and body-parser's streams cost more than the command itself
 * (profile of lead.get under load: about a fifth of the server's time in express, router,
 * body-parser, raw-body and parseurl, and much of its garbage). So such calls are answered
 * straight from node:http (`fastCommandRoute`), and everything else — a query string, an encoded
 * path, a command that does not exist — goes on to the Express app, whose route runs
 * `answerCommand` too. Both read the body with the one reader (body.ts) and answer errors with the
 * one mapping (refusals.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { callCost } from '../auth/rate-limits.ts';
import { dryRunCommand, executeCommand } from '../commands/pipeline.ts';
import type { RecordService } from '../commands/types.ts';
import { readJsonBody } from './body.ts';
import type { Callers } from './callers.ts';
import { sendError } from './error-handler.ts';
import { noteCommand } from './observe.ts';
import { sendAnswer, sendJson } from './send.ts';


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
  const command = service.commands.get(call.id)?.meta;
  if (command) noteCommand(res, command);
  // A dry run costs what the call would: trying writes is writing, as far as an agent's budget goes.
  const caller = await callers.of(call.authorization, res, call.id, callCost(command?.kind));
  if (call.dryRun) return sendJson(res, 200, await dryRunCommand(service, caller, call.id, call.input));
  const outcome = await executeCommand(service, caller, call.id, call.input, { answerIsJsonOnly: true });
  await sendAnswer(res, outcome.status, outcome.body);
}

/** A command path with nothing to decode: identifiers only, no query string. */
const PLAIN_COMMAND_URL = /^\/api\/([A-Za-z_][A-Za-z0-9_]*)\/([A-Za-z_][A-Za-z0-9_]*)$/;

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

    if (options.isClosing?.()) res.setHeader('Connection', 'close');
    const authorization = req.headers.authorization;
    const fail = (error: unknown) => sendError(res, error, logError);
    readJsonBody(req).then(
      (body) => answerCommand(service, callers, { id, authorization, input: body === undefined ? {} : body, dryRun: false }, res).catch(fail),
      // A refused body of an agent's call costs it a request all the same.
      (refusal: unknown) => callers.chargeRefusal(authorization, res, id).then(() => fail(refusal), fail),
    );
    return true;
  };
}
