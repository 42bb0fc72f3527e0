/** The values the API speaks in: field kinds, defaults, filters and order, a record. */

/**
 * The kinds a field can have: SPEC 2.2's, then `decimal` (a number with a fixed count of decimals),
 * `datetime` (an instant, ISO 8601), `email`, `url`, `phone` (text of that form) and `multiselect`
 * (an array of distinct options), `file` (uploaded files: one, or a list with `multiple`).
 */
export type FieldKind = 'text' | 'longtext' | 'number' | 'money' | 'date' | 'bool' | 'select' | 'ref' | 'decimal' | 'datetime' | 'email' | 'url' | 'phone' | 'multiselect' | 'file';

/**
 * A file as a file field holds it (and `POST /api/files` answers it): its id, its name as uploaded
 * (sanitised), its size in bytes, its media type (detected from its content where the content
 * says) and the SHA-256 of its content in lower-case hex.
 */
export interface FileRef {
  readonly id: string;
  readonly name: string;
  readonly size: number;
  readonly type: string;
  readonly sha256: string;
}

/**
 * An email address: a local part of the characters addresses use (no leading, trailing or double
 * dot, no angle brackets or `mailto:`), `@`, and a domain of at least two labels (letters, digits,
 * inner hyphens). At most MAX_EMAIL_LENGTH characters. The server and the web app check with it.
 */
export const EMAIL = /^(?!\.)(?!.*\.\.)[\p{L}\p{N}!#$%&'*+/=?^_`{|}~.-]+(?<!\.)@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?$/u;
export const MAX_EMAIL_LENGTH = 254;

/** A phone number as people write it: digits, spaces and `+-()` (the digits counted apart: 6 to 20). */
export const PHONE = /^[0-9 +\-()]+$/;

/**
 * A URL field's value: `http://host…` or `https://host…` as written, without spaces, backslashes
 * or control characters (which parsing would drop, or turn into slashes, so that what is stored
 * would not be what a browser opens), a user name or password, or port 0.
 */
export function isHttpUrl(value: string): boolean {
  // WHATWG's URL, which Node and browsers have: declared below, since the module definitions'
  // program (tsconfig.modules.json) has neither's types.
  if (!/^https?:\/\/[^/?#]/i.test(value) || /[\s\\\u0000-\u001f\u007f]/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '' && url.port !== '0';
  } catch {
    return false;
  }
}

/** A field's value when a record is created without it: a constant, or the day or instant of the write. */
export type FieldDefault = { readonly value: unknown } | 'today' | 'now';

/** What an action sets a field to: a constant, the day or instant it runs, or one of its inputs. */
export type ActionSet = { readonly value: unknown } | 'today' | 'now' | { readonly input: string };

import type { CommandKind } from '../command-kinds.ts';

/** SPEC 2.5: generated commands, plus `action` for a model's workflow actions; declared with what each kind is. */
export type { CommandKind };

/** SPEC 4.5: the operators of a `list`/`search` filter condition. */
export const FILTER_OPERATORS = ['eq', 'ne', 'contains', 'in', 'gt', 'gte', 'lt', 'lte', 'is_null'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** One condition of the `filter` of `list`/`search` (and of `GET /api/audit`). */
export interface FilterCondition {
  readonly field: string;
  readonly op: FilterOperator;
  readonly value?: unknown;
}

/**
 * Whether records order by a field of this kind: not by a file (its JSON, the id first) or a
 * multiselect (its list as text), which order nothing anyone means. The one rule: the list query
 * refuses such a key, the tools' and OpenAPI's order enums leave them out, the web app offers no sort.
 */
export function ordersBy(kind: FieldKind): boolean {
  return kind !== 'file' && kind !== 'multiselect';
}

/** One key of the `order` of `list`/`search`. */
export interface OrderKey {
  readonly field: string;
  readonly dir: 'asc' | 'desc';
}

/** A record as commands answer it: its `id` and the fields the caller reads (personal ones masked for agents). */
export type RecordValue = { readonly id: string } & Readonly<Record<string, unknown>>;

/** The part of WHATWG's URL that `isHttpUrl` reads. */
declare const URL: new (input: string) => { readonly protocol: string; readonly hostname: string; readonly username: string; readonly password: string; readonly port: string };
