/**
 * A governed field's states for `rmsgen seed`: only those its actions reach from the first option,
 * and what those actions write there on the way (a lost lead has its lost reason, a confirmed
 * order its confirmation day; a new one has neither), on days in the order the actions ran.
 */
import type { ActionMeta, ActionSet, FieldMeta, ModelMeta } from '../registry.ts';
import { DAY_MS, START_DATE, clampedInstant, dayBounds, dayIn, dayNumber, dayOf, instantBounds, instantOf } from './dates.ts';
import { hasToken } from './field-names.ts';
import type { Random } from './random.ts';
import type { Context, SeedValues, Value } from './value-context.ts';

/** What an action on the way to a record's state wrote to a field: an input (required or not) or a set. */
export interface Write {
  readonly required: boolean;
  readonly set?: ActionSet;
}

/** A state a governed field reaches from its first option, and what the actions on the way wrote (the last action's write of a field wins). */
interface Reached {
  readonly state: string;
  readonly writes: ReadonlyMap<string, Write>;
}

export interface Workflow {
  readonly field: FieldMeta;
  /** In the order the actions reach them, the first option first. */
  readonly states: readonly Reached[];
}

/** The states the field's actions reach from its first option (breadth first: the shortest way to each). */
export function workflowOf(field: FieldMeta, actions: readonly ActionMeta[]): Workflow {
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
export function actionDaysOf(model: ModelMeta, workflows: readonly Workflow[]): string[] {
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

/**
 * The day an action ran, for a date or instant it wrote: on or after the record's start and the
 * days of the actions before it, not after today (unless those are).
 */
export function actionDay(field: FieldMeta, earlierDays: readonly string[], random: Random, values: SeedValues, context: Context): Value {
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
