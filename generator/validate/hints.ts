/** Wording shared by the checks: how a wrong value is shown, and the hints that say what would be right. */
import type { ProblemReport } from '../problems.ts';
import { closest } from '../suggest.ts';

/** A value as a problem quotes it: strings in quotes, lists and objects by what they are. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `"${value}"`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/** A model, field, action or role name that is not lower snake_case. */
export function invalidName(what: 'model' | 'field' | 'action' | 'role' | 'line list' | 'input', name: string): ProblemReport {
  return { code: 'invalid-name', message: `invalid ${what} name "${name}"`, fix: identifierHint(name) };
}

/** What a valid name looks like, with the name made into one: `firstName` → `e.g. "first_name"`. */
export function identifierHint(name: string): string {
  return `use lower snake_case: a lowercase letter, then lowercase letters, digits and single underscores, e.g. "${suggestIdentifier(name)}"`;
}

function suggestIdentifier(name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '');
  return snake === '' ? 'lead_item' : snake;
}

/** `did you mean "x"? <what>: a, b, c`, or just the list when nothing is close (or the value is not even a string). */
export function choiceHint(value: unknown, choices: readonly string[], what: string): string {
  const suggestion = typeof value === 'string' ? closest(value, choices) : undefined;
  return `${suggestion ? `did you mean "${suggestion}"? ` : ''}${what}: ${choices.join(', ')}`;
}
