/**
 * The audit trail's index for retention: made with the system tables (again harmlessly), and what
 * pruning reads' selection uses on SQLite, so that a batch of reads does not step over the older
 * rows that are kept (SQLite's plan names the index; PostgreSQL's planner chooses by statistics).
 * Made again in a migration's transaction, it leaves the audit trail open to writes: on PostgreSQL
 * `create index if not exists` locked the table until the transaction ended even when the index was
 * there, and a request writing its audit row deadlocked with a migration that went on to alter
 * that request's model table (seen in CI: "alter table lead add column region - deadlock detected").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../runtime/db/connect.ts';
import { createTestDatabase, testPostgresUrl } from '../../helpers/postgres.ts';
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

describe('ensureRetentionIndexes in a migration\'s transaction, the index there already', () => {
  const pg = testPostgresUrl();
  it.skipIf(!pg)('leaves the audit trail open to writes on PostgreSQL until the transaction ends', async () => {
    const database = await createTestDatabase(pg!);
    const migrating = openDatabase(database.url);
    const writing = openDatabase(database.url);
    try {
      await ensureAuditTables(migrating);
      await ensureRetentionIndexes(migrating);
      await migrating.transaction(async (trx) => {
        await ensureRetentionIndexes(trx);
        // What an audit row's insert takes, refused at once if the migration holds a lock against it.
        await writing.transaction((other) => other.raw('lock table rms_audit in row exclusive mode nowait'));
      });
    } finally {
      await Promise.all([migrating.destroy(), writing.destroy()]);
      await database.drop();
    }
  });
});
