/**
 * `rmsgen dev [--port] [--db] [--modules]`: build, serve, and do both again on every save.
 *
 * - Watches the modules folder, and in rmsgen itself runtime/ and web/src/ too (bin/dev-watch.ts). A burst of saves makes
 *   one rebuild, after `DEBOUNCE_MS` of quiet; saves during a rebuild make one more after it.
 * - A rebuild is `rmsgen build` itself, run by a builder child process that stays loaded between
 *   builds and loads the module files afresh for each (bin/dev-builder.ts): generated/, then the
 *   compiled server and the web app where stale. Its lines are printed as they come, so a module's
 *   problems read as `rmsgen check` prints them, one line each; dev goes on.
 * - When the compiled server was rebuilt, a new `rmsgen serve` starts on the same database (its
 *   start migrates additively) and, once it listens, takes over the port from the previous one,
 *   which is then stopped. A build that fails, or a server that does not start, leaves the last
 *   good server serving.
 * - What a server's start leaves in place for `rmsgen migrate` (the table of a removed model) it
 *   logs at every start; dev passes each such line on once, with the command that applies it.
 * - The port people use is a front (bin/dev-proxy.ts) that forwards to the current server and
 *   tells open pages of the web app to reload after each rebuild; `serve` and web/dist/ have no
 *   part of it.
 * - SIGINT (Ctrl-C) and SIGTERM stop the build under way, the server (SIGTERM: it drains) and the
 *   front, then exit 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { changedFiles, snapshot, watchTrees, type Snapshot, type TreeWatcher } from './dev-watch.ts';
import { DevBuilder } from './dev-builder.ts';
import { startDevFront, type DevFront } from './dev-proxy.ts';
import { CliError } from '../runtime/cli-error.ts';
import { MANIFEST_FILE, PACKAGE_ROOT, PROJECT, SERVER_DIR, WEB_DIST_DIR } from './outputs.ts';

/** Quiet time after the last change before a rebuild starts. */
export const DEBOUNCE_MS = 200;
/** How long a new server may take to listen (migrations included) before it counts as failed. */
const START_TIMEOUT_MS = 120_000;
/** How long a stopped server may drain before it is killed. */
const STOP_TIMEOUT_MS = 15_000;
const HOST = '127.0.0.1';
const RMSGEN = join(PACKAGE_ROOT, 'bin', 'rmsgen.js');

interface DevOptions {
  readonly port?: string;
  readonly db?: string;
  readonly modules: string;
}

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description(
      'Build and serve, then again on every save of the modules (in rmsgen itself also of runtime/ and web/src/): rebuilds as `rmsgen build` does, restarts the server on the same port and database, and reloads open pages of the web app; a problem is printed as `rmsgen check` prints it while the last good server keeps serving',
    )
    .option('--port <port>', 'port to listen on, on 127.0.0.1 (default: env PORT, else 3000; 0 picks a free one)')
    .option('--db <url>', 'database URL, as for serve: sqlite:<file> or postgres://… (default: env RMS_DB, else sqlite:./data/rms.sqlite)')
    .option('--modules <dir>', 'folder of module definitions', './modules')
    .action((options: DevOptions) => runDev(options));
}

export async function runDev(options: DevOptions): Promise<void> {
  const port = parsePort(options.port ?? env('PORT') ?? '3000');
  const db = options.db ?? env('RMS_DB');
  if (db !== undefined) await checkDatabaseUrl(db);
  const modulesDir = resolve(options.modules);
  if (!existsSync(modulesDir) || !statSync(modulesDir).isDirectory()) {
    fail(`${options.modules}: modules folder not found (create it, or pass --modules <dir>)`);
  }

  let front: DevFront;
  try {
    front = await startDevFront({ host: HOST, port });
  } catch (error) {
    fail(`cannot listen: ${(error as Error).message}`);
  }
  const dev = new DevSession(front, {
    modules: options.modules,
    // A service's own sources are its modules; rmsgen's runtime and web app are only watched in rmsgen itself.
    roots: PROJECT.service ? [modulesDir] : [modulesDir, join(PACKAGE_ROOT, 'runtime'), join(PACKAGE_ROOT, 'web', 'src')],
    serveArgs: db === undefined ? [] : ['--db', db],
    migrateCommand: migrateCommand(options.db),
  });
  process.once('SIGINT', () => void dev.stop('SIGINT'));
  process.once('SIGTERM', () => void dev.stop('SIGTERM'));
  say(`listening on ${front.url}`);
  dev.start();
}

interface SessionOptions {
  /** As given: passed on to `rmsgen build --modules`. */
  readonly modules: string;
  readonly roots: readonly string[];
  /** `--db`, when given. */
  readonly serveArgs: readonly string[];
  /** The command that applies what `serve` leaves in place, as the person would type it here. */
  readonly migrateCommand: string;
}

interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  readonly exited: Promise<void>;
  stopping: boolean;
}

