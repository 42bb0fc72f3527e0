/**
 * A refusal on the command line — a bad option, an unknown model, a migration that would lose data
 * — in words for the person who typed the command. The CLI's commands throw it wherever they find
 * the problem; only bin/ ends the process: it prints the message on standard error and exits with
 * `exitCode`. Anything else thrown is a bug, shown with its stack.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
