/**
 * Stage 2: the steps that bring the database to the design, and the problems that forbid it. A
 * pure function of the design, the recorded snapshots, the inspected database and the mode; what
 * each difference leads to is the mode's policy (full-policy.ts, additive-policy.ts).
 */
import type { Registry } from '../../registry.ts';
import { additivePolicy } from './additive-policy.ts';
import { fullPolicy } from './full-policy.ts';
import { indexesOf } from './index-design.ts';
import type { DataQuestion, InspectedDatabase } from './inspected.ts';
import { snapshotOf, type TableSnapshot } from './snapshot.ts';
import { isListedTable, tableModels } from './table-models.ts';
import type { MigrationMode, MigrationPlan } from './steps.ts';
import { StoredData, asking } from './stored-data.ts';
import { columnChange, tableContext, type ModePolicy, type PlanParts, type TablePlan, type TablePlanner, type TableContext } from './table-plan.ts';

const POLICIES: Readonly<Record<MigrationMode, ModePolicy>> = { full: fullPolicy, additive: additivePolicy };

/** A plan, or the facts about stored data it depends on that `inspected` does not hold yet. */
export type PlanOutcome =
  | { readonly kind: 'planned'; readonly plan: MigrationPlan }
  | { readonly kind: 'unanswered'; readonly questions: readonly DataQuestion[] };

/**
 * Plans tables recorded for removed models first, then each model's table in the design's order;
 * problems and things left in place are reported in that order.
 */
export function planMigration(
  design: Pick<Registry, 'models'>,
  recorded: ReadonlyMap<string, TableSnapshot>,
  inspected: InspectedDatabase,
  mode: MigrationMode,
): PlanOutcome {
  const policy = POLICIES[mode];
  const plan: PlanParts & { snapshots: TableSnapshot[] } = { steps: [], problems: [], leftInPlace: [], snapshots: [], forgotten: [] };
  const questions: DataQuestion[] = [];
  const models = tableModels(design);
  const designedTables = new Set(models.map((model) => model.table.name));

  for (const [table, snapshot] of recorded) {
    if (designedTables.has(table)) continue;
    const actual = inspected.tables.get(table);
    if (!actual) {
      plan.forgotten.push(table);
      continue;
    }
    asking(questions, () => policy.removedTable({ table, snapshot, data: new StoredData(table, actual) }, plan));
  }

  for (const model of models) {
    const actual = inspected.tables.get(model.table.name);
    if (!actual) {
      plan.steps.push({ kind: 'create-table', model, indexes: indexesOf(model.table, inspected.dialect, isListedTable(model)), recreate: false });
      plan.snapshots.push(snapshotOf(model));
      continue;
    }
    const t = tableContext(model, recorded.get(model.table.name), actual, inspected.dialect, inspected.indexNames);
    const table = planTable(t, policy.tablePlanner(t), questions);
    if (!table) continue;
    plan.steps.push(...table.steps);
    plan.problems.push(...table.problems);
    plan.leftInPlace.push(...table.leftInPlace);
    plan.snapshots.push(table.snapshot);
  }

  if (questions.length > 0) return { kind: 'unanswered', questions: distinct(questions) };
  return { kind: 'planned', plan };
}

/** The table's plan, or undefined when it waits for answers (added to `questions`). */
function planTable(t: TableContext, planner: TablePlanner, questions: DataQuestion[]): TablePlan | undefined {
  const asked = questions.length;
  for (const column of t.model.table.columns) {
    // Each column is decided on its own, so one round asks every column's question.
    asking(questions, () => (t.actual.has(column.name) ? planner.keptColumn(column, columnChange(t, column)) : planner.newColumn(column)));
  }
  for (const name of t.actual) {
    if (!t.designedColumns.has(name)) asking(questions, () => planner.removedColumn(name));
  }
  if (questions.length > asked) return undefined;
  let table: TablePlan | undefined;
  asking(questions, () => {
    table = planner.finish();
  });
  return table;
}

function distinct(questions: readonly DataQuestion[]): DataQuestion[] {
  const byKey = new Map(questions.map((question) => [JSON.stringify(question), question]));
  return [...byKey.values()];
}
