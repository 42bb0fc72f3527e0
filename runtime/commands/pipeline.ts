/**
 * The one command path, shared by REST and MCP:
 *
 *   resolve rights → validate input → resolve an agent's tokens → prepare → (agents: propose → 202)
 *   → run in one transaction: write, history, bindings, audit → the answer as the caller sees it
 *
 * Each step is a named function (prepare.ts, run.ts, view/caller-view.ts). Failures are audited
 * too (refused: 4xx; failed: a bug); so are dry runs.
 */
import type { Knex } from 'knex';
import type { DryRunAnswer } from '../api-shapes.ts';
import { auditFailure, writeAuditEvent } from '../audit/events.ts';
import type { Caller } from '../caller.ts';
import { INVALID_TOKEN } from '../auth/authenticate.ts';
import { TOKENS_TABLE } from '../auth/tables.ts';
import { dialectOf } from '../db/connect.ts';
import { HttpError, notFound } from '../errors.ts';
import { insertPlan } from '../plans/store.ts';
import { rightsOf } from '../rights.ts';
import { dryRunShowsChanges } from '../command-kinds.ts';
import { prepareCall } from './prepare.ts';
import { writtenTokensOf } from './bulk-input.ts';
import { rolledBack, runCommand, tryCommand, type Proposal } from './run.ts';
import { handlers } from './handlers.ts';
import { storedForm, type CommandContext, type CommandEnvelope, type CommandOutcome, type PreparedCall, type PreparedCommand, type RecordService } from './types.ts';
import { validateInput } from './validate-input.ts';

export type { Proposal };

/**
 * Runs `commandId` for `caller` with the raw input (the parsed JSON body or MCP arguments).
 * Throws HttpError: 404 for a command that does not exist or that the caller may not use (the
 * same error either way), 400 for refused input. Anything else thrown is a bug. `answerIsJsonOnly`:
 * see CommandContext.
 */
export async function executeCommand(
  service: RecordService,
  caller: Caller,
  commandId: string,
  rawInput: unknown,
  options: Pick<CommandContext, 'answerIsJsonOnly'> = {},
): Promise<CommandOutcome> {
  const resolved = resolveCommand(service, caller, commandId);
  const ctx: CommandContext = options.answerIsJsonOnly ? { ...resolved, answerIsJsonOnly: true } : resolved;
  let prepared: PreparedCall | undefined;
  try {
    prepared = await prepareCall(ctx, rawInput);
    // A bulk command's `dry_run: true` answers as `?dry_run=true` does, but audited as the call it is.
    if (prepared.input.dry_run === true) {
      const body = { dry_run: true as const, ...(await tryCommand(ctx, prepared)) };
      return { status: 200, body };
    }
    if (caller.kind === 'agent' && prepared.needsApproval) {
      const planId = await proposeCommand(ctx, prepared);
      return { status: 202, body: { approval_required: true, plan_id: planId } };
    }
    return { status: 200, body: await runCommand(ctx, prepared) };
  } catch (error) {
    await auditFailure(ctx, error, prepared && storedForm(prepared), false, rawInput);
    throw error;
  }
}

/**
 * What `executeCommand` would answer, without changing anything: the same checks, then the
 * command run in a transaction that is rolled back. An agent's call that needs approval answers
 * that it would be proposed (and makes no plan), except a bulk command's, which answers its
 * records' changes as its input's `dry_run: true` does: the two ways of asking are one. Audited
 * as a dry run, with its outcome.
 */
export async function dryRunCommand(service: RecordService, caller: Caller, commandId: string, rawInput: unknown): Promise<DryRunAnswer> {
  const ctx = resolveCommand(service, caller, commandId);
  let prepared: PreparedCall | undefined;
  try {
    prepared = await prepareCall(ctx, rawInput);
    if (caller.kind === 'agent' && prepared.needsApproval && !dryRunShowsChanges(ctx.command.meta.kind)) {
      await tryInTransaction(ctx, prepared);
      await writeAuditEvent(ctx, { outcome: 'proposed', prepared: storedForm(prepared), planId: null }, service.db, true);
      return { dry_run: true, approval_required: true };
    }
    return { dry_run: true, ...(await tryCommand(ctx, prepared)) };
  } catch (error) {
    await auditFailure(ctx, error, prepared && storedForm(prepared), true, rawInput);
    throw error;
  }
}

