/**
 * The values `rmsgen seed` gives a record, from nothing but the model, the record's number and a
 * seed: the same number gives the same values on every run and every machine, so a benchmark or a
 * demo at size can be made again. Pure: no I/O, no clock, no `Math.random`.
 *
 * Values look like a business's records, per kind: names and addresses for personal text, a few
 * words for other text, amounts spread over orders of magnitude, dates over four years, options
 * spread evenly, refs spread over the records they may point at. Unique fields get values that
 * hold the record's number, so they never collide with each other.
 */
import type { FieldMeta, ModelMeta } from '../registry.ts';

/** What seeding needs besides the model: ids the model's refs may point at, by target model. */
export interface SeedTargets {
  readonly [model: string]: readonly string[];
}

/** A record's field values as JSON (null when empty), without `id`. */
export type SeedValues = Record<string, string | number | boolean | null>;

/** Dates fall in these four years (inclusive). */
export const FIRST_DAY = Date.UTC(2023, 0, 1);
const DAYS = (Date.UTC(2027, 0, 1) - FIRST_DAY) / 86_400_000;

/** One in this many optional values is left empty. */
const EMPTY_ONE_IN = 8;

/**
 * Makes the field values of record number `n` (1 for a table's first seeded record) of `model`. A
 * ref whose target has no ids stays empty. A unique field takes its value from `n`; a unique select
 * or ref has only so many values to give, and leaves the rest empty (`seedableCount` says how many).
 */
export function valuesMaker(model: ModelMeta, seed: number, targets: SeedTargets): (n: number) => SeedValues {
  const unique = uniqueFieldsOf(model);
  // A governed select is never empty either: its column is not null.
  const notNull = new Set(model.table.columns.filter((column) => column.notNull).map((column) => column.name));
  const makers = model.fields.map((field, index) => {
    const emptyAllowed = !field.required && !notNull.has(field.name) && field.name !== model.titleField;
    const make = unique.has(field.name) ? uniqueValueMaker(field, model, targets) : (n: number, random: Random) => valueOf(field, model, n, random, targets);
    return { name: field.name, index, emptyAllowed, isUnique: unique.has(field.name), make };
  });
  return (n) => {
    const values: SeedValues = {};
    for (const maker of makers) {
      const random = randomFor(seed, n, maker.index);
      const empty = maker.emptyAllowed && !maker.isUnique && random.below(EMPTY_ONE_IN) === 0;
      values[maker.name] = empty ? null : maker.make(n, random);
    }
    return values;
  };
}

/**
 * How many records of `model` can be seeded starting at number `first`: a required unique select or
 * ref has one value per option or target. Undefined when there is no such limit.
 */
export function seedableCount(model: ModelMeta, first: number, targets: SeedTargets): { count: number; field: string } | undefined {
  const unique = uniqueFieldsOf(model);
  let limit: { count: number; field: string } | undefined;
  for (const field of model.fields) {
    if (!unique.has(field.name) || !field.required) continue;
    const available = field.kind === 'select' ? (field.options ?? []).length : field.kind === 'ref' ? (targets[field.target ?? ''] ?? []).length : undefined;
    if (available === undefined) continue;
    const count = Math.max(0, available - (first - 1));
    if (limit === undefined || count < limit.count) limit = { count, field: field.name };
  }
  return limit;
}

function uniqueValueMaker(field: FieldMeta, model: ModelMeta, targets: SeedTargets): (n: number, random: Random) => string | number | null {
  switch (field.kind) {
    case 'number':
      return (n) => n;
    case 'money':
      return (n) => n * 100;
    case 'date':
      return (n) => dayOf(n - 1);
    case 'select':
      return (n) => field.options?.[n - 1] ?? null;
    case 'ref':
      return (n) => targets[field.target ?? '']?.[n - 1] ?? null;
    default:
      return (n, random) => textOf(field, model, n, random, true);
  }
}

function valueOf(field: FieldMeta, model: ModelMeta, n: number, random: Random, targets: SeedTargets): string | number | boolean | null {
  switch (field.kind) {
    case 'text':
      return textOf(field, model, n, random, false);
    case 'longtext':
      return sentences(random, 1 + random.below(3));
    case 'number':
      return random.below(101);
    case 'money':
      // Whole amounts from 10.00 to about 500,000.00, most of them small, as sales figures are.
      return Math.round(Math.exp(Math.log(10) + random.fraction() * (Math.log(500_000) - Math.log(10)))) * 100;
    case 'date':
      return dayOf(random.below(DAYS));
    case 'bool':
      return random.below(2) === 1;
    case 'select': {
      const options = field.options ?? [];
      return options.length === 0 ? null : (options[random.below(options.length)] as string);
    }
    case 'ref': {
      const ids = targets[field.target ?? ''] ?? [];
      return ids.length === 0 ? null : (ids[random.below(ids.length)] as string);
    }
  }
}

/** `YYYY-MM-DD` of the day this many days after the first. */
function dayOf(days: number): string {
  return new Date(FIRST_DAY + days * 86_400_000).toISOString().slice(0, 10);
}

