/**
 * `npm run bench`: every performance target of the service in one table, on SQLite and on
 * PostgreSQL, with the raw figures as JSON under bench/results/ (git-ignored).
 *
 * Method (docs/performance.md): each server runs in a process of its own on 127.0.0.1 and the load
 * comes from wrk (-t1 -c32), a C client that leaves the CPU to the servers. Targets are measured
 * side by side in one run: after one warm-up round each, rounds alternate between them (a round is
 * one wrk run on each target in turn), and a target's figure is the median of its rounds. Ratios
 * are the median of the per-round ratios, so a slow patch on a shared machine affects both sides
 * of a ratio alike.
 *
 *   npm run bench                      # the full run (about 13 minutes; the first also installs Directus)
 *   npm run bench -- --smoke           # seconds: checks the harness, its figures mean nothing
 *   npm run bench -- --only sqlite     # or postgres; --no-pg is the same as --only sqlite
 *   npm run bench -- --before <dir>    # also lead.get of another checkout (built, node_modules
 *                                      # linked), on the same database: a change side by side
 *   npm run bench -- --rows 1000000    # the service at a million leads instead (bench/scale.ts)
 *   npm run bench -- --orders 1000000  # orders of 10 lines from rmsgen seed instead (bench/order-scale.ts;
 *                                      # issue 21's target scale, 10 minutes or more; 100000 for a quick look)
 *   npm run bench -- --webhooks        # events and webhooks instead (bench/webhooks.ts): what the outbox
 *                                      # costs single writes (with --before <checkout without it>), delivery rate
 *   npm run bench -- --webhook-kill    # 10,000 changes on two PostgreSQL instances, one SIGKILLed every 5 s,
 *                                      # a receiver failing 20 %: events lost, order, duplicates, p99 (bench/webhooks.ts)
 *   npm run bench -- --no-directus     # without Directus's create beside rmsgen's (bench/directus.ts: installed
 *                                      # into bench/.directus/ on the first full run, a few minutes)
 *   npm run bench -- --files           # files instead (bench/files.ts): a 200 MB upload's and download's RSS
 *                                      # and throughput, get with 10 files against none at 10,000 records
 *
 * PostgreSQL: RMS_BENCH_PG_URL (default postgres://postgres:rmsgen@127.0.0.1:54329/postgres, the
 * cluster of scripts/pg-cluster.sh); the bench creates a database of its own there and drops it at
 * the end. Without a reachable server the PostgreSQL column says so.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildServeOutputs } from '../bin/compile.ts';
import { agentToken, closeConnections, createCustomer, createLeads, createManyLeads, createNewLeads, createOrders, login, orderBody, post as postAnswer, type SeededLeads } from './api.ts';
import { installDirectus, startDirectus } from './directus.ts';
import { createModelProject, type ModelProject } from './model-project.ts';
import { runOrderScaleBench } from './order-scale.ts';
import { createPlainOrderProject, type PlainOrderProject } from './plain-order-project.ts';
import { freePort, runNode, startNode, stopAll, type StartedProcess } from './processes.ts';
import { BULK_RECORDS, DIRECTUS_VERSION, renderTable, type BenchReport, type Dialect, type DialectReport, type ModelStarts, type ToolListSizes } from './report.ts';
import { runScaleBench } from './scale.ts';
import { runFilesBench } from './files.ts';
import { runWebhookKillBench, runWebhooksBench } from './webhooks.ts';
import { prepareTarget, runWrk, SMOKE_ANSWERS, wrkVersion, type WrkResult, type WrkTarget } from './wrk.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_DIR = join(ROOT, 'bench', 'results');
const PASSWORD = 'bench-password-1';
const DEFAULT_PG_URL = 'postgres://postgres:rmsgen@127.0.0.1:54329/postgres';

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-pg': { type: 'boolean', default: false },
    before: { type: 'string' },
    rows: { type: 'string' },
    orders: { type: 'string' },
    webhooks: { type: 'boolean', default: false },
    'webhook-kill': { type: 'boolean', default: false },
    files: { type: 'boolean', default: false },
    'no-directus': { type: 'boolean', default: false },
  },
});

interface Settings {
  readonly mode: 'full' | 'smoke';
  readonly rounds: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly leads: number;
  /** Orders of `ORDER_LINES` lines created through the API for `order.get`. */
  readonly orders: number;
  /** Starts measured per project (start-up and idle memory are their medians). */
  readonly starts: number;
  /** How long a started server sits before its idle memory is read. */
  readonly idleSettleMs: number;
  /** Project sizes `rmsgen build` is timed on; the largest is also started. */
  readonly buildSizes: readonly number[];
  /** Smoke runs: each load ends after this many answers (bench/wrk.ts), within its seconds. */
  readonly stopAfter?: number;
}

