/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document of the commands, as the caller sees it
 * (view/caller-openapi.ts): only those it may run, without the fields withheld from it, an
 * agent's masked fields as tokens and the commands it may only propose marked `x-needs-approval`;
 * for an admin, the webhook commands too.
 */
import { Router, type Request, type Response } from 'express';
import { DEFAULT_SERVICE_INFO, type ServiceInfo } from '../api-shapes.ts';
import type { RecordService } from '../commands/types.ts';
import { rightsOf } from '../rights.ts';
import { createOpenApiViews } from '../view/caller-openapi.ts';
import { serviceCommandsOf } from '../webhooks/commands.ts';
import type { Callers } from './callers.ts';
import { sendJson } from './send.ts';

export function createOpenApiRouter(service: RecordService, callers: Callers, serviceInfo: ServiceInfo = DEFAULT_SERVICE_INFO): Router {
  const { registry } = service;
  const views = createOpenApiViews(registry, serviceInfo.name);
  const router = Router();
  router.get('/api/openapi.json', async function openApiDocument(req: Request, res: Response) {
    const caller = await callers.of(req.headers.authorization, res, 'GET /api/openapi.json');
    sendJson(res, 200, await views.documentFor(rightsOf(registry, caller), caller.kind, serviceCommandsOf(caller).length > 0));
  });
  return router;
}
