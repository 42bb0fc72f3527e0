/**
 * bench/report.ts: the bench's table of targets. Each row with a target says whether this run
 * meets it; under the table, each target missed says by how much on each database, and why (what
 * the profiles found). The figures here are made up: a report as bench/run.ts writes it.
 */
import { describe, expect, it } from 'vitest';
import { renderTable, type BenchReport, type DialectReport } from '../../bench/report.ts';
import type { WrkResult } from '../../bench/wrk.ts';

const round = (requestsPerSecond: number, errorCount = 0): WrkResult => ({
  requestsPerSecond,
  requests: requestsPerSecond * 5,
  seconds: 5,
  errors: { connect: 0, read: 0, write: 0, status: errorCount, timeout: 0 },
  errorCount,
  latencyMs: { mean: 1, p50: 1, p90: 2, p99: 3, max: 4 },
});
const rounds = (...rates: number[]) => rates.map((rate) => round(rate));

/** A run on SQLite where every target is met but those `misses` changes. */
function sqliteRun(misses: Partial<Record<'agent' | 'create' | 'rss' | 'errors' | 'directus', true>> = {}, directus: Extract<DialectReport, { skipped?: undefined }>['directus'] | 'absent' = { version: '11.3.5' }): DialectReport {
  return {
    leads: 10_000,
    won: 2_500,
    orders: 1_000,
    orderLines: 20,
    seedMs: 1000,
    firstStartMs: 600,
    startMs: [500, 510, 520],
    idleRssMiB: [70, 71, 72],
    peakLeadGetMiB: 100,
    peakAllMiB: misses.rss ? 150 : 110,
    baselineIdleRssMiB: { http: 40, express: 50 },
    rounds: {
      http: rounds(10_000, 10_000, 10_000),
      express: rounds(5_000, 5_000, 5_000),
      person: rounds(8_000, 8_000, 8_000),
      agent: misses.agent ? rounds(6_400, 6_400, 6_400) : rounds(7_600, 7_600, 7_600),
      mcp: misses.agent ? rounds(6_000, 6_000, 6_000) : rounds(7_000, 7_000, 7_000),
      search: rounds(4_500, 4_500, 4_500),
      create: misses.create ? rounds(3_600, 3_600, 3_600) : rounds(4_400, 4_400, 4_400),
      update: rounds(4_400, 4_400, 4_400),
      action: misses.errors ? [round(4_400, 12), round(4_400), round(4_400)] : rounds(4_400, 4_400, 4_400),
      orderGet: rounds(5_000, 5_000, 5_000),
      orderCreate: rounds(1_200, 1_200, 1_200),
      orderCreatePlain: rounds(1_210, 1_210, 1_210),
      observed: rounds(7_900, 7_900, 7_900),
      ...(directus !== 'absent' && directus?.notRun === undefined ? { directusCreate: misses.directus ? rounds(500, 480, 520) : rounds(100, 90, 110) } : {}),
    },
    createManyPerSecond: [21_000, 22_000, 23_000],
    toolLists: { agent: { tools: 17, bytes: 18_400 }, person: { tools: 20, bytes: 24_000 } },
    ...(directus !== 'absent' ? { directus } : {}),
  };
}

function report(sqlite: DialectReport): BenchReport {
  return {
    startedAt: '2026-11-27T15:00:00.000Z',
    mode: 'full',
    settings: {},
    machine: { cpus: 2, cpuModel: 'test', memoryGiB: 4, node: 'v20', wrk: 'test', loadAverageAtStart: [0, 0, 0], commit: 'abc1234' },
    build: { sizes: [{ models: 50, buildMs: 2_000, checkMs: 1_000 }, { models: 100, buildMs: 3_000, checkMs: 1_500 }, { models: 200, buildMs: 5_000, checkMs: 2_500 }] },
    dialects: { sqlite, postgres: { skipped: 'not asked for' } },
  };
}

/** The lines under the table that name missed targets. */
const missLines = (text: string) => text.split('\n').filter((line) => line.startsWith('- **'));

