/**
 * A lease in the database: a named row saying which instance does a job until when. Several
 * instances of the server on one database run the same background work (pruning); the one that
 * holds the lease does it and renews it, the others leave it alone, and when the holder stops (or
 * dies) another takes it over once the lease has run out. One conditional UPDATE (or the INSERT of
 * the first lease) decides who holds it, on SQLite and PostgreSQL alike.
 */
import type { Knex } from 'knex';
import { createTableIfMissing } from '../db/system-tables.ts';
import { runSelect } from '../db/statements.ts';

export const LEASE_TABLE = 'rms_leases';

export async function ensureLeaseTables(db: Knex): Promise<void> {
  await createTableIfMissing(db, LEASE_TABLE, (table) => {
    table.string('name', 64).primary();
    /** The instance that holds it (see `leaseHolder`). */
    table.string('holder', 200).notNullable();
    /** ISO-8601 UTC: until then no one else takes it. */
    table.string('expires_at', 24).notNullable();
  });
}

/**
 * Takes the lease `name` for `holder` until `now + ttlMs`: when no one holds it, it ran out, or
 * `holder` holds it already (a renewal). Answers whether `holder` holds it now.
 */
export async function takeLease(db: Knex, name: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
  const until = new Date(now + ttlMs).toISOString();
  const nowIso = new Date(now).toISOString();
  const renewed = await db(LEASE_TABLE)
    .where({ name })
    .andWhere((query) => query.where({ holder }).orWhere('expires_at', '<=', nowIso))
    .update({ holder, expires_at: until });
  if (Number(renewed) === 1) return true;
  const inserted = await runSelect<{ name: string }>(db, `insert into ${LEASE_TABLE} (name, holder, expires_at) values (?, ?, ?) on conflict (name) do nothing returning name`, [name, holder, until]);
  return inserted.length === 1;
}

/** Gives the lease up, when `holder` holds it (a server that stops lets another take over at once). */
export async function releaseLease(db: Knex, name: string, holder: string): Promise<void> {
  await db(LEASE_TABLE).where({ name, holder }).delete();
}
