/**
 * The endpoints around the command route: the command catalogue and meta (SPEC 4.1), approval
 * plans (SPEC 4.4) and the audit trail. Mounted by the server after the auth router.
 */
import { Router, type Request, type Response } from 'express';
import type { ActionInfo, CallerInfo, CommandEnvelope, CommandInfo, CommandsAnswer, FieldInfo, MetaAnswer, ModelInfo, ModuleInfo, PlanAnswer, PlanInfo, PlansAnswer, RejectAnswer } from '../api-shapes.ts';
import { authenticate } from '../auth/index.ts';
import { PEOPLE_TABLE } from '../auth/tables.ts';
import type { Caller, PersonCaller } from '../caller.ts';
import { runPrepared } from '../commands/pipeline.ts';
import type { CommandService, PreparedCommand } from '../commands/types.ts';
import { HttpError, badRequest, notFound } from '../errors.ts';
import { sendJson } from '../http/send.ts';
import { listInput } from '../kinds.ts';
import { parseOr400 } from '../query/values.ts';
import { ADMIN_ROLE, rightsOf } from '../rights.ts';
import type { Registry } from '../registry.ts';
import { searchAudit, writeAudit } from './audit.ts';
import { inputAsSeenBy, personalFields } from './hooks.ts';
import { decidePlan, findPlan, listPlans, type PlanRow } from './plans.ts';

export function createAgentRouter(service: CommandService): Router {
  const { db, registry } = service;
  const router = Router();

  router.get('/api/commands', async function commandCatalogue(req: Request, res: Response) {
    const caller = await authenticate(db, req.headers.authorization);
    sendJson(res, 200, { commands: catalogueFor(registry, caller) } satisfies CommandsAnswer);
  });

  router.get('/api/meta', async function meta(req: Request, res: Response) {
    const caller = await authenticate(db, req.headers.authorization);
    res.setHeader('Link', '</mcp>; rel="mcp"');
    sendJson(res, 200, metaFor(registry, caller));
  });

  router.get('/api/plans', async function plans(req: Request, res: Response) {
    const caller = await authenticate(db, req.headers.authorization);
    const rows =
      caller.kind === 'agent'
        ? await listPlans(db, { agentTokenId: caller.tokenId })
        : (await listPlans(db, { commands: [...rightsOf(registry, caller).commands] })).filter((row) => personMayDecide(registry, caller, row));
    const names = await usernames(service, rows.flatMap((row) => [row.creator_id, row.decided_by]));
    sendJson(res, 200, { plans: await Promise.all(rows.map((row) => planView(service, caller, row, names))) } satisfies PlansAnswer);
  });

  router.get('/api/plans/:planId', async function plan(req: Request, res: Response) {
    const caller = await authenticate(db, req.headers.authorization);
    const row = await visiblePlan(service, caller, String(req.params.planId));
    const names = await usernames(service, [row.creator_id, row.decided_by]);
    sendJson(res, 200, { plan: await planView(service, caller, row, names) } satisfies PlanAnswer);
  });

  router.post('/api/approve/:planId', async function approve(req: Request, res: Response) {
    const person = await personOnly(service, req);
    const row = await visiblePlan(service, person, String(req.params.planId));
    if (row.status !== 'pending') throw alreadyDecided(row);
    const prepared = JSON.parse(row.input) as PreparedCommand;
    try {
      const envelope: CommandEnvelope = await db.transaction(async (trx) => {
        // Marking the plan first, in the same transaction: of two simultaneous approvals only one
        // finds it pending, so the command runs once.
        const won = await decidePlan(trx, row.id, { status: 'approved', decidedBy: person.userId });
        if (!won) throw alreadyDecided((await findPlan(trx, row.id)) ?? row);
        const result = await runPrepared(service, person, prepared, { db: trx });
        await writeAudit(trx, { actor: 'person', userId: person.userId, username: person.username, command: row.command, recordId: row.record_id, outcome: 'approved', planId: row.id });
        return result;
      });
      sendJson(res, 200, envelope);
    } catch (error) {
      if (!(error instanceof HttpError) || error.status === 409) throw error;
      // The command fails now (say the record was deleted): the plan is marked failed and the
      // answer carries the command's error.
      if (await decidePlan(db, row.id, { status: 'failed', decidedBy: person.userId, error: error.message })) {
        await writeAudit(db, { actor: 'person', userId: person.userId, username: person.username, command: row.command, recordId: row.record_id, outcome: 'failed', planId: row.id, status: error.status, error: error.message });
      }
      throw error;
    }
  });

  router.post('/api/reject/:planId', async function reject(req: Request, res: Response) {
    const person = await personOnly(service, req);
    const row = await visiblePlan(service, person, String(req.params.planId));
    if (row.status !== 'pending') throw alreadyDecided(row);
    const won = await decidePlan(db, row.id, { status: 'rejected', decidedBy: person.userId });
    if (!won) throw alreadyDecided((await findPlan(db, row.id)) ?? row);
    await writeAudit(db, { actor: 'person', userId: person.userId, username: person.username, command: row.command, recordId: row.record_id, outcome: 'rejected', planId: row.id });
    sendJson(res, 200, { plan_id: row.id, status: 'rejected' } satisfies RejectAnswer);
  });

  router.get('/api/audit', async function audit(req: Request, res: Response) {
    const caller = await authenticate(db, req.headers.authorization);
    if (caller.kind !== 'person' || !caller.roles.includes(ADMIN_ROLE)) throw notFound();
    const input = parseOr400(listInput, auditQueryInput(req.query as Record<string, unknown>));
    sendJson(res, 200, await searchAudit(db, service.dialect, input));
  });

  return router;
}

