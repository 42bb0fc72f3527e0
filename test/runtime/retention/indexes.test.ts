/**
 * The audit trail's index for retention: made with the system tables (again harmlessly), and what
 * pruning reads' selection uses on SQLite, so that a batch of reads does not step over the older
 * rows that are kept (SQLite's plan names the index; PostgreSQL's planner chooses by statistics).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../runtime/db/connect.ts';
import { ensureAuditTables } from '../../../runtime/audit/store.ts';
import { AUDIT_ACCESS_AT_INDEX, ensureRetentionIndexes } from '../../../runtime/retention/indexes.ts';

let dir: string;
let db: Knex;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmsgen-retention-indexes-'));
  db = openDatabase(`sqlite:${join(dir, 'indexes.sqlite')}`);
  await ensureAuditTables(db);
  await ensureRetentionIndexes(db);
  await ensureRetentionIndexes(db);
});
afterAll(async () => {
  await db?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('ensureRetentionIndexes', () => {
  it('indexes the audit trail by access and time, and pruning reads selects by it', async () => {
    const columns = (await db.raw(`select name from pragma_index_info('${AUDIT_ACCESS_AT_INDEX}') order by seqno`)) as { name: string }[];
    expect(columns.map((column) => column.name)).toEqual(['access', 'at']);
    const selection = db('rms_audit').select('id').where('access', 'read').andWhere('at', '<', '2026-01-01T00:00:00.000Z').limit(500).toSQL().toNative();
    const plan = (await db.raw(`explain query plan ${selection.sql}`, selection.bindings as Knex.RawBinding[])) as { detail: string }[];
    expect(plan.map((step) => step.detail)).toEqual([`SEARCH rms_audit USING INDEX ${AUDIT_ACCESS_AT_INDEX} (access=? AND at<?)`]);
  });
});
