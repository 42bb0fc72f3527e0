/**
 * The order files start in: the slowest first, so that on the few workers they run beside the many
 * short files instead of forming the run's tail (a fresh clone has no timings of earlier runs,
 * and vitest's default order then goes by file size). The rest in vitest's own order: the
 * longest first when it has timings of an earlier run here, else the largest.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Slowest first (tens of seconds each: copies of the project, processes, browsers). */
const SLOW_FIRST = [
  'test/project/changed-modules.test.ts',
  'test/cli/dev.test.ts',
  'test/bench/smoke.test.ts',
  'test/cli/init.test.ts',
  'test/cli/build-check.test.ts',
  'test/web/app.test.ts',
  'test/web/usability.test.ts',
  'test/web/history.test.ts',
  'test/cli/user.test.ts',
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = SLOW_FIRST.indexOf(relative(this.ctx.config.root, file.moduleId).split('\\').join('/'));
      return index === -1 ? SLOW_FIRST.length : index;
    };
    const sorted = await super.sort(files);
    return sorted.map((file, order) => ({ file, order })).sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order).map(({ file }) => file);
  }
}