describe('the bench table', () => {
  it('with every target met: every row says yes, and nothing is listed as missed', () => {
    const text = renderTable(report(sqliteRun()));
    expect(text).not.toContain('**no**');
    expect(text).not.toContain('Targets missed in this run');
    expect(missLines(text)).toEqual([]);
  });

  it('lists each missed target once, with by how much it misses on each database and why', () => {
    const text = renderTable(report(sqliteRun({ agent: true, create: true, rss: true })));
    expect(text).toContain('Targets missed in this run, by how much, and why');
    const lines = missLines(text);
    expect(lines.map((line) => /^- \*\*(.+?)\*\*/.exec(line)![1])).toEqual([
      'rmsgen lead.get as an agent, notes masked',
      'rmsgen lead.create as a person (history, audit and outbox rows)',
      'RSS peak over every target above',
    ]);
    expect(lines[0]).toContain('(≥ 0.90 of the person\'s): SQLite: 0.80 against ≥ 0.90: 11 % short. Why: ');
    expect(lines[1]).toContain('(≥ 0.50 of lead.get on SQLite): SQLite: 0.45 against ≥ 0.50: 10 % short. Why: ');
    expect(lines[2]).toContain('(< 120 MiB): SQLite: 150 MiB against < 120 MiB: 25 % over. Why: ');
    // Each why is the profile's finding, not a placeholder.
    for (const line of lines) expect(line).not.toContain('no profile has looked at it yet');
    expect(text).toMatch(/\| rmsgen lead\.get as an agent, notes masked \| 6,400 req\/s \(0\.80\) \| not run \| ≥ 0\.90 of the person's \| \*\*no\*\* \|/);
  });

  it('every target, missed at once, has its why from a profile', () => {
    const good = sqliteRun();
    if (good.skipped !== undefined) throw new Error('unreachable');
    const slow = (rate: number) => rounds(rate, rate, rate);
    const bad: DialectReport = {
      ...good,
      startMs: [5_000, 5_000, 5_000],
      idleRssMiB: [90, 90, 90],
      peakLeadGetMiB: 200,
      peakAllMiB: 200,
      rounds: {
        ...Object.fromEntries(Object.keys(good.rounds).map((name) => [name, slow(100)])),
        http: slow(10_000),
        person: slow(1_000),
        orderCreatePlain: slow(200),
        directusCreate: slow(50),
      },
      createManyPerSecond: [1_000],
      toolLists: { agent: { tools: 17, bytes: 40_000 }, person: { tools: 69, bytes: 80_000 } },
      models: { count: 200, firstStartMs: 9_000, startMs: [9_000], idleRssMiB: [200] },
    };
    const run = report(bad);
    const text = renderTable({ ...run, build: { sizes: [{ models: 50, buildMs: 2_000, checkMs: 3_000 }, { models: 100, buildMs: 3_000, checkMs: 4_000 }, { models: 200, buildMs: 20_000, checkMs: 25_000 }] } });
    const lines = missLines(text);
    // Every row with a target but the agent's tools/list (scoped by the token), MCP and order.get (met by these figures).
    expect(lines.length).toBeGreaterThanOrEqual(17);
    expect(lines.filter((line) => line.includes("no profile has looked at it yet")).map((line) => /^- \*\*(.+?)\*\*/.exec(line)![1])).toEqual([]);
  });

  it('a target met in figures but with errors in its rounds is missed, and says so', () => {
    const lines = missLines(renderTable(report(sqliteRun({ errors: true }))));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('rmsgen lead.qualify, an action');
    expect(lines[0]).toContain('SQLite: 12 errors in its rounds (their answers are counted in the figure). Why: ');
  });

  it('a build of 200 models over 10 s or not linear is missed, with both reasons', () => {
    const slow = report(sqliteRun());
    const text = renderTable({ ...slow, build: { sizes: [{ models: 50, buildMs: 2_000, checkMs: 1_000 }, { models: 100, buildMs: 3_000, checkMs: 1_500 }, { models: 200, buildMs: 12_000, checkMs: 2_500 }] } });
    const lines = missLines(text);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('12.0 s against < 10.0 s: 20 % over; not linear: the last step costs 4.5 times the first per model (at most 1.5). Why: ');
  });

  describe("Directus's create beside rmsgen's (rmsgen's at least 10×)", () => {
    const row = (text: string) => text.split('\n').find((line) => line.startsWith('| Directus'));

    it('shows Directus\'s rate and rmsgen\'s create as a multiple of it, paired by round', () => {
      const text = renderTable(report(sqliteRun()));
      // Rounds 4,400/100, 4,400/90 and 4,400/110: the median ratio is 44.
      expect(row(text)).toBe("| Directus 11.3.5 POST /items/lead (its activity and revision rows), beside rmsgen lead.create | 100 req/s (rmsgen's create: 44.0×) | not run | rmsgen's create ≥ 10× (SQLite) | yes |");
      expect(missLines(text)).toEqual([]);
    });

    it('under 10× is missed, by how much', () => {
      const lines = missLines(renderTable(report(sqliteRun({ directus: true }))));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("(rmsgen's create ≥ 10× (SQLite)): SQLite: 8.8× against ≥ 10.0×: 12 % short. Why: ");
    });

    it('not run (--no-directus, or an install that failed) is missed, and says why', () => {
      const text = renderTable(report(sqliteRun({}, { notRun: 'left out with --no-directus' })));
      expect(row(text)).toContain('| not measured: left out with --no-directus | not run |');
      const lines = missLines(text);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('SQLite: not measured: left out with --no-directus. Why: ');
    });

    it('a report from before Directus was measured shows the row empty', () => {
      expect(row(renderTable(report(sqliteRun({}, 'absent'))))).toContain('| — | not run |');
    });
  });
});
