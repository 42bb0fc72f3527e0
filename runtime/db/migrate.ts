/**
 * `rmsgen migrate`: brings the database to the registry's tables. A pipeline of three stages,
 * each in runtime/db/migrate/:
 *
 *   inspect (structure, then the data the planner asks about) → plan (pure: steps, or problems) → apply (DDL)
 *
 * all in one transaction. The full mode (`rmsgen migrate`) makes every change that loses no data
 * and refuses the others, naming each problem and how to resolve it, and then changes nothing.
 * `serve` runs the additive mode: it only creates tables and adds columns and indexes, and leaves
 * everything else to a deliberate `rmsgen migrate`, naming each thing it left.
 *
 * What was applied is kept in `rms_schema` (one snapshot per table, see migrate/snapshot.ts). On
 * PostgreSQL an advisory lock makes concurrent migrations (several instances starting at once)
 * run one after the other.
 */
import type { Knex } from 'knex';
import { dialectOf } from './connect.ts';
import type { Registry } from '../registry.ts';
import { applyPlan, buildLater, ensureSchemaTable } from './migrate/apply.ts';
import { answerQuestions, inspectTables, readSnapshots } from './migrate/inspect.ts';
import { planMigration } from './migrate/plan.ts';
import { tableModels } from './migrate/table-models.ts';
import type { MigrationMode, MigrationPlan } from './migrate/steps.ts';

export { SCHEMA_TABLE, snapshotOf, type FieldSnapshot, type TableSnapshot } from './migrate/snapshot.ts';
export type { MigrationMode, MigrationPlan, MigrationStep } from './migrate/steps.ts';

/** Arbitrary, fixed: the key of the advisory lock migrations hold on PostgreSQL. */
const MIGRATION_LOCK_KEY = 727_376_701;

/** Creates the tables of a subsystem (auth, plans, masking …) if they are missing. */
export type SystemTableSetup = (db: Knex) => Promise<void>;

/** Whether a change line is an index added to a table that existed (what `serve` names in its log; a new table's come with it). */
export function isAddedIndex(change: string): boolean {
  return /^created (search |unique )?index on /.test(change);
}

export class MigrationRefusedError extends Error {
  constructor(
    readonly problems: readonly string[],
    heading = 'migration refused; nothing was changed',
  ) {
    super(`${heading}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'MigrationRefusedError';
  }
}

export interface MigrateOptions {
  /** Default `full`. */
  readonly mode?: MigrationMode;
  /** Subsystem tables to ensure in the same transaction (auth, plans …). */
  readonly systemTables?: readonly SystemTableSetup[];
}

export interface MigrationResult {
  /** One line per change, e.g. `created table lead`; empty when the schema was up to date. */
  readonly changes: readonly string[];
  /**
   * Additive mode: one line per thing left for `rmsgen migrate`, e.g.
   * `left in place for rmsgen migrate: column lead.foo (not in this version's definitions)`.
   */
  readonly leftInPlace: readonly string[];
}

/**
 * Inspects, plans and applies in one transaction (after taking the lock on PostgreSQL), so the
 * checks see the data the changes are made to. Throws MigrationRefusedError, changing nothing.
 */
export async function migrate(db: Knex, registry: Registry, options: MigrateOptions = {}): Promise<MigrationResult> {
  const dialect = dialectOf(db);
  const { applied, leftInPlace } = await db.transaction(async (trx) => {
    if (dialect === 'postgres') await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
    for (const setup of options.systemTables ?? []) await setup(trx);
    await ensureSchemaTable(trx);
    const plan = await inspectAndPlan(trx, registry, options.mode ?? 'full');
    if (plan.problems.length > 0) throw new MigrationRefusedError(plan.problems);
    return { applied: await applyPlan(trx, dialect, plan), leftInPlace: plan.leftInPlace };
  });
  // PostgreSQL: indexes on live tables, built without locking writes out, after the commit.
  const failed = applied.later.length > 0 ? await buildLater(db, applied.later) : [];
  if (failed.length > 0) throw new MigrationRefusedError(failed, 'migration applied, but some indexes could not be built (migrate again once the cause is fixed)');
  return { changes: applied.changes, leftInPlace };
}

/**
 * Reads the structure, then plans; while the plan depends on stored data not read yet (row counts,
 * values), reads just that and plans again. A few rounds at most: each answer settles a decision.
 */
async function inspectAndPlan(db: Knex, registry: Registry, mode: MigrationMode): Promise<MigrationPlan> {
  const recorded = await readSnapshots(db);
  const modelTables = tableModels(registry).map((model) => model.table.name);
  let inspected = await inspectTables(db, [...recorded.keys(), ...modelTables]);
  const answered = new Set<string>();
  for (;;) {
    const outcome = planMigration(registry, recorded, inspected, mode);
    if (outcome.kind === 'planned') return outcome.plan;
    for (const question of outcome.questions) {
      const key = JSON.stringify(question);
      if (answered.has(key)) throw new Error(`migration planner asked again: ${key}`);
      answered.add(key);
    }
    inspected = await answerQuestions(db, inspected, outcome.questions);
  }
}
