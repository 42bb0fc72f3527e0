/**
 * A seeded record as a create would leave it: its field values and lines (values.ts), its computed
 * fields worked out by the model's own logic (`ModelLogic.compute`, the functions every write runs,
 * stored as a write stores them), and its rules kept: a record whose values break a rule is made
 * again from another draw, up to `MAX_DRAWS` times, and then refused with the rule named.
 */
import { normalised } from '../commands/documents.ts';
import type { ModelLogic, ModelMeta } from '../registry.ts';
import { todayUtc } from './dates.ts';
import type { SeedTargets, SeedValues } from './value-context.ts';
import { DEFAULT_LINES_PER_RECORD, linesMaker, valuesMaker, type LinesPerRecord } from './values.ts';

/** Draws of one record's values before a rule they keep breaking refuses the seed. */
export const MAX_DRAWS = 20;

/** A record's values and its lines, each list under its name, in order. */
export interface SeedRecord {
  readonly values: SeedValues;
  readonly lines: Readonly<Record<string, SeedValues[]>>;
}

const NO_LINES: Readonly<Record<string, SeedValues[]>> = {};

/** Values the seed cannot make as the model asks (a rule every draw breaks, logic that throws); the message says which. */
export class SeedRecordError extends Error {}

export interface RecordMakerOptions {
  readonly seed: number;
  readonly targets: SeedTargets;
  readonly today?: string;
  readonly lines?: LinesPerRecord;
}

/** Makes record number `n` of `model` with its lines, computed fields and rules kept (`logic`: the model's, from the registry). */
export function recordMaker(model: ModelMeta, logic: ModelLogic | undefined, options: RecordMakerOptions): (n: number) => SeedRecord {
  const today = options.today ?? todayUtc();
  const makeValues = valuesMaker(model, options.seed, options.targets, today);
  const lists = model.lines.map((list) => ({
    name: list.name,
    fields: list.fields.filter((field) => field.computed),
    make: linesMaker(model, list, options.seed, options.targets, today, options.lines ?? DEFAULT_LINES_PER_RECORD),
  }));
  const computedFields = model.fields.filter((field) => field.computed);
  const computes = computedFields.length > 0 || lists.some((list) => list.fields.length > 0);
  const checks = model.rules.length > 0;
  if (!logic || (!computes && !checks)) {
    if (lists.length === 0) return (n) => ({ values: makeValues(n), lines: NO_LINES });
    return (n) => {
      const lines: Record<string, SeedValues[]> = {};
      for (const list of lists) lines[list.name] = list.make(n);
      return { values: makeValues(n), lines };
    };
  }
  return (n) => {
    let broken: { readonly fields: readonly string[]; readonly message: string } | undefined;
    for (let draw = 0; draw < MAX_DRAWS; draw++) {
      const values = makeValues(n, draw);
      const lines: Record<string, SeedValues[]> = {};
      // The document the logic sees: the record with each list's lines (the same objects, which compute fills in place).
      const document: Record<string, unknown> = { ...values };
      for (const list of lists) document[list.name] = lines[list.name] = list.make(n, draw);
      let failed: ReturnType<ModelLogic['failedRules']>;
      try {
        if (computes) logic.compute(document);
        failed = checks ? logic.failedRules(document) : [];
      } catch (error) {
        throw new SeedRecordError(`cannot seed ${model.name}: its computed fields or rules failed on record ${n}: ${(error as Error).message}`);
      }
      if (failed.length > 0) {
        broken = failed[0];
        continue;
      }
      for (const field of computedFields) values[field.name] = normalised(field, document[field.name]) as SeedValues[string];
      for (const list of lists) for (const line of lines[list.name]!) for (const field of list.fields) line[field.name] = normalised(field, line[field.name]) as SeedValues[string];
      return { values, lines };
    }
    throw new SeedRecordError(
      `cannot seed ${model.name}: every one of ${MAX_DRAWS} draws of record ${n}'s values breaks its rule "${broken!.message}" (${broken!.fields.join(', ')})`,
    );
  };
}
