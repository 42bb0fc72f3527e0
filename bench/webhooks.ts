/**
 * `npm run bench -- --webhooks [--before <dir>]`: what events and webhooks cost, and how fast they
 * go (issue 22's targets), per database:
 *
 * - **Outbox cost on single writes** (target < 10 %): `lead.create` and `lead.update` by wrk on this
 *   checkout and, side by side on the same database, on `--before <dir>`, a checkout of the commit
 *   before the outbox (built, node_modules linked, as the main bench's `--before`); the figure is
 *   the median of the per-round ratios. Without `--before` this row is not measured.
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
import { startNode, type StartedProcess } from './processes.ts';
import { median, pairedRatio } from './report.ts';
import { prepareTarget, runWrk, type WrkResult, type WrkTarget } from './wrk.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PASSWORD = 'bench-password-1';
const DELIVERED_EVENTS = 10_000;

export interface WebhooksBenchOptions {
  readonly dialects: readonly ('sqlite' | 'postgres')[];
  readonly seconds: number;
  readonly rounds: number;
  readonly connections: number;
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
      const before = options.before ? await serve(options.before, 'rmsgen (before the outbox)', database.url) : undefined;
      if (before) servers.push(before);
      const beforeToken = before ? await login(before.url, PASSWORD) : undefined;

      const dir = join(options.workDir, `webhooks-${dialect}`);
      mkdirSync(dir, { recursive: true });
      const writes = (url: string, bearer: string, name: string): { create: WrkTarget; update: WrkTarget } => ({
        create: prepareTarget(dir, `${name}-create`, `${url}/api/lead/create`, [{ title: 'Bench lead {{n}}', probability: 10 }], { authorization: `Bearer ${bearer}` }),
        update: prepareTarget(dir, `${name}-update`, `${url}/api/lead/update`, ids.map((id) => ({ id, title: 'Renamed {{n}}' })), { authorization: `Bearer ${bearer}` }),
      });
      const targets: Record<string, WrkTarget> = {};
      const mine = writes(current.url, token, 'current');
      targets.create = mine.create;
      targets.update = mine.update;
      if (before && beforeToken) {
        const theirs = writes(before.url, beforeToken, 'before');
        targets.createBefore = theirs.create;
        targets.updateBefore = theirs.update;
      }
      const measureRounds = async (label: string): Promise<Record<string, WrkResult[]>> => {
        const rounds: Record<string, WrkResult[]> = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
        for (const target of Object.values(targets)) await runWrk(target, { seconds: 1, connections: options.connections });
        for (let round = 0; round < options.rounds; round++) {
          log(`${dialect}: ${label}, round ${round + 1} of ${options.rounds}`);
          for (const [name, target] of Object.entries(targets)) rounds[name]!.push(await runWrk(target, { seconds: options.seconds, connections: options.connections }));
        }
        return rounds;
      };
      const quiet = await measureRounds('writes without a webhook');
      const rps = (results: readonly WrkResult[]) => `${Math.round(median(results.map((result) => result.requestsPerSecond))).toLocaleString('en')}/s`;
      for (const kind of ['create', 'update'] as const) {
        const withOutbox = quiet[kind]!;
        const without = quiet[`${kind}Before`];
        if (without) {
          const cost = 1 - pairedRatio(withOutbox, without);
          lines.push(`| outbox cost on single writes: lead.${kind} (${rps(withOutbox)} against ${rps(without)} before it) | ${dialect} | ${(cost * 100).toFixed(1)} % | < 10 % ${cost < 0.1 ? '✓' : '✗'} |`);
        } else {
          lines.push(`| lead.${kind}, no webhook (outbox cost: run with --before <checkout>) | ${dialect} | ${rps(withOutbox)} | — |`);
        }
      }

      // The same writes with one webhook delivering each of them.
      const made = await post(`${current.url}/api/webhook/create`, { url: receiver.url, as_role: 'admin', models: ['lead'] }, { authorization: `Bearer ${token}` });
      if (made.status !== 200) throw new Error(`webhook.create answered ${made.status}: ${JSON.stringify(made.json)}`);
      delete targets.createBefore;
      delete targets.updateBefore;
      const delivering = await measureRounds('writes while a webhook delivers');
      for (const kind of ['create', 'update'] as const) {
        const ratio = pairedRatio(delivering[kind]!, quiet[kind]!.slice(0, delivering[kind]!.length));
        lines.push(`| lead.${kind} while a webhook delivers each write, against none | ${dialect} | ${rps(delivering[kind]!)} (${((1 - ratio) * 100).toFixed(1)} % less) | — |`);
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
        log(`${dialect}: ${DELIVERED_EVENTS.toLocaleString('en')} events delivered to a local receiver`);
        await createManyLeads(server.url, deliveryToken, 1000, DELIVERED_EVENTS / 1000);
        const deadline = Date.now() + 120_000;
        while (receiver.arrivals.length < DELIVERED_EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        const arrivals = receiver.arrivals;
        if (arrivals.length < DELIVERED_EVENTS) throw new Error(`only ${arrivals.length} of ${DELIVERED_EVENTS} events arrived within 2 minutes`);
        const seconds = (arrivals.at(-1)!.at - arrivals[0]!.at) / 1000;
        const rate = (arrivals.length - 1) / seconds;
        const lags = arrivals.map((arrival) => arrival.at - arrival.committedAt).sort((a, b) => a - b);
        const percentile = (p: number) => lags[Math.min(lags.length - 1, Math.floor((lags.length * p) / 100))]!;
        lines.push(`| webhook delivery to a local receiver (${DELIVERED_EVENTS.toLocaleString('en')} events of lead.create_many) | ${dialect} | ${Math.round(rate).toLocaleString('en')} events/s | ≥ 500 events/s ${rate >= 500 ? '✓' : '✗'} |`);
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
      await database.drop();
    }
  }
  console.log('');
  console.log(lines.join('\n'));
}
