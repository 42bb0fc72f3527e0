/**
 * `rmsgen seed`: fills a model's table with plausible records (values from `values.ts`, by each
 * field's kind and name) to try the service at size or to benchmark it: with their lines (1 to 10
 * per record and list unless told otherwise), their computed fields worked out by the model's
 * logic and their rules kept (records.ts). Records go straight into the tables, in large
 * transactions, as an operator's import would: not through the command path, so they have no
 * audit rows and no history. Refs point at records of their targets; a target with none is seeded
 * first. The first records of every model are made, checked against the model's create input and
 * its rules before anything is written, so a seed the module's checks would refuse writes nothing.
 * This module runs those steps; what to seed in which order is plan.ts's, the writing inserts.ts's.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { sqlIdentifier } from '../db/statements.ts';
import { createIndexSql } from '../db/migrate/apply.ts';
import { indexesOf, type IndexDesign } from '../db/migrate/index-design.ts';
import { LOGIC_TABLE, ensureLogicTables } from '../commands/recompute.ts';
import type { FieldMeta, ModelMeta, Registry, TableMeta } from '../registry.ts';
import { todayUtc } from './dates.ts';
import { insertRecords } from './inserts.ts';
import { countRows, planSeeding, targetIds, type SeededModel } from './plan.ts';
import { SeedRecordError, recordMaker, type SeedRecord } from './records.ts';
import { SeedValuesError, type SeedTargets } from './value-context.ts';
import { DEFAULT_LINES_PER_RECORD, seedableCount, type LinesPerRecord } from './values.ts';

export const MAX_SEED_COUNT = 10_000_000;

/** A seed that cannot be done as asked; nothing was written. */
export class SeedRefusedError extends Error {}

export interface SeedOptions {
  readonly model: string;
  readonly count: number;
  /** Picks the values: the same seed gives the same values (ids are new on every run). Default 1. */
  readonly seed?: number;
  /** The day (`YYYY-MM-DD`) dates are spread around, within a year either side. Default today (UTC). */
  readonly today?: string;
  /** Called after each transaction with the records written so far, of `total` (targets included). */
  readonly onProgress?: (done: number, total: number) => void;
  /** A line for the person running it, e.g. that a ref's target is seeded first. */
  readonly log?: (line: string) => void;
  /**
   * Seeding at least this many records, and at least as many as the table holds, drops the
   * table's ordered indexes and builds them again afterwards (default 50,000).
   */
  readonly rebuildIndexesFrom?: number;
  /** Lines per record in each line list, within the list's own min and max (default 1 to 10). */
  readonly lines?: LinesPerRecord;
}

/** Seeding at least this many records, and at least as many as the table holds, builds its indexes afterwards. */
const BULK_LOAD = 50_000;

/** A table's indexes that are not unique and are kept in a database index (PostgreSQL's trigram index too, not SQLite's search tables). */
function orderedIndexes(db: Knex, table: TableMeta, listed: boolean): IndexDesign[] {
  const dialect = dialectOf(db);
  return indexesOf(table, dialect, listed).filter((index) => !index.unique && (index.method !== 'search' || dialect === 'postgres'));
}

/** Records made and checked against the create input before anything is written. */
const CHECKED_FIRST = 20;

/**
 * Seeds `count` records of the model (after any targets its refs need), then has the database
 * update its statistics so the planner sees the new sizes. Answers what was seeded, targets first.
 */
export async function seedRecords(db: Knex, registry: Registry, options: SeedOptions): Promise<SeededModel[]> {
  try {
    return await seed(db, registry, options);
  } catch (error) {
    if (error instanceof SeedValuesError || error instanceof SeedRecordError) throw new SeedRefusedError(error.message);
    throw error;
  }
}

