/**
 * `npm run bench -- --files`: what files cost the server (issue 23's targets), per database, with
 * files on disk (`serve --files disk:<dir>`, as the targets say) on loopback:
 *
 * - **A 200 MB upload** (`POST /api/files`, streamed from this process 1 MiB at a time): how much
 *   it raises the server's resident set (target < 30 MB) and its throughput, first byte sent to
 *   the answer (target ≥ 200 MB/s).
 * - **Its download** (`GET /api/files/<id>`, once a record holds it; read and dropped here): how much
 *   it raises the resident set (target < 30 MB), and its throughput.
 * - **`get` with 10 files** (target: within 10 % of one without): 10,000 records of a model with a
 *   file field, 10,000 files attached (10 to each of 1,000 records; the other 9,000 hold none),
 *   `document.get` by wrk of the records with 10 files and of 1,000 without, spread through the
 *   table as they are, side by side (fifteen 2 s rounds alternate; the ratio is the median of the
 *   per-round ratios, which spread over ±0.3 with the machine's neighbours).
 *
 * The resident set's rise is its peak during the transfer (VmHWM, reset through /proc/<pid>/clear_refs
 * just before, and samples every 10 ms besides) less what it was just before. MB here are MiB.
 *
 * The model is a throw-away copy of this project with a module of its own (`archive`: a `document`
 * with a title and a file field without a size limit), so that the 200 MB file can be attached.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { login, post } from './api.ts';
import { cpuMs, runNode, startNode, type StartedProcess } from './processes.ts';
import { median, pairedRatio } from './report.ts';
import { prepareTarget, runWrk, type WrkResult } from './wrk.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PASSWORD = 'bench-password-1';
const MIB = 2 ** 20;
const COPIED = ['bin', 'generator', 'runtime', 'web', 'modules', 'package.json', 'tsconfig.json'];

const ARCHIVE_MODULE = `import { defineModule } from '../../generator/define.ts';

export default defineModule({
  label: 'Archive',
  models: {
    document: {
      title: 'title',
      fields: {
        title: { kind: 'text', required: true },
        files: { kind: 'file', multiple: true, label: 'Files' },
      },
    },
  },
});
`;

export interface FilesBenchOptions {
  readonly dialects: readonly ('sqlite' | 'postgres')[];
  /** Records `get` is measured among (10,000; fewer for a quick look); a tenth of them hold 10 files each. */
  readonly records: number;
  /** The size of the upload and download (200 MiB; less for a quick look). */
  readonly transferMiB: number;
  readonly seconds: number;
  /** Smoke runs: each load ends after this many answers (bench/wrk.ts). */
  readonly stopAfter?: number;
  readonly rounds: number;
  readonly connections: number;
  readonly workDir: string;
  readonly openDatabase: (dialect: 'sqlite' | 'postgres', name: string) => Promise<{ url: string; drop(): Promise<void> } | string>;
  readonly log: (line: string) => void;
}

