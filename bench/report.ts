/**
 * The bench's results: the raw figures (written as JSON) and the one table of targets made from
 * them (printed, and kept in docs/performance.md).
 */
import type { WrkResult } from './wrk.ts';

export type Dialect = 'sqlite' | 'postgres';

/** The leads of one measured `lead.create_many`. */
export const BULK_RECORDS = 1000;

export interface BuildReport {
  readonly sizes: readonly { readonly models: number; readonly buildMs: number; readonly checkMs: number }[];
}

export type DialectReport =
  | { readonly skipped: string }
  | {
      readonly skipped?: undefined;
      readonly leads: number;
      readonly won: number;
      /** Orders created through the API for `order.get`, each of `orderLines` lines. */
      readonly orders: number;
      readonly orderLines: number;
      readonly seedMs: number;
      /** Start on an empty database (creates the tables). */
      readonly firstStartMs: number;
      /** Starts on the seeded database. */
      readonly startMs: readonly number[];
      readonly idleRssMiB: readonly number[];
      /** VmHWM after one lead.get round on a server that had served nothing else. */
      readonly peakLeadGetMiB: number;
      /** VmHWM after every round of every target. */
      readonly peakAllMiB: number;
      readonly baselineIdleRssMiB: { readonly http: number; readonly express: number };
      /** wrk results per target, one per round, in order. */
      readonly rounds: Readonly<Record<string, readonly WrkResult[]>>;
      /** Records per second of each `lead.create_many` of `BULK_RECORDS` leads, on a database of its own. */
      readonly createManyPerSecond: readonly number[];
      /** `tools/list` of the demo (absent in reports from before it was measured). */
      readonly toolLists?: ToolListSizes;
      readonly models?: ModelStarts;
    };

/** Starts of the generated project (see bench/model-project.ts). */
/** Tools and bytes of the JSON result of `tools/list`, for the bench's agent (`lead.*`) and the admin. */
export interface ToolListSizes {
  readonly agent: { readonly tools: number; readonly bytes: number };
  readonly person: { readonly tools: number; readonly bytes: number };
}

/** Issue 25's goal for `tools/list` of the demo, set when it had 26 tools. */
const TOOL_LIST_GOAL_BYTES = 25_000;

export interface ModelStarts {
  readonly count: number;
  readonly firstStartMs: number;
  readonly startMs: readonly number[];
  readonly idleRssMiB: readonly number[];
}

export interface BenchReport {
  readonly startedAt: string;
  finishedAt?: string;
  readonly mode: 'full' | 'smoke';
  readonly settings: unknown;
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly memoryGiB: number;
    readonly node: string;
    readonly wrk: string;
    readonly loadAverageAtStart: readonly number[];
    loadAverageAtEnd?: readonly number[];
    readonly commit: string;
  };
  build: BuildReport | undefined;
  readonly dialects: Partial<Record<Dialect, DialectReport>>;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Median of the per-round ratios `numerator[i] / denominator[i]`. */
export function pairedRatio(numerator: readonly WrkResult[], denominator: readonly WrkResult[]): number {
  return median(numerator.map((result, i) => result.requestsPerSecond / denominator[i]!.requestsPerSecond));
}

interface Cell {
  readonly text: string;
  /** Whether the target is met; undefined where the row has no target. */
  readonly met?: boolean;
}

interface Row {
  readonly measure: string;
  readonly cells: Partial<Record<Dialect, Cell>>;
  readonly target: string;
  /** One value for both databases (builds): shown once, across. */
  readonly shared?: Cell;
}

const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];
const DIALECT_NAMES: Record<Dialect, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

