/**
 * Entry of the compiled server (dist/server/rmsgen-server.js, built by bin/compile.ts; bin/rmsgen.js
 * imports it for `serve`, `migrate` and `user …`). Only the server's commands: the generator,
 * ts-morph, TypeScript and esbuild are not part of this bundle and never loaded.
 */
import { setFlagsFromString } from 'node:v8';
import { createProgram } from './program.ts';
import { registerServerCommands } from './server-cli.ts';

/**
 * Memory policy. Under load most of what a request allocates outlives a young-generation
 * collection or two (it waits on the database) and is promoted; V8 then lets the old generation
 * grow to up to four times what is live before collecting it, which is most of a server's peak
 * (docs/performance.md: 170–195 MiB under lead.get, of which some 20 MiB live). Growing it by half
 * at most keeps the peak near 130 MiB for a cost within the noise of the bench. Read by V8 each
 * time it sets the next limit, so setting it here, before anything is allocated, is as good as
 * the command-line flag; a `--heap-growing-percent` given to node wins (0 means V8's own policy).
 */
const HEAP_GROWING_PERCENT = 50;
if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

const program = createProgram();
registerServerCommands(program, { checkBuild: true });
await program.parseAsync(process.argv);