export async function runFilesBench(options: FilesBenchOptions): Promise<void> {
  const { log } = options;
  log('rmsgen build: a copy of the project with a model that holds files');
  const project = await createFilesProject();
  const lines: string[] = ['| Measure | Database | Figure | Goal |', '| --- | --- | --- | --- |'];
  const row = (measure: string, dialect: string, figure: string, goal: string, met: boolean) => lines.push(`| ${measure} | ${dialect} | ${figure} ${met ? '✓' : '✗'} | ${goal} |`);
  try {
    for (const dialect of options.dialects) {
      const database = await options.openDatabase(dialect, 'files');
      if (typeof database === 'string') {
        log(`${dialect}: not run (${database})`);
        continue;
      }
      const storage = join(options.workDir, `files-${dialect}`);
      mkdirSync(storage, { recursive: true });
      let server: StartedProcess | undefined;
      try {
        server = await startNode(`rmsgen (files, ${dialect})`, ['bin/rmsgen.js', 'serve', '--port', '0', '--db', database.url, '--no-request-log', '--files', `disk:${storage}`, '--max-upload', `${options.transferMiB + 16}MB`], {
          cwd: project.dir,
          env: { RMS_ADMIN_PASSWORD: PASSWORD },
        });
        const token = await login(server.url, PASSWORD);
        const bytes = options.transferMiB * MIB;
        // A warm-up (the upload path's first run compiles it), not measured.
        await uploadStream(server.url, token, 4 * MIB);

        const upload = await measureRss(server.pid, () => uploadStream(server!.url, token, bytes));
        const uploadMiBps = bytes / MIB / (upload.ms / 1000);
        log(`${dialect}: ${options.transferMiB} MiB upload: +${upload.riseMiB.toFixed(1)} MiB resident, ${uploadMiBps.toFixed(0)} MiB/s`);
        row(`${options.transferMiB} MB upload: the server's RSS rise`, dialect, `${upload.riseMiB.toFixed(1)} MB`, '< 30 MB', upload.riseMiB < 30);
        row(`${options.transferMiB} MB upload to disk: throughput`, dialect, `${uploadMiBps.toFixed(0)} MB/s`, '≥ 200 MB/s', uploadMiBps >= 200);

        const holder = await post(`${server.url}/api/document/create`, { title: 'The big one', files: [upload.value] }, { authorization: `Bearer ${token}` });
        if (holder.status !== 200) throw new Error(`document.create with the big file: ${holder.status} ${JSON.stringify(holder.json)}`);
        const download = await measureRss(server.pid, () => downloadStream(server!.url, token, upload.value, bytes));
        const downloadMiBps = bytes / MIB / (download.ms / 1000);
        log(`${dialect}: its download: +${download.riseMiB.toFixed(1)} MiB resident, ${downloadMiBps.toFixed(0)} MiB/s`);
        row(`${options.transferMiB} MB download: the server's RSS rise`, dialect, `${download.riseMiB.toFixed(1)} MB`, '< 30 MB', download.riseMiB < 30);
        row(`${options.transferMiB} MB download: throughput`, dialect, `${downloadMiBps.toFixed(0)} MB/s`, '(none)', true);

        log(`${dialect}: ${options.records} records, ${options.records} files attached (10 to each of ${options.records / 10})`);
        const seeded = await seedRecords(server.url, token, options.records);
        const dir = join(options.workDir, `files-wrk-${dialect}`);
        mkdirSync(dir, { recursive: true });
        const auth = { authorization: `Bearer ${token}` };
        const targets = {
          withFiles: prepareTarget(dir, 'get-10-files', `${server.url}/api/document/get`, seeded.withFiles.map((id) => ({ id })), auth),
          without: prepareTarget(dir, 'get-no-files', `${server.url}/api/document/get`, seeded.without.map((id) => ({ id })), auth),
        };
        const rounds: Record<keyof typeof targets, WrkResult[]> = { withFiles: [], without: [] };
        // The server's CPU time per request, beside the throughput: on this shared two-core machine
        // a round's throughput moves by ±20 % with what else runs (wrk included), its cost far less.
        const cpuPerRequest: Record<keyof typeof targets, number[]> = { withFiles: [], without: [] };
        const order: (keyof typeof targets)[] = ['withFiles', 'without'];
        for (const name of order) await runWrk(targets[name], { seconds: 1, connections: options.connections, stopAfter: options.stopAfter });
        for (let round = 0; round < options.rounds; round++) {
          // Alternate which goes first, so that neither is always the one after a pause.
          for (const name of round % 2 === 0 ? order : [...order].reverse()) {
            const cpuBefore = cpuMs(server.pid);
            const result = await runWrk(targets[name], { seconds: options.seconds, connections: options.connections, stopAfter: options.stopAfter });
            if (result.errorCount > 0) throw new Error(`document.get (${name}): ${result.errorCount} errors in a round`);
            rounds[name].push(result);
            cpuPerRequest[name].push(((cpuMs(server.pid) - cpuBefore) * 1000) / result.requests);
          }
        }
        const rps = (results: readonly WrkResult[]) => median(results.map((result) => result.requestsPerSecond));
        const ratio = pairedRatio(rounds.withFiles, rounds.without);
        // Cost the other way round: a get without files over one with, so that both ratios read "≥ 0.90".
        const cpuRatios = cpuPerRequest.without.map((us, i) => us / cpuPerRequest.withFiles[i]!);
        const cpuRatio = median(cpuRatios);
        log(`${dialect}: per round, throughput with/without ${rounds.withFiles.map((result, i) => (result.requestsPerSecond / rounds.without[i]!.requestsPerSecond).toFixed(2)).join(' ')}; CPU without/with ${cpuRatios.map((value) => value.toFixed(2)).join(' ')}`);
        log(`${dialect}: document.get with 10 files ${rps(rounds.withFiles).toFixed(0)}/s, without ${rps(rounds.without).toFixed(0)}/s: ${ratio.toFixed(3)}; server CPU ${median(cpuPerRequest.withFiles).toFixed(0)} µs against ${median(cpuPerRequest.without).toFixed(0)} µs: ${cpuRatio.toFixed(3)}`);
        row(`document.get with 10 files, of one without (${options.records} records)`, dialect, `${rps(rounds.withFiles).toFixed(0)}/s against ${rps(rounds.without).toFixed(0)}/s: ${ratio.toFixed(2)}`, '≥ 0.90 (within 10 %)', ratio >= 0.9);
        row(`document.get with 10 files: the server's CPU per request, one without over one with`, dialect, `${median(cpuPerRequest.withFiles).toFixed(0)} µs against ${median(cpuPerRequest.without).toFixed(0)} µs: ${cpuRatio.toFixed(2)}`, '≥ 0.90 (within 10 %)', cpuRatio >= 0.9);
      } finally {
        await server?.stop();
        await database.drop();
        rmSync(storage, { recursive: true, force: true });
      }
    }
  } finally {
    project.remove();
  }
  console.log('');
  console.log(lines.join('\n'));
  console.log('');
}

