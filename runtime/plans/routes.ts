/**
 * Approval plans over HTTP (SPEC 4.4): `GET /api/plans`, `GET /api/plans/<plan>`,
 * `POST /api/approve/<plan>`, `POST /api/reject/<plan>`. Thin adapters over decide.ts.
 */
import { Router, type Request, type Response } from 'express';
import type { PlanAnswer, PlansAnswer, RejectAnswer } from '../api-shapes.ts';
import type { PersonCaller } from '../caller.ts';
import type { RecordService } from '../commands/types.ts';
import { badRequest, notFound } from '../errors.ts';
import type { Callers } from '../http/callers.ts';
import { sendJson } from '../http/send.ts';
import { planId } from '../kinds.ts';
import { rightsOf } from '../rights.ts';
import { approvePlan, personMayDecide, planView, rejectPlan, usernames, visiblePlan } from './decide.ts';
import { listPlans } from './store.ts';
import { withPlanFiles } from '../files/plan-files.ts';

export function createPlanRouter(service: RecordService, callers: Callers): Router {
  const { db, registry } = service;
  const router = Router();

  router.get('/api/plans', async function plans(req: Request, res: Response) {
    const caller = await callers.of(req.headers.authorization, res, 'GET /api/plans');
    let rows = caller.kind === 'agent' ? await listPlans(db, { agentTokenId: caller.tokenId }) : await listPlans(db, { commands: [...rightsOf(registry, caller).commands] });
    if (caller.kind === 'person') {
      const decidable = await Promise.all(rows.map((row) => personMayDecide(service, caller, row)));
      rows = rows.filter((_row, i) => decidable[i]);
    }
    const names = await usernames(service, rows.flatMap((row) => [row.creator_id, row.decided_by]));
    sendJson(res, 200, { plans: await withPlanFiles(service, caller, rows.map((row) => planView(service, caller, row, names))) } satisfies PlansAnswer);
  });

  router.get('/api/plans/:planId', async function plan(req: Request, res: Response) {
    const caller = await callers.of(req.headers.authorization, res, 'GET /api/plans/:id');
    const row = await visiblePlan(service, caller, planIdOf(req.params.planId));
    const names = await usernames(service, [row.creator_id, row.decided_by]);
    sendJson(res, 200, { plan: (await withPlanFiles(service, caller, [planView(service, caller, row, names)]))[0]! } satisfies PlanAnswer);
  });

  router.post('/api/approve/:planId', async function approve(req: Request, res: Response) {
    const person = await personOnly(callers, req, res);
    const row = await visiblePlan(service, person, planIdOf(req.params.planId));
    sendJson(res, 200, await approvePlan(service, person, row));
  });

  router.post('/api/reject/:planId', async function reject(req: Request, res: Response) {
    const person = await personOnly(callers, req, res);
    const row = await visiblePlan(service, person, planIdOf(req.params.planId));
    await rejectPlan(service, person, row);
    sendJson(res, 200, { plan_id: row.id, status: 'rejected' } satisfies RejectAnswer);
  });

  return router;
}

/**
 * The signed-in person; approving is a person's act: to an agent these endpoints do not exist. A
 * decision is never tried: `?dry_run`, which command routes take, is refused rather than ignored,
 * so that a client trying one does not approve for real (to try the plan's command, a person
 * calls it with `?dry_run=true`).
 */
async function personOnly(callers: Callers, req: Request, res: Response): Promise<PersonCaller> {
  const caller = await callers.of(req.headers.authorization, res, `POST ${req.path.replace(/[^/]+$/, ':id')}`);
  if (caller.kind !== 'person') throw notFound();
  if (req.query.dry_run !== undefined) throw badRequest(`POST ${req.path} takes no dry_run: a plan is approved or rejected for real`);
  return caller;
}

/**
 * The plan id of a path. One that cannot be a plan's (too long, NUL in it) names no plan: `404`,
 * as an unknown plan is (SPEC 7), not a `400` about its form.
 */
function planIdOf(raw: unknown): string {
  const parsed = planId.safeParse(raw);
  if (!parsed.success) throw notFound();
  return parsed.data;
}
