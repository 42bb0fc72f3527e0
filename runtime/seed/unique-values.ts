/**
 * Values of unique fields for `rmsgen seed`: every field-level unique, and one field of each
 * composite or partial unique, gets values that hold the record's number, so they never collide
 * with each other (nor with another draw of the same record); a composite of options, refs and
 * booleans counts record numbers in their combinations. Also how many records such fields can
 * tell apart, so a seed of more is refused before anything is written.
 */
import { patternRegExp } from '../kinds.ts';
import { MAX_DECIMAL_UNITS } from '../value-checks.ts';
import type { FieldMeta, ModelMeta } from '../registry.ts';
import { DAY_MS, LAST_DAY, MINUTE_MS, dayNumber, dayOf } from './dates.ts';
import { hasToken } from './field-names.ts';
import { Random } from './random.ts';
import { EMAIL, characters, codeOf, emailOf, personOf } from './text-values.ts';
import type { Context, Make, SeedValues, Value } from './value-context.ts';
import { patternOf } from './values-by-kind.ts';

interface UniquePlan {
  /** The fields whose values hold the record's number, with their makers. */
  readonly holders: ReadonlyMap<string, Make>;
  /** How many records each holder can tell apart, when limited. */
  readonly capacities: ReadonlyMap<string, number>;
  /** Composite uniques of options, refs and booleans only: their fields count the record's number together. */
  readonly radix: readonly RadixGroup[];
}

interface RadixGroup {
  readonly fields: readonly FieldMeta[];
  readonly capacity: number;
  values(n: number): SeedValues;
}

/**
 * Which fields hold the record's number: every field-level unique, and for each composite or
 * partial unique none of whose fields does, its first field of a kind that can (text, number,
 * money, decimal, date, datetime). A composite of options, refs and booleans only counts the
 * record's number in their combinations instead.
 */
export function uniquePlanOf(model: ModelMeta, context: Context): UniquePlan {
  const holders = new Map<string, Make>();
  const capacities = new Map<string, number>();
  const hold = (field: FieldMeta) => {
    const { make, capacity } = uniqueValueMaker(field, context);
    holders.set(field.name, make);
    if (capacity !== undefined) capacities.set(field.name, capacity);
  };
  for (const index of model.table.indexes) {
    if (typeof index === 'string' || !index.unique || index.fields.length !== 1 || index.where) continue;
    const field = model.fields.find((candidate) => candidate.name === index.fields[0]);
    if (field && !field.computed) hold(field);
  }
  const radix: RadixGroup[] = [];
  for (const unique of model.uniques ?? []) {
    if (unique.fields.some((name) => holders.has(name))) continue;
    const fields = unique.fields.map((name) => model.fields.find((field) => field.name === name)).filter((field): field is FieldMeta => field !== undefined && !field.computed);
    const holder = fields.find((field) => NUMBER_HOLDING_KINDS.has(field.kind));
    if (holder) hold(holder);
    else if (fields.length > 0) radix.push(radixGroupOf(fields, context));
  }
  return { holders, capacities, radix };
}

const NUMBER_HOLDING_KINDS: ReadonlySet<FieldMeta['kind']> = new Set(['text', 'longtext', 'email', 'url', 'phone', 'number', 'money', 'decimal', 'date', 'datetime']);

/** Fields of options, refs and booleans counting record numbers together, as the digits of a number in mixed bases; past their combinations, the first optional one is empty. */
function radixGroupOf(fields: readonly FieldMeta[], context: Context): RadixGroup {
  const choices = fields.map((field): readonly Value[] => {
    switch (field.kind) {
      case 'select':
        return field.options ?? [];
      case 'ref':
        return context.targets[field.target ?? ''] ?? [];
      case 'bool':
        return [false, true];
      case 'multiselect': {
        const options = field.options ?? [];
        // Every non-empty set of options, in declared order (an empty one is null, which never collides).
        return Array.from({ length: 2 ** Math.min(options.length, 20) - 1 }, (_, mask) => options.filter((_, i) => ((mask + 1) >> i) & 1));
      }
      default:
        return [];
    }
  });
  const capacity = choices.reduce((product, list) => product * list.length, 1);
  const optional = fields.find((field) => !field.required);
  return {
    fields,
    capacity,
    values(n) {
      const values: SeedValues = {};
      let rest = n - 1;
      fields.forEach((field, i) => {
        const list = choices[i]!;
        values[field.name] = list.length === 0 ? null : list[rest % list.length]!;
        rest = Math.floor(rest / Math.max(1, list.length));
      });
      if (n > capacity && optional) values[optional.name] = null;
      return values;
    },
  };
}

