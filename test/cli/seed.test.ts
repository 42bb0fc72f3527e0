/**
 * `rmsgen seed` through the real CLI: what it prints off a terminal (no progress bar, one summary
 * line with the rate, and the lines and their rate for a model with lines), that `serve` then
 * serves the records (keyset pages and `contains` on a search field over HTTP; orders with their
 * lines and computed totals, found by a line's field) on SQLite and, under RMS_TEST_PG_URL,
 * PostgreSQL, that what it wrote keeps the module's checks, rules and uniques, with 1 to 10 lines
 * per order and computed values equal to what the model's own functions give (read back from the
 * database on both), and that bad arguments are refused with a clear line and no database.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../fixtures/generated/registry.ts';
import { postJson } from '../helpers/cli.ts';
import { FIXTURE_CLI } from '../helpers/fixtures.ts';
import { createTestDatabase, postgresInspector, testPostgresUrl, type TestDatabase } from '../helpers/postgres.ts';
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

  it.each(pg ? ['sqlite', 'postgres'] : ['sqlite'])('what it writes on %s keeps the checks, rules and uniques, with 1 to 10 lines per order and computed values the functions give', async (dialect) => {
    let db = `sqlite:${join(dir, 'kept.sqlite')}`;
    let inspect = () => new Database(join(dir, 'kept.sqlite'), { readonly: true });
    if (dialect === 'postgres') {
      const database = await createTestDatabase(pg!);
      databases.push(database);
      db = database.url;
      inspect = () => postgresInspector(database.url);
    }
    const seeded = rmsgen(['seed', '--model', 'order', '--count', '400', '--today', '2026-06-15', '--db', db]);
    expect(seeded.stderr).toBe('');
    expect(seeded.status).toBe(0);
    const database = inspect();
    try {
      const text = (column: string) => `cast(${column} as text) as ${column}`;
      const orders = database
        .prepare(`select id, number, customer, ${text('ordered_on')}, ${text('deliver_by')}, ${text('confirmed_on')}, delivered_at, discount_pct, tags, total, status from "order" order by id`)
        .all() as OrderRow[];
      const items = database.prepare('select owner, position, description, quantity, unit_price, amount from "order__items" order by owner, position').all() as ItemRow[];
      const parties = database.prepare('select id from party').all() as { id: string }[];

      // Counts: the orders asked for, their customers seeded first (a tenth as many).
      expect(orders).toHaveLength(400);
      expect(parties).toHaveLength(40);

      // 1 to 10 lines per order, every count in between used, positions 0 … n-1.
      const linesOf = new Map<string, ItemRow[]>(orders.map((order) => [order.id, []]));
      for (const item of items) linesOf.get(item.owner)!.push(item);
      const counts = [...linesOf.values()].map((lines) => lines.length);
      expect(new Set(counts)).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
      for (const lines of linesOf.values()) expect(lines.map((line) => Number(line.position))).toEqual(lines.map((_, i) => i));

      // Uniques: number on its own and (customer, number); the number matches its pattern.
      expect(new Set(orders.map((order) => order.number)).size).toBe(400);
      expect(orders.filter((order) => !/^[A-Z]{2}-[0-9]{4,}$/.test(order.number))).toEqual([]);
      // Refs spread over every party, none pointing elsewhere.
      const partyIds = new Set(parties.map((party) => party.id));
      expect(orders.filter((order) => !partyIds.has(order.customer))).toEqual([]);
      expect(new Set(orders.map((order) => order.customer)).size).toBe(40);

      // Checks: a discount from 0 to 100 % (stored × 100), quantities from 0.001 (stored × 1000), no negative price, descriptions within 200.
      expect(orders.filter((order) => order.discount_pct !== null && (Number(order.discount_pct) < 0 || Number(order.discount_pct) > 100_00))).toEqual([]);
      expect(items.filter((item) => Number(item.quantity) < 1 || Number(item.unit_price) < 0 || item.description.length === 0 || [...item.description].length > 200)).toEqual([]);
      // Dates within a year of --today.
      const dates = orders.flatMap((order) => [order.ordered_on, order.deliver_by, order.confirmed_on]).filter((day): day is string => day !== null);
      expect(dates.filter((day) => day < '2025-06-15' || day > '2027-06-15')).toEqual([]);
      // States only as the actions reach them: a draft was never confirmed nor delivered, a done order was confirmed.
      expect(new Set(orders.map((order) => order.status))).toEqual(new Set(['draft', 'confirmed', 'done', 'cancelled']));
      expect(orders.filter((order) => order.status === 'draft' && (order.confirmed_on !== null || order.delivered_at !== null))).toEqual([]);
      expect(orders.filter((order) => (order.status === 'confirmed' || order.status === 'done') && order.confirmed_on === null)).toEqual([]);

      // The model's own functions, run on each order as read back: the same computed values, no rule broken.
      const logic = registry.logic.order!;
      for (const order of orders) {
        const lines = linesOf.get(order.id)!;
        const document: Record<string, unknown> = {
          ...order,
          discount_pct: order.discount_pct === null ? null : Number(order.discount_pct) / 100,
          tags: order.tags === null ? null : JSON.parse(order.tags),
          total: null,
          items: lines.map((line) => ({ description: line.description, quantity: Number(line.quantity) / 1000, unit_price: Number(line.unit_price), note: null, amount: null })),
        };
        logic.compute(document);
        expect(logic.failedRules(document), order.number).toEqual([]);
        expect(lines.map((line) => Number(line.amount)), order.number).toEqual((document.items as { amount: number }[]).map((line) => line.amount));
        expect(Number(order.total), order.number).toBe(document.total);
      }
    } finally {
      database.close();
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

interface OrderRow {
  id: string;
  number: string;
  customer: string;
  ordered_on: string | null;
  deliver_by: string | null;
  confirmed_on: string | null;
  delivered_at: string | null;
  discount_pct: number | string | null;
  tags: string | null;
  total: number | string | null;
  status: string;
}

interface ItemRow {
  owner: string;
  position: number | string;
  description: string;
  quantity: number | string;
  unit_price: number | string;
  amount: number | string | null;
}

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
