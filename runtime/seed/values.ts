/**
 * The values `rmsgen seed` gives a record and its lines, from nothing but the model, the record's
 * number, a seed and the day it counts dates from: the same number gives the same values on every
 * run and every machine, so a benchmark or a demo at size can be made again. Pure: no I/O, no
 * clock, no `Math.random`.
 *
 * Values fit the field, by its kind and its name, in any business: amounts of a plausible size (a
 * rent of hundreds to thousands, an expected revenue of thousands to hundreds of thousands), dates
 * within a year of today (an end after its start, a due date weeks after its issue date), names,
 * emails and phone numbers where the name says so, codes for codes, a sentence for a reason or a
 * note, `<Label> <n>` for a record's title, never a business's own vocabulary. They keep to the
 * field's checks: `min`/`max`, a decimal's `scale`, a text's `length` and `pattern` (text drawn
 * from the pattern when the name's value does not match it). A field with a `default` holds it in
 * one record of four, as a create that left it out would. Options are spread evenly, refs over
 * every record they may point at. A governed field holds only states its actions reach from the
 * first option, and what those actions write is there on the way (a lost lead has its lost reason,
 * a confirmed order its confirmation day; a new one has neither). Unique fields, and one field of
 * each composite or partial unique, get values that hold the record's number, so they never
 * collide with each other. Computed fields are left empty here: the model's logic works them out
 * (seed.ts), as a write does.
 */
import type { ActionMeta, ActionSet, FieldDefault, FieldMeta, LineListMeta, ModelMeta } from '../registry.ts';
import { patternRegExp } from '../kinds.ts';
import { PatternUnsupportedError, patternText, type PatternText } from './pattern.ts';
import { Random, mix } from './random.ts';

/** What seeding needs besides the model: ids the model's refs may point at, by target model. */
export interface SeedTargets {
  readonly [model: string]: readonly string[];
}

/** A record's or a line's field values as JSON (null when empty), without `id`. */
export type SeedValues = Record<string, string | number | boolean | readonly string[] | null>;
type Value = SeedValues[string];

/** How many lines each record gets in each of its line lists (within the list's own min and max). */
export interface LinesPerRecord {
  readonly min: number;
  readonly max: number;
}

/** 1 to 10 lines per record, within each list's min and max. */
export const DEFAULT_LINES_PER_RECORD: LinesPerRecord = { min: 1, max: 10 };

/** A field the seed cannot make values for as the module asks (a pattern it cannot read, say); the message says which and why. */
export class SeedValuesError extends Error {}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** One in this many optional values is left empty. */
const EMPTY_ONE_IN = 8;
/** One in this many values of a field with a default is its default (a create that left the field out). */
const DEFAULT_ONE_IN = 4;
/** The last day a date can hold (years 0001–9999). */
const LAST_DAY = Math.floor(Date.parse('9999-12-31T00:00:00Z') / DAY_MS);

/** Today (UTC) as `YYYY-MM-DD`: the day seeded dates are spread around unless told another. */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The seed another draw of a record's values starts from (draw 0: the seed itself), for a record whose values a rule refused. */
function drawSeed(seed: number, draw: number): number {
  return draw === 0 ? seed : mix(seed ^ Math.imul(draw, 0x9e3779b9));
}

/**
 * Makes the field values of record number `n` (1 for a table's first seeded record) of `model`,
 * with dates around `today` (`YYYY-MM-DD`); `draw` (from 0) makes another set of values for the
 * same record, its unique values unchanged. A ref whose target has no ids stays empty. A unique
 * field takes its value from `n`; a unique select or ref has only so many values to give, and
 * leaves the rest empty (`seedableCount` says how many). Throws `SeedValuesError` for a field it
 * cannot make values for.
 */