/** `GET /api/audit?filter=<json>&order=<json>&limit=N&offset=N` → the input of `search`. */
function auditQueryInput(query: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(query)) {
    if (typeof raw !== 'string') throw badRequest(`${key} must be given once`);
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

/** SPEC 2.5: the commands this caller may use, in catalogue order. */
export function catalogueFor(registry: Registry, caller: Caller): CommandInfo[] {
  const allowed = rightsOf(registry, caller).commands;
  return Object.values(registry.commands)
    .filter((command) => allowed.has(command.id))
    .map((command): CommandInfo => ({ id: command.id, description: command.description, needs_approval: command.needsApproval }));
}

/** The modules, models, readable fields and actions this caller may see. */
export function metaFor(registry: Registry, caller: Caller): MetaAnswer {
  const rights = rightsOf(registry, caller);
  const models: ModelInfo[] = [];
  for (const model of Object.values(registry.models)) {
    const commands = Object.values(registry.commands)
      .filter((command) => command.model === model.name && rights.commands.has(command.id))
      .map((command) => command.name);
    if (commands.length === 0) continue;
    const fieldRights = rights.models[model.name]!;
    models.push({
      name: model.name,
      module: model.module,
      label: model.label,
      description: model.description,
      title_field: model.titleField,
      commands,
      denied: fieldRights.denied,
      fields: fieldRights.readable.map((field): FieldInfo => ({
        name: field.name,
        kind: field.kind,
        label: field.label,
        description: field.description,
        required: field.required,
        personal: field.personal,
        masked: fieldRights.maskedNames.has(field.name),
        governed: field.governed,
        // Spread properties escape excess-property checks: `satisfies` ties these names to FieldInfo.
        ...(field.options ? ({ options: field.options } satisfies Pick<FieldInfo, 'options'>) : {}),
        ...(field.target ? ({ target: field.target } satisfies Pick<FieldInfo, 'target'>) : {}),
      })),
      actions: model.actions
        .filter((action) => rights.commands.has(`${model.name}.${action.name}`))
        .map((action): ActionInfo => ({
          name: action.name,
          description: action.description,
          field: action.field,
          from: action.from,
          to: action.to,
          required: action.required,
          needs_approval: action.needsApproval,
        })),
    });
  }
  const visible = new Set(models.map((model) => model.name));
  const modules = registry.modules
    .map((module): ModuleInfo => ({ name: module.name, label: module.label, description: module.description, models: module.models.filter((name) => visible.has(name)) }))
    .filter((module) => module.models.length > 0);
  const who: CallerInfo =
    caller.kind === 'person'
      ? { kind: 'person', username: caller.username, roles: caller.roles }
      : { kind: 'agent', label: caller.label, scopes: caller.scopes, creator: caller.creatorUsername };
  return { caller: who, modules, models };
}

async function personOnly(service: CommandService, req: Request): Promise<PersonCaller> {
  const caller = await authenticate(service.db, req.headers.authorization);
  // Approving is a person's act: to an agent these endpoints do not exist.
  if (caller.kind !== 'person') throw notFound();
  return caller;
}

/** A plan this caller may see: the agent that proposed it, or a person who may decide it. */
async function visiblePlan(service: CommandService, caller: Caller, planId: string): Promise<PlanRow> {
  const row = await findPlan(service.db, planId);
  if (!row) throw notFound();
  if (caller.kind === 'agent' ? row.agent_token_id !== caller.tokenId : !personMayDecide(service.registry, caller, row)) throw notFound();
  return row;
}

/**
 * A person decides a plan when they may run its command and read every field it writes: the
 * proposing agent's creator may read fields the approver may not, and approving must not become
 * a way to write those.
 */
function personMayDecide(registry: Registry, person: PersonCaller, row: PlanRow): boolean {
  const rights = rightsOf(registry, person);
  if (!rights.commands.has(row.command)) return false;
  const model = registry.commands[row.command]?.model;
  const readable = model ? rights.models[model]?.readableNames : undefined;
  if (!readable) return false;
  const { input } = JSON.parse(row.input) as PreparedCommand;
  return Object.keys(input).every((name) => name === 'id' || readable.has(name));
}

function alreadyDecided(row: PlanRow): HttpError {
  return new HttpError(409, `plan ${row.id} is already ${row.status}`);
}

/** A plan as `caller` sees it; `names` maps the people it names (creator, decider) to usernames. */
async function planView(service: CommandService, caller: Caller, row: PlanRow, names: ReadonlyMap<string, string>): Promise<PlanInfo> {
  const prepared = JSON.parse(row.input) as PreparedCommand;
  const model = service.registry.models[service.registry.commands[row.command]?.model ?? ''];
  const personal = model ? personalFields(model) : [];
  return {
    plan_id: row.id,
    command: row.command,
    record_id: row.record_id,
    input: await inputAsSeenBy(service.db, caller, personal, prepared.input),
    status: row.status,
    created: row.created_at,
    agent: { id: row.agent_token_id, label: row.agent_label },
    creator: names.get(row.creator_id) ?? null,
    decided_at: row.decided_at,
    decided_by: row.decided_by ? (names.get(row.decided_by) ?? null) : null,
    error: row.error,
  };
}

async function usernames(service: CommandService, ids: readonly (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
  if (wanted.length === 0) return new Map();
  const rows: { id: string; username: string }[] = await service.db(PEOPLE_TABLE).select('id', 'username').whereIn('id', wanted);
  return new Map(rows.map((row) => [row.id, row.username]));
}

