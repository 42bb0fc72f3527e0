/**
 * Builds the web app: `web/src/main.tsx` (Preact, TSX) bundled by esbuild into one hashed JS file
 * and one hashed CSS file under `web/dist/assets/`, plus `web/dist/index.html` naming them and
 * `web/dist/build-manifest.json` stamping the sources it was built from (bin/freshness.ts).
 *
 * The app is the same for every project but for one module: the models' computed fields, which it
 * works out while people type with the project's own generated functions. `rmsgen:generated-logic`
 * (web/src/lib/logic.ts imports it) is the project's `generated/logic.ts` (`generatedDir`), so a
 * project's web app is built for it: this package's into `web/dist/`, a service's into its own
 * `dist/web/` (bin/compile.ts).
 *
 * Run with `node --import tsx web/build.ts [--force]`; `npm install` (prepare, bin/compile.ts) and
 * `rmsgen build` call `buildWebApp()`, which does nothing when the manifest says the output is
 * current. `serve` never builds it: it refuses a stale one (bin/outputs.ts), naming the command.
 *
 * The swap is safe for a running server: new hashed assets are written first, then index.html is
 * replaced atomically (write + rename), and only then are assets no index refers to removed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { changedInputs, MANIFEST_VERSION, readManifest, stampInputs, writeManifest } from '../bin/freshness.ts';
import { MANIFEST_FILE } from '../bin/outputs.ts';

const WEB_DIR = dirname(fileURLToPath(import.meta.url));
/** Input paths in the manifest are relative to the package. */
const PACKAGE_ROOT = join(WEB_DIR, '..');
/** Not bundled, but how the bundle is made: a change here must rebuild it. */
const RECIPE_FILES = [fileURLToPath(import.meta.url), join(WEB_DIR, 'tsconfig.json')];

export interface BuildWebAppOptions {
  /** Rebuild even when the output looks up to date. */
  readonly force?: boolean;
  /** Where the sources are (default `web/src`). */
  readonly srcDir?: string;
  /** Where the output goes (default `web/dist`). */
  readonly outDir?: string;
  /** The project's generated/, whose `logic.ts` the app bundles (default: this package's). */
  readonly generatedDir?: string;
  /** The project's folder, which the manifest's inputs are relative to (default: this package). */
  readonly root?: string;
  /** Progress lines; default silent. */
  readonly log?: (line: string) => void;
}

export interface BuildWebAppResult {
  /** False when the output was already up to date. */
  readonly built: boolean;
  readonly outDir: string;
  /** Output files relative to `outDir` (`index.html`, `assets/app-XXXX.js`, …). */
  readonly files: readonly string[];
}

/** Builds `web/dist/` when it is missing or older than its sources (or always with `force`). */
export async function buildWebApp(options: BuildWebAppOptions = {}): Promise<BuildWebAppResult> {
  const srcDir = resolve(options.srcDir ?? join(WEB_DIR, 'src'));
  const outDir = resolve(options.outDir ?? join(WEB_DIR, 'dist'));
  const generatedDir = resolve(options.generatedDir ?? join(PACKAGE_ROOT, 'generated'));
  const root = resolve(options.root ?? PACKAGE_ROOT);
  const log = options.log ?? (() => {});
  if (!options.force && isWebAppFresh({ srcDir, outDir, generatedDir, root })) return { built: false, outDir, files: currentFiles(outDir) };

  const assetsDir = join(outDir, 'assets');
  mkdirSync(assetsDir, { recursive: true });
  // Loaded here only: checking freshness (what `serve` and the tests do) needs no bundler.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { app: join(srcDir, 'main.tsx') },
    bundle: true,
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    format: 'esm',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(WEB_DIR, 'tsconfig.json'),
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    write: true,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [generatedLogicPlugin(generatedDir)],
  });

  const outputs = Object.keys(result.metafile.outputs).map((file) => relative(outDir, resolve(file)).split('\\').join('/'));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style) throw new Error(`web build produced no ${script ? 'CSS' : 'JS'} file`);

  const html = renderIndexHtml({ script, style });
  const indexFile = join(outDir, 'index.html');
  const tempFile = `${indexFile}.${process.pid}.tmp`;
  writeFileSync(tempFile, html);
  renameSync(tempFile, indexFile);

  const keep = new Set(outputs.map((file) => basename(file)));
  for (const name of readdirSync(assetsDir)) {
    if (!keep.has(name)) rmSync(join(assetsDir, name), { force: true });
  }
  // Node modules (preact) are left out: stamping them would cost every check for a rare upgrade.
  const sources = Object.keys(result.metafile.inputs)
    .filter((file) => !file.startsWith('no-generated-logic:'))
    .map((file) => resolve(file))
    .filter((file) => !file.split(/[\\/]/).includes('node_modules'));
  writeManifest(join(outDir, MANIFEST_FILE), {
    version: MANIFEST_VERSION,
    builtAt: new Date().toISOString(),
    inputs: stampInputs(root, [...sources, ...RECIPE_FILES].map((file) => toPosix(relative(root, file)))),
    folders: [],
    outputs: ['index.html', ...outputs],
  });
  const files = ['index.html', ...outputs];
  log(`web app built: ${files.map((file) => `${file} (${formatSize(statSync(join(outDir, file)).size)})`).join(', ')}`);
  return { built: true, outDir, files };
}