class DevSession {
  private watcher: TreeWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private building: Promise<void> | undefined;
  private again = false;
  private last: Snapshot = new Map();
  private builds = 0;
  private server: Served | undefined;
  private readonly builder: DevBuilder;
  /** A server started but not yet listening. */
  private starting: ChildProcess | undefined;
  private initial = true;
  /** The last build's server did not start: the next good build tries again, changed or not. */
  private retryServer = false;
  private stopping = false;
  /**
   * What the servers said they left in place for `rmsgen migrate` (the table of a removed model …):
   * every restart says it again, dev says each once.
   */
  private readonly leftInPlace = new Set<string>();

  constructor(
    private readonly front: DevFront,
    private readonly options: SessionOptions,
  ) {
    this.builder = new DevBuilder(RMSGEN, options.modules);
  }

  start(): void {
    this.watcher = watchTrees(this.options.roots, () => this.schedule());
    // Should dev itself fail, no child outlives it.
    process.on('exit', () => {
      this.builder.kill();
      for (const child of [this.starting, this.server?.child]) child?.kill('SIGKILL');
    });
    this.kick();
  }

  private schedule(): void {
    if (this.stopping) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), DEBOUNCE_MS);
  }

  /** Starts a rebuild, or asks for one more after the one under way. */
  private kick(): void {
    if (this.stopping) return;
    if (this.building) {
      this.again = true;
      return;
    }
    this.building = this.cycle().finally(() => {
      this.building = undefined;
      if (this.again && !this.stopping) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async cycle(): Promise<void> {
    const now = snapshot(this.options.roots, process.cwd());
    const first = this.initial;
    const changed = changedFiles(this.last, now);
    if (!first && changed.length === 0) return;
    this.initial = false;
    this.last = now;
    say(first ? 'building' : `${describeChanges(changed)} changed; rebuilding`);
    const started = performance.now();

    const serverBefore = readText(join(SERVER_DIR, MANIFEST_FILE));
    const webBefore = readText(join(WEB_DIST_DIR, MANIFEST_FILE));
    // `rmsgen build` by the builder, its lines passed through; the problem lines (its stderr) kept for the pages.
    const build = await this.builder.build();
    if (this.stopping) return;
    if (!build.ok) {
      this.front.problems(build.problems);
      say(`build failed; ${this.server ? `still serving the last good build at ${this.front.url}` : 'no server yet: fix the problems and save'}`);
      if (!this.server) this.front.setTarget(undefined, 'the build failed: see the terminal');
      return;
    }
    const serverRebuilt = readText(join(SERVER_DIR, MANIFEST_FILE)) !== serverBefore;
    const webRebuilt = readText(join(WEB_DIST_DIR, MANIFEST_FILE)) !== webBefore;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);

    if (serverRebuilt || !this.server || this.retryServer) {
      const previous = this.server;
      let next: Served;
      try {
        next = await this.startServer();
      } catch (error) {
        if (this.stopping) return;
        const reason = (error as Error).message;
        this.retryServer = true;
        this.front.problems([...(error instanceof StartFailed ? error.output : []), reason]);
        say(`${reason}; ${previous ? `still serving the last good build at ${this.front.url}` : 'no server yet: fix the problem and save'}`);
        if (!previous) this.front.setTarget(undefined, 'the server did not start: see the terminal');
        return;
      }
      if (this.stopping) {
        await stopServer(next);
        return;
      }
      this.server = next;
      this.retryServer = false;
      this.front.setTarget(next.port);
      if (previous) await stopServer(previous);
      this.builds += 1;
      this.front.reload(this.builds);
      if (first) say(`serving ${this.front.url} (built in ${seconds} s); watching ${this.watched()} for changes`);
      else say(`rebuilt in ${seconds} s; server ${previous ? 'restarted' : 'started'} at ${this.front.url}; pages reload`);
      return;
    }
    if (!webRebuilt) {
      // Back to what is served (a fix undone, a comment in runtime/): open pages drop the problems.
      this.front.problems([]);
      say(`rebuilt in ${seconds} s; nothing served changed`);
      return;
    }
    this.builds += 1;
    this.front.reload(this.builds);
    say(`rebuilt in ${seconds} s; web app rebuilt; pages reload`);
  }

  /** A new `rmsgen serve` on a free loopback port; resolves once it listens. */
  private startServer(): Promise<Served> {
    // Errors as text for the terminal, and no line per request: dev's output is about the build.
    const child = spawn(process.execPath, [RMSGEN, 'serve', '--host', HOST, '--port', '0', '--log-format', 'text', '--no-request-log', ...this.options.serveArgs], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.starting = child;
    let listening: ((port: number) => void) | undefined;
    const exited = new Promise<void>((resolveExit) => child.on('close', () => resolveExit()));
    const served: Served = { child, port: 0, exited, stopping: false };
    const output: string[] = [];
    let newlyLeftInPlace = 0;
    const onLine = (line: string, stream: NodeJS.WriteStream) => {
      const match = /^listening on http:\/\/[^\s]+:(\d+)$/.exec(line);
      if (match && listening) {
        if (newlyLeftInPlace > 0) {
          say(`\`${this.options.migrateCommand}\` applies what serve leaves in place: it drops tables and columns that hold nothing, and refuses what would lose data (dev names each once)`);
        }
        listening(Number(match[1]));
        return;
      }
      // The child's own shutdown line: dev says what it stops.
      if (/^SIG[A-Z]+: shutting down$/.test(line)) return;
      if (LEFT_IN_PLACE.test(line)) {
        if (this.leftInPlace.has(line)) return;
        this.leftInPlace.add(line);
        newlyLeftInPlace += 1;
        stream.write(`${line}\n`);
        return;
      }
      output.push(line);
      stream.write(`${line}\n`);
    };
    void eachLine(child.stdout, (line) => onLine(line, process.stdout));
    void eachLine(child.stderr, (line) => onLine(line, process.stderr));
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the new server did not listen within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      listening = (port) => {
        clearTimeout(timer);
        listening = undefined;
        this.starting = undefined;
        (served as { port: number }).port = port;
        void exited.then(() => this.serverExited(served, child.exitCode, child.signalCode));
        resolvePromise(served);
      };
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`the new server did not start: ${error.message}`));
      });
      void exited.then(() => {
        if (!listening) return;
        clearTimeout(timer);
        this.starting = undefined;
        const status = child.signalCode ?? `exit status ${child.exitCode}`;
        reject(new StartFailed(`the new server did not start (${status})${output.length > 0 ? '' : ': it printed nothing'}`, output));
      });
    });
  }

  private serverExited(served: Served, code: number | null, signal: NodeJS.Signals | null): void {
    if (served.stopping || this.stopping || this.server !== served) return;
    this.server = undefined;
    this.front.setTarget(undefined, 'the server stopped: see the terminal');
    say(`the server stopped (${signal ?? `exit status ${code}`}); it starts again after the next build`);
  }

  private watched(): string {
    return this.options.roots
      .filter((root) => existsSync(root))
      .map((root) => `${shownPath(root)}/`)
      .join(', ');
  }

  async stop(signal: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    say(`${signal}: stopping`);
    clearTimeout(this.timer);
    this.watcher?.close();
    this.builder.kill();
    this.starting?.kill('SIGTERM');
    await this.building?.catch(() => undefined);
    if (this.server) await stopServer(this.server);
    await this.front.close();
    say('stopped');
    process.exit(0);
  }
}

