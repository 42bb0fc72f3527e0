/**
 * Approval plans (SPEC 4.4: list, view, approve, reject) and the audit trail. Mounted by the
 * server after the auth router.
 */
import { Router, type Request, type Response } from 'express';
import type { CommandEnvelope, PlanAnswer, PlanInfo, PlansAnswer, RejectAnswer } from '../api-shapes.ts';
import { PEOPLE_TABLE } from '../auth/tables.ts';
import type { Caller, PersonCaller } from '../caller.ts';
import { runPrepared, type Proposal } from '../commands/pipeline.ts';
import type { PreparedCommand, RecordService } from '../commands/types.ts';
import { HttpError, badRequest, notFound } from '../errors.ts';
import type { Callers } from '../http/callers.ts';
import { sendJson } from '../http/send.ts';
import { listInput, planId } from '../kinds.ts';
import { parseOr400 } from '../query/values.ts';
import { ADMIN_ROLE, rightsOf } from '../rights.ts';
import type { Registry } from '../registry.ts';
import { searchAudit, writeAudit } from './audit.ts';
import { inputAsWritten, maskKey, sharedTokens } from './masking.ts';
import { decidePlan, findPlan, listPlans, type PlanRow } from './plans.ts';

export function createAgentRouter(service: RecordService, callers: Callers): Router {
  const { db, registry } = service;
  const router = Router();

  router.get('/api/plans', async function plans(req: Request, res: Response) {
    const caller = await callers.of(req.headers.authorization, res, 'GET /api/plans');
    const rows =
      caller.kind === 'agent'
        ? await listPlans(db, { agentTokenId: caller.tokenId })
        : (await listPlans(db, { commands: [...rightsOf(registry, caller).commands] })).filter((row) => personMayDecide(registry, caller, row));
    const names = await usernames(service, rows.flatMap((row) => [row.creator_id, row.decided_by]));
    sendJson(res, 200, { plans: await Promise.all(rows.map((row) => planView(service, caller, row, names))) } satisfies PlansAnswer);
  });

  router.get('/api/plans/:planId', async function plan(req: Request, res: Response) {
    const caller = await callers.of(req.headers.authorization, res, 'GET /api/plans/:id');
    const row = await visiblePlan(service, caller, parseOr400(planId, req.params.planId));
    const names = await usernames(service, [row.creator_id, row.decided_by]);
    sendJson(res, 200, { plan: await planView(service, caller, row, names) } satisfies PlanAnswer);
  });

  router.post('/api/approve/:planId', async function approve(req: Request, res: Response) {
    const person = await personOnly(callers, req, res);
    const row = await visiblePlan(service, person, parseOr400(planId, req.params.planId));
    if (row.status !== 'pending') throw alreadyDecided(row);
    const prepared = JSON.parse(row.input) as PreparedCommand;
    // History names the agent that proposed the change (with the person who made its token), and the plan.
    const creator = (await usernames(service, [row.creator_id])).get(row.creator_id) ?? '';
    const proposal: Proposal = {
      by: { actor: 'agent', userId: row.creator_id, username: creator, agentTokenId: row.agent_token_id, agentLabel: row.agent_label },
      planId: row.id,
    };
    try {
      const envelope: CommandEnvelope = await db.transaction(async (trx) => {
        // Marking the plan first, in the same transaction: of two simultaneous approvals only one
        // finds it pending, so the command runs once.
        const won = await decidePlan(trx, row.id, { status: 'approved', decidedBy: person.userId });
        if (!won) throw alreadyDecided((await findPlan(trx, row.id)) ?? row);
        const result = await runPrepared(service, person, prepared, { db: trx, proposal });
        await writeAudit(trx, { actor: 'person', userId: person.userId, username: person.username, command: row.command, access: 'write', recordId: row.record_id, outcome: 'approved', planId: row.id });
        return result;
      });
      sendJson(res, 200, envelope);
    } catch (error) {
      // Decided meanwhile; or 404: the approver may not run it (rights changed since the plan was
      // shown): the plan stays pending for someone who may.
      if (!(error instanceof HttpError) || error instanceof PlanDecidedError || error.status === 404) throw error;
      // The command fails now (say the record was deleted): the plan is marked failed and the
      // answer carries the command's error.
      if (await decidePlan(db, row.id, { status: 'failed', decidedBy: person.userId, error: error.message })) {
        await writeAudit(db, { actor: 'person', userId: person.userId, username: person.username, command: row.command, access: 'write', recordId: row.record_id, outcome: 'failed', planId: row.id, status: error.status, error: error.message });
      }
      throw error;
    }
  });

  router.post('/api/reject/:planId', async function reject(req: Request, res: Response) {
    const person = await personOnly(callers, req, res);
    const row = await visiblePlan(service, person, parseOr400(planId, req.params.planId));
    if (row.status !== 'pending') throw alreadyDecided(row);
    const won = await decidePlan(db, row.id, { status: 'rejected', decidedBy: person.userId });
    if (!won) throw alreadyDecided((await findPlan(db, row.id)) ?? row);
    await writeAudit(db, { actor: 'person', userId: person.userId, username: person.username, command: row.command, access: 'write', recordId: row.record_id, outcome: 'rejected', planId: row.id });
    sendJson(res, 200, { plan_id: row.id, status: 'rejected' } satisfies RejectAnswer);
  });

  router.get('/api/audit', async function audit(req: Request, res: Response) {
    const caller = await callers.of(req.headers.authorization, res, 'GET /api/audit');
    if (caller.kind !== 'person' || !caller.roles.includes(ADMIN_ROLE)) throw notFound();
    const input = parseOr400(listInput, auditQueryInput(req.query as Record<string, unknown>));
    sendJson(res, 200, await searchAudit(db, service.dialect, registry, input));
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

/** The signed-in person; approving is a person's act: to an agent these endpoints do not exist. */
async function personOnly(callers: Callers, req: Request, res: Response): Promise<PersonCaller> {
  const caller = await callers.of(req.headers.authorization, res, `POST ${req.path.replace(/[^/]+$/, ':id')}`);
  if (caller.kind !== 'person') throw notFound();
  return caller;
}

/** A plan this caller may see: the agent that proposed it, or a person who may decide it. */
async function visiblePlan(service: RecordService, caller: Caller, planId: string): Promise<PlanRow> {
  const row = await findPlan(service.db, planId);
  if (!row) throw notFound();
  if (caller.kind === 'agent' ? row.agent_token_id !== caller.tokenId : !personMayDecide(service.registry, caller, row)) throw notFound();
  return row;
}

/**
 * A person decides a plan when they may run what it will run — its command and, for a governed
 * update, the actions it resolves to — and read every field it writes: the proposing agent's
 * creator may have rights the approver lacks, and approving must not become a way to use them.
 */
function personMayDecide(registry: Registry, person: PersonCaller, row: PlanRow): boolean {
  const rights = rightsOf(registry, person);
  if (!rights.commands.has(row.command)) return false;
  const model = registry.commands[row.command]?.model;
  const readable = model ? rights.models[model]?.readableNames : undefined;
  if (!readable) return false;
  const { input, actions } = JSON.parse(row.input) as PreparedCommand;
  // A governed update runs actions: approving it is running them, so the approver needs their rights too.
  if (!actions.every((action) => rights.commands.has(`${model}.${action}`))) return false;
  // Every field it writes (a revert's fields are checked when it runs: they are the change's).
  const fields = new Set(registry.models[model!]?.fields.map((field) => field.name));
  return Object.keys(input).every((name) => !fields.has(name) || readable.has(name));
}

/** 409 for a plan decided before (or meanwhile): unlike a command's own 409 (a revert's conflict), it leaves the plan as it is. */
class PlanDecidedError extends HttpError {}

function alreadyDecided(row: PlanRow): HttpError {
  return new PlanDecidedError(409, `plan ${row.id} is already ${row.status}`);
}

/** A plan as `caller` sees it; `names` maps the people it names (creator, decider) to usernames. */
async function planView(service: RecordService, caller: Caller, row: PlanRow, names: ReadonlyMap<string, string>): Promise<PlanInfo> {
  const prepared = JSON.parse(row.input) as PreparedCommand;
  return {
    plan_id: row.id,
    command: row.command,
    record_id: row.record_id,
    input: await planInputFor(service, caller, prepared),
    status: row.status,
    created: row.created_at,
    agent: { id: row.agent_token_id, label: row.agent_label },
    creator: names.get(row.creator_id) ?? null,
    decided_at: row.decided_at,
    decided_by: row.decided_by ? (names.get(row.decided_by) ?? null) : null,
    error: row.error,
  };
}

/**
 * A plan's input as `caller` sees it. People who may see a plan read every field it writes, in
 * clear. The agent that proposed it sees its personal values as the tokens it knows them by (never
 * a shared token for a value it wrote: see masking.ts). Plans stored before those tokens were kept
 * show shared tokens, as they did then.
 */
async function planInputFor(service: RecordService, caller: Caller, prepared: PreparedCommand): Promise<Record<string, unknown>> {
  if (caller.kind !== 'agent') return { ...prepared.input };
  if (prepared.written) return inputAsWritten(prepared.input, prepared.written);
  const model = service.models.get(service.registry.commands[prepared.command]?.model ?? '');
  const input: Record<string, unknown> = { ...prepared.input };
  const requests = [...(model?.personal ?? [])].filter(([name]) => typeof input[name] === 'string').map(([name, label]) => ({ name, label, value: input[name] as string }));
  if (requests.length === 0) return input;
  const tokens = await sharedTokens(service.db, caller.tokenId, requests);
  for (const { name, label, value } of requests) input[name] = tokens.get(maskKey(label, value));
  return input;
}

async function usernames(service: RecordService, ids: readonly (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
  if (wanted.length === 0) return new Map();
  const rows: { id: string; username: string }[] = await service.db(PEOPLE_TABLE).select('id', 'username').whereIn('id', wanted);
  return new Map(rows.map((row) => [row.id, row.username]));
}