/** A copy of this project with the `archive` module, built. */
async function createFilesProject(): Promise<{ dir: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-files-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    for (const entry of COPIED) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true, preserveTimestamps: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    mkdirSync(join(dir, 'modules', 'archive'), { recursive: true });
    writeFileSync(join(dir, 'modules', 'archive', 'module.ts'), ARCHIVE_MODULE);
    const build = await runNode(['bin/rmsgen.js', 'build'], { cwd: dir });
    if (build.code !== 0) throw new Error(`rmsgen build of the project with the archive module failed:\n${build.output}`);
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

function rssKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

/** Runs `transfer`, and how much the process's resident set rose above what it was just before (its peak), and how long it took. */
async function measureRss<T>(pid: number, transfer: () => Promise<T>): Promise<{ value: T; riseMiB: number; ms: number }> {
  let peakReset = true;
  try {
    // 5: reset the peak resident set size (VmHWM) to the current one (Linux 4.0 and later).
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    peakReset = false;
  }
  const before = rssKiB(pid, 'VmRSS');
  let sampled = before;
  const sampler = setInterval(() => (sampled = Math.max(sampled, rssKiB(pid, 'VmRSS'))), 10);
  const started = performance.now();
  try {
    const value = await transfer();
    const ms = performance.now() - started;
    const peak = Math.max(sampled, rssKiB(pid, 'VmRSS'), peakReset ? rssKiB(pid, 'VmHWM') : 0);
    return { value, riseMiB: (peak - before) / 1024, ms };
  } finally {
    clearInterval(sampler);
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Uploads `bytes` of a PDF-looking body, 1 MiB at a time from one buffer (this process stays small); answers the file's id. */
function uploadStream(baseUrl: string, token: string, bytes: number): Promise<string> {
  const target = new URL(`${baseUrl}/api/files`);
  const chunk = Buffer.alloc(MIB, 0x20);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf', 'content-length': bytes, 'x-file-name': 'big.pdf' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => (text += part));
        res.on('end', () => (res.statusCode === 201 ? resolve((JSON.parse(text) as { id: string }).id) : reject(new Error(`upload: ${res.statusCode} ${text}`))));
      },
    );
    req.on('error', reject);
    let sent = 0;
    const write = () => {
      while (sent < bytes) {
        const piece = sent === 0 ? Buffer.concat([Buffer.from('%PDF-1.4\n'), chunk.subarray(9)]) : chunk.subarray(0, Math.min(MIB, bytes - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

/** Downloads the file, dropping the bytes; checks that all of them came. */
function downloadStream(baseUrl: string, token: string, id: string, bytes: number): Promise<void> {
  const target = new URL(`${baseUrl}/api/files/${id}`);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'GET', agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let received = 0;
      res.on('data', (part: Buffer) => (received += part.length));
      res.on('end', () => (res.statusCode === 200 && received === bytes ? resolve() : reject(new Error(`download: ${res.statusCode}, ${received} of ${bytes} bytes`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A small upload (its own bytes), answering its id. */
async function uploadSmall(baseUrl: string, token: string, n: number): Promise<string> {
  const res = await fetch(`${baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain', 'x-file-name': `note-${n}.txt` },
    body: `Note ${n}: ${'x'.repeat(1000)}\n`,
  });
  if (res.status !== 201) throw new Error(`upload ${n}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** `records` documents (create_many, 1,000 a call); a tenth of them then given 10 files each (uploaded here). */
async function seedRecords(baseUrl: string, token: string, records: number): Promise<{ withFiles: string[]; without: string[] }> {
  const auth = { authorization: `Bearer ${token}` };
  const ids: string[] = [];
  for (let start = 0; start < records; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, records - start) }, (_, i) => ({ title: `Document ${start + i}` }));
    const created = await post(`${baseUrl}/api/document/create_many`, { records: batch }, auth);
    if (created.status !== 200) throw new Error(`document.create_many: ${created.status} ${JSON.stringify(created.json)}`);
    const value = (created.json as { value: { ids?: string[]; records?: { id: string }[] } }).value;
    ids.push(...(value.ids ?? value.records?.map((record) => record.id) ?? []));
  }
  if (ids.length !== records) throw new Error(`document.create_many answered ${ids.length} ids of ${records}`);
  const holders = ids.filter((_, i) => i % 10 === 0);
  let next = 0;
  const worker = async () => {
    while (next < holders.length) {
      const i = next++;
      const files: string[] = [];
      for (let f = 0; f < 10; f++) files.push(await uploadSmall(baseUrl, token, i * 10 + f));
      const updated = await post(`${baseUrl}/api/document/update`, { id: holders[i], files }, auth);
      if (updated.status !== 200) throw new Error(`document.update: ${updated.status} ${JSON.stringify(updated.json)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const check = await post(`${baseUrl}/api/document/get`, { id: holders[0] }, auth);
  if (((check.json as { value: { files: unknown[] } }).value.files ?? []).length !== 10) throw new Error(`document.get of a holder: ${JSON.stringify(check.json)}`);
  // Records without files spread as the holders are (every tenth, five further on): which pages
  // the records read sit on costs as much as the files do (measured: 1,000 records a tenth apart
  // took 212 µs of the server's CPU per get, 8,000 neighbouring ones 190), and the goal is about files.
  return { withFiles: holders, without: ids.filter((_, i) => i % 10 === 5) };
}
