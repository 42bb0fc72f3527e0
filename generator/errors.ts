/**
 * The generator's one error type. It carries every problem found (one line each) and a code
 * saying which stage refused. The CLI catches only this; anything else is a bug.
 */
export type RmsgenErrorCode = 'load' | 'invalid-definition' | 'write-refused' | 'stale';

export class RmsgenError extends Error {
  constructor(
    readonly code: RmsgenErrorCode,
    /** One line per problem, each naming the file, model and field, what is wrong and how to fix it. */
    readonly problems: readonly string[],
  ) {
    super(problems.join('\n'));
    this.name = 'RmsgenError';
  }
}