/** Text by what the field holds, guessed from its name: a title, a name, an email, a phone, a code. */
function textOf(field: FieldMeta, model: ModelMeta, n: number, random: Random, unique: boolean): string {
  const name = field.name.toLowerCase();
  const first = pick(random, FIRST_NAMES);
  const last = pick(random, LAST_NAMES);
  if (name.includes('email')) return `${first}.${last}${n}@example.com`.toLowerCase();
  if (unique) return `${codePrefix(field, model)}-${String(n).padStart(7, '0')}`;
  if (name.includes('phone') || name.includes('mobile')) return `+1 555 ${String(n % 10_000).padStart(4, '0')} ${String(random.below(1000)).padStart(3, '0')}`;
  if (field.personal) return name.includes('name') || field.name === model.titleField ? `${first} ${last}` : `${random.below(200) + 1} ${pick(random, STREETS)}`;
  if (field.name === model.titleField) return `${model.label} ${n}: ${pick(random, COMPANIES)} ${pick(random, TOPICS)}`;
  return `${pick(random, COMPANIES)} ${pick(random, TOPICS)}`;
}

/** Fields a unique index covers alone (`unique: true`). */
function uniqueFieldsOf(model: ModelMeta): Set<string> {
  const fields = new Set<string>();
  for (const index of model.table.indexes) {
    if (typeof index !== 'string' && index.unique && index.fields.length === 1) fields.add(index.fields[0] as string);
  }
  return fields;
}

/** `INV` for invoice.number, `TAX` for party.tax_id: a code's prefix. */
function codePrefix(field: FieldMeta, model: ModelMeta): string {
  const source = ['number', 'code', 'reference', 'ref'].includes(field.name) ? model.name : field.name;
  return source.replace(/[^a-z]/gi, '').slice(0, 3).toUpperCase() || 'REC';
}

function sentences(random: Random, count: number): string {
  const out: string[] = [];
  for (let s = 0; s < count; s++) {
    const words: string[] = [];
    const length = 6 + random.below(10);
    for (let w = 0; w < length; w++) words.push(pick(random, WORDS));
    const sentence = words.join(' ');
    out.push(`${sentence[0]?.toUpperCase()}${sentence.slice(1)}.`);
  }
  return out.join(' ');
}

function pick<T>(random: Random, list: readonly T[]): T {
  return list[random.below(list.length)] as T;
}

/** A small deterministic generator (splitmix32) started from the seed, the record and the field. */
interface Random {
  /** A whole number from 0 to `bound - 1`. */
  below(bound: number): number;
  /** A number from 0 (inclusive) to 1 (exclusive). */
  fraction(): number;
}

function randomFor(seed: number, n: number, field: number): Random {
  let state = mix(mix(mix(seed | 0) ^ n) ^ (field + 1)) | 0;
  const next = () => {
    state = (state + 0x9e3779b9) | 0;
    return mix(state) >>> 0;
  };
  return {
    below: (bound) => Math.floor((next() / 0x1_0000_0000) * bound),
    fraction: () => next() / 0x1_0000_0000,
  };
}

function mix(value: number): number {
  let z = value | 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return z ^ (z >>> 15);
}

const FIRST_NAMES = ['Ada', 'Ben', 'Chloé', 'Dario', 'Elif', 'Femi', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kai', 'Lena', 'Malik', 'Nora', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tariq', 'Uma', 'Vera', 'Wei', 'Yara', 'Zoë'] as const;
const LAST_NAMES = ['Adams', 'Berg', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'García', 'Haddad', 'Ivanova', 'Jensen', 'Kowalski', 'Larsen', 'Müller', 'Nakamura', 'Okafor', 'Petrov', 'Quispe', 'Rossi', 'Schmidt', 'Tanaka', 'Usman', 'Varga', 'Weber', 'Yilmaz', 'Zhang'] as const;
const STREETS = ['Harbour Road', 'Mill Lane', 'Station Street', 'Königsallee', 'Rue du Marché', 'Via Roma', 'Oak Avenue', 'Canal Walk'] as const;
const COMPANIES = ['Acme', 'Northwind', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Vandelay', 'Stark', 'Wayne', 'Tyrell', 'Soylent', 'Cyberdyne', 'Wonka', 'Gringotts', 'Oscorp', 'Pied Piper'] as const;
const TOPICS = ['renewal', 'expansion', 'pilot', 'upgrade', 'support contract', 'new site', 'licences', 'consulting', 'migration', 'training', 'hardware refresh', 'annual plan'] as const;
const WORDS = ['call', 'customer', 'asked', 'about', 'pricing', 'the', 'team', 'wants', 'a', 'demo', 'next', 'week', 'budget', 'approved', 'for', 'quarter', 'follow', 'up', 'with', 'procurement', 'sent', 'proposal', 'and', 'contract', 'draft', 'meeting', 'went', 'well', 'decision', 'expected', 'soon'] as const;
