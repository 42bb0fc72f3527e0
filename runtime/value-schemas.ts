/**
 * The zod schema of a field's value, from the runtime's builders (runtime/kinds.ts): which builder
 * a kind calls and with what, decided once. The emitters print it into `<model>.schemas.ts` and
 * build it live for the MCP tools' JSON Schema; validation builds it to check a field's `default`,
 * `min` and `max`, an action's `set` constants and a unique index's `where` values — so a constant
 * of a module is refused by exactly the check its value would meet at run time.
 */
import type { z } from 'zod';
import type { FieldKind } from './api-shapes.ts';
import { kinds } from './kinds.ts';

/** What a kind's builder is told besides the path. Each kind reads only its own. */
export interface ValueArguments {
  /** select, multiselect. */
  readonly options?: readonly string[];
  /** ref. */
  readonly target?: string;
  /** decimal. */
  readonly scale?: number;
  /** file. */
  readonly multiple?: boolean;
  /** number, money, decimal (numbers); date, datetime (strings). */
  readonly min?: number | string;
  readonly max?: number | string;
  /** Text kinds: the module's most characters, and its pattern. */
  readonly length?: number;
  readonly pattern?: string;
  /** Text kinds: the most characters storage takes (an indexed field's, see `indexedTextMaxLength`). */
  readonly maxLength?: number;
}

/** A decimal's count of decimals when the module says none. */
export const DEFAULT_SCALE = 2;

/** A builder call: `kinds.<builder>(path, ...args)`. */
export interface BuilderCall {
  readonly builder: keyof typeof kinds;
  readonly args: readonly unknown[];
}

/** An options object without its absent entries, or no argument at all when none is present. */
function optional(options: Readonly<Record<string, unknown>>): unknown[] {
  const present = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return Object.keys(present).length === 0 ? [] : [present];
}

const text = (builder: BuilderCall['builder']) => (a: ValueArguments): BuilderCall => ({
  builder,
  args: optional({ maxLength: a.maxLength, length: a.length, pattern: a.pattern }),
});
const range = (builder: BuilderCall['builder']) => (a: ValueArguments): BuilderCall => ({ builder, args: optional({ min: a.min, max: a.max }) });

/** The builder call of each kind. */
const BUILDER_CALLS: Record<FieldKind, (a: ValueArguments) => BuilderCall> = {
  text: text('text'),
  longtext: text('longtext'),
  email: text('email'),
  url: text('url'),
  phone: text('phone'),
  number: range('number'),
  money: range('money'),
  // Never without an argument: the scale is how a decimal is checked and stored.
  decimal: (a) => ({ builder: 'decimal', args: optional({ scale: a.scale ?? DEFAULT_SCALE, min: a.min, max: a.max }) }),
  date: range('date'),
  datetime: range('datetime'),
  bool: () => ({ builder: 'bool', args: [] }),
  select: (a) => ({ builder: 'select', args: [a.options ?? []] }),
  multiselect: (a) => ({ builder: 'multiselect', args: [a.options ?? []] }),
  ref: (a) => ({ builder: 'ref', args: [a.target ?? ''] }),
  file: (a) => ({ builder: 'file', args: optional({ multiple: a.multiple === true ? true : undefined }) }),
};

export function builderCall(kind: FieldKind, args: ValueArguments): BuilderCall {
  return BUILDER_CALLS[kind](args);
}

/** The live schema of a value of the kind, its messages naming `path`. */
export function valueSchema(path: string, kind: FieldKind, args: ValueArguments): z.ZodType {
  const call = builderCall(kind, args);
  return (kinds[call.builder] as (path: string, ...args: readonly unknown[]) => z.ZodType)(path, ...call.args);
}

/** The value as the runtime keeps it (a datetime in UTC, a multiselect in declared order), or the first message refusing it. */
export function checkedValue(schema: z.ZodType, value: unknown): { readonly value: unknown } | { readonly refused: string } {
  const result = schema.safeParse(value);
  return result.success ? { value: result.data } : { refused: result.error.issues[0]?.message ?? 'invalid' };
}
