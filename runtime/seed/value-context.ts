/**
 * What every maker of a seeded value shares: the shape of the values (a record's or a line's, as
 * JSON), the ids refs may point at, the model and day values are made for, and the error a field
 * the seed cannot fill throws. Its own module so that the makers by kind, by name, of uniques and
 * of workflows (values.ts puts them together) depend on it and not on each other.
 */
import type { FieldMeta, ModelMeta } from '../registry.ts';
import type { Random } from './random.ts';

/** What seeding needs besides the model: ids the model's refs may point at, by target model. */
export interface SeedTargets {
  readonly [model: string]: readonly string[];
}

/** A record's or a line's field values as JSON (null when empty), without `id`. */
export type SeedValues = Record<string, string | number | boolean | readonly string[] | null>;
export type Value = SeedValues[string];

/** A field the seed cannot make values for as the module asks (a pattern it cannot read, say); the message says which and why. */
export class SeedValuesError extends Error {}

export interface Context {
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

export type Make = (n: number, random: Random, values: SeedValues) => Value;
