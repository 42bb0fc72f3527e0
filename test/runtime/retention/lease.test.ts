/**
 * The lease row, on SQLite and (under RMS_TEST_PG_URL) PostgreSQL: one holder at a time; the holder
 * renews it; another takes it once it has run out or been released; and of many instances asking
 * at once for a free lease, exactly one gets it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../runtime/db/connect.ts';
import { ensureLeaseTables, releaseLease, takeLease } from '../../../runtime/retention/lease.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../../helpers/postgres.ts';

let dir: string;
let database: TestDatabase | undefined;
let db: Knex;
const T0 = Date.parse('2026-11-26T12:00:00.000Z');
const TTL = 60_000;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmsgen-lease-'));
  const pgUrl = testPostgresUrl();
  database = pgUrl ? await createTestDatabase(pgUrl) : undefined;
  db = openDatabase(database?.url ?? `sqlite:${join(dir, 'lease.sqlite')}`);
  await ensureLeaseTables(db);
});
afterAll(async () => {
  await db?.destroy();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const row = (name: string) => db('rms_leases').where({ name }).first('holder', 'expires_at');

describe('takeLease', () => {
  it('gives a free lease, renews it for its holder, refuses it to another until it runs out', async () => {
    expect(await takeLease(db, 'job', 'a', T0, TTL)).toBe(true);
    expect(await row('job')).toEqual({ holder: 'a', expires_at: new Date(T0 + TTL).toISOString() });
    expect(await takeLease(db, 'job', 'b', T0 + 1_000, TTL)).toBe(false);
    expect(await takeLease(db, 'job', 'a', T0 + 30_000, TTL)).toBe(true);
    expect(await row('job')).toEqual({ holder: 'a', expires_at: new Date(T0 + 30_000 + TTL).toISOString() });
    // Renewed: still a's a minute after it first took it.
    expect(await takeLease(db, 'job', 'b', T0 + TTL, TTL)).toBe(false);
    // Run out: b takes it, and a no longer holds it.
    expect(await takeLease(db, 'job', 'b', T0 + 30_000 + TTL, TTL)).toBe(true);
    expect(await takeLease(db, 'job', 'a', T0 + 30_001 + TTL, TTL)).toBe(false);
    expect(await row('job')).toEqual({ holder: 'b', expires_at: new Date(T0 + 30_000 + 2 * TTL).toISOString() });
  });

  it('is free again at once when its holder releases it; a release by another changes nothing', async () => {
    expect(await takeLease(db, 'release', 'a', T0, TTL)).toBe(true);
    await releaseLease(db, 'release', 'b');
    expect(await takeLease(db, 'release', 'b', T0 + 1, TTL)).toBe(false);
    await releaseLease(db, 'release', 'a');
    expect(await row('release')).toBeUndefined();
    expect(await takeLease(db, 'release', 'b', T0 + 2, TTL)).toBe(true);
  });

  it('goes to exactly one of many asking at once, free or run out', async () => {
    for (const [name, now] of [['race', T0], ['race', T0 + 10 * TTL]] as const) {
      const holders = Array.from({ length: 8 }, (_, i) => `h${i}`);
      const taken = await Promise.all(holders.map((holder) => takeLease(db, name, holder, now, TTL)));
      expect(taken.filter(Boolean).length).toBe(1);
      expect((await row(name))?.holder).toBe(holders[taken.indexOf(true)]);
    }
  });
});
