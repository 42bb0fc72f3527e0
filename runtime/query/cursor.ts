/**
 * Keyset paging for `list` and `search` (an extension of SPEC 4.5): `after` continues after the
 * last row of the page before, whatever its depth, in constant time — an offset makes the
 * database count its way to the page. The cursor is opaque to clients: the last row's values of
 * the order's keys and its id, with the order it belongs to, in base64url JSON. It holds only
 * values the caller reads in clear (it may order only on those).
 */
import { badRequest } from '../errors.ts';
import type { CompiledQueryField, Keyset } from './compiled-list.ts';

interface CursorData {
  /** The order it belongs to: `field:a|d` per key. */
  readonly o: string;
  /** The last row's values of the keys, in order (the id last). */
  readonly v: readonly unknown[];
}

type OrderKeys = readonly { readonly field: CompiledQueryField; readonly desc: boolean }[];

function signature(order: OrderKeys): string {
  return order.map(({ field, desc }) => `${field.name}:${desc ? 'd' : 'a'}`).join(',');
}

/** The cursor of a row (its values of the order's keys; `id` among them). */
export function encodeCursor(order: OrderKeys, row: Readonly<Record<string, unknown>>): string {
  const data: CursorData = { o: signature(order), v: order.map(({ field }) => row[field.name] ?? null) };
  return Buffer.from(JSON.stringify(data)).toString('base64url');
}

const NOT_A_CURSOR = 'after must be "" or the next of the page before';

/** Whether a cursor's value is one the field holds (a multiselect's: a list of its options; its filter value is one option). */
function isValueOf(field: CompiledQueryField, value: unknown): boolean {
  if (field.kind === 'multiselect') return Array.isArray(value) && value.length > 0 && value.every((option) => field.value.safeParse(option).success);
  return field.value.safeParse(value).success;
}

/** The keyset a cursor names, checked against this call's order: 400 for anything else. */
export function decodeCursor(cursor: string, order: OrderKeys): Keyset {
  let data: CursorData;
  try {
    data = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorData;
  } catch {
    throw badRequest(NOT_A_CURSOR);
  }
  if (typeof data !== 'object' || data === null || !Array.isArray(data.v) || data.v.length !== order.length) throw badRequest(NOT_A_CURSOR);
  if (data.o !== signature(order)) throw badRequest('after belongs to another order: keep the order of the page it came from');
  const keys = order.map(({ field, desc }, i) => {
    const value = data.v[i];
    if (value !== null && !isValueOf(field, value)) throw badRequest(NOT_A_CURSOR);
    return { field, desc, value };
  });
  const id = keys[keys.length - 1];
  if (id?.field.kind !== 'id' || typeof id.value !== 'string') throw badRequest(NOT_A_CURSOR);
  return { keys, id: id.value };
}
