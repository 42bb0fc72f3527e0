/**
 * The one command path, shared by REST and MCP:
 *
 *   resolve rights → validate input → unmask input (agents) → prepare → (agents: propose → 202)
 *   → run in one transaction: write, keep masking bindings, present records (agents: masked),
 *     audit → 200 envelope
 *
 * Each step is a named function. Failures are audited too (refused: 4xx; failed: a bug).
 */
import type { Knex } from 'knex';
import { accessOf, auditActor, writeAuditEvent, type AuditActor } from '../agents/audit.ts';
import { forgetRecord, maskRecords, rebindAfterWrite, restoreBindings, unmaskInput } from '../agents/masking.ts';
import { insertPlan } from '../agents/plans.ts';
import type { Caller } from '../caller.ts';
import { HttpError, badRequest, notFound } from '../errors.ts';
import { recordChange } from '../history/record-change.ts';
import type { HistoryEntry } from '../history/store.ts';
import { historyAsSeen } from '../history/view.ts';
import type { CommandKind } from '../registry.ts';
import { rightsOf } from '../rights.ts';
import { TRANSACTIONAL, handlers, recordNotFound, type RecordChange, type RunResult } from './handlers.ts';
import { validateInput, type ValidInput } from './validate-input.ts';
import type { DryRunAnswer } from '../api-shapes.ts';
import type { CommandContext, CommandEnvelope, CommandOutcome, PreparedCommand, PreparedList, RecordService, RecordValue } from './types.ts';

/**
 * Runs `commandId` for `caller` with the raw input (the parsed JSON body or MCP arguments).
 * Throws HttpError: 404 for a command that does not exist or that the caller may not use (the
 * same error either way), 400 for refused input. Anything else thrown is a bug.
 */
export async function executeCommand(service: RecordService, caller: Caller, commandId: string, rawInput: unknown): Promise<CommandOutcome> {
  const ctx = resolveCommand(service, caller, commandId);
  let prepared: PreparedList | undefined;
  try {
    prepared = await prepareCall(ctx, rawInput);
    if (caller.kind === 'agent' && prepared.needsApproval) {
      const planId = await proposeCommand(ctx, prepared);
      return { status: 202, body: { approval_required: true, plan_id: planId } };
    }
    return { status: 200, body: await run(ctx, prepared) };
  } catch (error) {
    await auditFailure(ctx, error, prepared);
    throw error;
  }
}

/**
 * What `executeCommand` would answer, without changing anything: the same checks, then the
 * command run in a transaction that is rolled back. An agent's call that needs approval answers
 * that it would be proposed (and makes no plan). Nothing is audited: nothing happened.
 */