const SETTINGS: Settings = flags.smoke
  ? { mode: 'smoke', rounds: 1, seconds: 1, warmupSeconds: 0, connections: 32, leads: 100, orders: 20, starts: 1, idleSettleMs: 500, buildSizes: [3], stopAfter: SMOKE_ANSWERS }
  : { mode: 'full', rounds: 3, seconds: 5, warmupSeconds: 2, connections: 32, leads: 10_000, orders: 1000, starts: 3, idleSettleMs: 2000, buildSizes: [50, 100, 200] };

const dialects: Dialect[] = flags.only === 'postgres' ? ['postgres'] : flags.only === 'sqlite' || flags['no-pg'] ? ['sqlite'] : ['sqlite', 'postgres'];
if (flags.only !== undefined && flags.only !== 'sqlite' && flags.only !== 'postgres') {
  console.error(`--only takes sqlite or postgres, not ${flags.only}`);
  process.exit(2);
}

const log = (line: string) => console.log(`[bench] ${line}`);

/** The body of each `lead.create` of the bench, and of Directus's create beside it: a new lead a request. */
const CREATE_BODY = { title: 'Bench lead {{n}}', notes: 'Call back about bench lead {{n}}' };

/** Lines of each order `order.get` reads and `order.create` writes (issue 21's targets). */
const ORDER_LINES = 20;

const wrk = wrkVersion();
if (wrk === undefined) {
  console.error('wrk is not installed: apt-get install wrk');
  process.exit(1);
}

const workDir = mkdtempSync(join(tmpdir(), 'rmsgen-bench-'));
const startedAt = new Date();
const report: BenchReport = {
  startedAt: startedAt.toISOString(),
  mode: SETTINGS.mode,
  settings: SETTINGS,
  machine: {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    wrk,
    loadAverageAtStart: loadavg(),
    commit: gitDescribe(),
  },
  build: undefined,
  dialects: {},
};

