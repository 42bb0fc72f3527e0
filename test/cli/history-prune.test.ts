/**
 * `rmsgen history prune --before YYYY-MM-DD` through the real CLI, on SQLite and (under
 * RMS_TEST_PG_URL) PostgreSQL: it removes the entries made before that day and no others, says how
 * many, and refuses a date that is not one, or one after today, changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFixtureCli } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
});
afterAll(() => t?.close());

/** `rmsgen history prune` in a child process, awaited (see test/cli/audit-prune.test.ts for why not a synchronous spawn). */
async function prune(before: string) {
  const result = await runFixtureCli(['history', 'prune', '--before', before, '--db', t.dbUrl]);
  return { status: result.code, stdout: result.stdout, stderr: result.stderr };
}

const entries = () => t.inspect((db) => (db.prepare('select record_id, at from rms_history order by id').all() as { record_id: string; at: string }[]).map((row) => row.record_id));

describe('rmsgen history prune', () => {
  it('removes the entries made before the day and keeps the rest', async () => {
    const old = (await t.command(admin, 'lead.create', { title: 'Old one' })).body.value.id as string;
    await t.command(admin, 'lead.update', { id: old, title: 'Old one, changed' });
    const recent = (await t.command(admin, 'lead.create', { title: 'Recent one' })).body.value.id as string;
    await t.execute({
      sqlite: `update rms_history set at = '2024-03-01T10:00:00.000Z' where record_id = '${old}'`,
      postgres: `update rms_history set at = '2024-03-01T10:00:00.000Z' where record_id = '${old}'`,
    });
    expect(entries()).toEqual([old, old, recent]);

    const kept = await prune('2024-03-01');
    expect(kept).toEqual({ status: 0, stdout: 'removed 0 history entries made before 2024-03-01\n', stderr: '' });
    const removed = await prune('2024-03-02');
    expect(removed).toEqual({ status: 0, stdout: 'removed 2 history entries made before 2024-03-02\n', stderr: '' });
    expect(entries()).toEqual([recent]);
    // The records keep their values; their history starts later now.
    expect((await t.command(admin, 'lead.get', { id: old })).body.value.title).toBe('Old one, changed');
    expect((await t.command(admin, 'lead.history', { id: old })).body.value).toEqual({ rows: [], total: 0 });
  });

  it('refuses what is not a calendar date, or a day after today, removing nothing', async () => {
    const before = entries();
    for (const bad of ['2024-02-30', '2024-13-01', 'yesterday', '2024-3-1']) {
      expect(await prune(bad)).toEqual({ status: 1, stdout: '', stderr: `invalid --before ${bad}: use a real calendar date YYYY-MM-DD\n` });
    }
    const today = new Date().toISOString().slice(0, 10);
    expect(await prune('2999-01-01')).toEqual({ status: 1, stdout: '', stderr: `--before 2999-01-01 is after today (${today}): that would remove entries not yet made; use today or an earlier day\n` });
    expect(entries()).toEqual(before);
  });
});
