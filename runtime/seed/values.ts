/**
 * The values `rmsgen seed` gives a record, from nothing but the model, the record's number, a seed
 * and the day it counts dates from: the same number gives the same values on every run and every
 * machine, so a benchmark or a demo at size can be made again. Pure: no I/O, no clock, no
 * `Math.random`.
 *
 * Values fit the field, by its kind and its name, in any business: amounts of a plausible size (a
 * rent of hundreds to thousands, an expected revenue of thousands to hundreds of thousands), dates
 * within a year of today (an end after its start, a due date weeks after its issue date), names,
 * emails and phone numbers where the name says so, codes for codes, a sentence for a reason or a
 * note, `<Label> <n>` for a record's title, never a business's own vocabulary. Options are spread
 * evenly, refs over every record they may point at. A governed field holds only states its actions
 * reach from the first option, and the fields those actions require are filled on the way (a lost
 * lead has its lost reason; a new one has none). Unique fields get values that hold the record's
 * number, so they never collide with each other.
 */
import type { ActionMeta, FieldMeta, ModelMeta } from '../registry.ts';

/** What seeding needs besides the model: ids the model's refs may point at, by target model. */
export interface SeedTargets {
  readonly [model: string]: readonly string[];
}

/** A record's field values as JSON (null when empty), without `id`. */
export type SeedValues = Record<string, string | number | boolean | readonly string[] | null>;
type Value = SeedValues[string];

const DAY_MS = 86_400_000;

/** One in this many optional values is left empty. */
const EMPTY_ONE_IN = 8;