export function valuesMaker(model: ModelMeta, seed: number, targets: SeedTargets, today: string = todayUtc()): (n: number, draw?: number) => SeedValues {
  const context = contextOf(model, model.fields, seed, targets, today, personFieldOf(model));
  const unique = uniquePlanOf(model, context);
  // A governed select is never empty either: its column is not null.
  const notNull = new Set(model.table.columns.filter((column) => column.notNull).map((column) => column.name));
  const workflows = model.fields.filter((field) => field.governed).map((field) => workflowOf(field, model.actions));
  // Fields some action writes: filled where the record's state was reached through that action, else empty.
  const actionWritten = new Set(workflows.flatMap((workflow) => workflow.states.flatMap((reached) => [...reached.writes.keys()])));
  const makers = model.fields.map((field, index): FieldMaker => {
    const holder = unique.holders.get(field.name);
    return {
      field,
      name: field.name,
      index,
      isUnique: holder !== undefined,
      emptyAllowed: !field.required && !notNull.has(field.name) && field.name !== model.titleField,
      actionWritten: actionWritten.has(field.name) && !field.required && holder === undefined,
      make: field.computed ? () => null : (holder ?? valueMaker(field, context)),
      ...(field.default !== undefined && !field.computed ? { fallback: defaultMaker(field.default, context) } : {}),
    };
  });
  // Values that depend on others come after them: the governed fields' states (which fields
  // actions wrote depends on them) are made first, below; an end date (after its start) and a day
  // an action set (after the record's start) last.
  const days = actionDaysOf(model, workflows);
  for (const maker of makers) {
    const order = days.indexOf(maker.name);
    if (order >= 0 && maker.actionWritten) Object.assign(maker, { earlierDays: days.slice(0, order) });
  }
  const ordered = [...makers].sort((a, b) => phaseOf(context, a.field, days) - phaseOf(context, b.field, days));
  const random = new Random();
  const radix = unique.radix;
  return (n, draw = 0) => {
    const drawn = drawSeed(seed, draw);
    const values: SeedValues = {};
    const written = new Map<string, Write>();
    for (const workflow of workflows) {
      random.reset(drawn, n, model.fields.indexOf(workflow.field));
      const reached = workflow.states[random.below(workflow.states.length)]!;
      values[workflow.field.name] = reached.state;
      for (const [name, write] of reached.writes) written.set(name, write);
    }
    for (const group of radix) Object.assign(values, group.values(n));
    for (const maker of ordered) {
      if (maker.name in values) continue;
      random.reset(drawn, n, maker.index);
      values[maker.name] = makeValue(maker, n, random, values, written.get(maker.name), context);
    }
    return values;
  };
}

/**
 * Makes the lines of list `list` of record number `n`: as many as `perRecord` says, within the
 * list's min and max, each field by its kind and name as a record's; `draw` as for `valuesMaker`.
 */
export function linesMaker(
  model: ModelMeta,
  list: LineListMeta,
  seed: number,
  targets: SeedTargets,
  today: string = todayUtc(),
  perRecord: LinesPerRecord = DEFAULT_LINES_PER_RECORD,
): (n: number, draw?: number) => SeedValues[] {
  const context = contextOf(model, list.fields, seed, targets, today, undefined);
  const notNull = new Set(list.table.columns.filter((column) => column.notNull).map((column) => column.name));
  const makers = list.fields.map((field, index): FieldMaker => ({
    field,
    name: field.name,
    index,
    isUnique: false,
    emptyAllowed: !field.required && !notNull.has(field.name),
    actionWritten: false,
    make: field.computed ? () => null : valueMaker(field, context),
    ...(field.default !== undefined && !field.computed ? { fallback: defaultMaker(field.default, context) } : {}),
  }));
  const ordered = [...makers].sort((a, b) => phaseOf(context, a.field, []) - phaseOf(context, b.field, []));
  const [fewest, most] = lineCountRange(list, perRecord);
  // Streams of their own, apart from the record's fields: the list's place and each field's, and the line's position.
  const listStream = 10_000 + model.lines.indexOf(list) * 1000;
  const random = new Random();
  return (n, draw = 0) => {
    const drawn = drawSeed(seed, draw);
    random.reset(drawn, n, listStream);
    const count = fewest + random.below(most - fewest + 1);
    const lines: SeedValues[] = [];
    for (let position = 1; position <= count; position++) {
      const line: SeedValues = {};
      for (const maker of ordered) {
        random.reset(drawn, n, listStream + 1 + maker.index, position);
        line[maker.name] = makeValue(maker, n, random, line, undefined, context);
      }
      lines.push(line);
    }
    return lines;
  };
}

