/**
 * vitest global setup: tests that start the real `rmsgen serve` (or `migrate`, `user …`) run the
 * compiled server, so it is brought up to date first, with the web app — only what is stale, as
 * `rmsgen build` would (a clean clone has them from `npm install`). Tests that import the runtime
 * run its TypeScript directly and need neither.
 */
import { buildServeOutputs } from '../../bin/compile.ts';

export default async function setup(): Promise<void> {
  await buildServeOutputs({ log: (line) => console.log(`[global setup] ${line}`) });
}
