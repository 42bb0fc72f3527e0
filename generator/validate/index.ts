/**
 * Stage 2: validate. Takes the raw definitions (the loader runs TypeScript without type checking,
 * so any shape may arrive) and returns one frozen IR with every default resolved, or throws an
 * `RmsgenError` with every problem found, all at once. In four layers:
 *
 * - `shapes.ts`: what each part must look like (zod), and zod's issues as problems;
 * - `read.ts`: the definitions walked into drafts, each part checked on its own;
 * - `check.ts` and `check-*.ts`: what needs several parts in view, resolving references by name;
 * - `build.ts` and `build-model.ts`: the drafts and resolved references turned into the IR.
 *
 * Problems are data (`../problems.ts`); `problem-list.ts` collects them in the order people read them.
 */
import { RmsgenError } from '../errors.ts';
import type { ProjectIR } from '../ir.ts';
import type { LoadedModules } from '../load.ts';
import { buildProject } from './build.ts';
import { checkProject } from './check.ts';
import { ProblemList } from './problem-list.ts';
import { readProject } from './read.ts';

export { RESERVED_MODEL_NAMES, SYSTEM_TABLE_PREFIX } from './reserved.ts';

export function validate(loaded: LoadedModules): ProjectIR {
  const problems = new ProblemList();
  const project = readProject(loaded, problems);
  const resolved = checkProject(project, problems);
  if (!problems.isEmpty) throw new RmsgenError('invalid-definition', problems.inReportOrder);
  return buildProject(project, resolved);
}