export async function dryRunCommand(service: RecordService, caller: Caller, commandId: string, rawInput: unknown): Promise<DryRunAnswer> {
  const ctx = resolveCommand(service, caller, commandId);
  const prepared = await prepareCall(ctx, rawInput);
  if (caller.kind === 'agent' && prepared.needsApproval) {
    await dryRun(ctx, prepared);
    return { dry_run: true, approval_required: true };
  }
  let envelope: CommandEnvelope | undefined;
  try {
    await service.db.transaction(async (trx) => {
      const result = await handlers[ctx.command.meta.kind](ctx, trx, prepared);
      envelope = { denied: ctx.fields.denied, value: await present(ctx, result, trx) };
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
  return { dry_run: true, ...envelope! };
}

/** Steps 2–4: validate the input, unmask an agent's tokens, and prepare the command. */
async function prepareCall(ctx: CommandContext, rawInput: unknown): Promise<PreparedList> {
  const valid = validateInput(ctx, rawInput);
  if (ctx.caller.kind === 'agent' && ctx.fields.masked.length > 0) {
    const { input, written } = await unmaskInput(ctx.service.db, ctx.caller, ctx.fields.masked, valid.input);
    return prepareCommand(ctx, { ...valid, input }, Object.keys(written).length > 0 ? written : undefined);
  }
  return prepareCommand(ctx, valid);
}

/**
 * Runs a command that was validated and prepared earlier (an approved plan) for `caller`, in one
 * transaction: a new one, or `options.db` when the caller already holds a transaction (so that
 * marking the plan decided commits together with the command's effect). Checks again that the
 * caller may use the command (404 otherwise) and everything that depends on stored data.
 * The `executed` audit event is written in that transaction; with `options.db` a failure is not
 * audited here (the transaction is the caller's and rolls back): record it after the rollback.
 */
export async function runPrepared(
  service: RecordService,
  caller: Caller,
  prepared: PreparedCommand,
  options: {
    readonly db?: Knex;
    /**
     * An approved plan: the agent that proposed it, which history names as the author (the values
     * it wrote are bound to it, see masking), and the plan.
     */
    readonly proposal?: Proposal;
  } = {},
): Promise<CommandEnvelope> {
  const ctx = resolveCommand(service, caller, prepared.command);
  const model = ctx.command.model.meta.name;
  if (prepared.actions.some((action) => !ctx.rights.commands.has(`${model}.${action}`))) throw notFound();
  try {
    let list: PreparedList['list'];
    if (ctx.command.meta.kind === 'list' || ctx.command.meta.kind === 'search') list = validateInput(ctx, prepared.input).list;
    return await run(ctx, { ...prepared, list }, options.db, options.proposal);
  } catch (error) {
    // Inside a caller's transaction the failure is the caller's to record: writing it here, on the
    // pool, would wait for the connection that transaction holds (SQLite has only one).
    if (!options.db) await auditFailure(ctx, error, prepared);
    throw error;
  }
}

/** Step 1: the command and the caller's rights on it. Unknown and forbidden are the same 404. */
export function resolveCommand(service: RecordService, caller: Caller, commandId: string): CommandContext {
  const command = service.commands.get(commandId);
  const rights = rightsOf(service.registry, caller);
  if (!command || !rights.commands.has(commandId)) throw notFound();
  return { service, caller, rights, command, fields: rights.models[command.meta.model]! };
}

/**
 * Step 3: what the command will do. For an `update` that changes governed fields, finds the
 * action that makes each change from the record's current state; its required inputs and its
 * approval rule then apply to the update, and the caller must be allowed that action.
 */
export async function prepareCommand(ctx: CommandContext, valid: ValidInput, written?: Readonly<Record<string, string>>): Promise<PreparedList> {
  const { meta, model } = ctx.command;
  const input = { ...valid.input };
  const recordId = typeof input.id === 'string' ? input.id : null;
  const actions: string[] = [];
  let needsApproval = meta.needsApproval;

  if (meta.kind === 'action') actions.push(meta.action!.name);

  if (meta.kind === 'update') {
    const changing = model.governed.filter((field) => field.name in input);
    if (changing.length > 0) {
      const current: Readonly<Record<string, unknown>> | undefined = await model.queries.find(ctx.service.db, recordId!);
      if (!current) throw recordNotFound(ctx, recordId!);
      for (const field of changing) {
        const from = current[field.name] as string;
        const to = input[field.name] as string;
        if (from === to) {
          delete input[field.name];
          continue;
        }
        const action = model.meta.actions.find(
          (candidate) =>
            candidate.field === field.name &&
            candidate.to === to &&
            candidate.from.includes(from) &&
            ctx.rights.commands.has(`${model.meta.name}.${candidate.name}`),
        );
        if (!action) throw badRequest(`${model.meta.name}.${field.name} cannot move from ${from} to ${to}`);
        for (const required of action.required) {
          if (input[required] === undefined || input[required] === null) throw badRequest(`${model.meta.name}.${required} is required`);
        }
        actions.push(action.name);
        needsApproval ||= action.needsApproval;
      }
    }
  }

  return { command: meta.id, input, actions, recordId, needsApproval, list: valid.list, ...(written ? { written } : {}) };
}

/**
 * Step 4 for agents: the command is tried in a transaction that is rolled back (so a plan is
 * only made for input that would run now, and nothing changes), then the plan is stored.
 */
async function proposeCommand(ctx: CommandContext, prepared: PreparedList): Promise<string> {
  await dryRun(ctx, prepared);
  const plan = withoutList(prepared);
  const agent = ctx.caller as Extract<Caller, { kind: 'agent' }>;
  const planId = await insertPlan(ctx.service.db, {
    command: plan.command,
    recordId: plan.recordId,
    input: plan,
    agentTokenId: agent.tokenId,
    agentLabel: agent.label,
    creatorId: agent.creatorId,
  });
  await writeAuditEvent(ctx, { outcome: 'proposed', prepared: plan, planId }, ctx.service.db);
  return planId;
}

const ROLLBACK = Symbol('dry run');

async function dryRun(ctx: CommandContext, prepared: PreparedList): Promise<void> {
  try {
    await ctx.service.db.transaction(async (trx) => {
      await handlers[ctx.command.meta.kind](ctx, trx, prepared);
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
}

/** An approved plan being run: who proposed it, and which. */
export interface Proposal {
  readonly by: AuditActor;
  readonly planId: string;
}

/** Steps 5–7: run, record the change in history, keep bindings, present, audit; in one transaction for writes. */
async function run(ctx: CommandContext, prepared: PreparedList, outer?: Knex, proposal?: Proposal): Promise<CommandEnvelope> {
  const { service } = ctx;
  const kind = ctx.command.meta.kind;
  // PostgreSQL reads a search's count and page in one repeatable read transaction (see transactionConfig).
  const transactional = TRANSACTIONAL[kind] || (kind === 'search' && service.dialect === 'postgres');
  const deferAudit = transactional && !outer && accessOf(kind) === 'read';
  let afterCommit: (() => Promise<void>) | undefined;
  const body = async (db: Knex): Promise<CommandEnvelope> => {
    const result = await handlers[kind](ctx, db, prepared);
    let changeId: string | undefined;
    if ('change' in result && result.change) {
      // History first: it reads the tokens bound to the values being replaced, which rebinding drops.
      changeId = await recordHistory(ctx, db, result, prepared, proposal);
      await keepBindings(ctx, db, result, prepared, proposal?.by.agentTokenId ?? undefined);
    }
    const value = await present(ctx, result, db);
    const executed = { outcome: 'executed', prepared: withoutList(prepared), recordId: recordIdOf(result), changeId } as const;
    // A write's audit row commits with it; a read's joins the next group commit, outside any
    // transaction the read needed (a search's on PostgreSQL), which it would otherwise hold open.
    if (deferAudit) afterCommit = () => writeAuditEvent(ctx, executed, service.db);
    else await writeAuditEvent(ctx, executed, db);
    const next = 'next' in result ? result.next : undefined;
    return { denied: ctx.fields.denied, value, ...(next !== undefined ? { next } : {}) };
  };
  if (outer) return body(outer);
  if (!transactional) return body(service.db);
  const envelope = await retryRaces(service, () => service.db.transaction(body, transactionConfig(ctx)));
  await afterCommit?.();
  return envelope;
}

/** The kind of change history records for each kind of write; a revert is an update. */
const HISTORY_KINDS: Partial<Record<CommandKind, HistoryEntry['kind']>> = { create: 'create', update: 'update', revert: 'update', delete: 'delete', action: 'action' };

/** The history entry of the write, in its transaction (see history/record-change.ts). */
async function recordHistory(ctx: CommandContext, db: Knex, result: RunResult, prepared: PreparedCommand, proposal: Proposal | undefined): Promise<string | undefined> {
  const { meta, model } = ctx.command;
  const kind = HISTORY_KINDS[meta.kind];
  const change = (result as { change?: RecordChange }).change;
  if (!kind || !change) return undefined;
  const reverts = result.shape === 'record' ? result.reverts : undefined;
  return recordChange(db, {
    model: model.meta.name,
    personal: new Set(model.personal.keys()),
    command: meta.kind === 'revert' ? `${model.meta.name}.update` : meta.id,
    kind,
    change,
    by: proposal?.by ?? auditActor(ctx.caller),
    planId: proposal?.planId ?? null,
    reverts: reverts?.changeId ?? null,
    ...(prepared.written ? { written: prepared.written } : {}),
    ...(reverts ? { restoredTokens: Object.fromEntries(Object.entries(reverts.restored).map(([field, { tokens }]) => [field, tokens])) } : {}),
  });
}

/**
 * Masking bindings follow the write (see masking.ts): a deleted record keeps none; a written
 * personal field is bound, for the agent that wrote it (directly or by a plan it proposed), to the
 * token it knows the value by, and other agents' bindings of a field whose value changed go.
 */
async function keepBindings(ctx: CommandContext, db: Knex, result: RunResult, prepared: PreparedCommand, proposedBy: string | undefined): Promise<void> {
  const model = ctx.command.model;
  if (model.personal.size === 0) return;
  const change = (result as { change: RecordChange }).change;
  if (result.shape === 'deleted') return forgetRecord(db, model.meta.name, change.recordId);
  const writtenPersonal = change.written.filter((name) => model.personal.has(name));
  if (writtenPersonal.length === 0) return;
  const values: Record<string, string | null> = {};
  for (const name of writtenPersonal) {
    const value = name in change.after ? change.after[name] : prepared.input[name];
    values[name] = typeof value === 'string' ? value : null;
  }
  const agentTokenId = proposedBy ?? (ctx.caller.kind === 'agent' ? ctx.caller.tokenId : undefined);
  const reverts = result.shape === 'record' ? result.reverts : undefined;
  await rebindAfterWrite(
    db,
    {
      model: model.meta.name,
      recordId: change.recordId,
      ...(agentTokenId !== undefined ? { agentTokenId, written: prepared.written ?? {} } : {}),
      values,
      changed: writtenPersonal.filter((name) => name in change.after),
    },
    model.personal,
  );
  // A revert puts back values and, with them, the tokens agents knew them by.
  if (reverts && Object.keys(reverts.restored).length > 0) await restoreBindings(db, model.meta.name, change.recordId, reverts.restored);
}

/** SQLSTATEs that mean "nothing was changed, run the transaction again": serialization failure, deadlock. */
const RETRYABLE_STATES = new Set(['40001', '40P01']);
const MAX_TRANSACTION_ATTEMPTS = 5;

/**
 * PostgreSQL may abort a transaction that raced another one (a `search` whose snapshot is older
 * than masking tokens another instance issued meanwhile, a deadlock). It was rolled back, so it
 * is run again, a bounded number of times.
 */
async function retryRaces<T>(service: RecordService, attempt: () => Promise<T>): Promise<T> {
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt();
    } catch (error) {
      const state = String((error as { code?: unknown }).code);
      if (service.dialect !== 'postgres' || attempts >= MAX_TRANSACTION_ATTEMPTS || !RETRYABLE_STATES.has(state)) throw error;
    }
  }
}

function transactionConfig(ctx: CommandContext): Knex.TransactionConfig | undefined {
  // `search` reads rows and their count: on PostgreSQL both must see one snapshot.
  if (ctx.command.meta.kind === 'search' && ctx.service.dialect === 'postgres') return { isolationLevel: 'repeatable read' };
  return undefined;
}

async function present(ctx: CommandContext, result: RunResult, db: Knex): Promise<unknown> {
  switch (result.shape) {
    case 'record':
      return (await recordsAsSeen(ctx, result.records, db))[0];
    case 'list':
      return recordsAsSeen(ctx, result.records, db);
    case 'search':
      return { rows: await recordsAsSeen(ctx, result.records, db), total: result.total };
    case 'history':
      return { rows: await historyAsSeen(db, ctx.caller, ctx.fields, result.entries), total: result.total };
    case 'deleted':
      return { id: result.recordId };
  }
}

/** The records as the caller sees them: for an agent, personal fields as its masking tokens. */
function recordsAsSeen(ctx: CommandContext, records: RecordValue[], db: Knex): Promise<RecordValue[]> | RecordValue[] {
  if (ctx.caller.kind !== 'agent' || ctx.fields.masked.length === 0 || records.length === 0) return records;
  return maskRecords(db, ctx.caller, ctx.command.model.meta.name, ctx.fields.masked, records);
}

function recordIdOf(result: RunResult): string | null {
  return result.shape === 'record' || result.shape === 'deleted' ? result.recordId : null;
}

function withoutList(prepared: PreparedList): PreparedCommand {
  if (!('list' in prepared)) return prepared;
  const { list: _list, ...rest } = prepared;
  return rest;
}

async function auditFailure(ctx: CommandContext, error: unknown, prepared: PreparedList | undefined): Promise<void> {
  const plan = prepared && withoutList(prepared);
  const event =
    error instanceof HttpError
      ? { outcome: 'refused' as const, status: error.status, error: error.message, prepared: plan }
      : { outcome: 'failed' as const, error: 'internal error', prepared: plan };
  try {
    await writeAuditEvent(ctx, event, ctx.service.db);
  } catch (auditError) {
    ctx.service.logError(auditError);
  }
}
