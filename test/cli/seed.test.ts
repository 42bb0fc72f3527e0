/**
 * `rmsgen seed` through the real CLI: what it prints off a terminal (no progress bar, one summary
 * line with the rate, and the lines and their rate for a model with lines), that `serve` then
 * serves the records (keyset pages and `contains` on a search field over HTTP; orders with their
 * lines and computed totals, found by a line's field) on SQLite and, under RMS_TEST_PG_URL,
 * PostgreSQL, and that bad arguments are refused with a clear line and no database.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postJson } from '../helpers/cli.ts';
import { FIXTURE_CLI } from '../helpers/fixtures.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../helpers/postgres.ts';
import { envWithoutServeVariables } from '../helpers/serve-env.ts';

/** The real CLI, serving the fixture modules (test/helpers/fixtures.ts). */
const CLI = FIXTURE_CLI;
const dir = mkdtempSync(join(tmpdir(), 'rmsgen-seed-cli-'));
const pg = testPostgresUrl();
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

function rmsgen(args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: envWithoutServeVariables(), encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('rmsgen seed', () => {
  it('seeds, says what and how fast, and serve serves it', async () => {
    const db = `sqlite:${join(dir, 'seeded.sqlite')}`;
    const seeded = rmsgen(['seed', '--model', 'lead', '--count', '1200', '--today', '2026-06-15', '--db', db]);
    expect(seeded.stderr).toBe('');
    expect(seeded.status).toBe(0);
    const lines = seeded.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('party has no records for lead.party to point at: seeding 120 party records first');
    expect(lines[1]).toMatch(/^seeded 120 party, 1,200 lead in \d+\.\d s \([\d,]+ records\/s\)$/);

    const { url, stop } = await serve(db);
    try {
      const token = await login(url);
      const total = await postJson(url, '/api/lead/search', { limit: 1 }, token);
      expect(total.status).toBe(200);
      expect(total.body.value.total).toBe(1200);
      // Titles are "Lead 1" … "Lead 1200": "lead 119" is in "Lead 119" and "Lead 1190" … "Lead 1199".
      const found = await postJson(url, '/api/lead/search', { filter: [{ field: 'title', op: 'contains', value: 'LEAD 119' }], order: [{ field: 'title' }], limit: 50 }, token);
      expect(found.status).toBe(200);
      expect(found.body.value.rows.map((row: { title: string }) => row.title)).toEqual(['Lead 119', ...Array.from({ length: 10 }, (_, i) => `Lead ${1190 + i}`)]);
      // Dates within a year either side of --today.
      for (const filter of [{ field: 'close_date', op: 'lt', value: '2025-06-15' }, { field: 'close_date', op: 'gt', value: '2027-06-15' }]) {
        expect((await postJson(url, '/api/lead/search', { filter: [filter], limit: 1 }, token)).body.value.total).toBe(0);
      }
      // Keyset pages walk every lead exactly once.
      const seen = new Set<string>();
      // An empty `after` asks for keyset paging from the start.
      let after: string | undefined = '';
      for (let page = 0; page < 20; page++) {
        const res = await postJson(url, '/api/lead/list', { limit: 100, order: [{ field: 'close_date', dir: 'desc' }], after }, token);
        expect(res.status).toBe(200);
        for (const row of res.body.value as { id: string }[]) seen.add(row.id);
        after = res.body.next;
        if (after === undefined) break;
      }
      expect(seen.size).toBe(1200);
    } finally {
      stop();
    }
  });

  it.each(pg ? ['sqlite', 'postgres'] : ['sqlite'])('seeds orders with their lines on %s, says how many and how fast, and serve serves them', async (dialect) => {
    let db = `sqlite:${join(dir, 'orders.sqlite')}`;
    if (dialect === 'postgres') {
      const database = await createTestDatabase(pg!);
      databases.push(database);
      db = database.url;
    }
    const seeded = rmsgen(['seed', '--model', 'order', '--count', '300', '--lines', '2-4', '--today', '2026-06-15', '--db', db]);
    expect(seeded.stderr).toBe('');
    expect(seeded.status).toBe(0);
    const lines = seeded.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('party has no records for order.customer to point at: seeding 30 party records first');
    const summary = /^seeded 30 party, 300 order with ([\d,]+) lines in \d+\.\d s \([\d,]+ records\/s, [\d,]+ lines\/s\)$/.exec(lines[1]!);
    expect(summary, lines[1]).not.toBeNull();
    const lineCount = Number(summary![1]!.replaceAll(',', ''));
    expect(lineCount >= 600 && lineCount <= 1200).toBe(true);
    expect(lines).toHaveLength(2);

    const { url, stop } = await serve(db);
    try {
      const token = await login(url);
      const found = await postJson(url, '/api/order/search', { limit: 1 }, token);
      expect(found.status).toBe(200);
      expect(found.body.value.total).toBe(300);
      const id = found.body.value.rows[0].id as string;
      const got = await postJson(url, '/api/order/get', { id }, token);
      expect(got.status).toBe(200);
      const order = got.body.value as { number: string; total: number; items: { description: string; quantity: number; unit_price: number; amount: number }[] };
      expect(order.number).toMatch(/^[A-Z]{2}-[0-9]{4,}$/);
      expect(order.items.length >= 2 && order.items.length <= 4).toBe(true);
      for (const item of order.items) expect(item.amount).toBe(Math.round(item.quantity * item.unit_price));
      expect(order.total).toBe(order.items.reduce((sum, item) => sum + item.amount, 0));
      // Found by a field of its lines.
      const byLine = await postJson(url, '/api/order/search', { filter: [{ field: 'items.description', op: 'contains', value: order.items[0]!.description }], limit: 50 }, token);
      expect(byLine.status).toBe(200);
      expect(byLine.body.value.rows.map((row: { id: string }) => row.id)).toContain(id);
      // An update through the API keeps the seeded lines and works the total out again.
      const updated = await postJson(url, '/api/order/update', { id, items: [{ id: (got.body.value.items[0] as { id: string }).id, quantity: 2 }] }, token);
      if (updated.status === 200) expect(updated.body.value.total).toBe(Math.round(2 * order.items[0]!.unit_price));
      else expect(updated.status).toBe(409); // a done or cancelled order is locked
    } finally {
      stop();
    }
  });

  it('refuses an unknown model or a bad count with one line, creating no database', () => {
    const db = `sqlite:${join(dir, 'refused.sqlite')}`;
    const unknown = rmsgen(['seed', '--model', 'nope', '--count', '5', '--db', db]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('unknown model nope: the models are party, lead, invoice, order\n');
    for (const count of ['0', 'ten', '1.5', '10000001']) {
      const bad = rmsgen(['seed', '--model', 'lead', '--count', count, '--db', db]);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toBe(`invalid --count ${count}: use a whole number from 1 to 10000000\n`);
    }
    for (const today of ['2026-02-30', 'today', '15/06/2026']) {
      expect(rmsgen(['seed', '--model', 'lead', '--count', '5', '--today', today, '--db', db])).toEqual({
        status: 1,
        stdout: '',
        stderr: `invalid --today ${today}: use a real calendar date YYYY-MM-DD\n`,
      });
    }
    for (const lines of ['ten', '3-2', '1001', '-1', '1-']) {
      expect(rmsgen(['seed', '--model', 'order', '--count', '5', '--lines', lines, '--db', db])).toEqual({
        status: 1,
        stdout: '',
        stderr: `invalid --lines ${lines}: use a number of lines per record or a range such as 1-10, from 0 to 1000\n`,
      });
    }
    const missing = rmsgen(['seed', '--model', 'lead', '--db', db]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("required option '--count <n>' not specified");
    expect(existsSync(join(dir, 'refused.sqlite'))).toBe(false);
  });
});

/** `rmsgen serve` on the database, until `stop`. */
async function serve(db: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', db], { cwd: dir, env: { ...envWithoutServeVariables(), RMS_ADMIN_PASSWORD: 'seed-cli-password' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = () => child.kill('SIGTERM');
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 20_000);
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.on('exit', () => reject(new Error(`serve exited:\n${out}`)));
    });
    return { url, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

async function login(url: string): Promise<string> {
  const answer = await postJson(url, '/api/auth/login', { username: 'admin', password: 'seed-cli-password' });
  return answer.body.token as string;
}