/** The fewest and most lines a record of the list gets: `perRecord` within the list's own bounds. */
export function lineCountRange(list: LineListMeta, perRecord: LinesPerRecord): [number, number] {
  const fewest = Math.min(Math.max(perRecord.min, list.min), list.max);
  const most = Math.max(Math.min(perRecord.max, list.max), fewest);
  return [fewest, most];
}

function makeValue(maker: FieldMaker, n: number, random: Random, values: SeedValues, write: Write | undefined, context: Context): Value {
  if (maker.actionWritten) {
    if (!write) return null;
    const set = write.set;
    if (set !== undefined && typeof set === 'object' && 'value' in set) return set.value as Value;
    // An optional input is left out now and then; a set always writes.
    if (set === undefined && !write.required && random.below(EMPTY_ONE_IN) === 0) return null;
    if (maker.earlierDays) return actionDay(maker.field, maker.earlierDays, random, values, context);
    return maker.make(n, random, values);
  }
  if (maker.fallback && random.below(DEFAULT_ONE_IN) === 0) return maker.fallback(random);
  if (!maker.fallback && maker.emptyAllowed && !maker.isUnique && random.below(EMPTY_ONE_IN) === 0) return null;
  return maker.make(n, random, values);
}

/**
 * How many records of `model` can be seeded starting at number `first`: a required unique select or
 * ref has one value per option or target, a unique text only as many as its pattern or length
 * holds, a composite unique of options and refs as many as their combinations. Undefined when
 * there is no such limit; else the count and the fields that limit it.
 */
export function seedableCount(model: ModelMeta, first: number, targets: SeedTargets): { count: number; fields: readonly string[] } | undefined {
  const context = contextOf(model, model.fields, 0, targets, '2000-01-01', undefined);
  const plan = uniquePlanOf(model, context);
  let limit: { count: number; fields: readonly string[] } | undefined;
  const consider = (capacity: number, fields: readonly string[]) => {
    if (!Number.isFinite(capacity)) return;
    const count = Math.max(0, capacity - (first - 1));
    if (limit === undefined || count < limit.count) limit = { count, fields };
  };
  for (const field of model.fields) {
    const capacity = plan.capacities.get(field.name);
    if (capacity !== undefined && field.required) consider(capacity, [field.name]);
  }
  for (const group of plan.radix) if (group.fields.every((field) => field.required)) consider(group.capacity, group.fields.map((field) => field.name));
  return limit;
}

interface Context {
  readonly model: ModelMeta;
  /** The fields values are made for: the model's, or a line list's. */
  readonly fields: readonly FieldMeta[];
  readonly targets: SeedTargets;
  /** Days since 1970-01-01 (UTC). */
  readonly today: number;
  /** The field that names the person a record is about (its email goes with it), if any. */
  readonly personField: FieldMeta | undefined;
  readonly seed: number;
}

function contextOf(model: ModelMeta, fields: readonly FieldMeta[], seed: number, targets: SeedTargets, today: string, personField: FieldMeta | undefined): Context {
  const day = Math.floor(Date.parse(`${today}T00:00:00Z`) / DAY_MS);
  if (Number.isNaN(day)) throw new Error(`today must be a date YYYY-MM-DD, not ${today}`);
  return { model, fields, targets, today: day, personField, seed };
}

type Make = (n: number, random: Random, values: SeedValues) => Value;

interface FieldMaker {
  readonly field: FieldMeta;
  readonly name: string;
  /** The field's place in the model or list: its random stream. */
  readonly index: number;
  readonly isUnique: boolean;
  readonly emptyAllowed: boolean;
  /** Written by an action (and not required by the model): filled exactly when the record's state was reached through one. */
  readonly actionWritten: boolean;
  readonly make: Make;
  /** A date or instant an action writes: the date fields other actions on the way wrote before it. */
  readonly earlierDays?: readonly string[];
  /** The field's default, as a create gives it. */
  readonly fallback?: (random: Random) => Value;
}

/** What an action on the way to a record's state wrote to a field: an input (required or not) or a set. */
interface Write {
  readonly required: boolean;
  readonly set?: ActionSet;
}

