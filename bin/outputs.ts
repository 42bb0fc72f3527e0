/**
 * The build outputs `serve` runs from, and whether they are current.
 *
 * `serve`, `migrate` and `user …` run the compiled server in `dist/server/` (JavaScript bundled
 * from bin/, runtime/ and generated/ by bin/compile.ts) and serve the web app from
 * `web/dist/` (bundled by web/build.ts). Both are built by `npm install` (prepare) and by
 * `rmsgen build`, never by `serve`: a server process loads neither the TypeScript compiler nor
 * esbuild. Each output carries a manifest of its inputs; an output whose inputs changed is stale,
 * and `serve` refuses it, naming `REBUILD_COMMAND`.
 *
 * The compiled server, generated/ and the web app's build belong to the project (bin/project.js):
 * this package, or a service of its own (`rmsgen init`) found from the working directory, whose
 * compiled server bundles this package's runtime with the service's generated/, and whose web app
 * (this package's, driven by `GET /api/meta`) bundles the service's generated logic, to work out
 * computed fields while people type: `web/dist/` here, `dist/web/` in a service.
 *
 * Bundled into the compiled server: node: imports only.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { changedInputs, readManifest } from './freshness.ts';
import { findProject, type Project } from './project.js';

export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The project this process works on: this package, or the service the working directory is in. */
export const PROJECT: Project = findProject(process.cwd(), PACKAGE_ROOT);

/** The project's compiled server: its entry, hashed chunks and manifest (inputs relative to the project). Git-ignored. */
export const SERVER_DIR = join(PROJECT.root, 'dist', 'server');
export const SERVER_ENTRY_FILE = 'rmsgen-server.js';
export const MANIFEST_FILE = 'build-manifest.json';

/** The project's web app build (see web/build.ts): `web/dist/` here, `dist/web/` in a service. Git-ignored. */
export const WEB_DIST_DIR = PROJECT.service ? join(PROJECT.root, 'dist', 'web') : join(PACKAGE_ROOT, 'web', 'dist');

/** What rebuilds every output: regenerates generated/ when modules/ changed, compiles the server, builds the web app. */
export const REBUILD_COMMAND = 'npx rmsgen build';

/**
 * Whether a build into `out` is a build of the project's own generated/, which also brings what
 * `serve` runs up to date (the compiled server and the web app); a build into another folder (a
 * test's) is not what the project serves.
 */
export function isProjectOutput(out: string): boolean {
  return resolve(out) === join(PROJECT.root, 'generated');
}

/** Why the compiled server cannot be trusted, or undefined when it is current. */
export function serverBuildProblem(): string | undefined {
  return outputProblem('the compiled server (dist/server/)', join(SERVER_DIR, MANIFEST_FILE), PROJECT.root);
}

/** Why the web app bundle cannot be trusted, or undefined when it is current. */
export function webAppBuildProblem(): string | undefined {
  return outputProblem(`the web app (${PROJECT.service ? 'dist/web/' : 'web/dist/'})`, join(WEB_DIST_DIR, MANIFEST_FILE), PROJECT.root);
}

/** Changed files named in a message; past these, `…`. */
const SHOWN_CHANGES = 5;

function outputProblem(output: string, manifestPath: string, root: string): string | undefined {
  const manifest = readManifest(manifestPath);
  if (!manifest) return `${output} is not built`;
  const missing = manifest.outputs.find((file) => !existsSync(join(dirname(manifestPath), file)));
  if (missing !== undefined) return `${output} is incomplete: ${missing} is missing`;
  const changes = changedInputs(root, manifest, SHOWN_CHANGES + 1);
  if (changes.length === 0) return undefined;
  const more = changes.length > SHOWN_CHANGES ? ', …' : '';
  return `${output} is older than its sources: ${changes.slice(0, SHOWN_CHANGES).join(', ')}${more}`;
}
