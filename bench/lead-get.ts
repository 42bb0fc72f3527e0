/**
 * `npm run bench`: throughput of `lead.get` through rmsgen (auth → rights → validation → read →
 * audit) against bare Express with one prepared statement and bare node:http. Each server runs in
 * its own process on 127.0.0.1; the load comes from this process with keep-alive connections.
 * Rounds alternate between the servers and the medians are compared as ratios, because the
 * machine is shared and absolute numbers drift.
 *
 * Options (env): BENCH_SECONDS (per round, default 3), BENCH_ROUNDS (default 3),
 * BENCH_CONCURRENCY (default 16), BENCH_BEFORE (the directory of another checkout, e.g. from
 * `git archive`, with node_modules linked: its `rmsgen serve` runs as one more target on the same
 * database, so a change is measured side by side with what it replaces).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BEFORE = process.env.BENCH_BEFORE;
const PASSWORD = 'bench-password-1';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function start(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'], cwd });
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening on')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

/**
 * Keep-alive connections for set-up calls; each round of `load` opens its own. A connection left
 * idle between rounds (longer than the servers' 5 s keep-alive timeout) can be closed by the
 * server just as the next round reuses it, and the request fails with "socket hang up".
 */
const setupAgent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function post(port: number, path: string, body: unknown, token?: string, agent: Agent = setupAgent): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...(token ? { authorization: `Bearer ${token}` } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Requests per second over `SECONDS`, CONCURRENCY callers in a loop, each on the next id. */
async function load(port: number, ids: readonly string[], token?: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const until = Date.now() + SECONDS * 1000;
  let done = 0;
  let failed = 0;
  const worker = async (offset: number) => {
    let i = offset;
    while (Date.now() < until) {
      const res = await post(port, '/api/lead/get', { id: ids[i++ % ids.length] }, token, agent);
      if (res.status === 200) done++;
      else failed++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => worker(i)));
  agent.destroy();
  if (failed > 0) throw new Error(`${failed} requests failed on port ${port}`);
  return done / ((Date.now() - started) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-bench-'));
const file = join(dir, 'bench.sqlite');
const children: ChildProcess[] = [];
try {
  const rmsPort = await freePort();
  children.push(await start(['bin/rmsgen.js', 'serve', '--port', String(rmsPort), '--db', `sqlite:${file}`], { RMS_ADMIN_PASSWORD: PASSWORD }));
  const login = await post(rmsPort, '/api/auth/login', { username: 'admin', password: PASSWORD });
  const token = JSON.parse(login.text).token as string;
  const ids: string[] = [];
  for (let i = 0; i < 200; i++) {
    const res = await post(rmsPort, '/api/lead/create', { title: `Lead ${i}`, expected_revenue: i * 100, hot: i % 2 === 0 }, token);
    ids.push(JSON.parse(res.text).value.id);
  }
  const expressPort = await freePort();
  const httpPort = await freePort();
  children.push(await start(['--import', 'tsx', 'bench/baseline-server.ts', 'express', file, String(expressPort)]));
  children.push(await start(['--import', 'tsx', 'bench/baseline-server.ts', 'http', file, String(httpPort)]));

  const targets = [
    { name: 'rmsgen lead.get', run: () => load(rmsPort, ids, token) },
    { name: 'bare Express + prepared statement', run: () => load(expressPort, ids) },
    { name: 'bare node:http + prepared statement', run: () => load(httpPort, ids) },
  ];
  if (BEFORE !== undefined) {
    const beforePort = await freePort();
    children.push(await start(['bin/rmsgen.js', 'serve', '--port', String(beforePort), '--db', `sqlite:${file}`], {}, BEFORE));
    targets.push({ name: 'rmsgen lead.get (BENCH_BEFORE)', run: () => load(beforePort, ids, token) });
  }
  for (const target of targets) await target.run(); // warm-up round (JIT, caches)
  const results = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of targets) results.get(target.name)!.push(await target.run());
  }
  const [rms, bareExpress, bareHttp] = targets.map((t) => median(results.get(t.name)!));
  console.log(`lead.get, ${CONCURRENCY} keep-alive connections, ${ROUNDS} rounds of ${SECONDS}s, medians:`);
  for (const target of targets) console.log(`  ${target.name.padEnd(38)} ${median(results.get(target.name)!).toFixed(0).padStart(7)} req/s`);
  console.log(`  rmsgen / bare Express   = ${(rms! / bareExpress!).toFixed(2)} (target 0.80)`);
  console.log(`  rmsgen / bare node:http = ${(rms! / bareHttp!).toFixed(2)}`);
  console.log(`  bare Express / node:http = ${(bareExpress! / bareHttp!).toFixed(2)}`);
  if (BEFORE !== undefined) {
    const before = median(results.get(targets[3]!.name)!);
    console.log(`  before / bare Express   = ${(before / bareExpress!).toFixed(2)}`);
    console.log(`  rmsgen / before         = ${(rms! / before).toFixed(2)}`);
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  setupAgent.destroy();
  rmSync(dir, { recursive: true, force: true });
}
