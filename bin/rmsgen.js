#!/usr/bin/env node
// Two ways in. The server's commands (`serve`, `migrate`, `user …`) run the compiled server in
// dist/server/ (plain JavaScript built by `npm install` and `rmsgen build`, see bin/compile.ts):
// no TypeScript compiler, generator or esbuild in the process, and nothing compiled at start. The
// rest (`build`, `check`, help) is the TypeScript CLI, bin/cli.ts, which tsx runs as it is so that
// module definitions load without a separate compile step.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SERVER_COMMANDS = new Set(['serve', 'migrate', 'user']);

if (SERVER_COMMANDS.has(process.argv[2])) {
  const entry = new URL('../dist/server/rmsgen-server.js', import.meta.url);
  if (!existsSync(fileURLToPath(entry))) {
    console.error('the compiled server (dist/server/) is not built.');
    console.error('Run `npx rmsgen build` (or `npm install`) to build it.');
    process.exit(1);
  }
  await import(entry.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./cli.ts');
}
