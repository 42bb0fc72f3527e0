/**
 * `npm run soak -- --seconds N [--concurrency C]`: the demo's server (in this process, on a fresh
 * SQLite file) under a steady mixed load, with retention windows of seconds instead of days, to
 * show that every table that grows with requests levels off once its window is reached, and to
 * measure what each costs:
 *
 * - the load: people create, update, read, list and search parties and leads; every few seconds
 *   an agent token is made, reads parties (masking tokens), writes one (a bound token), proposes a
 *   delete (a plan, approved or rejected by a person), and is revoked;
 * - the windows: reads 10 s, the rest of the trail and history 20 s, a revoked agent's masking
 *   state 10 s; a pass every second;
 * - printed: each table's row count every few seconds (it rises, then holds), the rows each
 *   request writes to each table (measured before anything is old enough to prune), the bytes
 *   per row of each table with its indexes (SQLite's dbstat), and the file's size.
 *
 * The windows are a policy in milliseconds given to `startServer`; `serve`'s flags take days
 * (docs/operations.md, "Retention", has the figures and the defaults).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parseArgs } from 'node:util';
import { registry } from '../generated/registry.ts';
import { startServer } from '../runtime/server.ts';
import type { RetentionPolicy } from '../runtime/retention/policy.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, concurrency: { type: 'string', default: '8' } } });
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(seconds) || seconds < 30) throw new Error(`--seconds ${values.seconds}: use a whole number of seconds, at least 30 (the windows are 10 and 20 s)`);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new Error(`--concurrency ${values.concurrency}: use a whole number from 1 to 64`);

const SECOND = 1000;
const POLICY: RetentionPolicy = { auditMs: 20 * SECOND, auditReadsMs: 10 * SECOND, historyMs: 20 * SECOND, agentMs: 10 * SECOND, eventsMs: 10 * SECOND, deadEventsMs: 10 * SECOND, everyMs: SECOND };
const TABLES = ['rms_audit', 'rms_history', 'rms_mask_tokens', 'rms_mask_bindings', 'rms_plans', 'rms_tokens'] as const;
const PASSWORD = 'soak-admin-password';

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-soak-'));
const file = join(dir, 'soak.sqlite');
const prunes: string[] = [];
const server = await startServer({
  registry,
  dbUrl: `sqlite:${file}`,
  port: 0,
  adminPassword: PASSWORD,
  retention: POLICY,
  log: (line) => {
    if (line.startsWith('retention:')) prunes.push(line);
  },
  adminPasswordFile: join(dir, 'admin-password'),
});

async function call(path: string, body: unknown, token: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const admin = (await call('/api/auth/login', { username: 'admin', password: PASSWORD }, '')).json.token as string;
let requests = 0;
let failures = 0;
let running = true;
const parties: string[] = [];
const leads: string[] = [];

async function counted(path: string, body: unknown, token: string, expected: readonly number[] = [200]): Promise<any> {
  const answer = await call(path, body, token);
  requests += 1;
  if (!expected.includes(answer.status)) {
    failures += 1;
    if (failures <= 3) console.error(`unexpected ${answer.status} from ${path}: ${JSON.stringify(answer.json)}`);
  }
  return answer.json;
}

let serial = 0;
/** One person's step: mostly reads, some writes, as a service is used. */
async function personStep(): Promise<void> {
  const n = (serial += 1);
  const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)];
  if (n % 10 === 0 || parties.length === 0) {
    const party = await counted('/api/party/create', { name: `Person ${n}`, email: `person${n}@example.com`, phone: `+44 20 7946 ${String(n % 10_000).padStart(4, '0')}` }, admin);
    if (party?.value?.id) parties.push(party.value.id);
  } else if (n % 10 === 1) {
    const lead = await counted('/api/lead/create', { title: `Deal ${n}`, party: pick(parties) }, admin);
    if (lead?.value?.id) leads.push(lead.value.id);
  } else if (n % 10 === 2 && leads.length > 0) {
    await counted('/api/lead/update', { id: pick(leads), title: `Deal ${n}, revised` }, admin);
  } else if (n % 10 < 6) {
    await counted('/api/party/get', { id: pick(parties) }, admin);
  } else if (n % 10 < 8) {
    await counted('/api/lead/list', { limit: 20 }, admin);
  } else {
    await counted('/api/lead/search', { filter: [{ field: 'title', op: 'contains', value: 'Deal' }], limit: 20 }, admin);
  }
}

