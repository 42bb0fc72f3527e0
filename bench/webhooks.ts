/**
 * `npm run bench -- --webhooks [--before <dir>]`: what events and webhooks cost, and how fast they
 * go (issue 22's targets), per database:
 *
 * - **Outbox cost on single writes** (target < 10 %): `lead.create` and `lead.update` by wrk on this
 *   checkout and, side by side on the same database, on `--before <dir>`, a checkout of the commit
 *   before the outbox (built, node_modules linked, as the main bench's `--before`): the median of
 *   the per-round ratios of writes per second, and of the server process's CPU time per write
 *   (/proc: what the write costs the server, which other load on the machine moves less than its
 *   rate; on PostgreSQL the database's own work is not in it). Rounds are short and many, side by
 *   side. Without `--before` this row is not measured.
 * - **Writes while a webhook delivers**: the same writes with one webhook subscribed to a local
 *   receiver, against none (the worker's work beside the writes).
 * - **Delivery rate** (target ≥ 500 events/s): 10,000 leads made by `lead.create_many` with one
 *   webhook subscribed to a receiver in this process (node:http on 127.0.0.1, answering 204): events
 *   received per second, first to last, and the time from an event's commit to its arrival (p50,
 *   p99).
 *
 * The servers run `rmsgen serve --allow-private-webhooks` (the receiver is on loopback).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeConnections, createLeads, createManyLeads, login, post } from './api.ts';
import { cpuMs, startNode, type StartedProcess } from './processes.ts';
import { median, pairedRatio } from './report.ts';
import { prepareTarget, runWrk, type WrkResult, type WrkTarget } from './wrk.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PASSWORD = 'bench-password-1';

/** A wrk run with the server's CPU time per request. */
interface Measured {
  readonly result: WrkResult;
  readonly cpuUsPerRequest: number;
}

export interface WebhooksBenchOptions {
  readonly dialects: readonly ('sqlite' | 'postgres')[];
  readonly seconds: number;
  /** Smoke runs: each load ends after this many answers (bench/wrk.ts). */
  readonly stopAfter?: number;
  readonly rounds: number;
  readonly connections: number;
  /** Events the delivery rate is measured over (10,000; fewer in a smoke run). */
  readonly events: number;
  readonly before: string | undefined;
  readonly workDir: string;
  readonly openDatabase: (dialect: 'sqlite' | 'postgres', name: string) => Promise<{ url: string; drop(): Promise<void> } | string>;
  readonly log: (line: string) => void;
}

