/**
 * Processes the bench starts: a server is ready when it prints `listening on <url>`; its start-up
 * time is from spawn to that line, and its memory is read from /proc (VmRSS now, VmHWM the peak
 * since it started). Every process is stopped by the bench, and killed if it does not stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface StartedProcess {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  readonly port: number;
  /** Milliseconds from spawn to the `listening on` line. */
  readonly startMs: number;
  output(): string;
  /** Resident set size now, in MiB. */
  rssMiB(): number;
  /** The most the resident set has been since the process started, in MiB. */
  peakRssMiB(): number;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  /** The line that says the server is ready, its URL in the first group (rmsgen's `listening on <url>` by default). */
  readonly ready?: RegExp;
}

const running = new Set<ChildProcess>();

/** How much of a server's output after its `listening on` line is kept for error messages (characters). */
const OUTPUT_KEPT = 64 * 1024;

/** Starts `node <args>` and waits for its `listening on` line (or `options.ready`). */
export function startNode(name: string, args: readonly string[], options: StartOptions = {}): Promise<StartedProcess> {
  const started = performance.now();
  const ready = options.ready ?? /listening on (http:\/\/[^\s]+)/;
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not print ${ready} within ${options.timeoutMs ?? 30_000} ms:\n${output}`));
    }, options.timeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (!match) return;
      const startMs = performance.now() - started;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      // Only the last of what follows: the server measured with request lines writes thousands of
      // them a second, and a string grown from all of them would cost this process (on the same two
      // cores as the server and wrk) more CPU than the lines cost the server.
      child.stdout!.on('data', (more: Buffer) => (output = `${output.slice(-OUTPUT_KEPT)}${more.toString()}`));
      const url = match[1]!;
      resolve({
        name,
        pid: child.pid!,
        url,
        port: Number(new URL(url).port),
        startMs,
        output: () => output,
        rssMiB: () => procStatusMiB(child.pid!, 'VmRSS'),
        peakRssMiB: () => procStatusMiB(child.pid!, 'VmHWM'),
        stop: () => stopChild(child, exited),
      });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${signal ?? code}) before it was ready:\n${output}`));
    });
  });
}

/** Stops every process still running (for the bench's `finally`). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child, new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve()))))));
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}

function procStatusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs `node <args>` to completion; milliseconds and output. */
export function runNode(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return runCommand(process.execPath, args, options);
}

interface RunOptions {
  readonly cwd?: string;
  readonly timeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
}

interface RunResult {
  readonly ms: number;
  /** null when the command could not be started (its output says why) or was killed. */
  readonly code: number | null;
  readonly output: string;
}

/** Runs a program to completion (killed after `timeoutMs`, and by `stopAll`); milliseconds and output. */
export function runCommand(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...options.env } });
  running.add(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  return new Promise((resolve) => {
    const done = (code: number | null, more = '') => {
      clearTimeout(killer);
      running.delete(child);
      resolve({ ms: performance.now() - started, code, output: `${output}${more}` });
    };
    child.once('error', (error) => done(null, error.message));
    child.once('exit', (code) => done(code));
  });
}

/** CPU time (user and system) the process has used, in ms (/proc/<pid>/stat, in clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
