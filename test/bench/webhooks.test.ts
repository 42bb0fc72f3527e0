/**
 * `npm run bench -- --webhooks --smoke` (bench/webhooks.ts): the events and webhooks mode runs end
 * to end in seconds on SQLite, or on PostgreSQL in the PostgreSQL pass (RMS_TEST_PG_URL), and
 * prints its rows. Its figures mean nothing and are not checked; wrk is needed (Debian's `wrk`),
 * and the test is skipped without it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wrkVersion } from '../../bench/wrk.ts';

const ROOT = join(import.meta.dirname, '../..');
const PG_URL = process.env.RMS_TEST_PG_URL;
const hasWrk = wrkVersion() !== undefined;

describe.skipIf(!hasWrk)('npm run bench -- --webhooks --smoke', () => {
  it(`measures writes without and with a webhook, and the delivery rate, on ${PG_URL ? 'PostgreSQL' : 'SQLite'}`, { timeout: 180_000 }, async () => {
    const args = ['--import', 'tsx', 'bench/run.ts', '--webhooks', '--smoke', '--only', PG_URL ? 'postgres' : 'sqlite'];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...(PG_URL ? { RMS_BENCH_PG_URL: PG_URL } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, output).toBe(0);
    for (const row of [
      '| lead.create, no webhook (outbox cost: run with --before <checkout>) |',
      '| lead.update, no webhook (outbox cost: run with --before <checkout>) |',
      '| lead.create while a webhook delivers each write',
      '| webhook delivery to a local receiver (1,000 events of lead.create_many) |',
      "| from an event's write to its arrival, p50 / p99",
    ]) {
      expect(output, row).toContain(row);
    }
  });
});