/**
 * True when `outDir` holds a build whose manifest matches the sources (see bin/freshness.ts), made
 * with the project's generated logic, and whose index.html names assets that exist.
 */
export function isWebAppFresh(options: { srcDir?: string; outDir?: string; generatedDir?: string; root?: string } = {}): boolean {
  const outDir = resolve(options.outDir ?? join(WEB_DIR, 'dist'));
  const root = resolve(options.root ?? PACKAGE_ROOT);
  const indexFile = join(outDir, 'index.html');
  const manifest = readManifest(join(outDir, MANIFEST_FILE));
  if (!manifest || !existsSync(indexFile)) return false;
  // A build from other sources (a test's own srcDir), or another project's logic, is not this one's.
  const srcDir = toPosix(relative(root, resolve(options.srcDir ?? join(WEB_DIR, 'src'))));
  if (!Object.keys(manifest.inputs).some((file) => file.startsWith(`${srcDir}/`))) return false;
  const logic = join(resolve(options.generatedDir ?? join(PACKAGE_ROOT, 'generated')), LOGIC_FILE);
  if (existsSync(logic) !== Object.hasOwn(manifest.inputs, toPosix(relative(root, logic)))) return false;
  const referenced = referencedAssets(readFileSync(indexFile, 'utf8'));
  if (referenced.length < 2 || referenced.some((file) => !existsSync(join(outDir, file)))) return false;
  return changedInputs(root, manifest, 1).length === 0;
}

/** The module of the project's generated/ that holds every model's logic (computed fields). */
const LOGIC_FILE = 'logic.ts';
/** How the app imports it (web/src/lib/logic.ts; its type is declared in web/src/generated-logic.d.ts). */
const LOGIC_SPECIFIER = 'rmsgen:generated-logic';

/**
 * Resolves the app's `rmsgen:generated-logic` to the project's generated/logic.ts; a project
 * generated before there was one gets none (no computed field is worked out while typing).
 */
function generatedLogicPlugin(generatedDir: string): Plugin {
  return {
    name: 'generated-logic',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${LOGIC_SPECIFIER}$`) }, () => {
        const file = join(generatedDir, LOGIC_FILE);
        return existsSync(file) ? { path: file } : { path: LOGIC_SPECIFIER, namespace: 'no-generated-logic' };
      });
      build.onLoad({ filter: /.*/, namespace: 'no-generated-logic' }, () => ({ contents: 'export const logic = {};', loader: 'ts' }));
    },
  };
}

function toPosix(path: string): string {
  return path.split('\\').join('/');
}

function renderIndexHtml(assets: { script: string; style: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>Records</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/${assets.style}">
<script type="module" src="/${assets.script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>This app needs JavaScript.</noscript>
</body>
</html>
`;
}

function referencedAssets(html: string): string[] {
  return [...html.matchAll(/(?:href|src)="\/(assets\/[^"]+)"/g)].map((match) => match[1]!);
}

function currentFiles(outDir: string): string[] {
  return ['index.html', ...referencedAssets(readFileSync(join(outDir, 'index.html'), 'utf8'))];
}

function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  buildWebApp({ force: process.argv.includes('--force'), log: (line) => console.log(line) }).then(
    (result) => {
      if (!result.built) console.log('web app up to date');
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
