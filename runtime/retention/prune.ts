/**
 * What a pruning pass removes, given its cutoffs (policy.ts), each kind of row in small batches
 * (db/batched-delete.ts): the server's background pass (pruner.ts) and `rmsgen audit prune` run
 * the same steps.
 *
 * - Audit rows of reads made before their cutoff.
 * - Plans decided before the trail's cutoff; then every audit row made before it, but those of the
 *   plans still stored: a plan (pending, or decided since) keeps its whole trail, and goes with it.
 *   A plan's rows are made up to its decision, so they all go with it; one written in the very
 *   millisecond after a decision that fell just before the cutoff goes at the next pass.
 * - History entries made before theirs.
 * - Masking tokens and bindings of agent tokens revoked or expired before theirs: such a token can
 *   no longer act, so no answer depends on its tokens staying stable. A live agent's are kept.
 * - Sessions that have ended (signed out, revoked or expired): they can never be used again. Sign-in
 *   removes a person's own expired ones; this removes everyone's, signed in again or not. Agent
 *   tokens stay: plans and the audit trail name them.
 * - Webhook deliveries final before theirs, and events none is left of (webhooks/prune.ts).
 */
import type { Knex } from 'knex';
import { AUDIT_TABLE } from '../audit/store.ts';
import { TOKENS_TABLE } from '../auth/tables.ts';
import { deleteInBatches, type BatchOptions } from '../db/batched-delete.ts';
import { HISTORY_TABLE } from '../history/store.ts';
import { MASK_BINDINGS_TABLE, MASK_TABLE } from '../masking/tables.ts';
import { PLAN_TABLE } from '../plans/store.ts';
import { pruneEvents } from '../webhooks/prune.ts';
import type { PruneCutoffs } from './policy.ts';

/** How many rows a pass removed, of each kind. */
export interface PruneReport {
  readonly auditReads: number;
  /** Audit rows removed by the trail's own cutoff (decided plans' rows included). */
  readonly audit: number;
  readonly plans: number;
  readonly history: number;
  readonly maskTokens: number;
  readonly bindings: number;
  readonly sessions: number;
  readonly deliveries: number;
  readonly events: number;
}

export const EMPTY_REPORT: PruneReport = { auditReads: 0, audit: 0, plans: 0, history: 0, maskTokens: 0, bindings: 0, sessions: 0, deliveries: 0, events: 0 };

export async function prune(db: Knex, cutoffs: PruneCutoffs, options: BatchOptions = {}): Promise<PruneReport> {
  const { auditReadsBefore, auditBefore, historyBefore, agentsGoneBefore, sessionsGoneBefore, deliveredEventsBefore, deadEventsBefore } = cutoffs;
  const step = (table: string, keys: readonly string[], where: (query: Knex.QueryBuilder) => void) => deleteInBatches(db, table, keys, where, options);

  const auditReads = auditReadsBefore === undefined ? 0 : await step(AUDIT_TABLE, ['id'], (query) => query.where('access', 'read').andWhere('at', '<', auditReadsBefore));

  let audit = 0;
  let plans = 0;
  if (auditBefore !== undefined) {
    plans = await step(PLAN_TABLE, ['id'], (query) => query.whereNot('status', 'pending').andWhere('decided_at', '<', auditBefore));
    // A plan still stored (pending, or decided since the cutoff) keeps every row of its trail.
    audit = await step(AUDIT_TABLE, ['id'], (query) =>
      query.where('at', '<', auditBefore).andWhere((rows) => rows.whereNull('plan_id').orWhereNotIn('plan_id', db(PLAN_TABLE).select('id'))),
    );
  }

  const history = historyBefore === undefined ? 0 : await step(HISTORY_TABLE, ['id'], (query) => query.where('at', '<', historyBefore));

  let maskTokens = 0;
  let bindings = 0;
  if (agentsGoneBefore !== undefined) {
    const gone = () =>
      db(TOKENS_TABLE)
        .select('id')
        .where('kind', 'agent')
        .andWhere((query) => query.where('revoked_at', '<', agentsGoneBefore).orWhere('expires_at', '<', agentsGoneBefore));
    maskTokens = await step(MASK_TABLE, ['agent_token_id', 'label', 'n'], (query) => query.whereIn('agent_token_id', gone()));
    bindings = await step(MASK_BINDINGS_TABLE, ['agent_token_id', 'model', 'record_id', 'field'], (query) => query.whereIn('agent_token_id', gone()));
  }

  const sessions =
    sessionsGoneBefore === undefined
      ? 0
      : await step(TOKENS_TABLE, ['id'], (query) =>
          query.where('kind', 'session').andWhere((ended) => ended.where('expires_at', '<', sessionsGoneBefore).orWhere('revoked_at', '<', sessionsGoneBefore)),
        );

  const outbox = await pruneEvents(
    db,
    { ...(deliveredEventsBefore !== undefined ? { deliveredBefore: deliveredEventsBefore } : {}), ...(deadEventsBefore !== undefined ? { deadBefore: deadEventsBefore } : {}) },
    options,
  );

  return { auditReads, audit, plans, history, maskTokens, bindings, sessions, ...outbox };
}

/** Whether a pass removed anything. */
export function removedAny(report: PruneReport): boolean {
  return Object.values(report).some((count) => count > 0);
}
