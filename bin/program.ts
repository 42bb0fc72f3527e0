/** The `rmsgen` program both entries (bin/cli.ts, bin/server-main.ts) register their subcommands on. */
import { Command } from 'commander';

export function createProgram(): Command {
  return new Command('rmsgen')
    .description('Generate and serve a permission-aware record service from module definitions')
    .showHelpAfterError()
    .configureHelp({ sortSubcommands: false });
}
