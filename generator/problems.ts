/**
 * A problem the generator found, as data: where it is, a stable code for the kind of problem,
 * what is wrong and how to fix it. Tests and tools match on the code and the location; people
 * read the line `renderProblem` makes of it:
 *
 *   `<file>[:<line>]: [dependsOn, ][role r, ][model m, ][lines l, ][field f, ][action a, ][input i: ]<message>[ (<detail>)][ (<fix>) | ; <fix>]`
 */

/** One code per kind of problem. Stable: tests and tools match on them, so rename none. */
export type ProblemCode =
  // Loading the module files.
  | 'modules-folder-not-found'
  | 'module-file-missing'
  | 'module-not-loadable'
  | 'module-syntax-error'
  | 'module-type-error'
  | 'no-default-export'
  // The shape of a definition.
  | 'duplicate-key'
  | 'not-an-object'
  | 'unknown-key'
  | 'missing-key'
  | 'invalid-value'
  // Names.
  | 'invalid-name'
  | 'reserved-model-name'
  | 'reserved-field-name'
  | 'duplicate-model-name'
  // Module dependencies.
  | 'self-dependency'
  | 'unknown-dependency'
  | 'duplicate-dependency'
  | 'dependency-cycle'
  // Fields and their references.
  | 'unknown-kind'
  | 'key-not-for-kind'
  | 'no-select-options'
  | 'empty-select-option'
  | 'duplicate-select-option'
  | 'unknown-media-type'
  | 'duplicate-media-type'
  | 'empty-accept'
  | 'invalid-max-size'
  | 'invalid-mask-label'
  | 'unknown-title-field'
  | 'title-not-for-kind'
  | 'unknown-ref-target'
  | 'required-ref-cycle'
  | 'ref-outside-dependencies'
  | 'unknown-read-role'
  | 'unknown-write-role'
  // Checks, defaults and computed fields.
  | 'invalid-check'
  | 'min-above-max'
  | 'invalid-pattern'
  | 'invalid-default'
  | 'computed-not-a-function'
  | 'computed-conflict'
  // Functions of the module file (computed fields, rules' checks) and their generated copies.
  | 'function-not-found'
  | 'function-uses-outside-names'
  | 'logic-type-error'
  // Line lists.
  | 'line-list-name-taken'
  | 'not-for-line-fields'
  | 'nested-lines'
  | 'ref-to-line-list'
  // Composite and partial uniques, locked states, rules.
  | 'unknown-unique-field'
  | 'duplicate-unique'
  | 'invalid-unique-where'
  | 'unknown-locked-in-field'
  | 'locked-in-field-needed'
  | 'unknown-rule-field'
  // Indexes, unique fields and lists.
  | 'index-not-for-kind'
  | 'unique-not-for-kind'
  | 'unique-personal'
  // What a field shows, against the fields it comes from (validate/check-visibility.ts).
  | 'computed-shows-personal'
  | 'computed-shows-hidden'
  | 'computed-shows-unreadable'
  | 'governed-not-kept'
  | 'required-personal-not-erasable'
  | 'unknown-index-field'
  | 'empty-index'
  | 'duplicate-index'
  | 'unknown-list-field'
  | 'duplicate-list-field'
  // Actions.
  | 'reserved-command-name'
  | 'no-governed-field'
  | 'ambiguous-governed-field'
  | 'unknown-moved-field'
  | 'moved-field-not-governed'
  | 'unknown-state'
  | 'duplicate-action-input'
  | 'unknown-action-input'
  | 'governed-action-input'
  | 'reserved-input-name'
  | 'action-input-kind-mismatch'
  | 'action-input-field-option'
  | 'computed-action-input'
  | 'unknown-set-field'
  | 'governed-set-field'
  | 'computed-set-field'
  | 'unknown-set-input'
  | 'invalid-set-value'
  | 'set-and-input'
  // Role grants.
  | 'admin-grant'
  | 'admin-only-grant'
  | 'unknown-grant-model'
  | 'grant-outside-module'
  | 'invalid-grant'
  | 'unknown-grant-command'
  // The output folder.
  | 'output-not-a-folder'
  | 'output-not-generated'
  | 'stale-file'
  | 'missing-file'
  | 'extra-file'
  | 'output-out-of-date';

/** Where in a module file a problem is. Every part is optional; a problem about the whole file has none. */
export interface ProblemLocation {
  /** The line, for problems found in the source text (a key written twice, a syntax or type error). */
  readonly line?: number;
  /** The column on that line, where the compiler points. */
  readonly column?: number;
  /** A module key that is not a model or a role. */
  readonly key?: 'dependsOn';
  readonly role?: string;
  readonly model?: string;
  /** A line list of the model (its fields are then the list's). */
  readonly lines?: string;
  readonly field?: string;
  readonly action?: string;
  /** An input of the action. */
  readonly input?: string;
}

/** What a check says about a problem; the location comes from where it looks. */
export interface ProblemReport {
  readonly code: ProblemCode;
  /** What is wrong, e.g. `ref to unknown model "prty"`. */
  readonly message: string;
  /** More about what is wrong (`got "yes"`, the names involved), shown in parentheses after the message. */
  readonly detail?: string;
  /** How to fix it (`did you mean "party"?`, `remove one`): in parentheses, or after a semicolon when a detail is shown. */
  readonly fix?: string;
  /** The offending source line and a caret under the spot, printed under the problem's line. */
  readonly excerpt?: string;
}

export interface Problem extends ProblemLocation, ProblemReport {
  /**
   * The file or folder, as shown to people (`modules/crm/module.ts`, `generated/roles.ts`).
   * Undefined only for a closing line about a whole folder, whose message names it.
   */
  readonly file: string | undefined;
}

/** The one line a problem is printed as (followed by the source excerpt, indented, when it has one). */
export function renderProblem(problem: Problem): string {
  const at = problem.line === undefined ? '' : `:${problem.line}${problem.column === undefined ? '' : `:${problem.column}`}`;
  const file = problem.file === undefined ? '' : `${problem.file}${at}: `;
  const where = [
    problem.key,
    problem.role === undefined ? undefined : `role ${problem.role}`,
    problem.model === undefined ? undefined : `model ${problem.model}`,
    problem.lines === undefined ? undefined : `lines ${problem.lines}`,
    problem.field === undefined ? undefined : `field ${problem.field}`,
    problem.action === undefined ? undefined : `action ${problem.action}`,
    problem.input === undefined ? undefined : `input ${problem.input}`,
  ].filter((part) => part !== undefined);
  const detail = problem.detail === undefined ? '' : ` (${problem.detail})`;
  // Never two parentheses in a row: after a detail, the fix follows a semicolon.
  const fix = problem.fix === undefined ? '' : problem.detail === undefined ? ` (${problem.fix})` : `; ${problem.fix}`;
  const line = `${file}${where.length > 0 ? `${where.join(', ')}: ` : ''}${problem.message}${detail}${fix}`;
  return problem.excerpt === undefined ? line : `${line}\n${problem.excerpt.replace(/^/gm, '    ')}`;
}
