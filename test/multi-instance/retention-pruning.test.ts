/**
 * Background pruning by two server instances on one PostgreSQL database: the lease row lets one
 * instance prune at a time (the other's passes are skipped while it runs, batch after batch), no
 * row is removed twice (the removed counts add up to exactly the rows out of their window), nothing
 * within its window is removed, and when the holder stops it gives the lease up and the other
 * instance takes the work over.
 *
 * Runs only with `RMS_TEST_PG_URL` (`.ci/run` sets it for its PostgreSQL pass).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, type RetentionPolicy } from '../../runtime/retention/policy.ts';
import type { PassOutcome } from '../../runtime/retention/pruner.ts';
import { TestClock } from '../helpers/clock.ts';
import { PG_SKIP_NOTE, PG_URL } from '../helpers/pg-env.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const POLICY: RetentionPolicy = { auditMs: 400 * DAY_MS, auditReadsMs: 2 * DAY_MS, historyMs: 0, agentMs: 30 * DAY_MS, eventsMs: 0, deadEventsMs: 0, everyMs: 60 * 60_000 };
/** Small batches with pauses, so that a pass takes many batches and the other instance tries meanwhile. */
const BATCHES = { firstBatch: 20, targetMs: 0, pauseMs: 2 };

let database: TestDatabase | undefined;
let A: TestServer;
let B: TestServer;
const clock = new TestClock(Date.now());

beforeAll(async () => {
  if (!PG_URL) return;
  database = await createTestDatabase(PG_URL);
  A = await startTestServer({ dbUrl: database.url, clock, retention: POLICY, pruneBatches: BATCHES });
  B = await startTestServer({ dbUrl: database.url, clock, retention: POLICY, pruneBatches: BATCHES });
});
afterAll(async () => {
  await A?.close();
  await B?.close();
  await database?.drop();
});

/** `count` reads spread over both instances, ten at a time. */
async function reads(count: number, tokens: readonly [string, string]): Promise<void> {
  for (let done = 0; done < count; done += 10) {
    const answers = await Promise.all(Array.from({ length: Math.min(10, count - done) }, (_, i) => ((done + i) % 2 === 0 ? A : B).command(tokens[(done + i) % 2]!, 'lead.list', {})));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  }
}

describe.skipIf(!PG_URL)(`two instances pruning one PostgreSQL database${PG_SKIP_NOTE}`, () => {
  it('prune one at a time through the lease, each row once, nothing within its window, and hand over when the holder stops', async () => {
    const tokens = [await A.login(), await B.login()] as const;
    await A.command(tokens[0], 'lead.create', { title: 'Kept write' });
    await reads(300, tokens);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const boundary = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await reads(20, tokens);

    const db = A.server.db;
    const old = (await db('rms_audit').where('access', 'read').andWhere('at', '<', boundary).pluck('id')) as string[];
    const kept = (await db('rms_audit').where('at', '>=', boundary).orWhere('access', 'write').orderBy('id').pluck('id')) as string[];
    // The two logins' reads of the people table are not audited; 300 list calls are.
    expect(old.length).toBe(300);

    clock.advance(Date.parse(boundary) + 2 * DAY_MS - clock.now());
    // Both start a pass at once; while one runs, the other keeps trying, batch after batch.
    const first = Promise.all([A.server.pruner!.runPass(), B.server.pruner!.runPass()]);
    let running = true;
    const tries: PassOutcome[] = [];
    const trying = (async () => {
      while (running) {
        const [a, b] = await Promise.all([A.server.pruner!.runPass(), B.server.pruner!.runPass()]);
        tries.push(a, b);
      }
    })();
    const [a, b] = await first;
    running = false;
    await trying;

    const ran = [a, b].filter((outcome) => outcome.ran);
    expect(ran.length).toBe(1);
    const winner = a.ran ? A : B;
    const other = a.ran ? B : A;
    // Everything the passes removed, by whoever ran them, adds up to the rows out of the window: none
    // twice. (A pass asked for while one runs on the same instance is that pass: counted once.)
    const removed = [...new Set([a, b, ...tries])].reduce((sum, outcome) => sum + (outcome.ran ? outcome.report.auditReads : 0), 0);
    expect(removed).toBe(old.length);
    expect(await db('rms_audit').orderBy('id').pluck('id')).toEqual(kept);
    // The holder stays the holder between its passes: the other's were all skipped.
    expect(tries.length).toBeGreaterThan(0);
    expect(tries.every((outcome, index) => (index % 2 === (a.ran ? 1 : 0) ? !outcome.ran : true))).toBe(true);
    expect(await db('rms_leases').select('name', 'holder')).toEqual([{ name: 'retention', holder: winner.server.pruner!.holder }]);
    expect((await other.server.pruner!.runPass()).ran).toBe(false);

    // The holder stops: it gives the lease up, and the other instance prunes from its next pass on.
    await winner.server.pruner!.stop();
    expect(await db('rms_leases').select('name')).toEqual([]);
    const takeover = await other.server.pruner!.runPass();
    expect(takeover).toMatchObject({ ran: true, report: { auditReads: 0, audit: 0, plans: 0, history: 0, maskTokens: 0, bindings: 0 } });
    expect(await db('rms_leases').select('name', 'holder')).toEqual([{ name: 'retention', holder: other.server.pruner!.holder }]);
    expect(await db('rms_audit').orderBy('id').pluck('id')).toEqual(kept);
  }, 120_000);
});
