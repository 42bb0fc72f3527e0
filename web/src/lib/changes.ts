/**
 * A field's change as people read it (what it was → what it becomes), the names and types that the
 * from → to lists (components/changes.tsx), a record's history (lib/history.ts,
 * components/history.tsx) and the approvals inbox share. It sits below all of them, so each
 * depends on it and none on another's module.
 */
import type { ComponentChildren } from 'preact';
import type { FieldInfo } from './types.ts';

/** One line of a from → to list. */
export interface ChangeLine {
  readonly name: string;
  /** The field as the reader knows it; undefined for a field meta does not describe. */
  readonly field: FieldInfo | undefined;
  /** What it was; leave the key out to show only what it becomes (a create, a plan without the record). */
  readonly from?: unknown;
  readonly to: unknown;
  /** A line under the value (e.g. that it changed since). */
  readonly note?: ComponentChildren;
}

/** Empty as the server stores it: null (and, to be safe, undefined, '' and a multiselect's []). */
export function isEmptyValue(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/** Equal as the server keeps values: empty is empty, a multiselect compares by its options in order, a file by its id (a form sends ids, a record holds files). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (isEmptyValue(a) || isEmptyValue(b)) return isEmptyValue(a) && isEmptyValue(b);
  const x = fileIdOf(a);
  const y = fileIdOf(b);
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((value, index) => fileIdOf(value) === fileIdOf(y[index]));
  return x === y;
}

/** A file (`{"id", …, "sha256"}`) as its id; anything else as it is. */
function fileIdOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { sha256?: unknown }).sha256 === 'string' ? (value as { id: unknown }).id : value;
}

/** `lead.notes` → `Notes`: the name of a withheld field (its label is withheld too). */
export function withheldName(path: string): string {
  const name = path.slice(path.indexOf('.') + 1).replace(/[_-]+/g, ' ').trim();
  return name.charAt(0).toUpperCase() + name.slice(1);
}
