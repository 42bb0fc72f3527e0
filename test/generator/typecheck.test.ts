/**
 * The generated code type-checks under the project's strict settings (`verbatimModuleSyntax`,
 * `noUncheckedIndexedAccess`, …): one `tsc --noEmit` run with the project's tsconfig over the
 * output for some unusual but valid definitions built into a temp folder, and for a project
 * without models (plus everything they import, such as runtime/registry.ts and runtime/kinds.ts).
 * generated/, the generator and these tests are type-checked by `npm test`'s own tsc run over the
 * whole project (`npm run typecheck`), which this test does not repeat.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import { moduleTree, removeModuleTrees, ROOT, UNUSUAL } from '../helpers/module-trees.ts';

afterAll(removeModuleTrees);

it('the output for unusual definitions, and for none, type-checks with tsc --noEmit', async () => {
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
  // Only the output and what it imports: a program this small checks in a few seconds, with no incremental state to keep.
  writeFileSync(tsconfig, JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), include: ['out/**/*.ts', 'out-none/**/*.ts'] }));
  const output = await new Promise<string>((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--pretty', 'false', '-p', tsconfig], { cwd: ROOT }, (_, stdout, stderr) =>
      resolve(`${stdout}${stderr}`),
    );
  });
  expect(output.split('\n').filter((line) => line.includes('error TS'))).toEqual([]);
}, 120_000);
