/**
 * The one place the CLI ends the process on an error. Commands anywhere (runtime/cli.ts,
 * runtime/auth/cli.ts, bin/init.ts, bin/dev.ts …) throw a `CliError`; its message goes to standard
 * error and its exit status is the process's. Anything else is a bug: `report` shows it (the
 * server's entry logs it as the server logs unexpected errors), and the status is 1.
 */
import { CliError } from '../runtime/cli-error.ts';

export function exitOnError(error: unknown, report: (error: unknown) => void = (bug) => console.error(bug)): never {
  if (error instanceof CliError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(error.exitCode);
  }
  report(error);
  process.exit(1);
}
