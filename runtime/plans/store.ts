/**
 * Approval plans (SPEC 4.4): a command an agent may only propose. The plan keeps the input as
 * resolved at proposal time (masking tokens already replaced by clear values), who proposed it
 * (the agent token and the person who created that token), and how it was decided.
 */
import type { Knex } from 'knex';
import { createTableIfMissing } from '../db/system-tables.ts';
import type { PlanStatus } from '../api-shapes.ts';
import { newId } from '../ids.ts';

export const PLAN_TABLE = 'rms_plans';

export type { PlanStatus };

export interface PlanRow {
  readonly id: string;
  readonly command: string;
  readonly record_id: string | null;
  /** JSON of the resolved input. */
  readonly input: string;
  readonly agent_token_id: string;
  readonly agent_label: string;
  readonly creator_id: string;
  readonly status: PlanStatus;
  readonly created_at: string;
  readonly decided_at: string | null;
  readonly decided_by: string | null;
  /** JSON of the command's envelope after approval, or the error text when it failed. */
  readonly result: string | null;
  readonly error: string | null;
}

export async function ensurePlanTables(db: Knex): Promise<void> {
  await createTableIfMissing(db, PLAN_TABLE, (table) => {
    table.string('id', 64).primary();
    table.string('command', 200).notNullable();
    table.string('record_id', 64).nullable();
    table.text('input').notNullable();
    table.string('agent_token_id', 64).notNullable();
    table.string('agent_label', 200).notNullable();
    table.string('creator_id', 64).notNullable();
    table.string('status', 16).notNullable();
    table.string('created_at', 32).notNullable();
    table.string('decided_at', 32).nullable();
    table.string('decided_by', 64).nullable();
    table.text('result').nullable();
    table.text('error').nullable();
    table.index(['status']);
    table.index(['agent_token_id']);
  });
}

export interface NewPlan {
  readonly command: string;
  readonly recordId: string | null;
  readonly input: unknown;
  readonly agentTokenId: string;
  readonly agentLabel: string;
  readonly creatorId: string;
}

export async function insertPlan(db: Knex, plan: NewPlan): Promise<string> {
  const id = newId();
  await db(PLAN_TABLE).insert({
    id,
    command: plan.command,
    record_id: plan.recordId,
    input: JSON.stringify(plan.input),
    agent_token_id: plan.agentTokenId,
    agent_label: plan.agentLabel,
    creator_id: plan.creatorId,
    status: 'pending',
    created_at: new Date().toISOString(),
  });
  return id;
}

export async function findPlan(db: Knex, id: string): Promise<PlanRow | undefined> {
  return db(PLAN_TABLE).where({ id }).first();
}

/**
 * Moves a pending plan (or one in the status `from`) to its decision. Returns false when the plan
 * was no longer in it: the conditional update is what makes two simultaneous approvals (on one or
 * several instances) execute a plan once.
 */
export async function decidePlan(
  db: Knex,
  id: string,
  decision: { status: Exclude<PlanStatus, 'pending'>; decidedBy: string; result?: unknown; error?: string },
  from: PlanStatus = 'pending',
): Promise<boolean> {
  const changed = await db(PLAN_TABLE)
    .where({ id, status: from })
    .update({
      status: decision.status,
      decided_at: new Date().toISOString(),
      decided_by: decision.decidedBy,
      result: decision.result === undefined ? null : JSON.stringify(decision.result),
      error: decision.error ?? null,
    });
  return changed === 1;
}

/**
 * Rejects the pending plans an agent token proposed, as `decidedBy` with `reason` for their error
 * (the token was revoked: nothing it queued may run after it); the plans it rejected, as they were.
 */
export async function rejectPendingPlansOf(db: Knex, agentTokenId: string, decidedBy: string, reason: string): Promise<PlanRow[]> {
  const pending: PlanRow[] = await db(PLAN_TABLE).where({ agent_token_id: agentTokenId, status: 'pending' }).select('*');
  const rejected: PlanRow[] = [];
  for (const row of pending) {
    if (await decidePlan(db, row.id, { status: 'rejected', decidedBy, error: reason })) rejected.push(row);
  }
  return rejected;
}

export async function listPlans(db: Knex, where: { agentTokenId?: string; commands?: readonly string[] }): Promise<PlanRow[]> {
  const query = db(PLAN_TABLE).select('*');
  if (where.agentTokenId) query.where({ agent_token_id: where.agentTokenId });
  if (where.commands) query.whereIn('command', [...where.commands]);
  // Pending first, then newest first.
  return query.orderByRaw(`case when status = 'pending' then 0 else 1 end`).orderBy('id', 'desc').limit(1000);
}

/** How many plans there are of each status (for the metrics: `rms_plans`). */
export async function countPlansByStatus(db: Knex): Promise<Record<string, number>> {
  const rows = (await db(PLAN_TABLE).select('status').count({ count: '*' }).groupBy('status')) as { status: string; count: number | string }[];
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
}
