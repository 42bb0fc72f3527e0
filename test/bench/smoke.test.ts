/**
 * `npm run bench -- --smoke`: the harness runs end to end in seconds (every target, the build and
 * start-up measurements, the table and the JSON), on SQLite, or on PostgreSQL in the PostgreSQL
 * pass (RMS_TEST_PG_URL). Its figures mean nothing and are not checked; wrk is needed (Debian's
 * `wrk`), and the test is skipped, saying so, without it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wrkVersion } from '../../bench/wrk.ts';

const ROOT = join(import.meta.dirname, '../..');
const PG_URL = process.env.RMS_TEST_PG_URL;
const hasWrk = wrkVersion() !== undefined;
if (!hasWrk) console.warn('bench smoke test skipped: wrk is not installed (apt-get install wrk)');

describe.skipIf(!hasWrk)('npm run bench -- --smoke', () => {
  it(`measures every target on ${PG_URL ? 'PostgreSQL' : 'SQLite'} and writes the table and the raw results`, async () => {
    const args = ['--import', 'tsx', 'bench/run.ts', '--smoke', '--only', PG_URL ? 'postgres' : 'sqlite'];
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
    for (const measure of ['bare node:http', 'bare Express 5', 'lead.get as a person', 'as an agent, notes masked', 'MCP tools/call lead__get', 'lead.search', 'lead.create as a person', 'lead.update of a note', 'lead.qualify, an action', 'order.get of 20 lines', 'order.create of 20 lines', 'what rules and computed fields cost order.create', 'RSS idle', 'RSS peak under lead.get load', 'start to `listening`', 'rmsgen build', 'rmsgen build --check']) {
      expect(output).toContain(measure);
    }
    expect(output).toContain('SMOKE RUN');
    const results = /raw results: (\S+\.json)/.exec(output);
    expect(results, output).not.toBeNull();
    const file = join(ROOT, results![1]!);
    expect(existsSync(file)).toBe(true);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(report.mode).toBe('smoke');
    const dialect = report.dialects[PG_URL ? 'postgres' : 'sqlite'];
    expect(dialect.skipped).toBeUndefined();
    expect(Object.keys(dialect.rounds).sort()).toEqual(['action', 'agent', 'create', 'express', 'http', 'mcp', 'observed', 'orderCreate', 'orderCreatePlain', 'orderGet', 'person', 'search', 'update']);
    // Every request answered as it should: a 429 or a 500 would be counted as throughput.
    const errors = Object.fromEntries(
      Object.entries(dialect.rounds as Record<string, { errorCount: number }[]>).map(([target, rounds]) => [target, rounds.reduce((sum, round) => sum + round.errorCount, 0)]),
    );
    // orderCreate and orderCreatePlain: every request a new order, none refused as a repeated number.
    expect(errors).toEqual({ action: 0, agent: 0, create: 0, express: 0, http: 0, mcp: 0, observed: 0, orderCreate: 0, orderCreatePlain: 0, orderGet: 0, person: 0, search: 0, update: 0 });
  }, 180_000);

  it(`--orders seeds orders of 10 lines with rmsgen seed and measures order.get and a search on a line field on ${PG_URL ? 'PostgreSQL' : 'SQLite'}`, async () => {
    const args = ['--import', 'tsx', 'bench/run.ts', '--smoke', '--orders', '200', '--only', PG_URL ? 'postgres' : 'sqlite'];
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
    expect(output).toContain('## 200 orders of 10 lines');
    expect(output).toContain('Targets set at 1,000,000 orders (`--orders 1000000`): at this scale the figures do not say whether they are met.');
    expect(output).toMatch(/seeded 20 party, 200 order with 2,000 lines in/);
    // Both measured (a row not measured says why instead of its figures), with no errors.
    expect(output).toMatch(/\| order\.get \(10 lines\) \| [\d.]+ ms \|/);
    expect(output).toMatch(/\| order\.search items\.description = a seeded line's description, limit 50, total \| [\d.]+ ms \|/);
    expect(output).not.toContain('errors)');
  }, 180_000);
});