/** One agent's life: made, reads and writes, proposes a delete that a person decides, revoked. */
async function agentLife(n: number): Promise<void> {
  const made = await counted('/api/auth/agent-token', { scopes: ['party.*', 'lead.*'], label: `soak agent ${n}` }, admin);
  const token = made.token as string;
  for (let i = 0; i < 10 && parties.length > 0; i += 1) await counted('/api/party/get', { id: parties[Math.floor(Math.random() * parties.length)] }, token);
  await counted('/api/party/create', { name: `Agent party ${n}`, email: `agent${n}@example.com` }, token);
  const lead = await counted('/api/lead/create', { title: `Agent deal ${n}` }, token);
  const plan = await counted('/api/lead/delete', { id: lead?.value?.id }, token, [202]);
  if (plan?.plan_id) await counted(`/api/${n % 2 === 0 ? 'approve' : 'reject'}/${plan.plan_id}`, undefined, admin);
  const tokens = await fetch(`${server.url}/api/auth/agent-tokens`, { headers: { authorization: `Bearer ${admin}` } }).then((res) => res.json() as Promise<{ tokens: { id: string; label: string }[] }>);
  const id = tokens.tokens.find((entry) => entry.label === `soak agent ${n}`)?.id;
  await counted('/api/auth/agent-token/revoke', { id }, admin);
}

const started = performance.now();
const elapsed = () => (performance.now() - started) / SECOND;
const workers = Array.from({ length: concurrency }, async () => {
  while (running) await personStep();
});
const agents = (async () => {
  for (let n = 1; running; n += 1) {
    await agentLife(n);
    await new Promise((resolve) => setTimeout(resolve, 2 * SECOND));
  }
})();

const reader = new Database(file, { readonly: true });
const counts = () => Object.fromEntries(TABLES.map((table) => [table, (reader.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n])) as Record<(typeof TABLES)[number], number>;
const fileBytes = () => statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);

const samples: { at: number; requests: number; counts: ReturnType<typeof counts>; bytes: number }[] = [];
let perRequest: { requests: number; counts: ReturnType<typeof counts> } | undefined;
while (elapsed() < seconds) {
  await new Promise((resolve) => setTimeout(resolve, SECOND));
  const sample = { at: Math.round(elapsed()), requests, counts: counts(), bytes: fileBytes() };
  // Before the shortest window has passed nothing is pruned: rows per request are rows written per request.
  if (sample.at <= 8) perRequest = { requests: sample.requests, counts: sample.counts };
  if (sample.at % 5 === 0 || elapsed() >= seconds) samples.push(sample);
}
running = false;
await Promise.all([...workers, agents]);

// Bytes per row: each table's pages and its indexes' pages, over its rows, at the end (a steady state).
const pages = reader.prepare(`select m.tbl_name as tbl, sum(s.pgsize) as bytes from dbstat s join sqlite_master m on m.name = s.name group by m.tbl_name`).all() as { tbl: string; bytes: number }[];
const bytesOf = Object.fromEntries(pages.map((row) => [row.tbl, row.bytes]));
const last = samples.at(-1)!;
reader.close();
await server.close();
rmSync(dir, { recursive: true, force: true });

const pad = (value: string | number, width: number) => String(value).padStart(width);
console.log(`soak: ${seconds} s, ${concurrency} people's loops and one agent at a time, ${requests.toLocaleString('en-US')} requests (${Math.round(requests / seconds)}/s), ${failures} unexpected answers`);
console.log(`windows: reads ${POLICY.auditReadsMs / SECOND} s, audit and history ${POLICY.auditMs / SECOND} s, revoked agents ${POLICY.agentMs / SECOND} s; a pass every ${POLICY.everyMs / SECOND} s (${prunes.length} removed rows)\n`);
console.log(['   s', 'requests', ...TABLES.map((table) => pad(table.replace('rms_', ''), 13)), '   file MiB'].join(' '));
for (const sample of samples) {
  console.log([pad(sample.at, 4), pad(sample.requests, 8), ...TABLES.map((table) => pad(sample.counts[table], 13)), pad((sample.bytes / 2 ** 20).toFixed(1), 11)].join(' '));
}
console.log('\ntable           rows/request  bytes/row  bytes/request');
for (const table of TABLES) {
  const rowsPerRequest = perRequest ? perRequest.counts[table] / perRequest.requests : Number.NaN;
  const bytesPerRow = last.counts[table] > 0 ? (bytesOf[table] ?? 0) / last.counts[table] : Number.NaN;
  console.log(`${table.padEnd(17)} ${pad(rowsPerRequest.toFixed(3), 12)} ${pad(Math.round(bytesPerRow), 10)} ${pad(Math.round(rowsPerRequest * bytesPerRow), 14)}`);
}
