/**
 * `rmsgen` command line. Each area registers its own subcommands; this file only wires them.
 * The generated registry is loaded lazily (`loadRegistry`) so that `rmsgen build` works even
 * when `generated/` is missing or stale.
 */
import { Command } from 'commander';
import { registerGeneratorCommands } from '../generator/cli.ts';
import { registerRuntimeCommands } from '../runtime/cli.ts';

const program = new Command('rmsgen')
  .description('Generate and serve a permission-aware record service from module definitions')
  .showHelpAfterError()
  .configureHelp({ sortSubcommands: false });

registerGeneratorCommands(program);
registerRuntimeCommands(program, async () => (await import('../generated/registry.ts')).registry);

await program.parseAsync(process.argv);
