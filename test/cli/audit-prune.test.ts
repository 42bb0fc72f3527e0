/**
 * `rmsgen audit prune --before YYYY-MM-DD [--reads-only]` through the real CLI, on SQLite and
 * (under RMS_TEST_PG_URL) PostgreSQL: it removes the audit rows made before that day (only reads
 * with --reads-only) and the plans decided before it, keeps a pending plan's rows and everything
 * made since, says how many, and refuses a date that is not one, or one after today, changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFixtureCli } from '../helpers/cli.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
});
afterAll(() => t?.close());

/**
 * `rmsgen audit prune` in a child process, awaited: the test server runs in this process, and a
 * synchronous spawn would stop its event loop long enough for its idle keep-alive connections to
 * be closed under the next request (ECONNRESET).
 */
async function prune(...args: string[]) {
  const result = await runFixtureCli(['audit', 'prune', ...args, '--db', t.dbUrl]);
  return { status: result.code, stdout: result.stdout, stderr: result.stderr };
}

const rows = async () => (await t.server.db('rms_audit').select('command', 'access', 'outcome').orderBy('id')) as { command: string; access: string; outcome: string }[];
const OLD = '2024-03-01T10:00:00.000Z';

describe('rmsgen audit prune', () => {
  it('removes the reads made before the day with --reads-only, then the rest and the plans decided before it, keeping a pending plan and what came since', async () => {
    const agent = await agentToken(t, admin, ['lead.*'], 'pruned bot');
    const lead = (await t.command(admin, 'lead.create', { title: 'Old one' })).body.value.id as string;
    await t.command(admin, 'lead.get', { id: lead });
    await t.command(agent, 'lead.list', {});
    const pending = (await t.command(agent, 'lead.delete', { id: lead })).body.plan_id as string;
    const other = (await t.command(admin, 'lead.create', { title: 'Other' })).body.value.id as string;
    const rejected = (await t.command(agent, 'lead.delete', { id: other })).body.plan_id as string;
    expect((await t.request('POST', `/api/reject/${rejected}`, undefined, admin)).status).toBe(200);
    // Everything so far happened on 1 March 2024; one read and one write happen now.
    await t.execute({ sqlite: `update rms_audit set at = '${OLD}'`, postgres: `update rms_audit set at = '${OLD}'` });
    await t.execute({ sqlite: `update rms_plans set decided_at = '${OLD}' where decided_at is not null`, postgres: `update rms_plans set decided_at = '${OLD}' where decided_at is not null` });
    await t.command(admin, 'lead.get', { id: other });
    await t.command(admin, 'lead.update', { id: other, title: 'Other, now' });
    const before = await rows();
    expect(before.map((row) => `${row.command} ${row.access} ${row.outcome}`)).toEqual([
      // Making the agent's token is in the trail too.
      'agent_token.create write executed',
      'lead.create write executed',
      'lead.get read executed',
      'lead.list read executed',
      'lead.delete write proposed',
      'lead.create write executed',
      'lead.delete write proposed',
      'lead.delete write rejected',
      'lead.get read executed',
      'lead.update write executed',
    ]);

    expect(await prune('--before', '2024-03-01', '--reads-only')).toEqual({ status: 0, stdout: 'removed 0 audit rows of reads made before 2024-03-01\n', stderr: '' });
    expect(await prune('--before', '2024-03-02', '--reads-only')).toEqual({ status: 0, stdout: 'removed 2 audit rows of reads made before 2024-03-02\n', stderr: '' });
    expect(await rows()).toEqual(before.filter((_, index) => index !== 2 && index !== 3));

    expect(await prune('--before', '2024-03-02')).toEqual({ status: 0, stdout: 'removed 5 audit rows made before 2024-03-02, and 1 plan decided before then\n', stderr: '' });
    expect(await rows()).toEqual([before[4], before[8], before[9]]);
    expect(await t.server.db('rms_plans').pluck('id')).toEqual([pending]);
    // The pending plan still stands: a person can decide it.
    expect((await t.request('POST', `/api/reject/${pending}`, undefined, admin)).status).toBe(200);
  }, 120_000);

  it('refuses what is not a calendar date, or a day after today, removing nothing', async () => {
    const before = await rows();
    for (const [bad, readsOnly] of [['2024-02-30', false], ['2024-13-01', true], ['yesterday', false], ['2024-3-1', true]] as const) {
      expect(await prune('--before', bad, ...(readsOnly ? ['--reads-only'] : []))).toEqual({ status: 1, stdout: '', stderr: `invalid --before ${bad}: use a real calendar date YYYY-MM-DD\n` });
    }
    const today = new Date().toISOString().slice(0, 10);
    expect(await prune('--before', '2999-01-01')).toEqual({ status: 1, stdout: '', stderr: `--before 2999-01-01 is after today (${today}): that would remove rows not yet made; use today or an earlier day\n` });
    expect(await rows()).toEqual(before);
  }, 120_000);
});
