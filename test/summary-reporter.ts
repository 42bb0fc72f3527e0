/**
 * Prints one plain closing line after vitest's own summary, `tests: N passed, N failed, N skipped`,
 * the form CI reads whatever the test runner, preceded by one line per failure with the start of
 * its error: `failed (SQLite): file > suite > test: message` for a test, `file > suite: message`
 * for a suite whose hook failed and `file: message` for a file that did not load (PostgreSQL when
 * RMS_TEST_PG_URL points the servers there). With RMS_TEST_SUMMARY_FILE set it also appends both
 * there, so that `.ci/run` can close with the total of its SQLite and PostgreSQL passes and what
 * failed: a CI log read from its end then says which test failed, not only how many.
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
          failures.push(`failed (${database}): ${file} > ${test.fullName}${gist(result.errors?.[0]?.message)}`);
        } else skipped++;
      }
      // A file that did not load, or a suite whose hook failed (its tests then skipped), counts as a
      // failure of its own, with its error: else a run could fail with "0 failed".
      for (const entity of [module, ...module.children.allSuites()]) {
        const error = entity.errors()[0];
        if (error === undefined) continue;
        failed++;
        failures.push(`failed (${database}): ${file}${entity.type === 'suite' ? ` > ${entity.fullName}` : ''}${gist(error.message)}`);
      }
    }
    const failureLines = failures.map((line) => `${line}\n`).join('');
    process.stdout.write(`\n${failureLines}tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    const summaryFile = process.env.RMS_TEST_SUMMARY_FILE;
    if (summaryFile) appendFileSync(summaryFile, `${failureLines}${passed} ${failed} ${skipped}\n`);
  }
}

/**
 * The start of an error's message on one line, enough to tell a timeout from a wrong answer: its
 * first lines (a process's "exited while starting:" is followed by why) joined, at most 300
 * characters.
 */
function gist(message: string | undefined): string {
  const text = (message ?? '').split('\n').map((line) => line.trim()).filter((line) => line !== '').join(' / ');
  return text === '' ? '' : `: ${text.length > 300 ? `${text.slice(0, 299)}…` : text}`;
}