/** A unique field's value from the record's number, and how many numbers it can hold (undefined: enough). */
function uniqueValueMaker(field: FieldMeta, context: Context): { make: Make; capacity?: number } {
  const { model, targets, today } = context;
  switch (field.kind) {
    case 'number': {
      const [low, high] = [typeof field.min === 'number' ? Math.ceil(field.min) : 1, typeof field.max === 'number' ? Math.floor(field.max) : Number.MAX_SAFE_INTEGER];
      return { make: (n) => (low + n - 1 <= high ? low + n - 1 : null), capacity: high - low + 1 };
    }
    case 'money': {
      // Whole amounts from the least the field allows.
      const low = typeof field.min === 'number' ? Math.ceil(field.min / 100) : 1;
      const high = typeof field.max === 'number' ? Math.floor(field.max / 100) : Math.floor(Number.MAX_SAFE_INTEGER / 100);
      return { make: (n) => (low + n - 1 <= high ? (low + n - 1) * 100 : null), capacity: high - low + 1 };
    }
    case 'decimal': {
      const scale = field.scale ?? 2;
      const low = typeof field.min === 'number' ? Math.ceil(field.min) : 1;
      const high = typeof field.max === 'number' ? Math.floor(field.max) : Math.floor(MAX_DECIMAL_UNITS / 10 ** scale);
      return { make: (n) => (low + n - 1 <= high ? low + n - 1 : null), capacity: high - low + 1 };
    }
    case 'date': {
      const first = typeof field.min === 'string' ? dayNumber(field.min) : today - 365;
      const last = typeof field.max === 'string' ? dayNumber(field.max) : LAST_DAY;
      return { make: (n) => (first + n - 1 <= last ? dayOf(first + n - 1) : null), capacity: last - first + 1 };
    }
    case 'datetime': {
      // A minute apart.
      const first = typeof field.min === 'string' ? Math.ceil(Date.parse(field.min) / MINUTE_MS) : (today - 365) * (DAY_MS / MINUTE_MS);
      const last = typeof field.max === 'string' ? Math.floor(Date.parse(field.max) / MINUTE_MS) : LAST_DAY * (DAY_MS / MINUTE_MS);
      return { make: (n) => (first + n - 1 <= last ? new Date((first + n - 1) * MINUTE_MS).toISOString() : null), capacity: last - first + 1 };
    }
    case 'select':
      return { make: (n) => field.options?.[n - 1] ?? null, capacity: (field.options ?? []).length };
    case 'ref':
      return { make: (n) => targets[field.target ?? '']?.[n - 1] ?? null, capacity: (targets[field.target ?? ''] ?? []).length };
    case 'bool':
      return { make: (n) => (n <= 2 ? n === 2 : null), capacity: 2 };
    case 'multiselect': {
      const group = radixGroupOf([field], context);
      return { make: (n) => group.values(n)[field.name] ?? null, capacity: group.capacity };
    }
    default:
      return uniqueTextMaker(field, context, model);
  }
}

/**
 * A unique text's value: what its kind and name give, holding the number (a code, an email with
 * the number in it), when that fits the field's length and pattern; else the pattern's text with
 * the number in it; else the number's digits, as many as the length allows.
 */
function uniqueTextMaker(field: FieldMeta, context: Context, model: ModelMeta): { make: Make; capacity?: number } {
  const length = field.length;
  const byName: Make = (() => {
    if (field.kind === 'email' || (field.kind === 'text' && hasToken(field, EMAIL))) return (n) => emailOf(n, personOf(context, n));
    if (field.kind === 'url') return (n) => `https://www.example.com/${model.name}/${n}`;
    if (field.kind === 'phone') return (n) => `+1 555 ${String(n).padStart(7, '0')}`;
    return (n) => codeOf(field, model, n);
  })();
  if (field.pattern === undefined) {
    const fits = length === undefined || characters(String(byName(10_000_000, PROBE, {}))) <= length;
    if (fits) return { make: byName };
    return { make: (n) => String(n), capacity: 10 ** (length ?? 0) - 1 };
  }
  const pattern = patternRegExp(field.pattern);
  // The name's values are used when they match (a probe of small and large numbers says).
  const probes = [1, 2, 99, 10_000_000].map((n) => String(byName(n, PROBE, {})));
  if (probes.every((value) => pattern.test(value) && (length === undefined || characters(value) <= length))) return { make: byName };
  const text = patternOf(field, context);
  let capacity = text.capacity;
  if (length !== undefined && text.capacity === Infinity) {
    // The pattern's values grow with the number: the last that still fits the length.
    const fits = (n: number) => characters(text.numbered(n, PROBE)) <= length;
    let [fitting, over] = [0, 1];
    while (over < Number.MAX_SAFE_INTEGER && fits(over)) [fitting, over] = [over, Math.min(Number.MAX_SAFE_INTEGER, over * 2)];
    while (over - fitting > 1) {
      const middle = Math.floor((fitting + over) / 2);
      if (fits(middle)) fitting = middle;
      else over = middle;
    }
    capacity = fitting;
  }
  return { make: (n, random) => (n <= capacity ? text.numbered(n, random) : null), ...(Number.isFinite(capacity) ? { capacity } : {}) };
}

/** A random stream for probing makers (values that do not depend on chance). */
const PROBE = new Random();
