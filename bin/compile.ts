/**
 * Builds what `serve` runs from (see bin/outputs.ts), at install or build time only:
 *
 * - the compiled server, `dist/server/`: bin/server-main.ts (the `serve`, `migrate` and `user …`
 *   part of the CLI) with runtime/ and generated/ bundled by esbuild into plain JavaScript;
 *   packages stay external (loaded from node_modules as they are). Code split at dynamic
 *   imports, so what the server loads lazily (the MCP endpoint and its SDK) is a chunk of its own.
 * - the web app, `web/dist/` (web/build.ts), with the project's generated logic.
 *
 * For a service of its own (bin/project.js) the compiled server goes to the service's
 * `dist/server/`: this package's bin/ and runtime/ with the service's generated/, its manifest's
 * inputs relative to the service, and a `node_modules` link there to this package's, where the
 * packages the bundle leaves external are installed (npm links a `file:` dependency without
 * installing its dependencies into the service). Its web app, bundled with the service's
 * generated logic, goes to the service's `dist/web/`, which its compiled server serves.
 *
 *   node --import tsx bin/compile.ts [--force]     # npm install runs this (prepare)
 *
 * `rmsgen build` runs the same after writing generated/. Each does nothing for an output whose
 * manifest says it is current.
 */
import { readFile } from 'node:fs/promises';
import { lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { buildWebApp } from '../web/build.ts';
import { MANIFEST_VERSION, readManifest, stampInputs, writeManifest, type BuildManifest, type InputStamp } from './freshness.ts';
import { MANIFEST_FILE, PACKAGE_ROOT, PROJECT, SERVER_DIR, SERVER_ENTRY_FILE, serverBuildProblem, WEB_DIST_DIR } from './outputs.ts';

/** Not bundled, but how the bundle is made: a change here must rebuild it (paths in this package). */
const RECIPE_FILES = ['bin/compile.ts', 'tsconfig.json'];
/** In a service's dist/server/: the link to this package's node_modules (see above). */
const PACKAGES_LINK = 'node_modules';
/**
 * Every file here is an input, so that editing a module definition makes the build stale until
 * `rmsgen build` has regenerated generated/ (see `moduleStamps`).
 */
const MODULES_FOLDER = 'modules';

export interface CompileResult {
  /** False when the output was current and nothing was written. */
  readonly built: boolean;
  /** Why it was built (the staleness found), when it was. */
  readonly reason?: string;
  readonly milliseconds: number;
}

export interface CompileOptions {
  readonly force?: boolean;
  /** Called by `rmsgen build` right after writing generated/ from modules/: they agree now. */
  readonly afterGenerate?: boolean;
  readonly log?: (line: string) => void;
}

export async function compileServer(options: CompileOptions = {}): Promise<CompileResult> {
  const started = performance.now();
  const problem = serverBuildProblem();
  if (!options.force && problem === undefined) return { built: false, milliseconds: performance.now() - started };

  const root = PROJECT.root;
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: { [basename(SERVER_ENTRY_FILE, '.js')]: join(PACKAGE_ROOT, 'bin/server-main.ts') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir: SERVER_DIR,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [sourceLocationPlugin(SERVER_DIR), ...(PROJECT.service ? [serviceRegistryPlugin(join(root, 'generated', 'registry.ts')), serviceWebAppPlugin()] : [])],
  });

  mkdirSync(SERVER_DIR, { recursive: true });
  const previous = readManifest(join(SERVER_DIR, MANIFEST_FILE));
  // Chunks first, the entry last: a process starting meanwhile finds either build whole.
  const entryPath = join(SERVER_DIR, SERVER_ENTRY_FILE);
  const ordered = [...result.outputFiles].sort((a, b) => Number(a.path === entryPath) - Number(b.path === entryPath));
  for (const file of ordered) writeAtomically(file.path, file.contents);
  const outputs = result.outputFiles.map((file) => toPosix(relative(SERVER_DIR, file.path)));
  if (PROJECT.service) {
    linkPackages(join(SERVER_DIR, PACKAGES_LINK));
    outputs.push(PACKAGES_LINK);
  }

  // The module made up for a service's web app (serviceWebAppPlugin) is no file: its recipe is this one.
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.split('/').includes('node_modules') && !file.startsWith(`${SERVICE_WEB_APP}:`));
  const recipe = RECIPE_FILES.map((file) => toPosix(relative(root, join(PACKAGE_ROOT, file))));
  const bundled = stampInputs(root, [...inputs, ...recipe]);
  writeManifest(join(SERVER_DIR, MANIFEST_FILE), {
    version: MANIFEST_VERSION,
    builtAt: new Date().toISOString(),
    inputs: { ...bundled, ...moduleStamps(bundled, previous, options.afterGenerate === true) },
    folders: [MODULES_FOLDER],
    outputs,
  });

  // A server started from the previous build loads its lazy chunks later: keep them one build longer.
  const keep = new Set([MANIFEST_FILE, ...outputs, ...(previous?.outputs ?? [])]);
  for (const name of readdirSync(SERVER_DIR)) {
    if (!keep.has(name) && !name.endsWith('.tmp')) rmSync(join(SERVER_DIR, name), { force: true });
  }
  const milliseconds = performance.now() - started;
  const size = result.outputFiles.filter((file) => file.path.endsWith('.js')).reduce((sum, file) => sum + file.contents.length, 0);
  options.log?.(`server compiled: dist/server/ (${inputs.length} sources, ${(size / 1024).toFixed(0)} kB of JavaScript) in ${(milliseconds / 1000).toFixed(2)} s`);
  return { built: true, ...(problem !== undefined ? { reason: problem } : {}), milliseconds };
}

