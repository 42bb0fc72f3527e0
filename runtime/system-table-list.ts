/**
 * The service's own tables (`rms_*`, made with the helpers of db/system-tables.ts), beside the
 * models': one list, so that `serve` and every command that migrates (`migrate`, `seed`, the
 * prunes, `restore`) agree on what exists. It imports only what makes the tables: the commands
 * other than `serve` load it without the server.
 */
import { ensureAuditTables } from './audit/store.ts';
import { ensureAuthTables } from './auth/tables.ts';
import { ensureRateTables } from './auth/rate-limits.ts';
import { ensureLogicTables } from './commands/recompute.ts';
import type { SystemTableSetup } from './db/migrate.ts';
import { ensureFileBudgetTable } from './files/budget.ts';
import { ensureFileTables } from './files/store.ts';
import { ensureHistoryTables } from './history/store.ts';
import { ensureMaskTables } from './masking/tables.ts';
import { ensurePlanTables } from './plans/store.ts';
import { ensureRetentionIndexes } from './retention/indexes.ts';
import { ensureLeaseTables } from './retention/lease.ts';
import { ensureWebhookTables } from './webhooks/tables.ts';

/**
 * Every system table setup, in order: what the command path itself uses (sign-in, rate limits,
 * masking, plans, the audit trail, history), then what runs beside it (computed fields' logic,
 * retention, files, webhooks).
 */
export const SYSTEM_TABLES: readonly SystemTableSetup[] = [
  ensureAuthTables,
  ensureRateTables,
  ensureMaskTables,
  ensurePlanTables,
  ensureAuditTables,
  ensureHistoryTables,
  ensureLogicTables,
  ensureLeaseTables,
  ensureRetentionIndexes,
  ensureFileTables,
  ensureFileBudgetTable,
  ensureWebhookTables,
];
