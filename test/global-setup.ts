/**
 * vitest global setup: tests that start the real `rmsgen serve` (or `migrate`, `user …`) run the
 * compiled server, so it is brought up to date first, with the web app — only what is stale, as
 * `rmsgen build` would (a clean clone has them from `npm install`). Tests that import the runtime
 * run its TypeScript directly and need neither.
 *
 * Then the fixture package (test/helpers/fixtures.ts): a copy of this package serving the fixture
 * modules, whose CLI the tests of `serve`, `migrate`, `seed`, `user …` and `history prune` run, so
 * that they do not depend on the demo under modules/.
 */
import { buildServeOutputs } from '../bin/compile.ts';
import { buildFixturePackage } from './helpers/fixtures.ts';

export default async function setup(): Promise<void> {
  const log = (line: string) => console.log(`[global setup] ${line}`);
  await buildServeOutputs({ log });
  buildFixturePackage(log);
}
