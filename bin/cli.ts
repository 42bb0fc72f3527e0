/**
 * `rmsgen` command line in TypeScript, run through tsx by bin/rmsgen.js for everything but the
 * server's commands (those run compiled: bin/server-main.ts). Each area registers its own
 * subcommands; this file only wires them, importing an area only when its commands can run:
 * `build`, `check`, `dev` and `init` never load the runtime (but its one-class cli-error.ts), and
 * help lists everything. A command's CliError ends the process here (bin/exit.ts).
 */
import type { Command } from 'commander';
import { registerGeneratorCommands } from '../generator/cli.ts';
import { registerDevCommand } from './dev.ts';
import { DEV_BUILDER_COMMAND, registerDevBuilderCommand } from './dev-builder.ts';
import { exitOnError } from './exit.ts';
import { registerInitCommand } from './init.ts';
import { isProjectOutput } from './outputs.ts';
import { createProgram } from './program.ts';

const program = createProgram();
registerGeneratorCommands(program);
compileAfterBuild(program.commands.find((command) => command.name() === 'build'));
registerDevCommand(program);
registerDevBuilderCommand(program);
registerInitCommand(program);

const command = process.argv[2];
if (command !== 'build' && command !== 'check' && command !== 'dev' && command !== DEV_BUILDER_COMMAND && command !== 'init') {
  const { registerServerCommands } = await import('./server-cli.ts');
  registerServerCommands(program, { checkBuild: false });
}

await program.parseAsync(process.argv).catch((error: unknown) => exitOnError(error));

/**
 * `rmsgen build` into the project's generated/ (this package's, or a service's: bin/project.js)
 * also brings what `serve` runs up to date: the compiled server and the web app (each only when
 * stale; see isProjectOutput).
 */
function compileAfterBuild(build: Command | undefined): void {
  if (!build) throw new Error('the generator registers no build command');
  build.hook('postAction', async (buildCommand) => {
    const options = buildCommand.opts<{ check?: boolean; out: string }>();
    if (options.check || (process.exitCode !== undefined && process.exitCode !== 0)) return;
    if (!isProjectOutput(options.out)) return;
    const { buildServeOutputs } = await import('./compile.ts');
    await buildServeOutputs({ afterGenerate: true, log: (line) => process.stdout.write(`${line}\n`) });
  });
}