if (flags.orders !== undefined) {
  // Orders with their lines at scale (issue 21): a mode of its own, see bench/order-scale.ts.
  const orders = /^\d+$/.test(flags.orders) ? Number(flags.orders) : Number.NaN;
  if (!Number.isInteger(orders) || orders < 100 || orders > 10_000_000) {
    console.error(`--orders takes a whole number from 100 to 10000000, not ${flags.orders}`);
    process.exit(2);
  }
  try {
    await buildServeOutputs({ log });
    await runOrderScaleBench({ orders, dialects, seconds: flags.smoke ? 1 : 5, stopAfter: SETTINGS.stopAfter, workDir, openDatabase: openBenchDatabase, log });
  } finally {
    closeConnections();
    await stopAll();
    rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(0);
}

if (flags['webhook-kill']) {
  // Webhooks through kills (issue 22's measurement): a mode of its own, PostgreSQL only, see bench/webhooks.ts.
  try {
    await buildServeOutputs({ log });
    await runWebhookKillBench({ changes: flags.smoke ? 500 : 10_000, killEveryMs: flags.smoke ? 2_000 : 5_000, roundGapMs: flags.smoke ? 3_000 : 20_000, openDatabase: openBenchDatabase, log });
  } finally {
    closeConnections();
    await stopAll();
    rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(0);
}

if (flags.webhooks) {
  // Events and webhooks (issue 22): a mode of its own, see bench/webhooks.ts.
  try {
    await buildServeOutputs({ log });
    // Short rounds, many: side by side, so that the load of a shared machine moves both sides alike.
    await runWebhooksBench({ dialects, seconds: flags.smoke ? 1 : 2, stopAfter: SETTINGS.stopAfter, rounds: flags.smoke ? 1 : 9, connections: SETTINGS.connections, events: flags.smoke ? 1000 : 10_000, before: flags.before, workDir, openDatabase: openBenchDatabase, log });
  } finally {
    closeConnections();
    await stopAll();
    rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(0);
}

if (flags.files) {
  // Files (issue 23): a mode of its own, see bench/files.ts. --smoke: 32 MB and 1,000 records.
  try {
    await buildServeOutputs({ log });
    await runFilesBench({ dialects, records: flags.smoke ? 1000 : 10_000, transferMiB: flags.smoke ? 32 : 200, seconds: flags.smoke ? 1 : 2, stopAfter: SETTINGS.stopAfter, rounds: flags.smoke ? 1 : 15, connections: SETTINGS.connections, workDir, openDatabase: openBenchDatabase, log });
  } finally {
    closeConnections();
    await stopAll();
    rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(0);
}

if (flags.rows !== undefined) {
  // At scale (issue 13): a mode of its own, see bench/scale.ts.
  const rows = /^\d+$/.test(flags.rows) ? Number(flags.rows) : Number.NaN;
  if (!Number.isInteger(rows) || rows < 1000 || rows > 10_000_000) {
    console.error(`--rows takes a whole number from 1000 to 10000000, not ${flags.rows}`);
    process.exit(2);
  }
  try {
    await buildServeOutputs({ log });
    await runScaleBench({ rows, dialects, seconds: flags.smoke ? 1 : 5, stopAfter: SETTINGS.stopAfter, workDir, openDatabase: openBenchDatabase, log });
  } finally {
    closeConnections();
    await stopAll();
    rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(0);
}

/** Why Directus's create is not measured in this run, if it is not (bench/directus.ts). */
let directusNotRun: string | undefined;

try {
  await buildServeOutputs({ log });
  directusNotRun = flags['no-directus'] ? 'left out with --no-directus' : flags.smoke ? 'not in a smoke run' : await installDirectus(log);
  const largest = await measureBuilds(report);
  let plainOrder: PlainOrderProject | undefined;
  try {
    log('rmsgen build: the demo with an order without rules and computed fields');
    plainOrder = await createPlainOrderProject();
    for (const dialect of dialects) {
      report.dialects[dialect] = await measureDialect(dialect, largest, plainOrder);
    }
  } finally {
    largest?.remove();
    plainOrder?.remove();
  }
  report.machine.loadAverageAtEnd = loadavg();
  report.finishedAt = new Date().toISOString();
  const table = renderTable(report);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const jsonFile = join(RESULTS_DIR, `${stamp}-${SETTINGS.mode}.json`);
  writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(RESULTS_DIR, `${stamp}-${SETTINGS.mode}.md`), `${table}\n`);
  console.log('');
  console.log(table);
  console.log('');
  log(`raw results: ${jsonFile.slice(ROOT.length)}`);
} finally {
  closeConnections();
  await stopAll();
  rmSync(workDir, { recursive: true, force: true });
}

/** `rmsgen build` and `build --check` of generated projects; returns the largest, built, for start-up. */
async function measureBuilds(into: BenchReport): Promise<ModelProject | undefined> {
  const builds: { models: number; buildMs: number; checkMs: number }[] = [];
  let largest: ModelProject | undefined;
  for (const models of SETTINGS.buildSizes) {
    const project = createModelProject(models, join(workDir, `models-${models}`));
    log(`rmsgen build: ${models} models`);
    const build = await runNode(['bin/rmsgen.js', 'build'], { cwd: project.dir });
    if (build.code !== 0) throw new Error(`rmsgen build of ${models} models failed:\n${build.output}`);
    const check = await runNode(['bin/rmsgen.js', 'build', '--check'], { cwd: project.dir });
    if (check.code !== 0) throw new Error(`rmsgen build --check of ${models} models failed:\n${check.output}`);
    builds.push({ models, buildMs: build.ms, checkMs: check.ms });
    largest?.remove();
    largest = project;
  }
  into.build = { sizes: builds };
  return largest;
}

async function measureDialect(dialect: Dialect, modelProject: ModelProject | undefined, plainOrder: PlainOrderProject): Promise<DialectReport> {
  const database = await openBenchDatabase(dialect, 'demo');
  if (typeof database === 'string') {
    log(`${dialect}: not run (${database})`);
    return { skipped: database };
  }
  const cleanups: (() => Promise<void>)[] = [database.drop];
  try {
    // Without request lines: every row but the observability row measures the service, not its log (see startObservedServer).
    const serveArgs = ['bin/rmsgen.js', 'serve', '--port', '0', '--db', database.url, '--no-request-log'];
    const env = { RMS_ADMIN_PASSWORD: PASSWORD };

    // Seeding: a server of its own, so that the measured one has served nothing but the load.
    log(`${dialect}: seeding ${SETTINGS.leads} leads through the API`);
    const seeder = await startNode('rmsgen (seeding)', serveArgs, { cwd: ROOT, env });
    const firstStartMs = seeder.startMs;
    const personToken = await login(seeder.url, PASSWORD);
    const seedStarted = performance.now();
    const leads = await createLeads(seeder.url, personToken, SETTINGS.leads);
    const seedMs = performance.now() - seedStarted;
    log(`${dialect}: creating ${SETTINGS.orders} orders of ${ORDER_LINES} lines through the API`);
    const customer = await createCustomer(seeder.url, personToken);
    const orders = { customer, ids: await createOrders(seeder.url, personToken, customer, SETTINGS.orders, ORDER_LINES) };
    const agent = await agentToken(seeder.url, personToken);
    closeConnections();
    await seeder.stop();

    // Start-up and idle memory: starts on the seeded database; the last one is measured under load.
    const demoStarts = await measureStarts(`${dialect} demo`, serveArgs, ROOT, env);
    const rms = demoStarts.last;
    cleanups.push(rms.stop);

    const [httpPort, expressPort] = [await freePort(), await freePort()];
    const baselineUrl = database.url;
    const bareHttp = await startNode('bare node:http', ['--import', 'tsx', 'bench/baseline-server.ts', 'http', baselineUrl, String(httpPort)], { cwd: ROOT });
    cleanups.push(bareHttp.stop);
    const bareExpress = await startNode('bare Express', ['--import', 'tsx', 'bench/baseline-server.ts', 'express', baselineUrl, String(expressPort)], { cwd: ROOT });
    cleanups.push(bareExpress.stop);
    // The same orders created on the demo without rules and computed fields, on a database of its own.
    const plainDatabase = await openBenchDatabase(dialect, 'plainorder');
    if (typeof plainDatabase === 'string') throw new Error(plainDatabase);
    cleanups.push(plainDatabase.drop);
    const plain = await startNode('rmsgen (order without rules and computed fields)', ['bin/rmsgen.js', 'serve', '--port', '0', '--db', plainDatabase.url], { cwd: plainOrder.dir, env });
    cleanups.push(plain.stop);
    const plainToken = await login(plain.url, PASSWORD);
    const plainOrders = { url: plain.url, token: plainToken, customer: await createCustomer(plain.url, plainToken) };
    const observed = await startObservedServer(database.url, env);
    cleanups.push(observed.stop);
    let before: StartedProcess | undefined;
    if (flags.before !== undefined) {
      before = await startNode('rmsgen (before)', ['bin/rmsgen.js', 'serve', '--port', '0', '--db', database.url], { cwd: flags.before, env });
      cleanups.push(before.stop);
    }

    const targets = await prepareTargets(dialect, { rms, bareHttp, bareExpress, before, observed }, leads, personToken, agent, orders, plainOrders);
    const directusReport = await addDirectusTarget(dialect, targets, cleanups);
    const toolLists = await measureToolLists(rms.url, personToken, agent);

    // Peak memory under the load the target names (lead.get as a person), on a server that has served nothing else.
    log(`${dialect}: lead.get load on a fresh server for its peak memory`);
    await runWrk(targets.person!, { seconds: SETTINGS.seconds, connections: SETTINGS.connections, stopAfter: SETTINGS.stopAfter });
    const peakLeadGetMiB = rms.peakRssMiB();

    if (SETTINGS.warmupSeconds > 0) {
      log(`${dialect}: warm-up round`);
      for (const [name, target] of Object.entries(targets)) {
        const measured = name === 'action' ? await actionTarget(rms.url, personToken, `${dialect}-warm-up`, actionLeads(SETTINGS.warmupSeconds)) : target;
        await runWrk(measured, { seconds: SETTINGS.warmupSeconds, connections: SETTINGS.connections, stopAfter: SETTINGS.stopAfter });
      }
    }
    const rounds: Record<string, WrkResult[]> = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
    for (let round = 0; round < SETTINGS.rounds; round++) {
      log(`${dialect}: round ${round + 1} of ${SETTINGS.rounds}`);
      for (const [name, target] of Object.entries(targets)) {
        const measured = name === 'action' ? await actionTarget(rms.url, personToken, `${dialect}-${round + 1}`, actionLeads(SETTINGS.seconds)) : target;
        rounds[name]!.push(await runWrk(measured, { seconds: SETTINGS.seconds, connections: SETTINGS.connections, stopAfter: SETTINGS.stopAfter }));
      }
    }
    const peakAllMiB = rms.peakRssMiB();
    const createManyPerSecond = await measureCreateMany(dialect, env);

    let models: ModelStarts | undefined;
    if (modelProject) {
      const modelDatabase = await openBenchDatabase(dialect, `models${modelProject.models}`);
      if (typeof modelDatabase === 'string') throw new Error(modelDatabase);
      try {
        const args = ['bin/rmsgen.js', 'serve', '--port', '0', '--db', modelDatabase.url];
        const first = await startNode(`rmsgen (${modelProject.models} models, first start)`, args, { cwd: modelProject.dir, env });
        await first.stop();
        const starts = await measureStarts(`${dialect} ${modelProject.models} models`, args, modelProject.dir, env);
        await starts.last.stop();
        models = { count: modelProject.models, firstStartMs: first.startMs, startMs: starts.startMs, idleRssMiB: starts.idleRssMiB };
      } finally {
        await modelDatabase.drop();
      }
    }

    return {
      leads: SETTINGS.leads,
      won: leads.won,
      orders: SETTINGS.orders,
      orderLines: ORDER_LINES,
      seedMs,
      firstStartMs,
      startMs: demoStarts.startMs,
      idleRssMiB: demoStarts.idleRssMiB,
      peakLeadGetMiB,
      peakAllMiB,
      baselineIdleRssMiB: { http: bareHttp.rssMiB(), express: bareExpress.rssMiB() },
      rounds,
      createManyPerSecond,
      toolLists,
      directus: directusReport,
      ...(models ? { models } : {}),
    };
  } finally {
    closeConnections();
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/**
 * `lead.create_many` of 1,000 leads, three calls per round after a warm-up, on a database
 * and server of their own (so that the leads they add change nothing the other targets read).
 */
async function measureCreateMany(dialect: Dialect, env: Record<string, string>): Promise<number[]> {
  const database = await openBenchDatabase(dialect, 'bulk');
  if (typeof database === 'string') throw new Error(database);
  const server = await startNode('rmsgen (create_many)', ['bin/rmsgen.js', 'serve', '--port', '0', '--db', database.url], { cwd: ROOT, env });
  try {
    log(`${dialect}: lead.create_many of ${BULK_RECORDS} leads`);
    const token = await login(server.url, PASSWORD);
    // Warmed up for as long as the wrk targets are (at least one call): a fresh server's first calls
    // run before the JIT has compiled their path, at a third to a half of the rate of later ones.
    const warmUntil = performance.now() + SETTINGS.warmupSeconds * 1000;
    do await createManyLeads(server.url, token, BULK_RECORDS, 1);
    while (performance.now() < warmUntil);
    return await createManyLeads(server.url, token, BULK_RECORDS, SETTINGS.rounds * 3);
  } finally {
    closeConnections();
    await server.stop();
    await database.drop();
  }
}

/**
 * Directus's create as one more target (bench/directus.ts), on a database of its own, checked to
 * create what it is sent. A Directus that will not start or answer leaves its row saying why, and
 * the rest of the run goes on.
 */
async function addDirectusTarget(dialect: Dialect, targets: Record<string, WrkTarget>, cleanups: (() => Promise<void>)[]): Promise<{ version: string } | { notRun: string }> {
  if (directusNotRun !== undefined) return { notRun: directusNotRun };
  const database = await openBenchDatabase(dialect, 'directus');
  if (typeof database === 'string') throw new Error(database);
  cleanups.push(database.drop);
  log(`${dialect}: Directus ${DIRECTUS_VERSION} beside lead.create`);
  try {
    const directus = await startDirectus(dialect, database.url, join(workDir, `directus-${dialect}`));
    cleanups.push(directus.server.stop);
    const headers = { authorization: `Bearer ${directus.token}` };
    const check = await postAnswer(`${directus.server.url}/items/lead`, { title: 'Bench lead check', notes: 'Call back' }, headers);
    closeConnections();
    if (check.status !== 200 || (check.json as { data?: { title?: unknown } }).data?.title !== 'Bench lead check') {
      throw new Error(`its POST /items/lead answered ${check.status}`);
    }
    // The same body as rmsgen's create, a new record a request; after it in each round.
    targets.directusCreate = prepareTarget(join(workDir, dialect), 'directus-create', `${directus.server.url}/items/lead`, [CREATE_BODY], headers);
    return { version: DIRECTUS_VERSION };
  } catch (error) {
    const reason = `Directus ${DIRECTUS_VERSION} did not run: ${(error as Error).message.split('\n')[0]}`;
    log(`${dialect}: ${reason}`);
    return { notRun: reason };
  }
}

/** `SETTINGS.starts` starts, one after another; all but the last are stopped. Medians of start-up and idle memory. */
async function measureStarts(
  label: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ startMs: number[]; idleRssMiB: number[]; last: StartedProcess }> {
  const startMs: number[] = [];
  const idleRssMiB: number[] = [];
  let last: StartedProcess | undefined;
  for (let i = 0; i < SETTINGS.starts; i++) {
    if (last) await last.stop();
    last = await startNode(`rmsgen (${label})`, args, { cwd, env });
    await sleep(SETTINGS.idleSettleMs);
    startMs.push(last.startMs);
    idleRssMiB.push(last.rssMiB());
  }
  log(`${label}: start-up ${startMs.map((ms) => `${Math.round(ms)} ms`).join(', ')}; idle ${idleRssMiB.map((mib) => `${mib.toFixed(1)} MiB`).join(', ')}`);
  return { startMs, idleRssMiB, last: last! };
}

interface Servers {
  readonly rms: StartedProcess;
  readonly bareHttp: StartedProcess;
  readonly bareExpress: StartedProcess;
  readonly before: StartedProcess | undefined;
  /** The observability row's server (startObservedServer). */
  readonly observed: StartedProcess;
}

/**
 * What metrics and JSON request lines cost (docs/operations.md; target: under 5 % on lead.get): a
 * second server on the same database that keeps metrics (`--metrics-port`) and writes a JSON line
 * per request to its stdout (a pipe the bench reads, as a log collector would), measured side by
 * side with the main server, which keeps neither (`--no-request-log`, no metrics port).
 */
function startObservedServer(dbUrl: string, env: Record<string, string>): Promise<StartedProcess> {
  return startNode('rmsgen (metrics and JSON request lines)', ['bin/rmsgen.js', 'serve', '--port', '0', '--db', dbUrl, '--metrics-port', '0', '--log-format', 'json'], { cwd: ROOT, env });
}

/**
 * `lead.qualify` (new → qualified: an action, with its history and audit rows) on `count` fresh
 * leads, each once: an action changes a record's state, so a round cannot repeat one. A round
 * that asks for more than there are gets 409s, which the table shows as errors.
 */
async function actionTarget(url: string, token: string, label: string, count: number): Promise<WrkTarget> {
  const ids = await createNewLeads(url, token, count, `Action lead ${label}`);
  mkdirSync(join(workDir, 'actions'), { recursive: true });
  return prepareTarget(join(workDir, 'actions'), `action-${label}`, `${url}/api/lead/qualify`, ids.map((id) => ({ id })), { authorization: `Bearer ${token}` });
}

/**
 * Fresh leads enough for a round of `lead.qualify`: `seconds` of it (with group commit SQLite
 * answered it some 3,700 times a second here, and ran out of the 3,000 a second this was), or a
 * smoke run's answers and the requests still in flight when it stops.
 */
function actionLeads(seconds: number): number {
  const forSeconds = Math.ceil(seconds * 8000);
  return SETTINGS.stopAfter === undefined ? forSeconds : Math.min(forSeconds, SETTINGS.stopAfter + SETTINGS.connections);
}

/** Every target's requests, each checked once to answer what it should before it is loaded. */
async function prepareTargets(
  dialect: Dialect,
  servers: Servers,
  leads: SeededLeads,
  personToken: string,
  agent: string,
  orders: { readonly customer: string; readonly ids: readonly string[] },
  plainOrders: { readonly url: string; readonly token: string; readonly customer: string },
): Promise<Record<string, WrkTarget>> {
  const dir = join(workDir, dialect);
  mkdirSync(dir, { recursive: true });
  const ids = leads.ids;
  const getBodies = ids.map((id) => ({ id }));
  const person = { authorization: `Bearer ${personToken}` };
  const asAgent = { authorization: `Bearer ${agent}` };
  const mcpHeaders = { ...asAgent, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  const mcpBodies = ids.map((id, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'lead__get', arguments: { id } } }));
  const searchBody = {
    filter: [{ field: 'stage', op: 'eq', value: 'won' }],
    order: [{ field: 'expected_revenue', dir: 'desc' }],
    limit: 50,
  };

  const targets: Record<string, WrkTarget> = {
    http: prepareTarget(dir, 'http', `${servers.bareHttp.url}/api/lead/get`, getBodies, {}),
    express: prepareTarget(dir, 'express', `${servers.bareExpress.url}/api/lead/get`, getBodies, {}),
    person: prepareTarget(dir, 'person', `${servers.rms.url}/api/lead/get`, getBodies, person),
    agent: prepareTarget(dir, 'agent', `${servers.rms.url}/api/lead/get`, getBodies, asAgent),
    mcp: prepareTarget(dir, 'mcp', `${servers.rms.url}/mcp`, mcpBodies, mcpHeaders),
    search: prepareTarget(dir, 'search', `${servers.rms.url}/api/lead/search`, [searchBody], person),
    orderGet: prepareTarget(dir, 'order-get', `${servers.rms.url}/api/order/get`, orders.ids.map((id) => ({ id })), person),
    // Every request a new order (`{{n}}`: a number no other request has, see bench/wrk/post.lua).
    orderCreate: prepareTarget(dir, 'order-create', `${servers.rms.url}/api/order/create`, [orderBody('{{n}}', orders.customer, ORDER_LINES)], person),
    orderCreatePlain: prepareTarget(dir, 'order-create-plain', `${plainOrders.url}/api/order/create`, [orderBody('{{n}}', plainOrders.customer, ORDER_LINES, true)], {
      authorization: `Bearer ${plainOrders.token}`,
    }),  };
  if (servers.before) targets.before = prepareTarget(dir, 'before', `${servers.before.url}/api/lead/get`, getBodies, person);
  targets.observed = prepareTarget(dir, 'observed', `${servers.observed.url}/api/lead/get`, getBodies, person);
  // Writes (issue 25), each with its history and audit rows: a new lead per request; a changed
  // note on the seeded leads in turn; the action on fresh leads, each once (see actionTarget).
  // Last in each round: the rows they add (some 20,000 leads a round) must not weigh on the reads
  // of the same round that their ratios pair (observed against person above).
  targets.create = prepareTarget(dir, 'create', `${servers.rms.url}/api/lead/create`, [CREATE_BODY], person);
  targets.update = prepareTarget(dir, 'update', `${servers.rms.url}/api/lead/update`, ids.map((id) => ({ id, notes: 'Call back about the renewal of contract {{n}}' })), person);
  targets.action = await actionTarget(servers.rms.url, personToken, 'check', 1);

  const id = ids[1]!;
  const value = (answer: { json: unknown }) => (answer.json as { value?: Record<string, unknown> }).value;
  // The checks' answers other than 200, to say what came back when a check fails.
  const refused: string[] = [];
  const post: typeof postAnswer = async (url, body, headers) => {
    const answer = await postAnswer(url, body, headers);
    if (answer.status !== 200) refused.push(`${new URL(url).pathname}: ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`);
    return answer;
  };
  const checks: [string, Promise<boolean>][] = [
    ['bare node:http', post(`${servers.bareHttp.url}/api/lead/get`, { id }).then((a) => a.status === 200 && value(a)?.id === id)],
    ['bare Express', post(`${servers.bareExpress.url}/api/lead/get`, { id }).then((a) => a.status === 200 && value(a)?.id === id)],
    ['lead.get as a person', post(`${servers.rms.url}/api/lead/get`, { id }, person).then((a) => a.status === 200 && String(value(a)?.notes).startsWith('Call back'))],
    ['lead.get with metrics and JSON request lines', post(`${servers.observed.url}/api/lead/get`, { id }, person).then((a) => a.status === 200 && String(value(a)?.notes).startsWith('Call back'))],
    ['lead.get as an agent', post(`${servers.rms.url}/api/lead/get`, { id }, asAgent).then((a) => a.status === 200 && /^NOTES_\d+$/.test(String(value(a)?.notes)))],
    [
      'MCP lead__get',
      post(`${servers.rms.url}/mcp`, mcpBodies[1], mcpHeaders).then((a) => {
        const result = (a.json as { result?: { isError?: boolean; structuredContent?: { value?: { notes?: unknown } } } }).result;
        return a.status === 200 && result !== undefined && result.isError !== true && /^NOTES_\d+$/.test(String(result.structuredContent?.value?.notes));
      }),
    ],
    [
      'lead.search',
      post(`${servers.rms.url}/api/lead/search`, searchBody, person).then((a) => {
        const page = value(a) as { rows?: unknown[]; total?: number } | undefined;
        return a.status === 200 && page?.total === leads.won && page.rows?.length === Math.min(50, leads.won);
      }),
    ],
    ['lead.create', post(`${servers.rms.url}/api/lead/create`, { title: 'Bench lead check' }, person).then((a) => a.status === 200 && value(a)?.title === 'Bench lead check')],
    ['lead.update', post(`${servers.rms.url}/api/lead/update`, { id, notes: 'Call back about the renewal of contract 1' }, person).then((a) => a.status === 200 && value(a)?.notes === 'Call back about the renewal of contract 1')],
    [
      'lead.qualify',
      actionTarget(servers.rms.url, personToken, 'checked', 1).then(async (target) => {
        const first = JSON.parse(readFileSync(target.bodiesFile, 'utf8').split('\n')[0]!) as { id: string };
        const a = await post(`${servers.rms.url}/api/lead/qualify`, first, person);
        return a.status === 200 && value(a)?.stage === 'qualified';
      }),
    ],
    [
      `order.get of ${ORDER_LINES} lines`,
      post(`${servers.rms.url}/api/order/get`, { id: orders.ids[1] }, person).then((a) => {
        const order = value(a) as { items?: { amount: number }[]; total?: number } | undefined;
        return a.status === 200 && order?.items?.length === ORDER_LINES && order.total === order.items.reduce((sum, item) => sum + item.amount, 0);
      }),
    ],
    [
      `order.create of ${ORDER_LINES} lines`,
      post(`${servers.rms.url}/api/order/create`, orderBody('9000001', orders.customer, ORDER_LINES), person).then((a) => a.status === 200 && (value(a)?.items as unknown[] | undefined)?.length === ORDER_LINES),
    ],
    [
      `order.create of ${ORDER_LINES} lines, without rules and computed fields`,
      post(`${plainOrders.url}/api/order/create`, orderBody('9000001', plainOrders.customer, ORDER_LINES, true), { authorization: `Bearer ${plainOrders.token}` }).then(
        (a) => a.status === 200 && (value(a)?.items as unknown[] | undefined)?.length === ORDER_LINES,
      ),
    ],
  ];
  for (const [name, check] of checks) {
    if (!(await check)) throw new Error(`${dialect}: ${name} does not answer as expected; not measuring it${refused.length > 0 ? ` (answers other than 200: ${refused.join('; ')})` : ''}`);
  }
  closeConnections();
  return targets;
}

/**
 * What `tools/list` weighs (issue 25: every conversation of every agent pays for it), in bytes of
 * its JSON result: for the bench's agent (scopes `lead.*`) and for the admin, who sees every tool.
 */
async function measureToolLists(url: string, personToken: string, agent: string): Promise<ToolListSizes> {
  const size = async (token: string) => {
    const answer = await postAnswer(`${url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' });
    const result = (answer.json as { result?: { tools?: unknown[] } }).result;
    if (answer.status !== 200 || !Array.isArray(result?.tools)) throw new Error(`tools/list answered ${answer.status}; not measuring it`);
    return { tools: result.tools.length, bytes: Buffer.byteLength(JSON.stringify(result)) };
  };
  const sizes = { agent: await size(agent), person: await size(personToken) };
  closeConnections();
  return sizes;
}

interface BenchDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh database for one part of the run: a SQLite file in the work folder, or a new PostgreSQL database. */
async function openBenchDatabase(dialect: Dialect, name: string): Promise<BenchDatabase | string> {
  if (dialect === 'sqlite') {
    const file = join(workDir, `${name}.sqlite`);
    return { url: `sqlite:${file}`, drop: async () => rmSync(file, { force: true }) };
  }
  const adminUrl = process.env.RMS_BENCH_PG_URL ?? DEFAULT_PG_URL;
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    return `PostgreSQL at ${redact(adminUrl)} unreachable: ${(error as Error).message}`;
  }
  const database = `rmsgen_bench_${process.pid}_${name}`;
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.query(`CREATE DATABASE ${database} ENCODING 'UTF8' TEMPLATE template0`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

function gitDescribe(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} (with uncommitted changes)` : commit;
  } catch {
    return 'unknown';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
