/**
 * `rmsgen dev`'s builder: one child process that runs `rmsgen build` each time dev asks, instead of
 * a new `rmsgen build` process per save. A new process loads tsx, TypeScript, ts-morph and the
 * generator before it reads a module (some 70 % of a rebuild's CPU, measured with --cpu-prof);
 * the builder loads them once and keeps them warm, so a rebuild after the first costs what the
 * build itself costs.
 *
 * What stays the same as `rmsgen build`: the same command code (generator/cli.ts's runBuild, then
 * the compiled server and the web app when the output is the project's generated/), the same
 * lines on stdout and the problems on stderr. What must not stay cached is loaded afresh for
 * every build: the module files and what they import, each build in a tsx namespace of its own
 * (a file imported twice in one namespace is the cached one). The builder's own code — the
 * generator, and the runtime it reads the kinds of commands from — is what it loaded at its
 * start: dev starts a new builder when any of it changed (`DevBuilder.build`).
 *
 * Protocol: dev sends `build` over the IPC channel; after the build's last line the builder writes
 * `BUILD_DONE` with the exit status (0 or 1) on stdout and `BUILD_DONE` on stderr, so that dev has
 * read every line of both before it goes on. It exits when dev goes away.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { snapshot, changedFiles, type Snapshot } from './dev-watch.ts';
import { isProjectOutput, PACKAGE_ROOT } from './outputs.ts';

/** A hidden command: dev's child, not for people. */
export const DEV_BUILDER_COMMAND = 'dev-builder';
/** Ends a build's output on each stream; not a line a build prints. */
const BUILD_DONE = '\u0000rmsgen-dev-build-done';
/** A builder is replaced after this many builds: every build's module files stay loaded in it. */
const BUILDS_PER_BUILDER = 100;
/** The builder's own code, loaded once per builder (in this package). */
const BUILDER_SOURCES = ['bin', 'generator', 'runtime'].map((folder) => join(PACKAGE_ROOT, folder));

export function registerDevBuilderCommand(program: Command): void {
  program
    .command(DEV_BUILDER_COMMAND, { hidden: true })
    .option('--modules <dir>', 'folder of module definitions', './modules')
    .action((options: { modules: string }) => serveBuilds(options.modules));
}

/** In the builder: a build per `build` message, until dev goes away. */
async function serveBuilds(modules: string): Promise<void> {
  if (!process.send) throw new Error(`rmsgen ${DEV_BUILDER_COMMAND} is started by rmsgen dev`);
  const [{ register }, { reportingErrors, runBuild }] = await Promise.all([import('tsx/esm/api'), import('../generator/cli.ts')]);
  let builds = 0;
  const out = './generated';
  const buildOnce = async (): Promise<number> => {
    builds += 1;
    const namespace = register({ namespace: `rmsgen-build-${builds}` });
    process.exitCode = undefined;
    try {
      await reportingErrors(() => runBuild({ modules, out }, (url) => namespace.import(url, import.meta.url) as Promise<Record<string, unknown>>));
      if (process.exitCode !== undefined && process.exitCode !== 0) return 1;
      if (isProjectOutput(out)) {
        const { buildServeOutputs } = await import('./compile.ts');
        await buildServeOutputs({ afterGenerate: true, log: (line) => process.stdout.write(`${line}\n`) });
      }
      return 0;
    } catch (error) {
      // As the CLI shows a bug: its stack, exit status 1.
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      return 1;
    } finally {
      process.exitCode = undefined;
      await namespace.unregister();
    }
  };
  let queue = Promise.resolve();
  process.on('message', (message) => {
    if (message !== 'build') return;
    queue = queue.then(async () => {
      const status = await buildOnce();
      process.stdout.write(`${BUILD_DONE} ${status}\n`);
      process.stderr.write(`${BUILD_DONE}\n`);
    });
  });
  process.on('disconnect', () => process.exit(0));
}

/** The result of one build: its exit status as a success, and its stderr lines (the problems). */
export interface BuildRun {
  readonly ok: boolean;
  readonly problems: string[];
}

/** Dev's side: the builder child, started when first needed and again when its code changed, died or is old. */
export class DevBuilder {
  private child: ChildProcess | undefined;
  private sources: Snapshot = new Map();
  private builds = 0;
  /** The build under way, and the builder running it. */
  private current: { readonly child: ChildProcess; stdoutDone: boolean; stderrDone: boolean; status: number; readonly problems: string[]; finish: () => void } | undefined;

  constructor(
    private readonly rmsgen: string,
    private readonly modules: string,
  ) {}

  /** One build, its lines passed through as they come (stdout to stdout, stderr to stderr). */
  async build(): Promise<BuildRun> {
    const sources = snapshot(BUILDER_SOURCES, PACKAGE_ROOT);
    if (this.child && (changedFiles(this.sources, sources).length > 0 || this.builds >= BUILDS_PER_BUILDER)) this.kill();
    if (!this.child) this.start(sources);
    const child = this.child!;
    this.builds += 1;
    return new Promise((resolvePromise) => {
      const run = { child, stdoutDone: false, stderrDone: false, status: 1, problems: [] as string[], finish: () => undefined as void };
      run.finish = () => {
        if (this.current !== run) return;
        this.current = undefined;
        resolvePromise({ ok: run.status === 0, problems: run.problems });
      };
      this.current = run;
      child.send('build', (error) => {
        if (error) this.ended(child, `cannot run rmsgen build: ${error.message}`);
      });
    });
  }

  /** Stops the builder (and the build under way, which then fails). */
  kill(): void {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    child.kill('SIGTERM');
  }

  private start(sources: Snapshot): void {
    const child = spawn(process.execPath, [this.rmsgen, DEV_BUILDER_COMMAND, '--modules', this.modules], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    this.child = child;
    this.sources = sources;
    this.builds = 0;
    const runOf = (): typeof this.current => (this.current?.child === child ? this.current : undefined);
    createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      const run = runOf();
      if (line.startsWith(BUILD_DONE)) {
        if (!run) return;
        run.status = Number(line.slice(BUILD_DONE.length + 1));
        run.stdoutDone = true;
        if (run.stderrDone) run.finish();
        return;
      }
      process.stdout.write(`${line}\n`);
    });
    createInterface({ input: child.stderr!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      const run = runOf();
      if (line === BUILD_DONE) {
        if (!run) return;
        run.stderrDone = true;
        if (run.stdoutDone) run.finish();
        return;
      }
      run?.problems.push(line);
      process.stderr.write(`${line}\n`);
    });
    child.on('error', (error) => this.ended(child, `cannot run rmsgen build: ${error.message}`));
    // After its output is read to the end: what it printed before it stopped comes first.
    child.on('close', (code, signal) => this.ended(child, `rmsgen build stopped (${signal ?? `exit status ${code}`})`));
  }

  /** A builder is gone: its build under way fails with `reason`, and the next build starts a new builder. */
  private ended(child: ChildProcess, reason: string): void {
    if (this.child === child) this.child = undefined;
    const run = this.current;
    if (!run || run.child !== child) return;
    run.problems.push(reason);
    run.status = 1;
    run.finish();
  }
}
