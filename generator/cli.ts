/**
 * `rmsgen build` and `rmsgen check`. Thin: parses options, runs the pipeline, prints. Only
 * `RmsgenError` is caught (its lines go to stderr, exit status 1); anything else is a bug and
 * shows its stack.
 */
import type { Command } from 'commander';
import { allCommands, allModels, type ModuleIR } from './ir.ts';
import { RmsgenError } from './errors.ts';
import { renderProblem, type Problem } from './problems.ts';
import type { ModuleImporter } from './load.ts';
import { diffOutput, writeOutput } from './write.ts';

/**
 * What reads and checks definitions brings ts-morph and TypeScript, about a second of loading: only
 * `build` and `check` load it, not help, `init` or a refused option of `dev`.
 */
async function pipeline() {
  const [{ logicProblems }, { typeProblems }, { loadModules }, { generate, loadProject }, { validate }] = await Promise.all([
    import('./check-logic.ts'),
    import('./diagnostics.ts'),
    import('./load.ts'),
    import('./pipeline.ts'),
    import('./validate/index.ts'),
  ]);
  return { logicProblems, typeProblems, loadModules, generate, loadProject, validate };
}

export interface BuildOptions {
  readonly check?: boolean;
  readonly modules: string;
  readonly out: string;
}

function shown(dir: string): string {
  const trimmed = dir.replace(/^\.\//, '').replace(/\/+$/, '');
  return `${trimmed === '' ? '.' : trimmed}/`;
}

/** Runs a command, printing an `RmsgenError`'s problems to stderr with exit status 1 (anything else is a bug: it is thrown). */
export async function reportingErrors(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof RmsgenError)) throw error;
    for (const problem of error.details) process.stderr.write(`${renderProblem(problem)}\n`);
    process.exitCode = 1;
  }
}

export async function runBuild(options: BuildOptions, importModule?: ModuleImporter): Promise<void> {
  const { loadProject, generate, logicProblems } = await pipeline();
  const ir = await loadProject(options.modules, importModule);
  const files = generate(ir, options.out);
  // The module files' functions, type-checked in their generated copies: nothing is written while one does not check.
  const logicErrors = logicProblems(ir, files);
  if (logicErrors.length > 0) throw new RmsgenError('invalid-definition', logicErrors);
  if (options.check) {
    const diff = diffOutput(options.out, files);
    const problems: Problem[] = [
      ...diff.stale.map((path): Problem => ({ file: `${shown(options.out)}${path}`, code: 'stale-file', message: 'stale' })),
      ...diff.missing.map((path): Problem => ({ file: `${shown(options.out)}${path}`, code: 'missing-file', message: 'missing' })),
      ...diff.extra.map((path): Problem => ({ file: `${shown(options.out)}${path}`, code: 'extra-file', message: 'no longer generated' })),
    ];
    if (problems.length > 0) {
      const summary = `${shown(options.out)} is out of date; run \`npx rmsgen build\` and commit the result`;
      throw new RmsgenError('stale', [...problems, { file: undefined, code: 'output-out-of-date', message: summary }]);
    }
    process.stdout.write(`${shown(options.out)} is up to date (${files.size} files)\n`);
    return;
  }
  const diff = writeOutput(options.out, files, shown(options.out));
  const changed = diff.stale.length + diff.missing.length;
  const removed = diff.extra.length > 0 ? `, ${diff.extra.length} removed` : '';
  process.stdout.write(`generated ${files.size} files (${changed} changed${removed}) in ${shown(options.out)}\n`);
}

export async function runCheck(options: { readonly modules: string }): Promise<void> {
  const { loadModules, validate, typeProblems, logicProblems, generate } = await pipeline();
  const loaded = await loadModules(options.modules);
  const ir = validate(loaded);
  // What validation cannot see: type errors in the module files (helpers, imports, annotations).
  const typeErrors = typeProblems(loaded.modules.map((module) => ({ file: module.file, source: module.source })));
  // And what only the generated code shows: the functions' copies against their models' records.
  const logicErrors = logicProblems(ir, generate(ir, options.modules));
  if (typeErrors.length + logicErrors.length > 0) throw new RmsgenError('invalid-definition', [...typeErrors, ...logicErrors]);
  const models = allModels(ir).length;
  process.stdout.write(
    `${shown(options.modules)}: ${ir.modules.length} modules, ${models} models, ${allCommands(ir).length} commands, ${ir.roles.length} roles; no problems\n`,
  );
  for (const module of ir.modules) process.stdout.write(`${moduleSummary(module)}\n`);
}

/** `  crm: party, lead; grants: sales: party *, lead *; accountant: …` — what a module brings, and whom it lets use what. */
function moduleSummary(module: ModuleIR): string {
  const roles = new Map<string, string[]>();
  for (const grant of module.grants) {
    const own = module.models.some((model) => model.name === grant.model);
    const text = `${grant.model}${own ? '' : ' (of a module it depends on)'} ${grant.commands.join(' ')}`;
    roles.set(grant.role, [...(roles.get(grant.role) ?? []), text]);
  }
  const grants = roles.size === 0 ? 'no grants' : `grants ${[...roles].map(([role, texts]) => `${role}: ${texts.join(', ')}`).join('; ')}`;
  return `  ${module.name}: ${module.declaredModels.join(', ')}; ${grants}`;
}

export function registerGeneratorCommands(program: Command): void {
  program
    .command('build')
    .description("Validate modules/ and write generated/ (per model: schemas, model metadata, commands, queries, MCP tools; plus roles and the registry); into the project's own generated/, then also compile the server and build the web app where stale")
    .option('--check', 'write nothing; exit 1 listing stale, missing or extra files when the output is out of date')
    .option('--modules <dir>', 'folder of module definitions', './modules')
    .option('--out <dir>', 'output folder', './generated')
    .action((options: BuildOptions) => reportingErrors(() => runBuild(options)));
  program
    .command('check')
    .description('Validate the module definitions only; writes nothing')
    .option('--modules <dir>', 'folder of module definitions', './modules')
    .action((options: { modules: string }) => reportingErrors(() => runCheck(options)));
}