/**
 * Runs the command of an approved plan (validated and prepared when it was proposed) for the
 * approving person, in `options.db`, the transaction that marks the plan approved (or a new one),
 * so that both commit together. Checks again that the person may use the command and the actions
 * it runs (404 otherwise) and everything that depends on stored data. Its `executed` audit row is
 * written in that transaction; with `options.db` a failure is the caller's to record, after the
 * rollback.
 */
export async function runApprovedCommand(
  service: RecordService,
  caller: Caller,
  prepared: PreparedCommand,
  options: { readonly db?: Knex; readonly proposal?: Proposal } = {},
): Promise<CommandEnvelope> {
  const agent = options.proposal?.by.agentTokenId;
  const ctx: CommandContext = { ...resolveCommand(service, caller, prepared.command), ...(agent ? { proposedByAgent: agent } : {}) };
  const model = ctx.command.model.meta.name;
  if (prepared.actions.some((action) => !ctx.rights.commands.has(`${model}.${action}`))) throw notFound();
  try {
    const kind = ctx.command.meta.kind;
    const list = kind === 'list' || kind === 'search' ? (await validateInput(ctx, prepared.input)).list : undefined;
    return await runCommand(ctx, { ...prepared, ...(list ? { list } : {}) }, { ...(options.db ? { outer: options.db } : {}), ...(options.proposal ? { proposal: options.proposal } : {}) });
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
 * An agent's call that needs approval: tried in a transaction that is rolled back (so a plan is
 * only made for input that would run now, and nothing changes), then stored as a plan — with the
 * written tokens of the values it sent in clear, and its audit row, in one transaction.
 */
async function proposeCommand(ctx: CommandContext, prepared: PreparedCall): Promise<string> {
  await tryInTransaction(ctx, prepared);
  const agent = ctx.caller as Extract<Caller, { kind: 'agent' }>;
  return ctx.service.db.transaction(async (trx) => {
    // The token as it is now, held until the plan is stored: a revocation (which rejects the
    // token's pending plans in its transaction) either comes first, and the plan is refused as the
    // next request would be, or waits for the plan and rejects it too. Checked only when the
    // request began, a plan stored just after a revocation on another instance stayed pending.
    if (!(await tokenStillValid(trx, agent.tokenId))) throw new HttpError(401, INVALID_TOKEN);
    const agentTokens = prepared.clearPersonal ? await writtenTokensOf(ctx, trx, agent.tokenId, prepared) : prepared.agentTokens;
    const plan = storedForm({ ...prepared, ...(agentTokens ? { agentTokens } : {}) });
    const planId = await insertPlan(trx, {
      command: plan.command,
      recordId: plan.recordId,
      input: plan,
      agentTokenId: agent.tokenId,
      agentLabel: agent.label,
      creatorId: agent.creatorId,
    });
    await writeAuditEvent(ctx, { outcome: 'proposed', prepared: plan, planId }, trx);
    return planId;
  });
}

/** Runs the command's handler in a transaction that is rolled back: the checks of a write, nothing kept. */
async function tryInTransaction(ctx: CommandContext, prepared: PreparedCall): Promise<void> {
  await rolledBack(ctx.service.db, async (trx) => {
    await handlers[ctx.command.meta.kind](ctx, trx, prepared);
  });
}

/** Whether the agent token is not revoked, its row locked against a revocation until the transaction ends (PostgreSQL; SQLite writes one at a time). */
async function tokenStillValid(db: Knex, tokenId: string): Promise<boolean> {
  const query = db(TOKENS_TABLE).first('revoked_at').where('id', tokenId);
  const row = (await (dialectOf(db) === 'postgres' ? query.forShare() : query)) as { revoked_at: string | null } | undefined;
  return row !== undefined && row.revoked_at === null;
}
