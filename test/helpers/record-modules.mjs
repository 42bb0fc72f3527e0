// Diagnostic preload for test/cli/serve-footprint.test.ts, never loaded by rmsgen itself:
//
//   node --import ./test/helpers/record-modules.mjs bin/rmsgen.js serve …   (env RMS_RECORD_MODULES=<file>)
//
// Records every module the process loads into <file>, one URL or path a line: ES modules as
// Node's loader resolves them (a resolve hook, on the loader's thread, appends each), CommonJS
// modules from require.cache (appended on SIGUSR2 and at exit, followed by a `# snapshot` line).
// Plain JavaScript so that it needs no TypeScript loader in the process it watches.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.RMS_RECORD_MODULES;
if (!file) throw new Error('record-modules.mjs: set RMS_RECORD_MODULES to the file to write');

register('./record-modules-hooks.mjs', import.meta.url, { data: { file } });

const require = createRequire(import.meta.url);
let snapshots = 0;
function snapshot() {
  appendFileSync(file, `${Object.keys(require.cache).join('\n')}\n# snapshot ${++snapshots}\n`);
}
process.on('SIGUSR2', snapshot);
process.on('exit', snapshot);
