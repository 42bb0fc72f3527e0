/**
 * Media types and sizes as module files and the server's options write them: the one place that
 * says which media types exist (IANA's, as the `mime-db` package lists them, and those `file-type`
 * detects), how `accept` matches a type (`image/*` a whole family), and what `'20MB'` means.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const KNOWN_TYPES: ReadonlySet<string> = new Set(Object.keys(require('mime-db') as Record<string, unknown>));
const FAMILIES: ReadonlySet<string> = new Set([...KNOWN_TYPES].map((type) => type.split('/')[0]!));

/** A media type without its parameters, lower case: `Text/Plain; charset=utf-8` → `text/plain`. */
export function essenceOf(value: string): string {
  return value.split(';')[0]!.trim().toLowerCase();
}

/** Whether a module's `accept` entry names known media types: a type IANA lists, or `<family>/*` of a known family. */
export function isKnownAccept(entry: string): boolean {
  if (entry !== entry.trim() || entry !== entry.toLowerCase()) return false;
  if (entry.endsWith('/*')) return FAMILIES.has(entry.slice(0, -2));
  return KNOWN_TYPES.has(entry);
}

/** Whether a file of this media type fits `accept` (empty: any type). */
export function accepts(accept: readonly string[], type: string): boolean {
  if (accept.length === 0) return true;
  const essence = essenceOf(type);
  return accept.some((entry) => (entry.endsWith('/*') ? essence.startsWith(entry.slice(0, -1)) : essence === entry));
}

const UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** The most a size may say: 1 TB is more than any upload this service takes. */
export const MAX_SIZE_BYTES = 1024 ** 4;

/** The syntax of a size, for messages. */
export const SIZE_SYNTAX = "a whole number and a unit, B, KB, MB or GB (1 KB = 1024 B), such as '20MB'";

/** `'20MB'` → 20971520; undefined unless it is a whole number of 1 or more and a unit, at most 1 TB (spaces and the unit's case do not matter). */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*([0-9]{1,13})\s*(B|KB|MB|GB)\s*$/i.exec(text);
  if (!match) return undefined;
  const bytes = Number(match[1]) * UNITS[match[2]!.toUpperCase()]!;
  return bytes >= 1 && bytes <= MAX_SIZE_BYTES ? bytes : undefined;
}

/** A size in words for messages: `20 MB`, `1.5 KB`, `300 B`. */
/**
 * A size said to be over `limit`: in words, unless rounding would make it look no larger than
 * the limit in words (1,025 bytes is "1.0 KB" beside "1 KB"): then in bytes.
 */
export function sizeOverInWords(bytes: number, limit: number): string {
  const words = sizeInWords(bytes);
  const [value, unit] = words.split(' ') as [string, string];
  const [limitValue, limitUnit] = sizeInWords(limit).split(' ') as [string, string];
  return unit === limitUnit && Number(value) <= Number(limitValue) ? `${bytes} B` : words;
}

export function sizeInWords(bytes: number): string {
  for (const unit of ['GB', 'MB', 'KB'] as const) {
    const value = bytes / UNITS[unit]!;
    if (value >= 1) return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
  }
  return `${bytes} B`;
}
