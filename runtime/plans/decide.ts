/**
 * Deciding approval plans (SPEC 4.4): who may see and decide a plan, approving it (its command run
 * for the approver through the command path, once however many approvals arrive) and rejecting it,
 * each with its audit row; and a plan as a caller sees it.
 */
import type { PlanInfo } from '../api-shapes.ts';
import { auditActor, writeAudit } from '../audit/store.ts';
import { agentCallerOf, type AgentTokenRow } from '../auth/authenticate.ts';
import { PEOPLE_TABLE, TOKENS_TABLE } from '../auth/tables.ts';
import type { Caller, PersonCaller } from '../caller.ts';
import { revertWrites } from '../commands/handlers.ts';
import { runApprovedCommand, type Proposal } from '../commands/pipeline.ts';
import { parseStoredCommand, type CommandEnvelope, type PreparedCommand, type RecordService } from '../commands/types.ts';
import { HttpError, notFound } from '../errors.ts';
import { findChange } from '../history/store.ts';
import { rightsOf } from '../rights.ts';
import { inputAsSeen } from '../view/caller-view.ts';
import { takesValueParts, valueParts } from '../masking/value-parts.ts';
import { decidePlan, findPlan, type PlanRow } from './store.ts';

/** A plan this caller may see: the agent that proposed it, or a person who may decide it; else 404, as for no plan. */
export async function visiblePlan(service: RecordService, caller: Caller, planId: string): Promise<PlanRow> {
  const row = await findPlan(service.db, planId);
  if (!row) throw notFound();
  if (caller.kind === 'agent' ? row.agent_token_id !== caller.tokenId : !(await personMayDecide(service, caller, row))) throw notFound();
  return row;
}

/**
 * A person decides a plan when they may run what it will run — its command and, for a governed
 * update, the actions it resolves to — and read every field it changes and write every field it
 * writes: the fields (and line fields) its input writes, the fields its actions move (read), and a
 * revert's fields (those of the change it puts back). The proposing agent's creator may have
 * rights the approver lacks, and approving must not become a way to use them, or to learn what a
 * withheld field holds. A person who may not decide a plan does not see it; it stays pending for
 * one who may.
 */
export async function personMayDecide(service: RecordService, person: PersonCaller, row: PlanRow): Promise<boolean> {
  const rights = rightsOf(service.registry, person);
  const command = service.commands.get(row.command);
  if (!command || !rights.commands.has(row.command)) return false;
  const model = command.model;
  const fieldRights = rights.models[model.meta.name]!;
  const { input, actions } = parseStoredCommand(row.input);
  // A governed update runs actions: approving it is running them, so the approver needs their rights too.
  if (!actions.every((action) => rights.commands.has(`${model.meta.name}.${action}`))) return false;
  // A bulk command writes what each of its parts gives (every record of create_many, the set of update_many).
  const kind = command.meta.kind;
  const givens = takesValueParts(kind) ? valueParts(kind, input).map((part) => part.values) : [input];
  const written = [...new Set(givens.flatMap((given) => Object.keys(given).filter((name) => model.fields.has(name))))];
  const writtenLines: Record<string, string[]> = {};
  for (const given of givens) {
    for (const [name, value] of Object.entries(given)) {
      if (model.lines.has(name) && Array.isArray(value)) writtenLines[name] = [...(writtenLines[name] ?? []), ...value.flatMap((line: Record<string, unknown>) => Object.keys(line).filter((field) => field !== 'id'))];
    }
  }
  const moved = actions.map((action) => model.actions.get(action)?.field ?? '');
  if (command.meta.kind === 'revert' && typeof input.change_id === 'string') {
    const entry = await findChange(service.db, input.change_id);
    if (entry) {
      const reverted = revertWrites(model, entry);
      written.push(...reverted.fields);
      for (const [name, fields] of Object.entries(reverted.lines)) {
        // A revert of line changes: every field of that list read (it shows whole lines).
        if ((fieldRights.lines[name]?.denied.length ?? 0) > 0) return false;
        writtenLines[name] = [...(writtenLines[name] ?? []), ...fields];
      }
    }
  }
  const writes = (rights: { readonly readableNames: ReadonlySet<string>; readonly writableNames: ReadonlySet<string> } | undefined, field: string) =>
    rights !== undefined && rights.readableNames.has(field) && rights.writableNames.has(field);
  if (!written.every((name) => writes(fieldRights, name))) return false;
  if (!Object.entries(writtenLines).every(([name, fields]) => fields.every((field) => writes(fieldRights.lines[name], field)))) return false;
  return moved.every((name) => !model.fields.has(name) || fieldRights.readableNames.has(name));
}

/** 409 for a plan decided before (or meanwhile): unlike a command's own 409 (a revert's conflict), it leaves the plan as it is. */
export class PlanDecidedError extends HttpError {}

function alreadyDecided(row: PlanRow): HttpError {
  return new PlanDecidedError(409, `plan ${row.id} is already ${row.status}`);
}

/**
 * Approves a pending plan: its command runs for `person` in the transaction that marks the plan
 * approved, so that of two simultaneous approvals (on one instance or several) only one runs it.
 * When the command fails now (say the record was deleted), its writes are undone (a savepoint),
 * the plan is marked failed in that same transaction and the command's error thrown: an approval
 * waiting on the plan meanwhile finds it failed, not pending again (marked in a transaction of its
 * own, the plan was pending in between, and each waiting approver ran the command once more, with
 * no audit row). When the approver may not run it (rights changed since), 404 and the plan stays
 * pending.
 */