interface Receiver {
  readonly url: string;
  /** Arrival time (ms since the epoch) of each request, with its event's `at`. */
  readonly arrivals: { readonly at: number; readonly committedAt: number }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals: { at: number; committedAt: number }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      arrivals.push({ at: Date.now(), committedAt: Date.parse((JSON.parse(body) as { at: string }).at) });
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function runWebhooksBench(options: WebhooksBenchOptions): Promise<void> {
  const { log } = options;
  const lines: string[] = ['| Measure | Database | Figure | Target |', '| --- | --- | --- | --- |'];
  for (const dialect of options.dialects) {
    const database = await options.openDatabase(dialect, 'webhooks');
    if (typeof database === 'string') {
      log(`${dialect}: not run (${database})`);
      continue;
    }
    const servers: StartedProcess[] = [];
    const cleanups: (() => Promise<void>)[] = [];
    const receiver = await startReceiver();
    try {
      // The checkout before the outbox has no webhooks, nor their flag.
      const serve = (cwd: string, name: string, db: string) =>
        startNode(name, ['bin/rmsgen.js', 'serve', '--port', '0', '--db', db, '--no-request-log', ...(cwd === ROOT ? ['--allow-private-webhooks'] : [])], { cwd, env: { RMS_ADMIN_PASSWORD: PASSWORD } });
      const current = await serve(ROOT, 'rmsgen', database.url);
      servers.push(current);
      const token = await login(current.url, PASSWORD);
      log(`${dialect}: 200 leads to update`);
      const { ids } = await createLeads(current.url, token, 200);
      // The checkout before the outbox writes to a database of its own (two processes writing one
      // SQLite file wait for each other's locks), with leads of its own.
      let before: StartedProcess | undefined;
      let beforeToken: string | undefined;
      let beforeIds: readonly string[] = [];
      if (options.before) {
        const beforeDatabase = await options.openDatabase(dialect, 'webhooks_before');
        if (typeof beforeDatabase === 'string') throw new Error(beforeDatabase);
        cleanups.push(beforeDatabase.drop);
        before = await serve(options.before, 'rmsgen (before the outbox)', beforeDatabase.url);
        servers.push(before);
        beforeToken = await login(before.url, PASSWORD);
        beforeIds = (await createLeads(before.url, beforeToken, 200)).ids;
      }

      const dir = join(options.workDir, `webhooks-${dialect}`);
      mkdirSync(dir, { recursive: true });
      const writes = (url: string, bearer: string, name: string, leads: readonly string[]): { create: WrkTarget; update: WrkTarget } => ({
        create: prepareTarget(dir, `${name}-create`, `${url}/api/lead/create`, [{ title: 'Bench lead {{n}}', probability: 10 }], { authorization: `Bearer ${bearer}` }),
        update: prepareTarget(dir, `${name}-update`, `${url}/api/lead/update`, leads.map((id) => ({ id, title: 'Renamed {{n}}' })), { authorization: `Bearer ${bearer}` }),
      });
      const targets: Record<string, { target: WrkTarget; pid: number }> = {};
      const mine = writes(current.url, token, 'current', ids);
      targets.create = { target: mine.create, pid: current.pid };
      targets.update = { target: mine.update, pid: current.pid };
      if (before && beforeToken) {
        const theirs = writes(before.url, beforeToken, 'before', beforeIds);
        targets.createBefore = { target: theirs.create, pid: before.pid };
        targets.updateBefore = { target: theirs.update, pid: before.pid };
      }
      const measure = async ({ target, pid }: { target: WrkTarget; pid: number }, seconds: number): Promise<Measured> => {
        const cpuBefore = cpuMs(pid);
        const result = await runWrk(target, { seconds, connections: options.connections, stopAfter: options.stopAfter });
        return { result, cpuUsPerRequest: ((cpuMs(pid) - cpuBefore) * 1000) / result.requests };
      };
      const measureRounds = async (label: string): Promise<Record<string, Measured[]>> => {
        const rounds: Record<string, Measured[]> = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
        for (const target of Object.values(targets)) await measure(target, 1);
        log(`${dialect}: ${label}, ${options.rounds} rounds`);
        for (let round = 0; round < options.rounds; round++) {
          for (const [name, target] of Object.entries(targets)) rounds[name]!.push(await measure(target, options.seconds));
        }
        return rounds;
      };
      const results = (measured: readonly Measured[]) => measured.map((one) => one.result);
      const cpuRatio = (numerator: readonly Measured[], denominator: readonly Measured[]) => median(numerator.map((one, i) => one.cpuUsPerRequest / denominator[i]!.cpuUsPerRequest));
      const cpu = (measured: readonly Measured[]) => `${Math.round(median(measured.map((one) => one.cpuUsPerRequest)))} µs`;
      const quiet = await measureRounds('writes without a webhook');
      const rps = (measured: readonly Measured[]) => `${Math.round(median(measured.map((one) => one.result.requestsPerSecond))).toLocaleString('en')}/s`;
      for (const kind of ['create', 'update'] as const) {
        const withOutbox = quiet[kind]!;
        const without = quiet[`${kind}Before`];
        if (without) {
          const cost = 1 - pairedRatio(results(withOutbox), results(without));
          const cpuCost = cpuRatio(withOutbox, without) - 1;
          const met = (value: number) => (value < 0.1 ? '✓' : '✗');
          lines.push(`| outbox cost on single writes: lead.${kind}, writes/s (${rps(withOutbox)} against ${rps(without)} before it) | ${dialect} | ${(cost * 100).toFixed(1)} % | < 10 % ${met(cost)} |`);
          lines.push(`| outbox cost on single writes: lead.${kind}, server CPU per write (${cpu(withOutbox)} against ${cpu(without)}) | ${dialect} | ${(cpuCost * 100).toFixed(1)} % | < 10 % ${met(cpuCost)} |`);
        } else {
          lines.push(`| lead.${kind}, no webhook (outbox cost: run with --before <checkout>) | ${dialect} | ${rps(withOutbox)}, ${cpu(withOutbox)} CPU a write | — |`);
        }
      }

      // The same writes with one webhook delivering each of them.
      const made = await post(`${current.url}/api/webhook/create`, { url: receiver.url, as_role: 'admin', models: ['lead'] }, { authorization: `Bearer ${token}` });
      if (made.status !== 200) throw new Error(`webhook.create answered ${made.status}: ${JSON.stringify(made.json)}`);
      delete targets.createBefore;
      delete targets.updateBefore;
      const delivering = await measureRounds('writes while a webhook delivers');
      for (const kind of ['create', 'update'] as const) {
        const ratio = pairedRatio(results(delivering[kind]!), results(quiet[kind]!));
        lines.push(`| lead.${kind} while a webhook delivers each write (the worker in the same process), against none | ${dialect} | ${rps(delivering[kind]!)} (${((1 - ratio) * 100).toFixed(1)} % fewer), ${cpu(delivering[kind]!)} CPU a write | — |`);
      }
      await post(`${current.url}/api/webhook/delete`, { id: (made.json as { value: { id: string } }).value.id }, { authorization: `Bearer ${token}` });
      for (const server of servers.splice(0)) await server.stop();
      closeConnections();

      // Delivery rate on a database and server of their own.
      const delivery = await options.openDatabase(dialect, 'webhooks_delivery');
      if (typeof delivery === 'string') throw new Error(delivery);
      try {
        const server = await serve(ROOT, 'rmsgen (delivery)', delivery.url);
        servers.push(server);
        const deliveryToken = await login(server.url, PASSWORD);
        const hook = await post(`${server.url}/api/webhook/create`, { url: receiver.url, as_role: 'admin' }, { authorization: `Bearer ${deliveryToken}` });
        if (hook.status !== 200) throw new Error(`webhook.create answered ${hook.status}`);
        receiver.arrivals.length = 0;
        log(`${dialect}: ${options.events.toLocaleString('en')} events delivered to a local receiver`);
        await createManyLeads(server.url, deliveryToken, 1000, options.events / 1000);
        const deadline = Date.now() + 120_000;
        while (receiver.arrivals.length < options.events && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        const arrivals = receiver.arrivals;
        if (arrivals.length < options.events) throw new Error(`only ${arrivals.length} of ${options.events} events arrived within 2 minutes`);
        const seconds = (arrivals.at(-1)!.at - arrivals[0]!.at) / 1000;
        const rate = (arrivals.length - 1) / seconds;
        const lags = arrivals.map((arrival) => arrival.at - arrival.committedAt).sort((a, b) => a - b);
        const percentile = (p: number) => lags[Math.min(lags.length - 1, Math.floor((lags.length * p) / 100))]!;
        lines.push(`| webhook delivery to a local receiver (${options.events.toLocaleString('en')} events of lead.create_many) | ${dialect} | ${Math.round(rate).toLocaleString('en')} events/s | ≥ 500 events/s ${rate >= 500 ? '✓' : '✗'} |`);
        lines.push(`| from an event's write to its arrival, p50 / p99 (writes of 1,000 a call, faster than delivery) | ${dialect} | ${percentile(50)} / ${percentile(99)} ms | — |`);
      } finally {
        for (const server of servers.splice(0)) await server.stop();
        closeConnections();
        await delivery.drop();
      }
    } finally {
      for (const server of servers) await server.stop();
      closeConnections();
      await receiver.close();
      for (const cleanup of cleanups) await cleanup();
      await database.drop();
    }
  }
  console.log('');
  console.log(lines.join('\n'));
}

export interface WebhookKillBenchOptions {
  /** Changes written in all: creates and updates of `changes / EVENTS_PER_RECORD` leads. */
  readonly changes: number;
  /** Between two kills of the second instance. */
  readonly killEveryMs: number;
  /** Between the starts of two rounds of changes (a record changes once a round). */
  readonly roundGapMs: number;
  readonly openDatabase: WebhooksBenchOptions['openDatabase'];
  readonly log: (line: string) => void;
}

/** Each lead is created, then updated in each later round. */
const EVENTS_PER_RECORD = 5;
/** Writes in flight at once, spread over both instances. */
const WRITERS = 8;
/** The goals. */
const KILL_GOALS = { duplicates: 0.001, p99Ms: 1000 } as const;

/**
 * `npm run bench -- --webhook-kill`: the measurement at full size. Two `rmsgen serve`
 * processes on one PostgreSQL database, the second SIGKILLed every 5 s and started again; 10,000
 * changes written through both (a write a kill cut off is sent to the other, so it may commit
 * twice: the outbox, not the client, says what committed), with one rolled-back `create_many` per
 * 100 leads; one webhook to a receiver that fails a random 20 % of its requests. Then: events lost,
 * events of rolled-back writes, per-record order inversions, duplicates, and the p99 from an
 * event's commit to its first attempt, each against its goal (test/helpers/webhook-delivery-figures.ts).
 *
 * A record's rounds are `roundGapMs` apart: the order rule holds a record's next event while its
 * earlier one waits for a retry (the first after 2.5–5 s, then 5–10 s, …), so records changed again
 * within seconds of a failure measure that rule, not the pipeline; the table says how many events
 * were held so.
 */
export async function runWebhookKillBench(options: WebhookKillBenchOptions): Promise<void> {
  const { log } = options;
  const { startReceiver: startCheckingReceiver } = await import('../test/helpers/webhook-receiver.ts');
  const { deliveryFigures, percentile } = await import('../test/helpers/webhook-delivery-figures.ts');
  const pg = (await import('pg')).default;
  const database = await options.openDatabase('postgres', 'webhook_kill');
  if (typeof database === 'string') throw new Error(`PostgreSQL is needed: ${database}`);
  const receiver = await startCheckingReceiver();
  receiver.answer = () => (Math.random() < 0.2 ? 500 : 200);
  const serve = (name: string) => startNode(name, ['bin/rmsgen.js', 'serve', '--port', '0', '--db', database.url, '--no-request-log', '--allow-private-webhooks'], { cwd: ROOT, env: { RMS_ADMIN_PASSWORD: PASSWORD } });
  const steady = await serve('rmsgen (steady)');
  let killed: StartedProcess | undefined = await serve('rmsgen (killed every 5 s)');
  let kills = 0;
  let stopKilling = false;
  try {
    const token = await login(steady.url, PASSWORD);
    const auth = { authorization: `Bearer ${token}` };
    const hook = await post(`${steady.url}/api/webhook/create`, { url: receiver.url, as_role: 'admin', models: ['lead'] }, auth);
    if (hook.status !== 200) throw new Error(`webhook.create answered ${hook.status}: ${JSON.stringify(hook.json)}`);
    const secret = (hook.json as { value: { secrets: string[] } }).value.secrets[0]!;

    // A failed restart is thrown where the killer is awaited, so that the `finally` stops every server.
    const killer = (async () => {
      while (!stopKilling) {
        await new Promise((resolve) => setTimeout(resolve, options.killEveryMs));
        if (stopKilling) break;
        const victim = killed!;
        killed = undefined;
        process.kill(victim.pid, 'SIGKILL');
        await victim.stop();
        kills++;
        killed = await serve('rmsgen (killed every 5 s)');
      }
    })();
    killer.catch(() => {
      stopKilling = true;
    });

    let resent = 0;
    let turn = 0;
    const write = async (path: string, body: unknown): Promise<{ status: number; json: unknown }> => {
      for (let attempt = 0; ; attempt++) {
        const target = (turn++ + attempt) % 2 === 0 && killed ? killed : steady;
        try {
          return await post(`${target.url}${path}`, body, auth);
        } catch (error) {
          if (attempt > 20) throw error;
          resent++;
        }
      }
    };
    const inParallel = async <T>(items: readonly T[], each: (item: T, index: number) => Promise<void>) => {
      let next = 0;
      await Promise.all(Array.from({ length: WRITERS }, async () => {
        while (next < items.length) {
          const index = next++;
          await each(items[index]!, index);
        }
      }));
    };

    const records = Math.ceil(options.changes / EVENTS_PER_RECORD);
    const ids: string[] = new Array<string>(records);
    let rolledBack = 0;
    const started = Date.now();
    for (let round = 0; round < EVENTS_PER_RECORD; round++) {
      const roundStart = Date.now();
      log(`round ${round + 1} of ${EVENTS_PER_RECORD}: ${records.toLocaleString('en')} ${round === 0 ? 'creates' : 'updates'} (${kills} kills so far)`);
      await inParallel(ids, async (_id, index) => {
        if (round === 0) {
          const made = await write('/api/lead/create', { title: `Lead ${index}`, probability: 0 });
          if (made.status !== 200) throw new Error(`lead.create answered ${made.status}: ${JSON.stringify(made.json)}`);
          ids[index] = (made.json as { value: { id: string } }).value.id;
          if (index % 100 === 0) {
            // Rolled back: its second record refers to a party that does not exist.
            const refused = await write('/api/lead/create_many', { records: [{ title: `Never ${index}` }, { title: 'bad', party: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }] });
            if (refused.status !== 400) throw new Error(`the refused create_many answered ${refused.status}`);
            rolledBack++;
          }
        } else {
          const updated = await write('/api/lead/update', { id: ids[index], probability: round });
          if (updated.status !== 200) throw new Error(`lead.update answered ${updated.status}: ${JSON.stringify(updated.json)}`);
        }
      });
      const rest = options.roundGapMs - (Date.now() - roundStart);
      if (round < EVENTS_PER_RECORD - 1 && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
    const writeSeconds = (Date.now() - started) / 1000;
    stopKilling = true;
    await killer;

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const events = (await client.query('select id, record_id, record_seq, at, record from rms_events order by id')).rows as { id: string; record_id: string; record_seq: number; at: string; record: string }[];
      log(`${events.length.toLocaleString('en')} events committed in ${writeSeconds.toFixed(0)} s, ${kills} kills; waiting for every delivery to end`);
      const deadline = Date.now() + 10 * 60_000;
      const open = async () => Number((await client.query("select count(*) as n from rms_webhook_deliveries where status = 'pending'")).rows[0].n);
      while ((await open()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500));
      const dead = Number((await client.query("select count(*) as n from rms_webhook_deliveries where status = 'dead'")).rows[0].n);
      const unverified = receiver.received.filter((request) => !receiver.verifies(request, secret)).length;
      const ofRolledBack = events.filter((event) => /^Never /.test(JSON.parse(event.record).title)).length + receiver.received.filter((request) => /^Never /.test(request.json?.record?.title ?? '')).length;
      const figures = deliveryFigures(
        events,
        receiver.received.map((request) => ({ id: request.json.id, record_id: request.json.record_id, accepted: request.status === 200, receivedAt: request.receivedAt })),
      );
      const lags = figures.firstAttemptLagsMs;
      const p99 = percentile(lags, 99);
      // A kill costs a duplicate for each answer its instance got and had not noted yet: how long
      // that takes, from the accepted request's arrival to the note's time (delivered_at).
      const lastAccepted = new Map<string, number>();
      for (const request of receiver.received) if (request.status === 200) lastAccepted.set(request.json.id, request.receivedAt);
      const delivered = (await client.query("select event_id, delivered_at from rms_webhook_deliveries where status = 'delivered'")).rows as { event_id: string; delivered_at: string }[];
      // The order rule holds an event while an earlier one of its record is being retried (the
      // first retry 2.5–5 s later): those waits are the scenario's, not the pipeline's.
      const firstAccepted = new Map<string, number>();
      const firstAttempted = new Map<string, number>();
      for (const request of receiver.received) {
        if (!firstAttempted.has(request.json.id)) firstAttempted.set(request.json.id, request.receivedAt);
        if (request.status === 200 && !firstAccepted.has(request.json.id)) firstAccepted.set(request.json.id, request.receivedAt);
      }
      const eventOf = new Map(events.map((event) => [`${event.record_id}#${Number(event.record_seq)}`, event]));
      let late = 0;
      let lateHeld = 0;
      for (const event of events) {
        const attempted = firstAttempted.get(event.id);
        if (attempted === undefined || attempted - Date.parse(event.at) < 1000) continue;
        late++;
        const earlier = eventOf.get(`${event.record_id}#${Number(event.record_seq) - 1}`);
        if (earlier && (firstAccepted.get(earlier.id) ?? Infinity) > Date.parse(event.at) + 1000) lateHeld++;
      }
      const noteLags = delivered.filter((row) => lastAccepted.has(row.event_id)).map((row) => Date.parse(row.delivered_at) - lastAccepted.get(row.event_id)!).sort((a, b) => a - b);
      const duplicateShare = figures.duplicates / figures.events;
      const mark = (met: boolean) => (met ? '✓' : '✗');
      const lines = [
        `10,000-change run: ${figures.events.toLocaleString('en')} events (${records.toLocaleString('en')} leads × ${EVENTS_PER_RECORD}, ${resent} writes sent again after a kill cut their answer, ${rolledBack} rolled-back create_many), written in ${writeSeconds.toFixed(0)} s; ${kills} kills; ${figures.attempts.toLocaleString('en')} requests (${unverified} with a bad signature), ${dead} dead deliveries`,
        '',
        '| Figure | Measured | Goal |',
        '| --- | --- | --- |',
        `| events lost | ${figures.lost} | 0 ${mark(figures.lost === 0)} |`,
        `| events from rolled-back writes | ${ofRolledBack + figures.uncommitted} | 0 ${mark(ofRolledBack + figures.uncommitted === 0)} |`,
        `| per-record order inversions | ${figures.inversions} | 0 ${mark(figures.inversions === 0)} |`,
        `| duplicates | ${figures.duplicates} (${(duplicateShare * 100).toFixed(2)} %) | ≤ 0.1 % ${mark(duplicateShare <= KILL_GOALS.duplicates)} |`,
        `| commit to first attempt, p99 (p50, max) | ${p99} ms (${percentile(lags, 50)} ms, ${lags.at(-1)} ms) | < 1 s ${mark(p99 < KILL_GOALS.p99Ms)} |`,
        `| events first attempted more than 1 s after commit (of which held by the order rule: their record's earlier event was accepted only more than 1 s after their commit) | ${late} (${lateHeld}) | — |`,
        `| from an accepted request's arrival to its note, p50 / p99 (what a kill can leave unnoted) | ${percentile(noteLags, 50)} / ${percentile(noteLags, 99)} ms | — |`,
      ];
      console.log('');
      console.log(lines.join('\n'));
    } finally {
      await client.end();
    }
  } finally {
    stopKilling = true;
    await killed?.stop();
    await steady.stop();
    closeConnections();
    await receiver.close();
    await database.drop();
  }
}
