/**
 * `rmsgen seed`: fills a model's table with plausible records (values from `values.ts`, by each
 * field's kind and name) to try the service at size or to benchmark it. Records go straight into the tables, in large transactions,
 * as an operator's import would: not through the command path, so they have no audit rows and no
 * history. Refs point at records of their targets; a target with none is seeded first.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { runWrite, sqlIdentifier, sqlIdentifiers, uniqueFields } from '../db/statements.ts';
import { createIndexSql } from '../db/migrate/apply.ts';
import { indexesOf, type IndexDesign } from '../db/migrate/index-design.ts';
import { newId } from '../ids.ts';
import { toDb } from '../query/values.ts';
import type { ModelMeta, Registry } from '../registry.ts';
import { seedableCount, todayUtc, valuesMaker, type SeedTargets } from './values.ts';

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
}

export interface SeededModel {
  readonly model: string;
  readonly count: number;
}

/** Seeding at least this many records, and at least as many as the table holds, builds its indexes afterwards. */
const BULK_LOAD = 50_000;

/** The model's indexes that are not unique and are kept in a database index (PostgreSQL's trigram index too, not SQLite's search tables). */
function orderedIndexes(db: Knex, model: ModelMeta): IndexDesign[] {
  const dialect = dialectOf(db);
  return indexesOf(model.table, dialect).filter((index) => !index.unique && (index.method !== 'search' || dialect === 'postgres'));
}

/** Records per transaction: large enough that commits cost little, small enough to report progress. */
const RECORDS_PER_TRANSACTION = 20_000;
/** Bound parameters per statement: SQLite allows 32,766, PostgreSQL 65,535. */
const PARAMETERS_PER_STATEMENT = { sqlite: 32_000, postgres: 60_000 } as const;

/**
 * Seeds `count` records of the model (after any targets its refs need), then has the database
 * update its statistics so the planner sees the new sizes. Answers what was seeded, targets first.
 */
export async function seedRecords(db: Knex, registry: Registry, options: SeedOptions): Promise<SeededModel[]> {
  const model = registry.models[options.model];
  if (!model) {
    throw new SeedRefusedError(`unknown model ${options.model}: the models are ${Object.keys(registry.models).join(', ')}`);
  }
  if (!Number.isInteger(options.count) || options.count < 1 || options.count > MAX_SEED_COUNT) {
    throw new SeedRefusedError(`count must be a whole number from 1 to ${MAX_SEED_COUNT.toLocaleString('en-US')}`);
  }
  const plan = await planSeeding(db, registry, model, options.count, options.log ?? (() => {}));
  const total = plan.reduce((sum, step) => sum + step.count, 0);
  if (dialectOf(db) === 'sqlite') await db.raw('pragma cache_size = -262144');
  const seed = options.seed ?? 1;
  const today = options.today ?? todayUtc();
  let done = 0;
  for (const step of plan) {
    const stepModel = registry.models[step.model] as ModelMeta;
    const targets = await targetIds(db, registry, stepModel);
    const first = (await countRows(db, stepModel.table.name)) + 1;
    const limit = seedableCount(stepModel, first, targets);
    if (limit && limit.count < step.count) {
      throw new SeedRefusedError(
        `${step.model}.${limit.field} is unique and required: only ${limit.count} more ${step.model} records can have a value of their own`,
      );
    }
    // A bulk load into a table that grows several times over is faster with its ordered indexes
    // built once afterwards (a sort) than kept row by row. Unique indexes stay, so that a value
    // repeated meanwhile is still refused; if the seed is stopped midway, serve or migrate builds
    // the missing indexes again.
    const rebuilt = step.count >= Math.max(options.rebuildIndexesFrom ?? BULK_LOAD, first - 1) ? orderedIndexes(db, stepModel) : [];
    for (const index of rebuilt) await db.raw(`drop index if exists ${sqlIdentifier(index.name)}`);
    await insertRecords(db, stepModel, { first, count: step.count, seed, today, targets }, (written) => {
      options.onProgress?.(done + written, total);
    });
    if (rebuilt.length > 0) {
      options.log?.(`building ${rebuilt.length} indexes of ${stepModel.name}`);
      for (const index of rebuilt) await db.raw(createIndexSql(dialectOf(db), index));
    }
    done += step.count;
  }
  await analyze(db, plan.map((step) => (registry.models[step.model] as ModelMeta).table.name));
  return plan;
}

/**
 * What to seed, in order: the ref targets that have no records yet (a tenth as many, but at least
 * ten, or as many as the model's records when they are fewer, so that refs spread over several;
 * their own empty targets before them), then the model. A ref to the model itself, or a cycle,
 * points only at records that existed before.
 */
