/**
 * The parts of a bulk command's input that carry field values, as a single-record command would
 * take them: each record of `create_many`'s `records`, `update_many`'s `set`, an action's bulk
 * command's `input`. An agent's personal values in them are keyed as the single command keys them,
 * after the part's prefix: `records.3.name`, `records.0.items.2.note`, `set.notes`, `input.reason`.
 */
import { kindTraits, type CommandKind } from '../command-kinds.ts';

/** A part of a bulk input that carries field values: its key prefix, and the values as a single command takes them. */
export interface ValuePart {
  readonly prefix: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/** Whether the command is a bulk command whose input carries field values in parts. */
export function takesValueParts(kind: CommandKind): boolean {
  return kindTraits(kind).result === 'batch' && kindTraits(kind).takesFields;
}

/** The parts of a bulk command's input that carry field values (those that are objects: the rest are refused by validation). */
export function valueParts(kind: CommandKind, input: Readonly<Record<string, unknown>>): ValuePart[] {
  switch (kind) {
    case 'create_many':
      return Array.isArray(input.records) ? input.records.flatMap((record, index) => (isPlainObject(record) ? [{ prefix: `records.${index}.`, values: record }] : [])) : [];
    case 'update_many':
      return isPlainObject(input.set) ? [{ prefix: 'set.', values: input.set }] : [];
    case 'action_many':
      return isPlainObject(input.input) ? [{ prefix: 'input.', values: input.input }] : [];
    default:
      return [];
  }
}

/** The input with each part replaced (in the order `valueParts` gives them). */
export function withParts(kind: CommandKind, input: Readonly<Record<string, unknown>>, parts: readonly Record<string, unknown>[]): Record<string, unknown> {
  switch (kind) {
    case 'create_many': {
      let next = 0;
      return { ...input, records: (input.records as unknown[]).map((record) => (isPlainObject(record) ? parts[next++] : record)) };
    }
    case 'update_many':
      return parts.length > 0 ? { ...input, set: parts[0] } : { ...input };
    case 'action_many':
      return parts.length > 0 ? { ...input, input: parts[0] } : { ...input };
    default:
      return { ...input };
  }
}

/** The keys of `tokens` under `prefix`, without it: a part's tokens as its single command keys them. */
export function withoutPrefix(tokens: Readonly<Record<string, string>> | undefined, prefix: string): Record<string, string> {
  const own: Record<string, string> = {};
  for (const [key, token] of Object.entries(tokens ?? {})) if (key.startsWith(prefix)) own[key.slice(prefix.length)] = token;
  return own;
}


function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
