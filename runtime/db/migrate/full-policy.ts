/**
 * `rmsgen migrate`: every change the definitions ask for that loses no data. It creates tables,
 * adds columns and indexes, and makes harmless changes (dropping a column or table that holds
 * nothing, changing the kind of an empty column, changing constraints the data satisfies). It
 * refuses every change that would lose or invalidate data, naming the problem and its way out.
 * An empty table that changes at all is simply made again as designed.
 */
import type { ColumnMeta } from '../../registry.ts';
import { includesIndex } from './index-design.ts';
import { snapshotOf } from './snapshot.ts';
import type { MigrationStep } from './steps.ts';
import {
  TableDraft,
  changedKindProblem,
  fieldPath,
  newRequiredColumnProblem,
  recordedIndexesOn,
  uniqueIndexProblem,
  requiredWithoutDefault,
  type ColumnChange,
  type ModePolicy,
  type PlanParts,
  type RemovedTable,
  type TableContext,
  type TablePlan,
  type TablePlanner,
} from './table-plan.ts';

export const fullPolicy: ModePolicy = {
  removedTable({ table, snapshot, data }: RemovedTable, plan: PlanParts): void {
    const rows = data.rows();
    if (rows > 0) {
      plan.problems.push(
        `model ${snapshot.model} was removed, but its table ${table} holds ${rows} row(s): put the model back, or delete its records first and migrate again`,
      );
      return;
    }
    plan.steps.push({ kind: 'drop-table', table });
    plan.forgotten.push(table);
  },
  tablePlanner: (t: TableContext) => new FullTablePlanner(t),
};

class FullTablePlanner extends TableDraft implements TablePlanner {
  /**
   * The table must be made again: SQLite cannot change a column's constraints in place, nor add a
   * required column without a default (the table is then empty, and made again on either dialect).
   */
  private needsRebuild = false;
  /** The existing columns a rebuild copies over. */
  private readonly keep: string[] = [];

  newColumn(column: ColumnMeta): void {
    if (requiredWithoutDefault(column)) {
      const problem = newRequiredColumnProblem(this.t, column);
      if (problem) return this.refuse(problem);
      // SQLite cannot add a NOT NULL column without a default; the table is empty, so it is made again (see finish).
      this.needsRebuild = true;
    }
    this.steps.push({ kind: 'add-column', model: this.t.model, column });
  }

  keptColumn(column: ColumnMeta, change: ColumnChange | undefined): void {
    if (change?.kindChanged) {
      const filled = this.t.data.filled(column.name);
      if (filled > 0) {
        const problem = changedKindProblem(this.t, change, filled);
        if (problem) return this.refuse(problem);
      } else if (change.typeChanged) {
        return this.replaceEmptyColumn(column, change);
      }
    } else if (change && change.removedOptions.length > 0) {
      const used = this.t.data.valuesUsed(column.name, change.removedOptions, change.field?.kind === 'multiselect');
      if (used.length > 0) {
        const options = used.map(([value, rows]) => `${value} (used by ${rows} row(s))`).join(', ');
        return this.refuse(`${change.path}: option(s) ${options} were removed: keep them, or move those records to another option first`);
      }
    }
    this.keep.push(column.name);
    if (change?.requiredChanged) this.changeRequired(column, change);
  }

  private replaceEmptyColumn(column: ColumnMeta, change: ColumnChange): void {
    const rows = requiredWithoutDefault(column) ? this.t.data.rows() : 0;
    if (rows > 0) return this.refuse(`${change.path} changed kind and is required, but ${rows} row(s) have no value for it: fill them in first`);
    this.steps.push({ kind: 'replace-column', model: this.t.model, column, indexes: recordedIndexesOn(this.t, column.name) });
  }

  private changeRequired(column: ColumnMeta, change: ColumnChange): void {
    if (column.notNull) {
      const empty = this.t.data.rows() - this.t.data.filled(column.name);
      if (empty > 0) return this.refuse(`${change.path} became required, but ${empty} row(s) have no value: fill them in first, then migrate again`);
    }
    if (this.t.dialect === 'sqlite') this.needsRebuild = true;
    else this.steps.push({ kind: 'alter-not-null', table: this.t.name, column: column.name, notNull: column.notNull });
  }

  removedColumn(name: string): void {
    const filled = this.t.data.filled(name);
    if (filled > 0) {
      return this.refuse(
        `${fieldPath(this.t, name)} was removed, but ${filled} row(s) hold a value in it: put the field back, or empty it in every record first and migrate again`,
      );
    }
    this.steps.push({ kind: 'drop-column', table: this.t.name, column: name, indexes: recordedIndexesOn(this.t, name) });
  }

  finish(): TablePlan {
    const { t } = this;
    const designed = snapshotOf(t.model);
    if (this.problems.length > 0) return this.plan([], designed, this.problems);
    if ((this.steps.length > 0 || this.needsRebuild) && t.data.rows() === 0) return this.plan([this.recreated()], designed);
    if (this.needsRebuild) return this.plan([{ kind: 'rebuild-table', model: t.model, keep: this.keep, indexes: t.designedIndexes }], designed);

    const replaced = new Set(this.steps.flatMap((step) => (step.kind === 'replace-column' ? [step.column.name] : [])));
    const indexSteps: MigrationStep[] = [];
    for (const index of t.designedIndexes) {
      // Also when recorded: a column added or replaced now comes without it.
      const missing = !t.hasIndex(index) || index.columns.some((column) => !t.actual.has(column) || replaced.has(column));
      if (!missing) continue;
      const problem = uniqueIndexProblem(t, index);
      if (problem) return this.plan([], designed, [problem]);
      indexSteps.push({ kind: 'add-index', index });
    }
    for (const index of t.recordedIndexes) {
      // An index on a dropped column goes with the column.
      const undesigned = !includesIndex(t.designedIndexes, index) && index.columns.every((column) => t.designedColumns.has(column));
      if (undesigned) indexSteps.push({ kind: 'drop-index', index });
    }
    return this.plan([...this.steps, ...indexSteps], designed);
  }
}