/** A state a governed field reaches from its first option, and what the actions on the way wrote (the last action's write of a field wins). */
interface Reached {
  readonly state: string;
  readonly writes: ReadonlyMap<string, Write>;
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
  const states: Reached[] = [{ state: first, writes: new Map() }];
  for (let i = 0; i < states.length; i++) {
    const from = states[i]!;
    for (const action of actions) {
      if (action.field !== field.name || !action.from.includes(from.state) || states.some((reached) => reached.state === action.to)) continue;
      const writes = new Map(from.writes);
      for (const name of action.required) writes.set(name, { required: true });
      for (const input of action.inputs ?? []) if (input.field) writes.set(input.name, { required: input.required });
      for (const [name, set] of Object.entries(action.set ?? {})) writes.set(name, { required: true, set });
      states.push({ state: action.to, writes });
    }
  }
  return { field, states };
}

/**
 * The dates and instants actions write (set to the day they run, or given as an input), in the
 * order the workflow writes them: a confirmation before a delivery.
 */
function actionDaysOf(model: ModelMeta, workflows: readonly Workflow[]): string[] {
  const days: string[] = [];
  for (const workflow of workflows) {
    for (const reached of workflow.states) {
      for (const name of reached.writes.keys()) {
        const field = model.fields.find((candidate) => candidate.name === name);
        if (field && (field.kind === 'date' || field.kind === 'datetime') && !days.includes(name)) days.push(name);
      }
    }
  }
  return days;
}

/** 2 (and after) for a date that follows others (an end after its start, the day an action ran), made after the others (1). */
function phaseOf(context: Context, field: FieldMeta, actionDays: readonly string[]): number {
  const order = actionDays.indexOf(field.name);
  if (order >= 0) return 3 + order;
  return (field.kind === 'date' || field.kind === 'datetime') && startFieldOf(context, field) !== undefined ? 2 : 1;
}

/**
 * The day an action ran, for a date or instant it wrote: on or after the record's start and the
 * days of the actions before it, not after today (unless those are).
 */
function actionDay(field: FieldMeta, earlierDays: readonly string[], random: Random, values: SeedValues, context: Context): Value {
  const start = startDayOf(context, values);
  let from = start !== undefined ? Math.max(start, context.today - 365) : context.today - 60;
  for (const name of earlierDays) {
    const value = values[name];
    if (typeof value === 'string') from = Math.max(from, dayNumber(value));
  }
  const to = Math.max(from, context.today);
  if (field.kind === 'date') return dayOf(dayIn(random, from, to, dayBounds(field)));
  const [min, max] = instantBounds(field);
  const day = dayIn(random, from, to, [min === undefined ? undefined : Math.ceil(min / DAY_MS), max === undefined ? undefined : Math.floor(max / DAY_MS)]);
  return clampedInstant(instantOf(day, random), min, max);
}

/** The day the record starts (its first start date with a value), if it has one. */
function startDayOf(context: Context, values: SeedValues): number | undefined {
  for (const field of context.fields) {
    if (field.kind !== 'date' || !hasToken(field, START_DATE)) continue;
    const value = values[field.name];
    if (typeof value === 'string') return dayNumber(value);
  }
  return undefined;
}

/** A field's default as a create gives it: the constant, the day (`--today`) or an instant of it. */
function defaultMaker(value: FieldDefault, context: Context): (random: Random) => Value {
  if (value === 'today') return () => dayOf(context.today);
  if (value === 'now') return (random) => instantOf(context.today, random);
  return () => value.value as Value;
}