/**
 * The stamps of modules/ the manifest vouches for. The server is compiled from generated/, not
 * from modules/: stamping the definitions as they are now is right only when generated/ was made
 * from them — just generated (`afterGenerate`), or changed since the last compile (a pull, a
 * checkout, a first build: generated/ is committed together with modules/ and `npm test` checks
 * they agree). Otherwise (modules/ edited, then only recompiled: `npm install`, the tests' setup)
 * the previous stamps stay, so that `serve` keeps asking for `rmsgen build`.
 */
function moduleStamps(bundled: Record<string, InputStamp>, previous: BuildManifest | undefined, afterGenerate: boolean): Record<string, InputStamp> {
  const isModule = (file: string) => file.startsWith(`${MODULES_FOLDER}/`);
  const isGenerated = (file: string) => file.startsWith('generated/');
  if (!afterGenerate && previous) {
    const before = Object.entries(previous.inputs).filter(([file]) => isGenerated(file));
    const now = Object.entries(bundled).filter(([file]) => isGenerated(file));
    const generatedUnchanged = before.length === now.length && now.every(([file, stamp]) => previous.inputs[file]?.sha256 === stamp.sha256);
    if (generatedUnchanged) return Object.fromEntries(Object.entries(previous.inputs).filter(([file]) => isModule(file)));
  }
  return stampInputs(PROJECT.root, [], [MODULES_FOLDER]);
}