async function seed(db: Knex, registry: Registry, options: SeedOptions): Promise<SeededModel[]> {
  const model = registry.models[options.model];
  if (!model) {
    throw new SeedRefusedError(`unknown model ${options.model}: the models are ${Object.keys(registry.models).join(', ')}`);
  }
  if (!Number.isInteger(options.count) || options.count < 1 || options.count > MAX_SEED_COUNT) {
    throw new SeedRefusedError(`count must be a whole number from 1 to ${MAX_SEED_COUNT.toLocaleString('en-US')}`);
  }
  const lines = options.lines ?? DEFAULT_LINES_PER_RECORD;
  if (!Number.isInteger(lines.min) || !Number.isInteger(lines.max) || lines.min < 0 || lines.min > lines.max) {
    throw new SeedRefusedError(`lines per record must be whole numbers from 0, the fewest not above the most, not ${lines.min} to ${lines.max}`);
  }
  const plan = await planSeeding(db, registry, model, options.count, options.log ?? (() => {}));
  const total = plan.reduce((sum, step) => sum + step.count, 0);
  const seed = options.seed ?? 1;
  const today = options.today ?? todayUtc();
  const makerOf = (stepModel: ModelMeta, targets: SeedTargets) => recordMaker(stepModel, registry.logic?.[stepModel.name], { seed, targets, today, lines });
  // Before anything is written: each step's first records, as a create would take them and with
  // their rules kept (targets still to be seeded stand in as one id).
  for (const step of plan) {
    const stepModel = registry.models[step.model] as ModelMeta;
    const targets = await targetIds(db, registry, stepModel, plan);
    const first = (await countRows(db, stepModel.table.name)) + 1;
    checkSeedable(stepModel, first, step.count, targets);
    checkFirstRecords(registry, stepModel, makerOf(stepModel, targets), first, Math.min(step.count, CHECKED_FIRST));
  }
  if (dialectOf(db) === 'sqlite') await db.raw('pragma cache_size = -262144');
  await ensureLogicTables(db);
  let done = 0;
  const seeded: SeededModel[] = [];
  for (const step of plan) {
    const stepModel = registry.models[step.model] as ModelMeta;
    const targets = await targetIds(db, registry, stepModel, []);
    const first = (await countRows(db, stepModel.table.name)) + 1;
    checkSeedable(stepModel, first, step.count, targets);
    // A bulk load into a table that grows several times over is faster with its ordered indexes
    // built once afterwards (a sort) than kept row by row; its line tables' too. Unique indexes
    // stay, so that a value repeated meanwhile is still refused; if the seed is stopped midway,
    // serve or migrate builds the missing indexes again.
    const bulk = step.count >= Math.max(options.rebuildIndexesFrom ?? BULK_LOAD, first - 1);
    const rebuilt = bulk ? [orderedIndexes(db, stepModel.table, true), ...stepModel.lines.map((list) => orderedIndexes(db, list.table, false))].flat() : [];
    for (const index of rebuilt) await db.raw(`drop index if exists ${sqlIdentifier(index.name)}`);
    const written = await insertRecords(db, stepModel, { first, count: step.count, make: makerOf(stepModel, targets) }, (records) => {
      options.onProgress?.(done + records, total);
    });
    if (rebuilt.length > 0) {
      options.log?.(`building ${rebuilt.length} indexes of ${stepModel.name}`);
      for (const index of rebuilt) await db.raw(createIndexSql(dialectOf(db), index));
    }
    await recordLogicVersion(db, registry, stepModel, first);
    done += step.count;
    seeded.push({ model: step.model, count: step.count, ...(stepModel.lines.length > 0 ? { lines: written } : {}) });
  }
  await analyze(db, plan.flatMap((step) => {
    const stepModel = registry.models[step.model] as ModelMeta;
    return [stepModel.table.name, ...stepModel.lines.map((list) => list.table.name)];
  }));
  return seeded;
}

/** Refuses a seed of more records than the model's unique fields can give values of their own. */
function checkSeedable(model: ModelMeta, first: number, count: number, targets: SeedTargets): void {
  const limit = seedableCount(model, first, targets);
  if (!limit || limit.count >= count) return;
  const what = limit.fields.length === 1 ? `${model.name}.${limit.fields[0]} is unique and required` : `${model.name}: ${limit.fields.join(', ')} must be unique together`;
  const values = limit.fields.length === 1 ? 'a value of their own' : 'values of their own';
  throw new SeedRefusedError(`${what}: only ${limit.count} more ${model.name} records can have ${values}`);
}

/**
 * Makes the first records and checks each against the model's create input (the command path's
 * checks of kinds, ranges, lengths, patterns, lines): a record the seed makes is one a create
 * would take. The refusal quotes the check.
 */
function checkFirstRecords(registry: Registry, model: ModelMeta, make: (n: number) => SeedRecord, first: number, count: number): void {
  const schema = registry.commands[`${model.name}.create`]?.input;
  if (!schema) return;
  const given = (fields: readonly FieldMeta[], values: Readonly<Record<string, unknown>>) =>
    Object.fromEntries(fields.filter((field) => !field.computed && !field.governed && values[field.name] !== null).map((field) => [field.name, values[field.name]]));
  for (let n = first; n < first + count; n++) {
    const record = make(n);
    const input = given(model.fields, record.values);
    for (const list of model.lines) input[list.name] = (record.lines[list.name] ?? []).map((line) => given(list.fields, line));
    const checked = schema.safeParse(input);
    if (!checked.success) {
      throw new SeedRefusedError(`cannot seed ${model.name}: record ${n} it made is not one a create would take: ${checked.error.issues[0]?.message ?? 'invalid'}`);
    }
  }
}

/**
 * Records the version of the model's logic its seeded computed values were made with, when the
 * table held none before or the version recorded is this one: `serve` then knows they are
 * current. Values made by other functions before stay stale, for `rmsgen migrate` to recompute.
 */
async function recordLogicVersion(db: Knex, registry: Registry, model: ModelMeta, first: number): Promise<void> {
  const logic = registry.logic?.[model.name];
  const computes = model.fields.some((field) => field.computed) || model.lines.some((list) => list.fields.some((field) => field.computed));
  if (!logic || !computes) return;
  const recorded = (await db(LOGIC_TABLE).where({ model: model.name }).first('version')) as { version: string } | undefined;
  if (recorded || first > 1) return;
  await db(LOGIC_TABLE).insert({ model: model.name, version: logic.version });
}

/**
 * Fresh planner statistics for the seeded tables (SQLite samples). PostgreSQL vacuums them too: a
 * bulk load leaves the visibility map empty, and until autovacuum gets round to the table every
 * index-only scan fetches each row from the heap. A count of 250,000 matching leads took 140–185 ms
 * right after seeding a million and 23 ms after `vacuum (analyze)`. (A page is marked only once its
 * rows' commits are flushed: on a server with synchronous_commit off, the last rows written may
 * wait for the next vacuum.)
 */
async function analyze(db: Knex, tables: readonly string[]): Promise<void> {
  if (dialectOf(db) === 'sqlite') {
    await db.raw('pragma analysis_limit = 1000');
    await db.raw('analyze');
    return;
  }
  // VACUUM cannot run in a transaction; `db` here is the pool, each statement on its own.
  for (const table of tables) await db.raw(`vacuum (analyze) ${sqlIdentifier(table)}`);
}
