/** `GET /api/audit` (admins): the audit trail, with the input of `search` as query parameters. */
import { Router, type Request, type Response } from 'express';
import type { RecordService } from '../commands/types.ts';
import { badRequest, notFound } from '../errors.ts';
import type { Callers } from '../http/callers.ts';
import { sendJson } from '../http/send.ts';
import { listInput } from '../kinds.ts';
import { parseOr400 } from '../query/values.ts';
import { ADMIN_ROLE } from '../rights.ts';
import { searchAudit } from './trail.ts';

export function createAuditRouter(service: RecordService, callers: Callers): Router {
  const router = Router();
  router.get('/api/audit', async function audit(req: Request, res: Response) {
    const caller = await callers.of(req.headers.authorization, res, 'GET /api/audit');
    if (caller.kind !== 'person' || !caller.roles.includes(ADMIN_ROLE)) throw notFound();
    const input = parseOr400(listInput, auditQueryInput(req.query as Record<string, unknown>));
    sendJson(res, 200, await searchAudit(service, input));
  });
  return router;
}

/** `GET /api/audit?filter=<json>&order=<json>&limit=N&offset=N` → the input of `search`. */
function auditQueryInput(query: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    if (typeof raw !== 'string') throw badRequest(`${key} must be given once`);
    // The trail pages by offset only: a keyset cursor here would be taken and ignored.
    if (key === 'after') throw badRequest('unknown key after');
    if (key === 'filter' || key === 'order') {
      try {
        input[key] = JSON.parse(raw);
      } catch {
        throw badRequest(`${key} must be JSON`);
      }
    } else if (key === 'limit' || key === 'offset') {
      input[key] = /^-?\d+$/.test(raw) ? Number(raw) : raw;
    } else {
      input[key] = raw;
    }
  }
  return input;
}
