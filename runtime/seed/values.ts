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
 * (records.ts), as a write does.
 *
 * This module puts a record's and a line's values together, in the order they depend on each
 * other; each field's values come from its own module: by kind (values-by-kind.ts), by name
 * (amounts.ts, dates.ts, text-values.ts), of uniques (unique-values.ts), of workflows
 * (workflows.ts).
 */
import type { FieldDefault, FieldMeta, LineListMeta, ModelMeta } from '../registry.ts';
import { DAY_MS, dayOf, instantOf, startFieldOf, todayUtc } from './dates.ts';
import { Random, mix } from './random.ts';
import { personFieldOf } from './text-values.ts';
import { uniquePlanOf } from './unique-values.ts';
import type { Context, Make, SeedTargets, SeedValues, Value } from './value-context.ts';
import { valueMaker } from './values-by-kind.ts';
import { actionDay, actionDaysOf, workflowOf, type Write } from './workflows.ts';

/** How many lines each record gets in each of its line lists (within the list's own min and max). */
export interface LinesPerRecord {
  readonly min: number;
  readonly max: number;
}

/** 1 to 10 lines per record, within each list's min and max. */
export const DEFAULT_LINES_PER_RECORD: LinesPerRecord = { min: 1, max: 10 };

/** One in this many optional values is left empty. */
const EMPTY_ONE_IN = 8;
/** One in this many values of a field with a default is its default (a create that left the field out). */
const DEFAULT_ONE_IN = 4;

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

function contextOf(model: ModelMeta, fields: readonly FieldMeta[], seed: number, targets: SeedTargets, today: string, personField: FieldMeta | undefined): Context {
  const day = Math.floor(Date.parse(`${today}T00:00:00Z`) / DAY_MS);
  if (Number.isNaN(day)) throw new Error(`today must be a date YYYY-MM-DD, not ${today}`);
  return { model, fields, targets, today: day, personField, seed };
}

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

/** 2 (and after) for a date that follows others (an end after its start, the day an action ran), made after the others (1). */
function phaseOf(context: Context, field: FieldMeta, actionDays: readonly string[]): number {
  const order = actionDays.indexOf(field.name);
  if (order >= 0) return 3 + order;
  return (field.kind === 'date' || field.kind === 'datetime') && startFieldOf(context, field) !== undefined ? 2 : 1;
}

/** A field's default as a create gives it: the constant, the day (`--today`) or an instant of it. */
function defaultMaker(value: FieldDefault, context: Context): (random: Random) => Value {
  if (value === 'today') return () => dayOf(context.today);
  if (value === 'now') return (random) => instantOf(context.today, random);
  return () => value.value as Value;
}
