/**
 * Prints one plain closing line after vitest's own summary, `tests: N passed, N failed, N skipped`,
 * the form CI reads whatever the test runner, preceded by one line per failed test with its
 * error's first line: `failed (SQLite): file > suite > test: message` (PostgreSQL when
 * RMS_TEST_PG_URL points the servers there). With RMS_TEST_SUMMARY_FILE set it also appends both
 * there, so that `.ci/run` can close with the total of its SQLite and PostgreSQL passes and the
 * names of what failed: a CI log read from its end then says which test failed, not only how many.
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    const database = process.env.RMS_TEST_PG_URL ? 'PostgreSQL' : 'SQLite';
    for (const module of testModules) {
      const file = relative(process.cwd(), module.moduleId);
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') {
          failed++;
          // The error's first line, enough to tell a timeout from a wrong answer.
          const message = (result.errors?.[0]?.message ?? '').split('\n', 1)[0]?.slice(0, 200);
          failures.push(`failed (${database}): ${file} > ${test.fullName}${message ? `: ${message}` : ''}`);
        } else skipped++;
      }
      // A file that failed to load has no tests but must still count as a failure.
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) {
        failed++;
        failures.push(`failed (${database}): ${file} (did not load)`);
      }
    }
    const failureLines = failures.map((line) => `${line}\n`).join('');
    process.stdout.write(`\n${failureLines}tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    const summaryFile = process.env.RMS_TEST_SUMMARY_FILE;
    if (summaryFile) appendFileSync(summaryFile, `${failureLines}${passed} ${failed} ${skipped}\n`);
  }
}
