#!/usr/bin/env node
// Two ways in. The server's commands (`serve`, `migrate`, `seed`, `history …`, `audit …`, `user …`, `backup`, `restore`: SERVER_COMMANDS) run the compiled server in
// dist/server/ (plain JavaScript built by `npm install` and `rmsgen build`, see bin/compile.ts):
// no TypeScript compiler, generator or esbuild in the process, and nothing compiled at start. The
// rest (`build`, `check`, help) is the TypeScript CLI, bin/cli.ts, which tsx runs as it is so that
// module definitions load without a separate compile step.
//
// The compiled server run is the project's (bin/project.js): this package's, or, in a service of its
// own (a folder whose package.json depends on rmsgen, made by `rmsgen init`), the service's.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { findProject, SERVER_COMMANDS } from './project.js';

if (SERVER_COMMANDS.has(process.argv[2])) {
  const project = findProject(process.cwd(), fileURLToPath(new URL('..', import.meta.url)));
  const entry = pathToFileURL(join(project.root, 'dist', 'server', 'rmsgen-server.js'));
  if (!existsSync(fileURLToPath(entry))) {
    console.error('the compiled server (dist/server/) is not built.');
    // npm install builds this package's (prepare), not a service's.
    console.error(project.service ? 'Run `npx rmsgen build` to build it.' : 'Run `npx rmsgen build` (or `npm install`) to build it.');
    process.exit(1);
  }
  const restore = applyMemoryPolicy();
  // Resolves once the command is done; for `serve`, once it listens (the entry awaits it).
  await import(entry.href);
  restore();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./cli.ts');
}

/**
 * The server's memory policy, in V8 flags that V8 reads as it goes, so that setting them here,
 * before the server's modules load, is as good as the command line (the same flag given to node
 * wins). Figures: docs/performance.md.
 *
 * - Old generation: under load most of what a request allocates outlives a young collection or
 *   two (it waits on the database) and is promoted, and V8 lets the old generation grow to up to
 *   four times what is live before collecting it: 170-195 MiB peak under lead.get with some
 *   20 MiB live. Growing it by half at most keeps the peak near 130 MiB, for a throughput cost
 *   within the noise of the bench.
 * - Young generation: loading modules, building schemas and migrating is nearly all survivors,
 *   which makes V8 double the young generation to 16 MiB before anything is served, and it keeps
 *   that while idle. It is held at its initial size until the command is done (the server
 *   listens), then grows again by V8's factor, 2, when requests call for it: some 6 MiB less
 *   resident while idle, the same under load.
 *
 * Returns what to call once the server listens.
 */
function applyMemoryPolicy() {
  const givenToNode = (flag) => process.execArgv.some((arg) => arg.replaceAll('_', '-').startsWith(`--${flag}`));
  if (!givenToNode('heap-growing-percent')) setFlagsFromString('--heap-growing-percent=50');
  if (givenToNode('semi-space-growth-factor')) return () => {};
  setFlagsFromString('--semi-space-growth-factor=1');
  return () => setFlagsFromString('--semi-space-growth-factor=2');
}
