import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the compiled server and the web app when stale: the real `rmsgen serve` runs them.
    globalSetup: ['./test/global-setup.ts'],
    // Generous: a test's wall time stretches with the machine's load (three workers share two cores,
    // below), and a CLI test of a dozen processes took 16 s in a CI run.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real servers on loopback and real SQLite files. Three workers on the
    // two cores here: the slow files wait for most of their time (on processes they start, on
    // Chromium, on dev's rebuilds), and with two workers the cores sat idle for a fifth of the run
    // (272 s for 426 s of CPU). With three they stay busy: over several runs of each on this shared
    // machine, about 0.9 of the wall time (one run alone moves by a fifth either way).
    pool: 'forks',
    maxWorkers: 3,
    // Test files share their worker's process and its module cache: each file importing the runtime,
    // express, knex, zod and the MCP SDK afresh cost about as much CPU as the in-process tests
    // themselves (measured: 93 s -> 50 s of CPU for the in-process files). Every file closes what it
    // starts and leaves no global state behind (environment variables it sets are restored at once).
    isolate: false,
    reporters: ['default', './test/summary-reporter.ts'],
    // The slowest files first, so that they do not form the run's tail (test/sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
  },
});