export function renderTable(report: BenchReport): string {
  const rows: Row[] = [];
  const perDialect = (measure: string, target: string, cell: (dialect: Extract<DialectReport, { skipped?: undefined }>) => Cell | undefined) => {
    const cells: Partial<Record<Dialect, Cell>> = {};
    for (const dialect of DIALECTS) {
      const result = report.dialects[dialect];
      if (result && result.skipped === undefined) {
        const value = cell(result);
        if (value) cells[dialect] = value;
      }
    }
    rows.push({ measure, cells, target });
  };
  const rps = (results: readonly WrkResult[] | undefined) => (results ? median(results.map((result) => result.requestsPerSecond)) : Number.NaN);
  const errorCount = (results: readonly WrkResult[] | undefined) => (results ?? []).reduce((sum, result) => sum + result.errorCount, 0);
  const errors = (results: readonly WrkResult[] | undefined) => {
    const count = errorCount(results);
    return count > 0 ? ` ⚠ ${count} errors` : '';
  };
  /** A target met with errors (sockets, statuses ≥ 400) is not met: the figure counts the errors' answers too. */
  const clean = (...rounds: (readonly WrkResult[] | undefined)[]) => rounds.every((results) => errorCount(results) === 0);

  perDialect('bare node:http + one prepared statement, lead.get (the machine\'s limit)', '—', (d) => ({
    text: `${formatRps(rps(d.rounds.http))}${errors(d.rounds.http)}`,
  }));
  perDialect('bare Express 5 + one prepared statement, lead.get', '—', (d) => ({
    text: `${formatRps(rps(d.rounds.express))} (${pairedRatio(d.rounds.express!, d.rounds.http!).toFixed(2)} of node:http)${errors(d.rounds.express)}`,
  }));
  // The goals of issue 25 (performance, round three), each against its baseline measured side by side.
  perDialect('rmsgen lead.get as a person', '≥ 0.70 of node:http', (d) => {
    const ratio = pairedRatio(d.rounds.person!, d.rounds.http!);
    return { text: `${formatRps(rps(d.rounds.person))} (${ratio.toFixed(2)})${errors(d.rounds.person)}`, met: ratio >= 0.7 && clean(d.rounds.person, d.rounds.http) };
  });
  perDialect('rmsgen lead.get as an agent, notes masked', '≥ 0.90 of the person\'s', (d) => {
    const ratio = pairedRatio(d.rounds.agent!, d.rounds.person!);
    return { text: `${formatRps(rps(d.rounds.agent))} (${ratio.toFixed(2)})${errors(d.rounds.agent)}`, met: ratio >= 0.9 && clean(d.rounds.agent, d.rounds.person) };
  });
  perDialect('MCP tools/call lead__get as an agent', '≥ 0.80 of the agent\'s REST call', (d) => {
    const ratio = pairedRatio(d.rounds.mcp!, d.rounds.agent!);
    return { text: `${formatRps(rps(d.rounds.mcp))} (${ratio.toFixed(2)})${errors(d.rounds.mcp)}`, met: ratio >= 0.8 && clean(d.rounds.mcp, d.rounds.agent) };
  });
  perDialect('lead.search stage = won, expected_revenue desc, limit 50, with total', '≥ 4,000 req/s and ≥ 0.35 of lead.get', (d) => {
    const value = rps(d.rounds.search);
    const ratio = pairedRatio(d.rounds.search!, d.rounds.person!);
    return {
      text: `${formatRps(value)} (${ratio.toFixed(2)}; ${d.won.toLocaleString('en')} of ${d.leads.toLocaleString('en')} match)${errors(d.rounds.search)}`,
      met: value >= 4000 && ratio >= 0.35 && clean(d.rounds.search, d.rounds.person),
    };
  });
  const write = (round: 'create' | 'update' | 'action', measure: string) =>
    perDialect(measure, '≥ 0.50 of lead.get on SQLite', (d) => {
      const results = d.rounds[round];
      if (!results) return undefined;
      const ratio = pairedRatio(results, d.rounds.person!);
      return { text: `${formatRps(rps(results))} (${ratio.toFixed(2)})${errors(results)}`, ...(d === report.dialects.sqlite ? { met: ratio >= 0.5 && clean(results, d.rounds.person) } : {}) };
    });
  write('create', 'rmsgen lead.create as a person (history, audit and outbox rows)');
  write('update', 'rmsgen lead.update of a note as a person (history, audit and outbox rows)');
  write('action', 'rmsgen lead.qualify, an action, as a person (history, audit and outbox rows)');
  const sqlite = report.dialects.sqlite;
  const postgres = report.dialects.postgres;
  if (sqlite && sqlite.skipped === undefined && postgres && postgres.skipped === undefined) {
    const ratio = rps(postgres.rounds.person) / rps(sqlite.rounds.person);
    rows.push({
      measure: 'lead.get as a person, PostgreSQL / SQLite (the two runs of this bench, one after the other)',
      cells: { postgres: { text: `${ratio.toFixed(2)} of SQLite's`, met: ratio >= 0.5 && clean(postgres.rounds.person, sqlite.rounds.person) } },
      target: '≥ 0.50',
    });
  }
  perDialect('rmsgen order.get of 20 lines as a person', '≥ 0.60 of lead.get', (d) => {
    const ratio = pairedRatio(d.rounds.orderGet!, d.rounds.person!);
    return { text: `${formatRps(rps(d.rounds.orderGet))} (${ratio.toFixed(2)}; ${d.orderLines} lines)${errors(d.rounds.orderGet)}`, met: ratio >= 0.6 && clean(d.rounds.orderGet, d.rounds.person) };
  });
  perDialect('rmsgen order.create of 20 lines, with its rules and computed fields', '≥ 1,000 orders/s on SQLite', (d) => {
    const value = rps(d.rounds.orderCreate);
    // The target is SQLite's; PostgreSQL's figure is shown beside it.
    return { text: `${formatRps(value).replace('req/s', 'orders/s')}${errors(d.rounds.orderCreate)}`, ...(d === report.dialects.sqlite ? { met: value >= 1000 && clean(d.rounds.orderCreate) } : {}) };
  });
  perDialect('what rules and computed fields cost order.create (against the same order without them, side by side)', '< 5 % on writes', (d) => {
    const cost = 1 - pairedRatio(d.rounds.orderCreate!, d.rounds.orderCreatePlain!);
    return {
      text: `${(cost * 100).toFixed(1)} % (without: ${formatRps(rps(d.rounds.orderCreatePlain)).replace('req/s', 'orders/s')})${errors(d.rounds.orderCreatePlain)}`,
      met: cost < 0.05 && clean(d.rounds.orderCreate, d.rounds.orderCreatePlain),
    };
  });
  perDialect('rmsgen lead.get as a person, with metrics and JSON request lines', '≥ 0.95 of the same without', (d) => {
    if (!d.rounds.observed) return undefined;
    const ratio = pairedRatio(d.rounds.observed, d.rounds.person!);
    return { text: `${formatRps(rps(d.rounds.observed))} (${ratio.toFixed(2)})${errors(d.rounds.observed)}`, met: ratio >= 0.95 && clean(d.rounds.observed, d.rounds.person) };
  });
  const hasBefore = DIALECTS.some((dialect) => {
    const result = report.dialects[dialect];
    return result !== undefined && result.skipped === undefined && result.rounds.before !== undefined;
  });
  if (hasBefore) {
    perDialect('rmsgen lead.get as a person, --before checkout', '—', (d) =>
      d.rounds.before ? { text: `${formatRps(rps(d.rounds.before))} (this / before: ${pairedRatio(d.rounds.person!, d.rounds.before).toFixed(2)})` } : undefined,
    );
  }
  perDialect(`lead.create_many of ${BULK_RECORDS.toLocaleString('en')} leads`, '≥ 20,000 records/s (SQLite)', (d) => {
    const value = median(d.createManyPerSecond);
    return { text: `${Math.round(value).toLocaleString('en')} records/s`, ...(d === report.dialects.sqlite ? { met: value >= 20_000 } : {}) };
  });
  const kB = (bytes: number, digits = 1) => `${(bytes / 1000).toFixed(digits)} kB`;
  perDialect("MCP tools/list as the bench's agent (lead.*)", '< 25 kB', (d) =>
    d.toolLists ? { text: `${kB(d.toolLists.agent.bytes)} (${d.toolLists.agent.tools} tools)`, met: d.toolLists.agent.bytes < TOOL_LIST_GOAL_BYTES } : undefined,
  );
  perDialect('MCP tools/list of the whole demo, as the admin', '< 25 kB (set for 26 tools: 0.96 kB a tool)', (d) =>
    d.toolLists
      ? { text: `${kB(d.toolLists.person.bytes)} (${d.toolLists.person.tools} tools, ${kB(d.toolLists.person.bytes / d.toolLists.person.tools, 2)} a tool)`, met: d.toolLists.person.bytes < TOOL_LIST_GOAL_BYTES }
      : undefined,
  );
  perDialect('RSS idle, demo modules', '< 80 MiB', (d) => {
    const value = median(d.idleRssMiB);
    return { text: formatMiB(value), met: value < 80 };
  });
  perDialect('RSS peak under lead.get load (wrk -t1 -c32)', '< 150 MiB', (d) => ({ text: formatMiB(d.peakLeadGetMiB), met: d.peakLeadGetMiB < 150 }));
  perDialect('RSS peak over every target above', '< 120 MiB', (d) => ({ text: formatMiB(d.peakAllMiB), met: d.peakAllMiB < 120 }));
  perDialect('start to `listening`, demo modules, seeded database', '< 1 s', (d) => {
    const value = median(d.startMs);
    return { text: formatSeconds(value), met: value < 1000 };
  });
  perDialect('start to `listening`, generated models', '< 3 s (200 models)', (d) => {
    if (!d.models) return undefined;
    const value = median(d.models.startMs);
    return {
      text: `${formatSeconds(value)} (${d.models.count} models; first start ${formatSeconds(d.models.firstStartMs)})`,
      ...(d.models.count === 200 ? { met: value < 3000 } : {}),
    };
  });
  perDialect('RSS idle, generated models', '—', (d) => (d.models ? { text: `${formatMiB(median(d.models.idleRssMiB))} (${d.models.count} models)` } : undefined));

  const sizes = report.build?.sizes ?? [];
  if (sizes.length > 0) {
    const largest = sizes[sizes.length - 1]!;
    const linear = buildLinearity(sizes);
    const under10 = largest.models === 200 ? largest.buildMs < 10_000 : undefined;
    const met = under10 === undefined ? undefined : under10 && (linear === undefined || linear.linear);
    rows.push({
      measure: `rmsgen build, ${sizes.map((size) => size.models).join(' / ')} models`,
      cells: {},
      target: '200 under 10 s, linear',
      shared: {
        text: `${sizes.map((size) => formatSeconds(size.buildMs)).join(' / ')}${linear ? ` (per model past ${sizes[0]!.models}: ${linear.marginalMs.map((ms) => `${ms.toFixed(0)} ms`).join(', then ')})` : ''}`,
        ...(met !== undefined ? { met } : {}),
      },
    });
    rows.push({
      measure: `rmsgen build --check, ${sizes.map((size) => size.models).join(' / ')} models`,
      cells: {},
      target: 'as fast as build',
      shared: {
        text: `${sizes.map((size) => formatSeconds(size.checkMs)).join(' / ')} (${(largest.checkMs / largest.buildMs).toFixed(2)} of build)`,
        met: largest.checkMs <= largest.buildMs * 1.1,
      },
    });
  }

  const header = `| Measure | ${DIALECTS.map((dialect) => DIALECT_NAMES[dialect]).join(' | ')} | Target | Met |`;
  const lines = [header, `|---|${DIALECTS.map(() => '---').join('|')}|---|---|`];
  for (const row of rows) {
    if (row.shared) {
      lines.push(`| ${row.measure} | ${row.shared.text} | (same) | ${row.target} | ${metText(row.shared.met)} |`);
      continue;
    }
    const cells = DIALECTS.map((dialect) => {
      const result = report.dialects[dialect];
      if (!result) return 'not run';
      if (result.skipped !== undefined) return 'not run';
      return row.cells[dialect]?.text ?? '—';
    });
    const met = DIALECTS.map((dialect) => row.cells[dialect]?.met).filter((value): value is boolean => value !== undefined);
    lines.push(`| ${row.measure} | ${cells.join(' | ')} | ${row.target} | ${met.length === 0 ? '—' : met.map(metText).join(' / ')} |`);
  }
  const skipped = DIALECTS.flatMap((dialect) => {
    const result = report.dialects[dialect];
    return result?.skipped !== undefined ? [`${DIALECT_NAMES[dialect]} not run: ${result.skipped}.`] : [];
  });
  const m = report.machine;
  const notes = [
    `${report.mode === 'smoke' ? 'SMOKE RUN: checks the harness only; the figures mean nothing. ' : ''}` +
      `${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}, wrk ${m.wrk}; load average ${m.loadAverageAtStart.map((value) => value.toFixed(2)).join(' ')} at start` +
      `${m.loadAverageAtEnd ? `, ${m.loadAverageAtEnd.map((value) => value.toFixed(2)).join(' ')} at end` : ''}; commit ${m.commit}; ${report.startedAt}.`,
    ...skipped,
  ];
  return [...lines, '', ...notes].join('\n');
}

/**
 * Marginal build time per model between successive sizes; linear when the last step costs no
 * more than 1.5 times the first per model (start-up costs are paid once, so the first step is
 * the cheapest a model can be).
 */
export function buildLinearity(sizes: BuildReport['sizes']): { marginalMs: number[]; linear: boolean } | undefined {
  if (sizes.length < 3) return undefined;
  const marginalMs = sizes.slice(1).map((size, i) => (size.buildMs - sizes[i]!.buildMs) / (size.models - sizes[i]!.models));
  return { marginalMs, linear: marginalMs[marginalMs.length - 1]! <= 1.5 * Math.max(marginalMs[0]!, 1) };
}

function metText(met: boolean | undefined): string {
  return met === undefined ? '—' : met ? 'yes' : '**no**';
}

function formatRps(value: number): string {
  return Number.isNaN(value) ? '—' : `${Math.round(value).toLocaleString('en')} req/s`;
}

function formatMiB(value: number): string {
  return `${value.toFixed(0)} MiB`;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