// ---------------------------------------------------------------------------------------------
// Unique values

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
function uniquePlanOf(model: ModelMeta, context: Context): UniquePlan {
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
      const high = typeof field.max === 'number' ? Math.floor(field.max) : Math.floor(Number.MAX_SAFE_INTEGER / 10 ** scale);
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

function patternOf(field: FieldMeta, context: Context): PatternText {
  try {
    return patternText(field.pattern!);
  } catch (error) {
    if (error instanceof PatternUnsupportedError) throw new SeedValuesError(`${context.model.name}.${field.name}: ${error.message}`);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Values by kind and name

function valueMaker(field: FieldMeta, context: Context): Make {
  const make = baseValueMaker(field, context);
  if (!TEXT_FIELD_KINDS.has(field.kind)) return make;
  return fittedText(field, context, make);
}

const TEXT_FIELD_KINDS: ReadonlySet<FieldMeta['kind']> = new Set(['text', 'longtext', 'email', 'url', 'phone']);

/** A text maker kept within the field's `length` and `pattern`: a value longer is shortened, one that does not match is drawn from the pattern. */
function fittedText(field: FieldMeta, context: Context, make: Make): Make {
  const length = field.length;
  if (field.pattern === undefined) {
    if (length === undefined) return make;
    return (n, random, values) => fitLength(make(n, random, values) as string, length);
  }
  const pattern = patternRegExp(field.pattern);
  const text = patternOf(field, context);
  if (length !== undefined && text.shortest > length) {
    throw new SeedValuesError(`${context.model.name}.${field.name}: the shortest text of its pattern ${field.pattern} is longer than its length ${length}`);
  }
  return (n, random, values) => {
    const value = make(n, random, values) as string;
    const fitted = length === undefined ? value : fitLength(value, length);
    return pattern.test(fitted) ? fitted : text.draw(random, length);
  };
}

/** At most `length` characters: prose cut at a word (ending as it ended), anything else cut short. */
function fitLength(value: string, length: number): string {
  if (value.length <= length || characters(value) <= length) return value;
  const cut = [...value].slice(0, length).join('');
  const space = cut.lastIndexOf(' ');
  if (space <= 0) return cut;
  const words = cut.slice(0, space).replace(/[.,;:]+$/, '');
  return value.endsWith('.') && words.length < length ? `${words}.` : words;
}

function characters(text: string): number {
  return [...text].length;
}

function baseValueMaker(field: FieldMeta, context: Context): Make {
  switch (field.kind) {
    case 'text':
      return textMaker(field, context);
    case 'longtext':
      return (_n, random) => sentences(random, 1 + random.below(3), 6, 15);
    case 'number':
      return numberMaker(field, context);
    case 'money':
      return moneyMaker(field);
    case 'decimal':
      return decimalMaker(field);
    case 'date':
      return dateMaker(field, context);
    case 'datetime':
      return datetimeMaker(field, context);
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

/**
 * `[low, high]` kept within the field's `min`/`max`: where they overlap the name's range, the
 * overlap; else a span as wide as the name's from the bound given (both bounds: between them).
 */
function within(low: number, high: number, min: number | undefined, max: number | undefined): [number, number] {
  const [from, to] = [Math.max(low, min ?? -Infinity), Math.min(high, max ?? Infinity)];
  if (from <= to) return [from, to];
  if (min !== undefined && max !== undefined) return [min, max];
  const span = high - low;
  if (min !== undefined) return [min, min + span];
  return [max! >= 0 ? Math.max(0, max! - span) : max! - span, max!];
}

function numericBound(value: number | string | undefined): number | undefined {
  return typeof value === 'number' ? value : undefined;
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

/** Money in minor units: whole amounts, spread evenly over the orders of magnitude of their range (within the field's min and max). */
function moneyMaker(field: FieldMeta): Make {
  const range = MONEY_RANGES.find((candidate) => hasToken(field, candidate.name)) ?? MONEY_DEFAULT;
  const [low, high] = within(range.min * 100, range.max * 100, numericBound(field.min), numericBound(field.max));
  const step = range.step * 100;
  const clamp = (value: number) => Math.min(Math.floor(high), Math.max(Math.ceil(low), value));
  if (low <= 0) return (_n, random) => clamp(Math.round((low + random.fraction() * (high - low)) / step) * step);
  const from = Math.log(low);
  const span = Math.log(high) - from;
  return (_n, random) => clamp(Math.max(low, Math.round(Math.exp(from + random.fraction() * span) / step) * step));
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

function numberRangeOf(field: FieldMeta, context: Context): { min: number; max: number } {
  if (hasToken(field, /^(year|built)$/)) {
    const year = new Date(context.today * DAY_MS).getUTCFullYear();
    return { min: year - 40, max: year };
  }
  return NUMBER_RANGES.find((candidate) => hasToken(field, candidate.name)) ?? { min: 0, max: 100 };
}

function numberMaker(field: FieldMeta, context: Context): Make {
  const range = numberRangeOf(field, context);
  const [low, high] = within(range.min, range.max, numericBound(field.min), numericBound(field.max));
  const [from, to] = [Math.ceil(low), Math.max(Math.ceil(low), Math.floor(high))];
  return (_n, random) => from + random.below(to - from + 1);
}

/** A decimal within the name's range and the field's min and max, with as many decimals as its scale allows. */
function decimalMaker(field: FieldMeta): Make {
  const scale = field.scale ?? 2;
  const units = 10 ** scale;
  const range = NUMBER_RANGES.find((candidate) => hasToken(field, candidate.name)) ?? { min: 0, max: 100 };
  const [low, high] = within(range.min, range.max, numericBound(field.min), numericBound(field.max));
  // In units of the last decimal, so that the value has no more decimals than the scale and stays within the bounds.
  const from = Math.ceil(low * units - 1e-9);
  const to = Math.max(from, Math.floor(high * units + 1e-9));
  return (_n, random) => (from + random.below(to - from + 1)) / units;
}

/** A date that opens a span: an end or due date in the same model follows it. */
const START_DATE = /^(start|starts|started|begin|begins|from|issue|issued|opened|signed|ordered|checkin|movein|effective)$/;
const END_DATE = /^(end|ends|ended|until|to|due|by|expiry|expires|expiration|checkout|moveout)$/;

/** The date field this one follows (an end after its start), if it is an end and the model has a start. */
function startFieldOf(context: Context, field: FieldMeta): FieldMeta | undefined {
  if (!hasToken(field, END_DATE)) return undefined;
  return context.fields.find((candidate) => candidate !== field && candidate.kind === 'date' && hasToken(candidate, START_DATE));
}

/** The field's bounds as day numbers. */
function dayBounds(field: FieldMeta): [number | undefined, number | undefined] {
  return [typeof field.min === 'string' ? dayNumber(field.min) : undefined, typeof field.max === 'string' ? dayNumber(field.max) : undefined];
}

/** A day from `from` to `to`, within the field's bounds (see `within`). */
function dayIn(random: Random, from: number, to: number, bounds: [number | undefined, number | undefined]): number {
  const [low, high] = within(from, to, bounds[0], bounds[1]);
  return Math.ceil(low) + random.below(Math.max(0, Math.floor(high) - Math.ceil(low)) + 1);
}

/** The days a date's value is drawn from (before its bounds): by what the name says, after the start it follows. */
function daySpan(field: FieldMeta, context: Context): (random: Random, values: SeedValues) => [number, number] {
  const { today } = context;
  if (hasToken(field, /^(birth|birthday|born|dob|birthdate)$/)) return () => [today - 365 * 80, today - 365 * 18];
  const start = startFieldOf(context, field);
  if (start) {
    // Weeks after an issue date for a due date (or a deadline: `deliver_by`); months to two years after a start for an end.
    const [min, max] = hasToken(field, /^(due|by)$/) ? [14, 60] : [180, 730];
    return (random, values) => {
      const from = values[start.name];
      const base = typeof from === 'string' ? dayNumber(from) : today - 365 + random.below(731);
      return [base + min, base + max];
    };
  }
  // A span opens in the past year, or soon: an issue date is rarely far ahead.
  if (hasToken(field, START_DATE)) return () => [today - 365, today + 30];
  return () => [today - 365, today + 365];
}

function dateMaker(field: FieldMeta, context: Context): Make {
  const span = daySpan(field, context);
  const bounds = dayBounds(field);
  return (_n, random, values) => {
    const [from, to] = span(random, values);
    return dayOf(dayIn(random, from, to, bounds));
  };
}

/** An instant on a day drawn as a date's, at a minute of the working day, within the field's bounds. */
function datetimeMaker(field: FieldMeta, context: Context): Make {
  const span = daySpan(field, context);
  const [min, max] = instantBounds(field);
  const bounds: [number | undefined, number | undefined] = [min === undefined ? undefined : Math.ceil(min / DAY_MS), max === undefined ? undefined : Math.floor(max / DAY_MS)];
  return (_n, random, values) => {
    const [from, to] = span(random, values);
    return clampedInstant(instantOf(dayIn(random, from, to, bounds), random), min, max);
  };
}

/** A datetime field's bounds in milliseconds. */
function instantBounds(field: FieldMeta): [number | undefined, number | undefined] {
  return [typeof field.min === 'string' ? Date.parse(field.min) : undefined, typeof field.max === 'string' ? Date.parse(field.max) : undefined];
}

/** The instant, moved within the bounds when its minute of the day falls outside them. */
function clampedInstant(instant: string, min: number | undefined, max: number | undefined): string {
  if (min === undefined && max === undefined) return instant;
  return new Date(Math.min(max ?? Infinity, Math.max(min ?? -Infinity, Date.parse(instant)))).toISOString();
}

/** `YYYY-MM-DDTHH:MM:SS.000Z` at a minute of the working day (08:00–18:00 UTC). */
function instantOf(day: number, random: Random): string {
  return new Date(day * DAY_MS + (8 * 60 + random.below(10 * 60)) * MINUTE_MS).toISOString();
}

/** `YYYY-MM-DD` of a day number (remembered: a seed writes the same few thousand days over and over, and formatting a date is slow). */
function dayOf(day: number): string {
  let text = DAYS.get(day);
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (DAYS.size < 100_000) DAYS.set(day, text);
  }
  return text;
}

const DAYS = new Map<number, string>();

function dayNumber(date: string): number {
  return Math.floor(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / DAY_MS);
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
      return (_n, random) => words(random, 2 + random.below(3), true);
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

/** `count` words, the first capitalised when asked. */
function words(random: Random, count: number, capitalised = false): string {
  const out = [pick(random, capitalised ? CAPITALISED_WORDS : WORDS)];
  for (let w = 1; w < count; w++) out.push(pick(random, WORDS));
  return out.join(' ');
}

function sentences(random: Random, count: number, shortest: number, longest: number): string {
  const out: string[] = [];
  for (let s = 0; s < count; s++) out.push(words(random, shortest + random.below(longest - shortest + 1), true), '.', s === count - 1 ? '' : ' ');
  // Joined, not concatenated: a flat string, which the driver binds without flattening a rope first.
  return out.join('');
}

function pick<T>(random: Random, list: readonly T[]): T {
  return list[random.below(list.length)] as T;
}

/** The stream of `personOf`, apart from the one the field makers share. */
const PERSON_RANDOM = new Random();

const FIRST_NAMES = ['Ada', 'Ben', 'Chloé', 'Dario', 'Elif', 'Femi', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kai', 'Lena', 'Malik', 'Nora', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tariq', 'Uma', 'Vera', 'Wei', 'Yara', 'Zoë'] as const;
const LAST_NAMES = ['Adams', 'Berg', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'García', 'Haddad', 'Ivanova', 'Jensen', 'Kowalski', 'Larsen', 'Müller', 'Nakamura', 'Okafor', 'Petrov', 'Quispe', 'Rossi', 'Schmidt', 'Tanaka', 'Usman', 'Varga', 'Weber', 'Yilmaz', 'Zhang'] as const;
const STREETS = ['Harbour Road', 'Mill Lane', 'Station Street', 'Königsallee', 'Rue du Marché', 'Via Roma', 'Oak Avenue', 'Canal Walk'] as const;
const CITIES = ['Lyon', 'Porto', 'Leeds', 'Utrecht', 'Graz', 'Malmö', 'Turin', 'Ghent', 'Cork', 'Brno'] as const;
const COUNTRIES = ['France', 'Portugal', 'United Kingdom', 'Netherlands', 'Austria', 'Sweden', 'Italy', 'Belgium', 'Ireland', 'Czechia'] as const;
const COMPANY_WORDS = ['Northwind', 'Bluebird', 'Harbourside', 'Greenfield', 'Redwood', 'Silverline', 'Oakridge', 'Brightwater'] as const;
const COMPANY_FORMS = ['Ltd', 'GmbH', 'SA', 'BV', 'AB', 'Inc.'] as const;
const COLOURS = ['red', 'blue', 'green', 'yellow', 'black', 'white', 'grey', 'orange'] as const;
/** Words of no trade in particular, for sentences and short phrases. */
const WORDS: readonly string[] = ['the', 'a', 'and', 'for', 'with', 'on', 'after', 'before', 'to', 'of', 'request', 'call', 'visit', 'check', 'update', 'follow', 'up', 'next', 'week', 'month', 'agreed', 'noted', 'sent', 'received', 'confirmed', 'pending', 'review', 'details', 'documents', 'schedule', 'meeting', 'question', 'change', 'date', 'team', 'asked', 'about', 'new', 'plan', 'reply', 'form', 'copy', 'report', 'done', 'open', 'first', 'second', 'later'] as const;
const CAPITALISED_WORDS = WORDS.map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`);