export async function approvePlan(service: RecordService, person: PersonCaller, row: PlanRow): Promise<CommandEnvelope> {
  const { db } = service;
  if (row.status !== 'pending') throw alreadyDecided(row);
  await refuseWhileProposerBarred(service, row);
  const prepared: PreparedCommand = parseStoredCommand(row.input);
  // History names the agent that proposed the change (with the person who made its token), and the plan.
  const creator = (await usernames(service, [row.creator_id])).get(row.creator_id) ?? '';
  const proposal: Proposal = {
    by: { actor: 'agent', userId: row.creator_id, username: creator, agentTokenId: row.agent_token_id, agentLabel: row.agent_label },
    planId: row.id,
  };
  const decision = { ...auditActor(person), command: row.command, access: 'write', recordId: row.record_id, planId: row.id } as const;
  let failure: HttpError | undefined;
  const result = await db.transaction(async (trx) => {
    // Marking the plan first, in the same transaction: of two simultaneous approvals only one
    // finds it pending, so the command runs once.
    const won = await decidePlan(trx, row.id, { status: 'approved', decidedBy: person.userId });
    if (!won) throw alreadyDecided((await findPlan(trx, row.id)) ?? row);
    try {
      const answer = await trx.transaction((savepoint) => runApprovedCommand(service, person, prepared, { db: savepoint, proposal }));
      await writeAudit(trx, { ...decision, outcome: 'approved' });
      return answer;
    } catch (error) {
      if (!(error instanceof HttpError) || error instanceof PlanDecidedError || error.status === 404) throw error;
      await decidePlan(trx, row.id, { status: 'failed', decidedBy: person.userId, error: error.message }, 'approved');
      await writeAudit(trx, { ...decision, outcome: 'failed', status: error.status, error: error.message });
      failure = error;
      return undefined;
    }
  });
  if (failure) throw failure;
  return result!;
}

/**
 * 409, the plan left as it is, while what proposed it may not act: its agent token was revoked
 * (revoking rejects the token's pending plans; this holds for those of a database from before) or
 * has expired, the person who made the token is disabled (enabled again, their plans may be
 * approved), or the token may no longer run the plan's command (its maker's roles changed).
 */
async function refuseWhileProposerBarred(service: RecordService, row: PlanRow): Promise<void> {
  const token = (await service
    .db(TOKENS_TABLE)
    .where('id', row.agent_token_id)
    .first('id', 'revoked_at', 'expires_at', 'label', 'scopes', 'requests_per_minute', 'writes_per_minute', 'max_affected')) as
    | (Omit<AgentTokenRow, 'user_id' | 'username' | 'roles'> & { revoked_at: string | null; expires_at: string })
    | undefined;
  if (!token || token.revoked_at !== null) throw new HttpError(409, `plan ${row.id} cannot be approved: its agent token was revoked`);
  if (token.expires_at <= new Date(service.clock.now()).toISOString()) throw new HttpError(409, `plan ${row.id} cannot be approved: its agent token has expired`);
  const maker: { username: string; disabled: boolean | number; roles: string } | undefined = await service.db(PEOPLE_TABLE).where('id', row.creator_id).first('username', 'disabled', 'roles');
  if (!maker || Boolean(maker.disabled)) {
    const who = maker ? `${maker.username}, who made its agent token,` : 'the person who made its agent token';
    throw new HttpError(409, `plan ${row.id} cannot be approved while ${who} is disabled`);
  }
  // The agent's rights now: its scopes cut down to its maker's current roles, as its next call's would be.
  const agent = agentCallerOf({ ...token, user_id: row.creator_id, username: maker.username, roles: maker.roles });
  if (!rightsOf(service.registry, agent).commands.has(row.command)) throw new HttpError(409, `plan ${row.id} cannot be approved: its agent may no longer run ${row.command}`);
}

/** Rejects a pending plan (409 when it was decided before or meanwhile). */
export async function rejectPlan(service: RecordService, person: PersonCaller, row: PlanRow): Promise<void> {
  if (row.status !== 'pending') throw alreadyDecided(row);
  await service.db.transaction(async (trx) => {
    const won = await decidePlan(trx, row.id, { status: 'rejected', decidedBy: person.userId });
    if (!won) throw alreadyDecided((await findPlan(trx, row.id)) ?? row);
    await writeAudit(trx, { ...auditActor(person), command: row.command, access: 'write', recordId: row.record_id, outcome: 'rejected', planId: row.id });
  });
}

/** A plan as `caller` sees it (its input through the caller's view); `names` maps the people it names (creator, decider) to usernames. */
export function planView(service: RecordService, caller: Caller, row: PlanRow, names: ReadonlyMap<string, string>): PlanInfo {
  const prepared = parseStoredCommand(row.input);
  const command = service.commands.get(row.command);
  const rights = command ? rightsOf(service.registry, caller).models[command.model.meta.name] : undefined;
  return {
    plan_id: row.id,
    command: row.command,
    record_id: row.record_id,
    input: rights ? inputAsSeen(caller, rights, prepared.input, prepared.agentTokens, command?.meta.kind) : null,
    status: row.status,
    created: row.created_at,
    agent: { id: row.agent_token_id, label: row.agent_label },
    creator: names.get(row.creator_id) ?? null,
    decided_at: row.decided_at,
    decided_by: row.decided_by ? (names.get(row.decided_by) ?? null) : null,
    error: row.error,
  };
}

/** Usernames of the people with these ids. */
export async function usernames(service: RecordService, ids: readonly (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
  if (wanted.length === 0) return new Map();
  const rows: { id: string; username: string }[] = await service.db(PEOPLE_TABLE).select('id', 'username').whereIn('id', wanted);
  return new Map(rows.map((row) => [row.id, row.username]));
}
