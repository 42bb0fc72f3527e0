/**
 * The generator's one error type. It carries every problem found, as data and as the lines the
 * CLI prints, and a code saying which stage refused. The CLI catches only this; anything else
 * is a bug.
 */
import { renderProblem, type Problem } from './problems.ts';

export type RmsgenErrorCode = 'load' | 'invalid-definition' | 'write-refused' | 'stale';

export class RmsgenError extends Error {
  /** One line per problem, each naming the file, model and field, what is wrong and how to fix it. */
  readonly problems: readonly string[];

  constructor(
    readonly code: RmsgenErrorCode,
    /** The same problems as data: location, a stable code, message, detail and fix. */
    readonly details: readonly Problem[],
  ) {
    const lines = details.map(renderProblem);
    super(lines.join('\n'));
    this.name = 'RmsgenError';
    this.problems = lines;
  }
}
