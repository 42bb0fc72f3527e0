/**
 * What the ref columns of a CSV import name: each column's values are looked up in its target
 * model, a few hundred at a time, first as ids, then (the rest) as titles, so that a file may name
 * a unit by its code or a party by its name (`resolveRef` in records-csv.ts decides per cell).
 */
import { modelPages } from './export.ts';
import { can, titleFieldOf } from './meta.ts';
import type { RefLookup } from './records-csv.ts';
import type { FieldInfo, ModelInfo } from './types.ts';

/** Values per look-up: well within what an `in` filter takes (1,000). */
const CHUNK = 500;
/** Rows one look-up by title reads: a title shared by more than this many records is ambiguous all the same. */
const TITLE_ROWS = 5000;

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let at = 0; at < items.length; at += CHUNK) result.push(items.slice(at, at + CHUNK));
  return result;
}

/**
 * The look-up of each ref field (by name) among `fields` whose target the person may search or
 * list, for the values `valuesOf(field)` gives. Without that right a column's values go to the
 * server as ids, which checks them.
 */
export async function lookUpRefs(fields: readonly FieldInfo[], modelOf: (name: string) => ModelInfo | undefined, valuesOf: (field: FieldInfo) => readonly string[]): Promise<Map<string, RefLookup>> {
  const lookups = new Map<string, RefLookup>();
  for (const field of fields) {
    const target = field.kind === 'ref' ? modelOf(field.target ?? '') : undefined;
    if (!target || !(can(target, 'search') || can(target, 'list'))) continue;
    const values = [...new Set(valuesOf(field).map((value) => value.trim()).filter((value) => value !== ''))];
    const ids = new Set<string>();
    for (const chunk of chunks(values)) {
      const page = await modelPages(target, [{ field: 'id', op: 'in', value: chunk }], [])(0, chunk.length);
      for (const row of page.rows) ids.add(row.id);
    }
    const byTitle = new Map<string, string[]>();
    const title = titleFieldOf(target);
    const rest = values.filter((value) => !ids.has(value));
    if (title && (title.kind === 'text' || title.kind === 'longtext')) {
      for (const chunk of chunks(rest)) {
        const page = await modelPages(target, [{ field: title.name, op: 'in', value: chunk }], [])(0, TITLE_ROWS);
        for (const row of page.rows) {
          const name = row[title.name];
          if (typeof name === 'string') byTitle.set(name, [...(byTitle.get(name) ?? []), row.id]);
        }
      }
    }
    lookups.set(field.name, { target, ids, byTitle });
  }
  return lookups;
}
