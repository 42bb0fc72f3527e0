/**
 * The build outputs `serve` runs from, and whether they are current.
 *
 * `serve`, `migrate` and `user …` run the compiled server in `dist/server/` (JavaScript bundled
 * from bin/, runtime/ and generated/ by bin/compile-server.ts) and serve the web app from
 * `web/dist/` (bundled by web/build.ts). Both are built by `npm install` (prepare) and by
 * `rmsgen build`, never by `serve`: a server process loads neither the TypeScript compiler nor
 * esbuild. Each output carries a manifest of its inputs; an output whose inputs changed is stale,
 * and `serve` refuses it, naming `REBUILD_COMMAND`.
 *
 * Bundled into the compiled server: node: imports only.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { changedInputs, readManifest } from './freshness.ts';

export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The compiled server: its entry, hashed chunks and manifest. Git-ignored. */
export const SERVER_DIR = join(PACKAGE_ROOT, 'dist', 'server');
export const SERVER_ENTRY_FILE = 'rmsgen-server.js';
export const MANIFEST_FILE = 'build-manifest.json';

/** The web app's build output (see web/build.ts). Git-ignored. */
export const WEB_DIST_DIR = join(PACKAGE_ROOT, 'web', 'dist');

/** What rebuilds every output: regenerates generated/ when modules/ changed, compiles the server, builds the web app. */
export const REBUILD_COMMAND = 'npx rmsgen build';

/** Why the compiled server cannot be trusted, or undefined when it is current. */
export function serverBuildProblem(): string | undefined {
  return outputProblem('the compiled server (dist/server/)', join(SERVER_DIR, MANIFEST_FILE));
}

/** Why the web app bundle cannot be trusted, or undefined when it is current. */
export function webAppBuildProblem(): string | undefined {
  return outputProblem('the web app (web/dist/)', join(WEB_DIST_DIR, MANIFEST_FILE));
}

/** Changed files named in a message; past these, `…`. */
const SHOWN_CHANGES = 5;

function outputProblem(output: string, manifestPath: string): string | undefined {
  const manifest = readManifest(manifestPath);
  if (!manifest) return `${output} is not built`;
  const missing = manifest.outputs.find((file) => !existsSync(join(dirname(manifestPath), file)));
  if (missing !== undefined) return `${output} is incomplete: ${missing} is missing`;
  const changes = changedInputs(PACKAGE_ROOT, manifest, SHOWN_CHANGES + 1);
  if (changes.length === 0) return undefined;
  const more = changes.length > SHOWN_CHANGES ? ', …' : '';
  return `${output} is older than its sources: ${changes.slice(0, SHOWN_CHANGES).join(', ')}${more}`;
}