async function planSeeding(db: Knex, registry: Registry, model: ModelMeta, count: number, log: (line: string) => void): Promise<SeededModel[]> {
  const plan: SeededModel[] = [];
  const visiting = new Set<string>();
  const visit = async (current: ModelMeta, currentCount: number): Promise<void> => {
    visiting.add(current.name);
    for (const field of current.fields) {
      const target = field.kind === 'ref' ? registry.models[field.target ?? ''] : undefined;
      if (!target || visiting.has(target.name) || plan.some((step) => step.model === target.name)) continue;
      if ((await countRows(db, target.table.name)) > 0) continue;
      const targetCount = Math.min(currentCount, Math.max(10, Math.ceil(currentCount / 10)));
      log(`${target.name} has no records for ${current.name}.${field.name} to point at: seeding ${targetCount.toLocaleString('en-US')} ${target.name} records first`);
      await visit(target, targetCount);
    }
    plan.push({ model: current.name, count: currentCount });
  };
  await visit(model, count);
  return plan;
}

/** The ids each ref field of the model may point at, by target model (read once, before seeding). */
async function targetIds(db: Knex, registry: Registry, model: ModelMeta): Promise<SeedTargets> {
  const targets: Record<string, string[]> = {};
  for (const field of model.fields) {
    const target = field.target;
    if (field.kind !== 'ref' || target === undefined || targets[target]) continue;
    const table = registry.models[target]?.table.name ?? target;
    const rows = (await db.raw(`select "id" from ${sqlIdentifier(table)} order by "id"`)) as unknown;
    const list = Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows;
    targets[target] = (list as { id: string }[]).map((row) => row.id);
  }
  return targets;
}

async function countRows(db: Knex, table: string): Promise<number> {
  const result = (await db.raw(`select count(*) as "n" from ${sqlIdentifier(table)}`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number | string }[];
  return Number(rows[0]?.n ?? 0);
}

interface Batch {
  /** The number of the first record (1 for a table's first). */
  readonly first: number;
  readonly count: number;
  readonly seed: number;
  readonly today: string;
  readonly targets: SeedTargets;
}

/**
 * Inserts the records in transactions of `RECORDS_PER_TRANSACTION`, each as multi-row inserts of as
 * many rows as the database binds at once. A unique field the database finds repeated (a record
 * that was there before holds a seeded value) stops the seed with `<model>.<field> must be unique`;
 * the transactions before it stay.
 */
async function insertRecords(db: Knex, model: ModelMeta, batch: Batch, progress: (written: number) => void): Promise<void> {
  const dialect = dialectOf(db);
  const columns = model.table.columns.map((column) => column.name);
  const kinds = new Map(model.fields.map((field) => [field.name, field.kind]));
  const fields = columns.slice(1).map((name) => ({ name, bool: kinds.get(name) === 'bool' }));
  const rowsPerStatement = Math.max(1, Math.min(1000, Math.floor(PARAMETERS_PER_STATEMENT[dialect] / columns.length)));
  const rowPlaceholders = `(${columns.map(() => '?').join(', ')})`;
  const insertOf = (rows: number) =>
    `insert into ${sqlIdentifier(model.table.name)} (${sqlIdentifiers(columns)}) values ${Array.from({ length: rows }, () => rowPlaceholders).join(', ')}`;
  const fullInsert = insertOf(rowsPerStatement);
  const unique = uniqueFields(
    model.table.name,
    model.table.indexes.flatMap((index) => (typeof index !== 'string' && index.unique && index.fields.length === 1 ? index.fields : [])),
  );
  const makeValues = valuesMaker(model, batch.seed, batch.targets, batch.today);
  let written = 0;
  while (written < batch.count) {
    const inTransaction = Math.min(RECORDS_PER_TRANSACTION, batch.count - written);
    await db.transaction(async (trx) => {
      for (let offset = 0; offset < inTransaction; offset += rowsPerStatement) {
        const rows = Math.min(rowsPerStatement, inTransaction - offset);
        const bindings: unknown[] = [];
        for (let i = 0; i < rows; i++) {
          const values = makeValues(batch.first + written + offset + i);
          bindings.push(newId());
          for (const field of fields) {
            const value = values[field.name] ?? null;
            bindings.push(field.bool ? toDb.bool(value as boolean | null, dialect) : value);
          }
        }
        await runWrite(trx, rows === rowsPerStatement ? fullInsert : insertOf(rows), bindings, unique);
      }
    });
    written += inTransaction;
    progress(written);
  }
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
