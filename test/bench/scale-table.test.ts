/**
 * bench/scale.ts's table (`npm run bench -- --rows N`): each measure with a target says whether it
 * is met; under each database's table, each target missed says by how much, and why (what the
 * profiles found). The figures here are made up: reports as the scale bench writes them.
 */
import { describe, expect, it } from 'vitest';
import { renderScaleTable, type ScaleReport } from '../../bench/scale.ts';
import type { WrkResult } from '../../bench/wrk.ts';

const result = (p50: number, errorCount = 0): WrkResult => ({
  requestsPerSecond: 1000 / p50,
  requests: 100,
  seconds: 5,
  errors: { connect: 0, read: 0, write: 0, status: errorCount, timeout: 0 },
  errorCount,
  latencyMs: { mean: p50, p50, p90: p50 * 1.2, p99: p50 * 2, max: p50 * 3 },
});

const report = (dialect: string, totalP50: number, getErrors = 0): ScaleReport => ({
  dialect,
  rows: 1_000_000,
  seedSeconds: 50,
  seedOutput: 'seeded 1,000,000 leads',
  measures: [
    { name: 'get', target: 'p50 < 2 ms', limitMs: 2, result: result(0.5, getErrors) },
    { name: 'search title contains "lead" (every row), limit 50, exact total', target: 'p50 < 200 ms', limitMs: 200, why: 'an exact total counts every match.', result: result(totalP50) },
    { name: 'list by close_date desc, offset page at 90% depth', target: '—', result: result(300) },
    { name: 'list title contains "x"', target: 'p50 < 30 ms', note: 'not measured: nothing found' },
  ],
});

const missLines = (text: string) => text.split('\n').filter((line) => line.startsWith('- **'));

describe('the scale bench table', () => {
  it('with every target met: yes on each row with a target, and nothing listed as missed', () => {
    const text = renderScaleTable([report('sqlite', 150)], 1_000_000);
    expect(text).toContain('| search title contains "lead" (every row), limit 50, exact total | 150.00 ms | 180.00 ms | 7 | p50 < 200 ms | yes |');
    expect(text).toContain('| list by close_date desc, offset page at 90% depth | 300.00 ms | 360.00 ms | 3 | — | — |');
    expect(text).toContain('| list title contains "x" | — | — | — | p50 < 30 ms | not measured: nothing found |');
    expect(text).not.toContain('Targets missed');
  });

  it('a miss says by how much and why, under its own database', () => {
    const text = renderScaleTable([report('sqlite', 150), report('postgres', 437)], 1_000_000);
    expect(text).not.toContain('Targets missed on sqlite');
    expect(text).toContain('Targets missed on postgres, by how much, and why');
    expect(missLines(text)).toEqual([
      '- **search title contains "lead" (every row), limit 50, exact total** (p50 < 200 ms): p50 437.00 ms against < 200 ms: 119 % over. Why: an exact total counts every match.',
    ]);
  });

  it('errors in a measure\'s load miss its target even within its time; a row without a why says so', () => {
    const text = renderScaleTable([report('sqlite', 150, 3)], 1_000_000);
    expect(text).toContain('| get (3 errors) | 0.50 ms | 0.60 ms | 2,000 | p50 < 2 ms | **no** |');
    expect(missLines(text)).toEqual(['- **get** (p50 < 2 ms): 3 errors. Why: no profile has looked at it yet.']);
  });
});