/** How `serve` names what its additive migration left for `rmsgen migrate` (runtime/db/migrate/table-plan.ts's leftLine). */
const LEFT_IN_PLACE = /^left in place for rmsgen migrate: /;

/**
 * `npx rmsgen migrate` on the database dev serves: with `--db` when dev was given one (written out
 * unless it holds a password), else as it is (RMS_DB, or the default, is read the same way).
 */
function migrateCommand(db: string | undefined): string {
  if (db === undefined) return 'npx rmsgen migrate';
  return `npx rmsgen migrate --db ${/^postgres(ql)?:\/\/[^/@]*:[^/@]*@/.test(db) ? '<the --db dev was given>' : db}`;
}

/** A server that exited before it listened, with what it printed (its reason: a migration refused …). */
class StartFailed extends Error {
  constructor(
    message: string,
    readonly output: readonly string[],
  ) {
    super(message);
  }
}

/** SIGTERM (the server drains and exits), then SIGKILL if it takes too long. */
async function stopServer(served: Served): Promise<void> {
  served.stopping = true;
  if (served.child.exitCode === null && served.child.signalCode === null) served.child.kill('SIGTERM');
  const timer = setTimeout(() => served.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await served.exited;
  clearTimeout(timer);
}

function eachLine(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): Promise<void> {
  if (!stream) return Promise.resolve();
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', onLine);
  return new Promise((resolvePromise) => lines.on('close', () => resolvePromise()));
}

/** `modules/crm/module.ts`, `a, b and 3 more`. */
function describeChanges(files: readonly string[]): string {
  const shown = files.slice(0, 3).join(', ');
  return files.length > 3 ? `${shown} and ${files.length - 3} more` : shown;
}

function shownPath(path: string): string {
  const shown = relative(process.cwd(), path).split(sep).join('/');
  return shown === '' ? '.' : shown;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function say(line: string): void {
  process.stdout.write(`dev: ${line}\n`);
}

function fail(line: string): never {
  throw new CliError(`dev: ${line}`);
}

function parsePort(value: string): number {
  const port = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid port ${value}: use a number from 0 to 65535`);
  return port;
}

/** The URL as serve reads it; `:memory:` is refused, since every restart would start empty. */
async function checkDatabaseUrl(url: string): Promise<void> {
  const { parseDatabaseUrl } = await import('../runtime/db/connect.ts');
  let location: string;
  try {
    location = parseDatabaseUrl(url).location;
  } catch (error) {
    fail(`invalid --db / RMS_DB ${url}: ${(error as Error).message}`);
  }
  if (location === ':memory:') fail(`--db / RMS_DB ${url} would start empty at every restart; use a file: sqlite:<file>`);
}

/** An environment variable, unset when empty. */
function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}
