/**
 * The generated code type-checks under the project's strict settings (`verbatimModuleSyntax`,
 * `noUncheckedIndexedAccess`, …): one `tsc --noEmit` run with the project's tsconfig over
 * generated/, generator/, these tests and the output for some unusual but valid definitions
 * built into a temp folder (plus everything they import, such as runtime/registry.ts and
 * runtime/kinds.ts). `npm test` runs tsc over the whole project as well.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import { moduleTree, removeModuleTrees, ROOT, UNUSUAL } from '../helpers/module-trees.ts';

afterAll(removeModuleTrees);

it('generated/, the generator and output for unusual definitions type-check with tsc --noEmit', async () => {
  const dir = moduleTree({ empty: `export default { models: {} };`, org: UNUSUAL });
  const out = join(dir, 'out');
  const files = generate(await loadProject(join(dir, 'modules')), out);
  expect(files.get('org/team_member.schemas.ts')).toContain(`kinds.select('team_member.q_2', ['it\\'s', 'a "quote"', 'ünï'])`);
  expect(files.get('org/knex.queries.ts')).toContain("import type { Knex as KnexClient } from 'knex';");
  writeOutput(out, files);
  // A project without any model still gets a registry that type-checks.
  const none = moduleTree({ none: `export default { models: {} };` });
  const noneOut = join(dir, 'out-none');
  writeOutput(noneOut, generate(await loadProject(join(none, 'modules')), noneOut));

  const tsconfig = join(dir, 'tsconfig.json');
  const include = ['generated', 'generator', 'test/generator'].map((folder) => join(ROOT, folder, '**/*.ts'));
  // Incremental, with its state kept under node_modules/.cache: a rerun re-checks only what changed. One state per
  // checkout: copies of the project (test/project) share node_modules and may run this test at the same time.
  const checkout = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
  const compilerOptions = { incremental: true, tsBuildInfoFile: join(ROOT, `node_modules/.cache/rmsgen/typecheck-${checkout}.tsbuildinfo`) };
  writeFileSync(tsconfig, JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), compilerOptions, include: [...include, 'out/**/*.ts', 'out-none/**/*.ts'] }));
  const output = await new Promise<string>((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--pretty', 'false', '-p', tsconfig], { cwd: ROOT }, (_, stdout, stderr) =>
      resolve(`${stdout}${stderr}`),
    );
  });
  expect(output.split('\n').filter((line) => line.includes('error TS'))).toEqual([]);
}, 120_000);
