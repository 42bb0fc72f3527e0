/**
 * The agent side of the runtime: masking, approval plans, audit trail, catalogue and meta.
 * The server installs `agentHooks` into the command service, creates the tables with
 * `ensureAgentTables`, and mounts `createAgentRouter` after the auth router.
 */
import type { Knex } from 'knex';
import { ensureAuditTables } from './audit.ts';
import { ensureMaskTables } from './masking.ts';
import { ensurePlanTables } from './plans.ts';

export { agentExtension } from './extension.ts';
export { agentHooks, maskRecords, inputAsSeenBy } from './hooks.ts';
export { createAgentRouter, catalogueFor, metaFor } from './routes.ts';
export { searchAudit, writeAudit, auditModel, AUDIT_TABLE } from './audit.ts';
export { isTokenForm, maskValues, unmaskValue, MASK_TABLE } from './masking.ts';
export { findPlan, listPlans, decidePlan, insertPlan, PLAN_TABLE } from './plans.ts';

export async function ensureAgentTables(db: Knex): Promise<void> {
  await ensureMaskTables(db);
  await ensurePlanTables(db);
  await ensureAuditTables(db);
}
