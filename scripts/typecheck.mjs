#!/usr/bin/env node
// `npm run typecheck`: the project's three TypeScript programs (the code and tests, the module
// definitions, the web app) checked side by side, one tsc each, so that on two cores the two small
// ones finish while the large one runs. Each program's errors are printed as tsc prints them, in
// the order below; the status is 1 when any program has errors.
//
// Incremental: see scripts/tsc-run.mjs.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tscCommand } from './tsc-run.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PROGRAMS = ['tsconfig.json', 'tsconfig.modules.json', 'web/tsconfig.json'];

const runs = PROGRAMS.map(
  (config) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, tscCommand(config), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('error', (error) => resolve({ config, status: 1, output: `cannot run tsc: ${error.message}\n` }));
      child.on('close', (status) => resolve({ config, status, output }));
    }),
);

let failed = false;
for (const { config, status, output } of await Promise.all(runs)) {
  process.stdout.write(output);
  if (status !== 0) {
    failed = true;
    process.stderr.write(`typecheck: tsc -p ${config} failed (exit status ${status})\n`);
  }
}
process.exitCode = failed ? 1 : 0;