/** Today (UTC) as `YYYY-MM-DD`: the day seeded dates are spread around unless told another. */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Makes the field values of record number `n` (1 for a table's first seeded record) of `model`,
 * with dates around `today` (`YYYY-MM-DD`). A ref whose target has no ids stays empty. A unique
 * field takes its value from `n`; a unique select or ref has only so many values to give, and
 * leaves the rest empty (`seedableCount` says how many).
 */
export function valuesMaker(model: ModelMeta, seed: number, targets: SeedTargets, today: string = todayUtc()): (n: number) => SeedValues {
  const context: Context = { model, targets, today: Math.floor(Date.parse(`${today}T00:00:00Z`) / DAY_MS), personField: personFieldOf(model), seed };
  if (Number.isNaN(context.today)) throw new Error(`today must be a date YYYY-MM-DD, not ${today}`);
  const unique = uniqueFieldsOf(model);
  // A governed select is never empty either: its column is not null.
  const notNull = new Set(model.table.columns.filter((column) => column.notNull).map((column) => column.name));
  const workflows = model.fields.filter((field) => field.governed).map((field) => workflowOf(field, model.actions));
  // Fields some action requires: filled where the record's state was reached through that action, else empty.
  const actionInputs = new Set(model.actions.flatMap((action) => action.required));
  const makers = model.fields.map((field, index): FieldMaker => {
    const isUnique = unique.has(field.name);
    return {
      name: field.name,
      index,
      isUnique,
      emptyAllowed: !field.required && !notNull.has(field.name) && field.name !== model.titleField,
      actionInput: actionInputs.has(field.name) && !field.required,
      make: isUnique ? uniqueValueMaker(field, context) : valueMaker(field, context),
    };
  });
  // Values that depend on others come after them: the governed fields' states (which inputs are
  // filled depends on them) are made first, below; an end date (after its start) last.
  const ordered = [...makers].sort((a, b) => phaseOf(model, a.name) - phaseOf(model, b.name));
  const random = new Random();
  return (n) => {
    const values: SeedValues = {};
    const filled = new Set<string>();
    for (const workflow of workflows) {
      random.reset(seed, n, model.fields.indexOf(workflow.field));
      const reached = workflow.states[random.below(workflow.states.length)]!;
      values[workflow.field.name] = reached.state;
      for (const input of reached.inputs) filled.add(input);
    }
    for (const maker of ordered) {
      if (maker.name in values) continue;
      random.reset(seed, n, maker.index);
      const empty = maker.actionInput
        ? !filled.has(maker.name)
        : maker.emptyAllowed && !maker.isUnique && !filled.has(maker.name) && random.below(EMPTY_ONE_IN) === 0;
      values[maker.name] = empty ? null : maker.make(n, random, values);
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

interface Context {
  readonly model: ModelMeta;
  readonly targets: SeedTargets;
  /** Days since 1970-01-01 (UTC). */
  readonly today: number;
  /** The field that names the person a record is about (its email goes with it), if any. */
  readonly personField: FieldMeta | undefined;
  readonly seed: number;
}

type Make = (n: number, random: Random, values: SeedValues) => Value;

interface FieldMaker {
  readonly name: string;
  /** The field's place in the model: its random stream. */
  readonly index: number;
  readonly isUnique: boolean;
  readonly emptyAllowed: boolean;
  /** Required by an action (and not by the model): filled exactly when the record's state was reached through one. */
  readonly actionInput: boolean;
  readonly make: Make;
}

/** A state a governed field reaches from its first option, and the fields the actions on the way require. */
interface Reached {
  readonly state: string;
  readonly inputs: readonly string[];
}

interface Workflow {
  readonly field: FieldMeta;
  /** In the order the actions reach them, the first option first. */
  readonly states: readonly Reached[];
}

/** The states the field's actions reach from its first option (breadth first: the shortest way to each). */
function workflowOf(field: FieldMeta, actions: readonly ActionMeta[]): Workflow {
  const first = field.options?.[0];
  if (first === undefined) return { field, states: [] };
  const states: Reached[] = [{ state: first, inputs: [] }];
  for (let i = 0; i < states.length; i++) {
    const from = states[i]!;
    for (const action of actions) {
      if (action.field !== field.name || !action.from.includes(from.state) || states.some((reached) => reached.state === action.to)) continue;
      states.push({ state: action.to, inputs: [...new Set([...from.inputs, ...action.required])] });
    }
  }
  return { field, states };
}

/** 2 for a date that follows another field's, made after the others (1). */
function phaseOf(model: ModelMeta, name: string): number {
  const field = model.fields.find((candidate) => candidate.name === name)!;
  return field.kind === 'date' && startFieldOf(model, field) !== undefined ? 2 : 1;
}

function uniqueValueMaker(field: FieldMeta, context: Context): Make {
  const { model, targets, today } = context;
  switch (field.kind) {
    case 'number':
      return (n) => n;
    case 'money':
      return (n) => n * 100;
    case 'date':
      return (n) => dayOf(today - 365 + n - 1);
    case 'select':
      return (n) => field.options?.[n - 1] ?? null;
    case 'ref':
      return (n) => targets[field.target ?? '']?.[n - 1] ?? null;
    default:
      if (tokensOf(field).some((token) => EMAIL.test(token))) return (n) => emailOf(n, personOf(context, n));
      return (n) => codeOf(field, model, n);
  }
}

function valueMaker(field: FieldMeta, context: Context): Make {
  switch (field.kind) {
    case 'text':
      return textMaker(field, context);
    case 'longtext':
      return (_n, random) => sentences(random, 1 + random.below(3), 6, 15);
    case 'number':
      return numberMaker(field, context);
    case 'money':
      return moneyMaker(field);
    case 'date':
      return dateMaker(field, context);
    case 'bool':
      return (_n, random) => random.below(2) === 1;
    case 'select': {
      const options = field.options ?? [];
      return (_n, random) => (options.length === 0 ? null : (options[random.below(options.length)] as string));
    }
    case 'ref': {
      const ids = context.targets[field.target ?? ''] ?? [];
      return (_n, random) => (ids.length === 0 ? null : (ids[random.below(ids.length)] as string));
    }
    case 'decimal': {
      // Within the field's range (else 0 to 100), with as many decimals as its scale allows.
      const scale = field.scale ?? 2;
      const min = typeof field.min === 'number' ? field.min : 0;
      const max = typeof field.max === 'number' ? field.max : Math.max(min + 100, 100);
      const steps = Math.max(1, Math.round((max - min) * 10 ** scale));
      return (_n, random) => Math.round((min + random.below(steps + 1) / 10 ** scale) * 10 ** scale) / 10 ** scale;
    }
    case 'datetime':
      // Within a year around today, at a minute of the working day.
      return (n, random) => new Date((context.today - 365 + ((n * 7) % 730)) * DAY_MS + (8 * 60 + random.below(10 * 60)) * 60_000).toISOString();
    case 'email':
      return (n) => emailOf(n, personOf(context, n));
    case 'url':
      return (n) => `https://www.example.com/${field.name.replaceAll('_', '-')}/${n}`;
    case 'phone':
      return (n, random) => `+44 20 ${String(7000 + (n % 3000)).padStart(4, '0')} ${String(random.below(10_000)).padStart(4, '0')}`;
    case 'multiselect': {
      const options = field.options ?? [];
      return (_n, random) => {
        const chosen = options.filter(() => random.below(3) === 0);
        return chosen.length === 0 ? null : chosen;
      };
    }
  }
}

/** The words of a field's name: `expected_revenue` → `expected`, `revenue`. */
function tokensOf(field: FieldMeta): string[] {
  return field.name.toLowerCase().split('_');
}

function hasToken(field: FieldMeta, pattern: RegExp): boolean {
  return tokensOf(field).some((token) => pattern.test(token));
}

/** Amounts in major units, from the smallest to the largest, rounded to a step: by what the name says. */
const MONEY_RANGES: readonly { readonly name: RegExp; readonly min: number; readonly max: number; readonly step: number }[] = [
  { name: /^rents?$/, min: 400, max: 3_000, step: 10 },
  { name: /^(deposit|bond|caution)s?$/, min: 500, max: 6_000, step: 50 },
  { name: /^(salary|salaries|wages?|pay)$/, min: 1_500, max: 9_000, step: 50 },
  { name: /^(revenue|turnover|budget|value|worth|valuation|capital)s?$/, min: 1_000, max: 250_000, step: 100 },
  { name: /^(price|cost|fee|charge|rate|tax|vat|discount|tip)s?$/, min: 5, max: 2_000, step: 1 },
  { name: /^(amount|total|balance|sum|due|paid|payment|subtotal|credit|debit|limit)s?$/, min: 50, max: 20_000, step: 1 },
];
const MONEY_DEFAULT = { min: 10, max: 5_000, step: 1 };

/** Money in minor units: whole amounts, spread evenly over the orders of magnitude of their range. */
function moneyMaker(field: FieldMeta): Make {
  const range = MONEY_RANGES.find((candidate) => hasToken(field, candidate.name)) ?? MONEY_DEFAULT;
  const low = Math.log(range.min);
  const span = Math.log(range.max) - low;
  return (_n, random) => Math.max(range.min, Math.round(Math.exp(low + random.fraction() * span) / range.step) * range.step) * 100;
}

/** Whole numbers from `min` to `max` (inclusive), by what the name says. */
const NUMBER_RANGES: readonly { readonly name: RegExp; readonly min: number; readonly max: number }[] = [
  { name: /^(probability|prob|percent|percentage|pct|share|ratio|progress|completion)$/, min: 0, max: 100 },
  { name: /^(rooms?|bedrooms?|bathrooms?)$/, min: 1, max: 6 },
  { name: /^(floors?|storeys?|stories|level)$/, min: 0, max: 12 },
  { name: /^age$/, min: 18, max: 80 },
  { name: /^(area|sqm|m2|sqft|surface)$/, min: 20, max: 250 },
  { name: /^months?$/, min: 1, max: 36 },
  { name: /^(days?|nights?)$/, min: 1, max: 90 },
  { name: /^hours?$/, min: 1, max: 40 },
  { name: /^(rating|score|stars|priority)$/, min: 1, max: 5 },
  { name: /^(qty|quantity|quantities|count|seats|capacity|units|employees|headcount|people|guests|items|pieces|copies)$/, min: 1, max: 50 },
];

function numberMaker(field: FieldMeta, context: Context): Make {
  if (hasToken(field, /^(year|built)$/)) {
    const year = new Date(context.today * DAY_MS).getUTCFullYear();
    return (_n, random) => year - random.below(41);
  }
  const range = NUMBER_RANGES.find((candidate) => hasToken(field, candidate.name)) ?? { min: 0, max: 100 };
  return (_n, random) => range.min + random.below(range.max - range.min + 1);
}

/** A date that opens a span: an end or due date in the same model follows it. */
const START_DATE = /^(start|starts|started|begin|begins|from|issue|issued|opened|signed|ordered|checkin|movein|effective)$/;
const END_DATE = /^(end|ends|ended|until|to|due|expiry|expires|expiration|checkout|moveout)$/;

/** The date field this one follows (an end after its start), if it is an end and the model has a start. */
function startFieldOf(model: ModelMeta, field: FieldMeta): FieldMeta | undefined {
  if (!hasToken(field, END_DATE)) return undefined;
  return model.fields.find((candidate) => candidate !== field && candidate.kind === 'date' && hasToken(candidate, START_DATE));
}

function dateMaker(field: FieldMeta, context: Context): Make {
  const { today } = context;
  if (hasToken(field, /^(birth|birthday|born|dob|birthdate)$/)) return (_n, random) => dayOf(today - 365 * 18 - random.below(365 * 62));
  const start = startFieldOf(context.model, field);
  if (start) {
    // Weeks after an issue date for a due date; months to two years after a start for an end.
    const [min, max] = hasToken(field, /^due$/) ? [14, 60] : [180, 730];
    return (_n, random, values) => {
      const from = values[start.name];
      const base = typeof from === 'string' ? Math.floor(Date.parse(`${from}T00:00:00Z`) / DAY_MS) : today - 365 + random.below(731);
      return dayOf(base + min + random.below(max - min + 1));
    };
  }
  // A span opens in the past year, or soon: an issue date is rarely far ahead.
  if (hasToken(field, START_DATE)) return (_n, random) => dayOf(today - 365 + random.below(396));
  return (_n, random) => dayOf(today - 365 + random.below(731));
}

/** `YYYY-MM-DD` of a day number. */
function dayOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

const EMAIL = /^(email|e|mail)$/;

/** What a text field holds, by its name (the first rule that fits), or personal: a person's name. */
type TextKind = 'email' | 'phone' | 'url' | 'code' | 'first name' | 'last name' | 'address' | 'city' | 'country' | 'postcode' | 'company' | 'colour' | 'sentence' | 'person' | 'title' | 'phrase';

const TEXT_KINDS: readonly (readonly [TextKind, RegExp])[] = [
  ['email', EMAIL],
  ['phone', /^(phone|mobile|tel|telephone|fax|cell)$/],
  ['url', /^(url|website|homepage|site|link|web)$/],
  ['first name', /^(first|given|forename)$/],
  ['last name', /^(last|surname|family)$/],
  ['address', /^(address|street|addr)$/],
  ['city', /^(city|town)$/],
  ['country', /^country$/],
  ['postcode', /^(zip|postcode|postal)$/],
  ['company', /^(company|organisation|organization|employer|supplier|vendor|business|firm)$/],
  ['colour', /^colou?r$/],
  ['sentence', /^(description|notes?|comments?|remarks?|summary|details?|reason|message|body|text|memo|instructions?|explanation|feedback|answer|question)$/],
  ['person', /^(fullname|contact|person|owner|tenant|customer|client|landlord|manager|agent|employee)$/],
];

function textKindOf(field: FieldMeta, model: ModelMeta): TextKind {
  if (CODE_FIELDS.includes(field.name) || /_(code|number|no|ref|reference|id|sku)$/.test(field.name)) return 'code';
  const byName = TEXT_KINDS.find(([, pattern]) => hasToken(field, pattern))?.[0];
  if (byName) return byName;
  if (field.personal) return 'person';
  return field.name === model.titleField || hasToken(field, /^(name|title)$/) ? 'title' : 'phrase';
}

/** Text by what the field holds: an email, a phone number, a code, a name, a sentence … */
function textMaker(field: FieldMeta, context: Context): Make {
  const { model } = context;
  const kind = textKindOf(field, model);
  switch (kind) {
    case 'email':
      return (n) => emailOf(n, personOf(context, n));
    case 'phone':
      return (n, random) => `+1 555 ${String(n % 10_000).padStart(4, '0')} ${String(random.below(1000)).padStart(3, '0')}`;
    case 'url':
      return (n) => `https://www.example.com/${model.name}/${n}`;
    case 'code':
      return (n) => codeOf(field, model, n);
    case 'first name':
      return (_n, random) => pick(random, FIRST_NAMES);
    case 'last name':
      return (_n, random) => pick(random, LAST_NAMES);
    case 'address':
      return (_n, random) => `${random.below(200) + 1} ${pick(random, STREETS)}`;
    case 'city':
      return (_n, random) => pick(random, CITIES);
    case 'country':
      return (_n, random) => pick(random, COUNTRIES);
    case 'postcode':
      return (_n, random) => String(10_000 + random.below(90_000));
    case 'company':
      return (_n, random) => `${pick(random, COMPANY_WORDS)} ${pick(random, COMPANY_FORMS)}`;
    case 'colour':
      return (_n, random) => pick(random, COLOURS);
    case 'sentence':
      return (_n, random) => sentences(random, 1, 4, 9);
    case 'person':
      // The record's own person (whose email it has) for the first such field.
      if (field === context.personField) return (n) => personOf(context, n).join(' ');
      return (_n, random) => `${pick(random, FIRST_NAMES)} ${pick(random, LAST_NAMES)}`;
    case 'title':
      return (n) => `${model.label} ${n}`;
    case 'phrase':
      return (_n, random) => capitalise(words(random, 2 + random.below(3)));
  }
}

/** The first field of the model that `textMaker` makes a person's name of. */
function personFieldOf(model: ModelMeta): FieldMeta | undefined {
  return model.fields.find((field) => field.kind === 'text' && textKindOf(field, model) === 'person');
}

/** The person record `n` is about: first and last name, the same for its name and its email. */
function personOf(context: Context, n: number): [string, string] {
  PERSON_RANDOM.reset(context.seed, n, -1);
  return [pick(PERSON_RANDOM, FIRST_NAMES), pick(PERSON_RANDOM, LAST_NAMES)];
}

/** Names of fields that are a record's code: their prefix is the model's (`INV-0000001` for invoice.number). */
const CODE_FIELDS: readonly string[] = ['code', 'number', 'reference', 'ref', 'sku'];

/** `INV-0000001` for invoice.number, `TAX-0000001` for party.tax_id. */
function codeOf(field: FieldMeta, model: ModelMeta, n: number): string {
  return `${codePrefix(field, model)}-${String(n).padStart(7, '0')}`;
}

function codePrefix(field: FieldMeta, model: ModelMeta): string {
  const source = CODE_FIELDS.includes(field.name) ? model.name : field.name;
  return source.replace(/[^a-z]/gi, '').slice(0, 3).toUpperCase() || 'REC';
}

function emailOf(n: number, [first, last]: readonly [string, string]): string {
  return `${first}.${last}${n}@example.com`.toLowerCase();
}

function words(random: Random, count: number): string {
  let text = pick(random, WORDS);
  for (let w = 1; w < count; w++) text += ` ${pick(random, WORDS)}`;
  return text;
}

function capitalise(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

function sentences(random: Random, count: number, shortest: number, longest: number): string {
  const out: string[] = [];
  for (let s = 0; s < count; s++) out.push(`${capitalise(words(random, shortest + random.below(longest - shortest + 1)))}.`);
  return out.join(' ');
}

function pick<T>(random: Random, list: readonly T[]): T {
  return list[random.below(list.length)] as T;
}

/** Fields a unique index covers alone (`unique: true`). */
function uniqueFieldsOf(model: ModelMeta): Set<string> {
  const fields = new Set<string>();
  for (const index of model.table.indexes) {
    if (typeof index !== 'string' && index.unique && index.fields.length === 1) fields.add(index.fields[0] as string);
  }
  return fields;
}

/**
 * A small deterministic generator (splitmix32), started again for each record and field from the
 * seed, the record's number and the field's place: one field's values do not depend on another's.
 * One instance is reused for every field of every record, so that making values allocates nothing.
 */
class Random {
  private state = 0;

  reset(seed: number, n: number, field: number): void {
    this.state = mix(mix(mix(seed | 0) ^ n) ^ (field + 1)) | 0;
  }

  private next(): number {
    this.state = (this.state + 0x9e3779b9) | 0;
    return mix(this.state) >>> 0;
  }

  /** A whole number from 0 to `bound - 1`. */
  below(bound: number): number {
    return Math.floor((this.next() / 0x1_0000_0000) * bound);
  }

  /** A number from 0 (inclusive) to 1 (exclusive). */
  fraction(): number {
    return this.next() / 0x1_0000_0000;
  }
}

/** The stream of `personOf`, apart from the one the field makers share. */
const PERSON_RANDOM = new Random();

function mix(value: number): number {
  let z = value | 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return z ^ (z >>> 15);
}

const FIRST_NAMES = ['Ada', 'Ben', 'Chloé', 'Dario', 'Elif', 'Femi', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kai', 'Lena', 'Malik', 'Nora', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tariq', 'Uma', 'Vera', 'Wei', 'Yara', 'Zoë'] as const;
const LAST_NAMES = ['Adams', 'Berg', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'García', 'Haddad', 'Ivanova', 'Jensen', 'Kowalski', 'Larsen', 'Müller', 'Nakamura', 'Okafor', 'Petrov', 'Quispe', 'Rossi', 'Schmidt', 'Tanaka', 'Usman', 'Varga', 'Weber', 'Yilmaz', 'Zhang'] as const;
const STREETS = ['Harbour Road', 'Mill Lane', 'Station Street', 'Königsallee', 'Rue du Marché', 'Via Roma', 'Oak Avenue', 'Canal Walk'] as const;
const CITIES = ['Lyon', 'Porto', 'Leeds', 'Utrecht', 'Graz', 'Malmö', 'Turin', 'Ghent', 'Cork', 'Brno'] as const;
const COUNTRIES = ['France', 'Portugal', 'United Kingdom', 'Netherlands', 'Austria', 'Sweden', 'Italy', 'Belgium', 'Ireland', 'Czechia'] as const;
const COMPANY_WORDS = ['Northwind', 'Bluebird', 'Harbourside', 'Greenfield', 'Redwood', 'Silverline', 'Oakridge', 'Brightwater'] as const;
const COMPANY_FORMS = ['Ltd', 'GmbH', 'SA', 'BV', 'AB', 'Inc.'] as const;
const COLOURS = ['red', 'blue', 'green', 'yellow', 'black', 'white', 'grey', 'orange'] as const;
/** Words of no trade in particular, for sentences and short phrases. */
const WORDS = ['the', 'a', 'and', 'for', 'with', 'on', 'after', 'before', 'to', 'of', 'request', 'call', 'visit', 'check', 'update', 'follow', 'up', 'next', 'week', 'month', 'agreed', 'noted', 'sent', 'received', 'confirmed', 'pending', 'review', 'details', 'documents', 'schedule', 'meeting', 'question', 'change', 'date', 'team', 'asked', 'about', 'new', 'plan', 'reply', 'form', 'copy', 'report', 'done', 'open', 'first', 'second', 'later'] as const;
