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

/** Equal as the server keeps values: empty is empty, and a multiselect compares by its options in order. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (isEmptyValue(a) || isEmptyValue(b)) return isEmptyValue(a) && isEmptyValue(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((value, index) => value === b[index]);
  return a === b;
}

/** `lead.notes` → `Notes`: the name of a withheld field (its label is withheld too). */
export function withheldName(path: string): string {
  const name = path.slice(path.indexOf('.') + 1).replace(/[_-]+/g, ' ').trim();
  return name.charAt(0).toUpperCase() + name.slice(1);
}
