/**
 * Load from wrk (the Debian package), a C load generator that costs a fraction of the CPU a Node
 * client would: on a machine with two cores the client must not be what limits the server.
 * Bounded: wrk stops by itself after `seconds`, and is killed if it has not a few seconds later.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./wrk/post.lua', import.meta.url));

/** What one target asks: the same URL, with request bodies taken in turn. */
export interface WrkTarget {
  readonly url: string;
  /** Written to files once (see `prepareTarget`). */
  readonly bodiesFile: string;
  readonly headersFile: string;
}

export interface WrkResult {
  readonly requestsPerSecond: number;
  readonly requests: number;
  readonly seconds: number;
  /** Socket errors and answers with a status of 400 or more. */
  readonly errors: { readonly connect: number; readonly read: number; readonly write: number; readonly status: number; readonly timeout: number };
  readonly errorCount: number;
  readonly latencyMs: { readonly mean: number; readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
}

export function wrkVersion(): string | undefined {
  try {
    // wrk prints its version with -v and exits 1.
    execFileSync('wrk', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const output = `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}`;
    const match = /wrk (\S+)/.exec(output);
    if (match) return match[1];
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
  }
  return 'unknown';
}

/** Writes a target's bodies and headers where wrk's script reads them. */
export function prepareTarget(dir: string, name: string, url: string, bodies: readonly unknown[], headers: Readonly<Record<string, string>>): WrkTarget {
  const bodiesFile = join(dir, `${name}.bodies`);
  const headersFile = join(dir, `${name}.headers`);
  writeFileSync(bodiesFile, `${bodies.map((body) => JSON.stringify(body)).join('\n')}\n`);
  writeFileSync(
    headersFile,
    `${Object.entries({ 'content-type': 'application/json', ...headers })
      .map(([key, value]) => `${key}: ${value}`)
      .join('\n')}\n`,
  );
  return { url, bodiesFile, headersFile };
}

/** A smoke run's targets end after this many answers each (`stopAfter`): its figures mean nothing, and a second of load a target costs both cores. */
export const SMOKE_ANSWERS = 200;

export interface WrkOptions {
  readonly seconds: number;
  readonly connections: number;
  readonly threads?: number;
  /** Ends the run after this many answers (wrk's first thread to reach it), at most `seconds` in. */
  readonly stopAfter?: number;
}

export function runWrk(target: WrkTarget, options: WrkOptions): Promise<WrkResult> {
  const args = [
    `-t${options.threads ?? 1}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    SCRIPT,
    target.url,
    '--',
    target.bodiesFile,
    target.headersFile,
    ...(options.stopAfter === undefined ? [] : [String(options.stopAfter)]),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stopping = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // The script has stopped its thread: SIGINT ends wrk's wait for `seconds`, and it prints its summary.
      if (options.stopAfter !== undefined && !stopping && output.includes('\nBENCH_STOPPED\n')) {
        stopping = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), (options.seconds + 15) * 1000);
    child.once('error', (error) => {
      clearTimeout(killer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(killer);
      const line = output.split('\n').find((text) => text.startsWith('BENCH_RESULT '));
      if (code !== 0 || !line) {
        reject(new Error(`wrk ${args.join(' ')} ended with ${signal ?? code}:\n${output}`));
        return;
      }
      const raw = JSON.parse(line.slice('BENCH_RESULT '.length)) as {
        requests: number;
        duration_us: number;
        errors: WrkResult['errors'];
        latency_us: { mean: number; p50: number; p90: number; p99: number; max: number };
      };
      const seconds = raw.duration_us / 1e6;
      const ms = (us: number) => Math.round(us / 10) / 100;
      resolve({
        requestsPerSecond: raw.requests / seconds,
        requests: raw.requests,
        seconds,
        errors: raw.errors,
        errorCount: Object.values(raw.errors).reduce((sum, count) => sum + count, 0),
        latencyMs: { mean: ms(raw.latency_us.mean), p50: ms(raw.latency_us.p50), p90: ms(raw.latency_us.p90), p99: ms(raw.latency_us.p99), max: ms(raw.latency_us.max) },
      });
    });
  });
}
