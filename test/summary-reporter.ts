/**
 * Prints one plain closing line after vitest's own summary, `tests: N passed, N failed, N skipped`,
 * the form CI reads whatever the test runner. With RMS_TEST_SUMMARY_FILE set it also appends the
 * counts there, so that `.ci/run` can close with the total of its SQLite and PostgreSQL passes.
 */
import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but must still count as a failure.
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    const summaryFile = process.env.RMS_TEST_SUMMARY_FILE;
    if (summaryFile) appendFileSync(summaryFile, `${passed} ${failed} ${skipped}\n`);
  }
}
