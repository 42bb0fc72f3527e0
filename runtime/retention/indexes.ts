/**
 * The audit trail's index by access and time, for retention: audit rows of reads go after 30 days
 * while the other rows stay 400, so an index by time alone would make every batch of reads' pruning
 * step over all the older rows it keeps (millions, after a year) before it finds a read. With this
 * one a batch reads only the rows it removes.
 *
 * Made with the system tables, in the migration's transaction (which serialises instances that
 * start together). On a large existing trail the first start of a version with it builds the index
 * while audit writes wait; docs/operations.md ("Upgrades") says how to build it beforehand on
 * PostgreSQL without that wait.
 */
import type { Knex } from 'knex';
import { AUDIT_TABLE } from '../audit/store.ts';
import { createIndexIfMissing } from '../db/system-tables.ts';

export const AUDIT_ACCESS_AT_INDEX = 'rms_audit_access_at';

export async function ensureRetentionIndexes(db: Knex): Promise<void> {
  await createIndexIfMissing(db, AUDIT_ACCESS_AT_INDEX, AUDIT_TABLE, ['access', 'at']);
}
