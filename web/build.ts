/**
 * Builds the web app: `web/src/main.tsx` (Preact, TSX) bundled by esbuild into one hashed JS file
 * and one hashed CSS file under `web/dist/assets/`, plus `web/dist/index.html` naming them and
 * `web/dist/build-manifest.json` stamping the sources it was built from (bin/freshness.ts).
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
  const log = options.log ?? (() => {});
  if (!options.force && isWebAppFresh({ srcDir, outDir })) return { built: false, outDir, files: currentFiles(outDir) };

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
    .map((file) => resolve(file))
    .filter((file) => !file.split(/[\\/]/).includes('node_modules'));
  writeManifest(join(outDir, MANIFEST_FILE), {
    version: MANIFEST_VERSION,
    builtAt: new Date().toISOString(),
    inputs: stampInputs(PACKAGE_ROOT, [...sources, ...RECIPE_FILES].map((file) => relative(PACKAGE_ROOT, file))),
    folders: [],
    outputs: ['index.html', ...outputs],
  });
  const files = ['index.html', ...outputs];
  log(`web app built: ${files.map((file) => `${file} (${formatSize(statSync(join(outDir, file)).size)})`).join(', ')}`);
  return { built: true, outDir, files };
}

/**
 * True when `outDir` holds a build whose manifest matches the sources (see bin/freshness.ts) and
 * whose index.html names assets that exist.
 */
export function isWebAppFresh(options: { srcDir?: string; outDir?: string } = {}): boolean {
  const outDir = resolve(options.outDir ?? join(WEB_DIR, 'dist'));
  const indexFile = join(outDir, 'index.html');
  const manifest = readManifest(join(outDir, MANIFEST_FILE));
  if (!manifest || !existsSync(indexFile)) return false;
  // A build from other sources (a test's own srcDir) is not this one's.
  const srcDir = relative(PACKAGE_ROOT, resolve(options.srcDir ?? join(WEB_DIR, 'src'))).split('\\').join('/');
  if (!Object.keys(manifest.inputs).some((file) => file.startsWith(`${srcDir}/`))) return false;
  const referenced = referencedAssets(readFileSync(indexFile, 'utf8'));
  if (referenced.length < 2 || referenced.some((file) => !existsSync(join(outDir, file)))) return false;
  return changedInputs(PACKAGE_ROOT, manifest, 1).length === 0;
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