/** The compiled server and the web app (with the project's generated logic), each when stale (or always with `force`). */
export async function buildServeOutputs(options: CompileOptions = {}): Promise<void> {
  await compileServer(options);
  await buildWebApp({
    outDir: WEB_DIST_DIR,
    generatedDir: join(PROJECT.root, 'generated'),
    root: PROJECT.root,
    ...(options.force ? { force: true } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
}

/**
 * A service's compiled server loads the service's generated/registry.ts where this package's
 * server loads its own (bin/server-cli.ts imports `../generated/registry.ts`).
 */
function serviceRegistryPlugin(registry: string): Plugin {
  const packaged = realpathSync(join(PACKAGE_ROOT, 'generated')) + sep + 'registry.ts';
  return {
    name: 'service-registry',
    setup(build) {
      build.onResolve({ filter: /[/\\]generated[/\\]registry\.ts$/ }, (args) => {
        const wanted = join(realpathSync(args.resolveDir), args.path);
        return wanted === packaged ? { path: registry } : undefined;
      });
    },
  };
}

/** The module through which a service's compiled server loads runtime/web.ts. */
const SERVICE_WEB_APP = 'service-web-app';

/**
 * A service's compiled server serves the service's web app (its `dist/web/`, next to `dist/server/`,
 * built with its generated logic) where this package's serves its own (`web/dist/`): imports of
 * runtime/web.ts get it with that folder as the default.
 */
function serviceWebAppPlugin(): Plugin {
  const packaged = realpathSync(join(PACKAGE_ROOT, 'runtime', 'web.ts'));
  return {
    name: SERVICE_WEB_APP,
    setup(build) {
      build.onResolve({ filter: /[/\\]web\.ts$/ }, (args) => {
        if (args.namespace === SERVICE_WEB_APP) return { path: packaged, namespace: 'file' };
        const wanted = join(realpathSync(args.resolveDir), args.path);
        return wanted === packaged ? { path: 'web-app-of-the-service', namespace: SERVICE_WEB_APP } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: SERVICE_WEB_APP }, () => ({
        resolveDir: dirname(packaged),
        loader: 'ts',
        contents: [
          "import { fileURLToPath } from 'node:url';",
          "import { createWebAppRouter as packagedRouter, webAppExtension as packagedExtension, type WebAppRouterOptions } from './web.ts';",
          "export * from './web.ts';",
          "export const DEFAULT_WEB_DIST = fileURLToPath(new URL('../web/', import.meta.url));",
          'export const createWebAppRouter = (options: WebAppRouterOptions = {}) => packagedRouter({ distDir: DEFAULT_WEB_DIST, ...options });',
          'export const webAppExtension = (options: WebAppRouterOptions = {}) => packagedExtension({ distDir: DEFAULT_WEB_DIST, ...options });',
        ].join('\n'),
      }));
    },
  };
}

/** Points `link` (relative, so that moving the two folders together keeps it) at this package's node_modules. */
function linkPackages(link: string): void {
  const target = relative(dirname(link), realpathSync(join(PACKAGE_ROOT, 'node_modules')));
  let current: string | undefined;
  try {
    current = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : undefined;
  } catch {
    current = undefined;
  }
  if (current === target) return;
  rmSync(link, { force: true, recursive: true });
  symlinkSync(target, link, 'dir');
}

/**
 * Code that finds files next to itself (`new URL('../web/dist/', import.meta.url)`,
 * `createRequire(import.meta.url)`) must find them from the bundle too: each source's
 * `import.meta.url` becomes its own location, written relative to the bundle's so that the
 * package can be moved or copied after the build. The other `import.meta` properties are refused
 * rather than silently meaning the bundle.
 */
function sourceLocationPlugin(outDir: string): Plugin {
  return {
    name: 'source-location',
    setup(build) {
      build.onLoad({ filter: /\.ts$/, namespace: 'file' }, async (args) => {
        if (args.path.split(sep).includes('node_modules')) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta')) return undefined;
        const fromOutput = JSON.stringify(toPosix(relative(outDir, args.path)));
        const rewritten = source.replaceAll('import.meta.url', `new URL(${fromOutput}, import.meta.url).href`);
        const other = /import\.meta\.(?!url\b)\w+/.exec(rewritten);
        if (other) {
          const file = relative(PACKAGE_ROOT, args.path);
          throw new Error(`${file}: ${other[0]} would mean the compiled bundle, not ${file}; use import.meta.url`);
        }
        return { contents: rewritten, loader: 'ts' };
      });
    },
  };
}

function writeAtomically(path: string, contents: Uint8Array): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, contents);
  renameSync(temp, path);
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  buildServeOutputs({ force: process.argv.includes('--force'), log: (line) => console.log(line) }).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
