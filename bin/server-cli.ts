/**
 * The server's subcommands (`serve`, `migrate`, `seed`, `history …`, `user …`, registered by runtime/cli.ts) as the
 * CLI offers them, plus `--allow-stale` and, in the compiled server, the check that refuses to run
 * a build older than its sources.
 */
import type { Command } from 'commander';
import { CliError } from '../runtime/cli-error.ts';
import { registerRuntimeCommands } from '../runtime/cli.ts';
import { REBUILD_COMMAND, serverBuildProblem, webAppBuildProblem } from './outputs.ts';

export interface ServerCommandOptions {
  /**
   * Refuse to run when the compiled server (and for `serve`, the web app) is stale. True in the
   * compiled server; the TypeScript CLI registers these commands for its help and runs them from
   * source, where there is no build to check.
   */
  readonly checkBuild: boolean;
}

export function registerServerCommands(program: Command, options: ServerCommandOptions): void {
  const existing = new Set(program.commands);
  registerRuntimeCommands(program, async () => (await import('../generated/registry.ts')).registry);
  for (const command of program.commands.filter((command) => !existing.has(command))) {
    for (const leaf of leaves(command)) {
      const outputs = isServe(leaf) ? 'the compiled server or the web app is' : 'the compiled server is';
      leaf.option(
        '--allow-stale',
        `run even when ${outputs} older than its sources (without it, ${leaf.name()} refuses and names the command that rebuilds them: ${REBUILD_COMMAND})`,
      );
    }
  }
  if (options.checkBuild) program.hook('preAction', (_program, actionCommand) => refuseStaleBuild(actionCommand));
}

/**
 * Refuses the command (a CliError), naming what is stale and the command that rebuilds it, unless
 * `--allow-stale` was given (then it warns and goes on).
 */
function refuseStaleBuild(command: Command): void {
  const problems = [serverBuildProblem(), isServe(command) ? webAppBuildProblem() : undefined].filter(
    (problem): problem is string => problem !== undefined,
  );
  if (problems.length === 0) return;
  if (command.opts<{ allowStale?: boolean }>().allowStale === true) {
    for (const problem of problems) console.error(`warning: ${problem}; running it anyway (--allow-stale)`);
    return;
  }
  throw new CliError([...problems.map((problem) => `${problem}.`), `Run \`${REBUILD_COMMAND}\` to rebuild, or pass --allow-stale to ${command.name()} anyway.`].join('\n'));
}

function isServe(command: Command): boolean {
  return command.name() === 'serve' && command.parent?.parent === null;
}

function leaves(command: Command): Command[] {
  return command.commands.length === 0 ? [command] : command.commands.flatMap(leaves);
}
