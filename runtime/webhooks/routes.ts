/**
 * `POST /api/webhook/<command>`: the webhook commands over REST, as every other command is called
 * (bearer token, JSON body, `{denied, value}`; 404 for anyone but `admin`, as for a command that
 * does not exist). A name that is no webhook command goes on to the command route's 404.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { callCost } from '../auth/rate-limits.ts';
import { SERVICE_COMMANDS } from '../command-kinds.ts';
import type { RecordService } from '../commands/types.ts';
import type { Callers } from '../http/callers.ts';
import { noteCommand } from '../http/observe.ts';
import { sendJson } from '../http/send.ts';
import { runServiceCommand, type WebhookSettings } from './commands.ts';

export function createWebhookRouter(service: RecordService, callers: Callers, settings: WebhookSettings): Router {
  const router = Router();
  router.post('/api/webhook/:name', async function webhookCommand(req: Request, res: Response, next: NextFunction) {
    const id = `webhook.${String(req.params.name)}`;
    const kind = SERVICE_COMMANDS.get(id);
    if (!kind || Object.keys(req.query).length > 0) return next();
    noteCommand(res, { id, model: 'webhook', kind });
    const caller = await callers.of(req.headers.authorization, res, id, callCost(kind));
    sendJson(res, 200, await runServiceCommand(service, settings, caller, id, req.body === undefined ? {} : req.body));
  });
  return router;
}
