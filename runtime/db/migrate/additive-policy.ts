/**
 * `serve` on start: only creates missing tables and adds missing columns and indexes. Whatever the
 * full plan would drop, replace, rebuild or recreate is left in place and named in `leftInPlace`,
 * so an older release (re)starting during a rolling deploy leaves a newer one's tables, columns
 * and indexes alone. What this version cannot work with (a column it needs of another kind, a new
 * required column on a table with rows …) is still a problem.
 *
 * Its snapshots keep the recorded design of what it leaves alone and add what it added, so a
 * later run of either mode, by this release or another, compares against what the database holds.
 */
import type { ColumnMeta } from '../../registry.ts';
import { includesIndex, indexDesigns, indexedColumns, searchDesign, type IndexDesign } from './index-design.ts';
import { snapshotOf, type FieldSnapshot, type TableSnapshot } from './snapshot.ts';
import type { MigrationStep } from './steps.ts';
import {
  TableDraft,
  changedKindProblem,
  fieldPath,
  uniqueIndexProblem,
  leftLine,
  newRequiredColumnProblem,
  requiredWithoutDefault,
  type ColumnChange,
  type ModePolicy,
  type PlanParts,
  type RemovedTable,
  type TableContext,
  type TablePlan,
  type TablePlanner,
} from './table-plan.ts';
import { valueCompatibility } from './value-compatibility.ts';

export const additivePolicy: ModePolicy = {
  removedTable({ table, snapshot }: RemovedTable, plan: PlanParts): void {
    plan.leftInPlace.push(leftLine(`table ${table} (model ${snapshot.model} is not in this version's definitions)`));
  },
  tablePlanner: (t: TableContext) => new AdditiveTablePlanner(t),
};

class AdditiveTablePlanner extends TableDraft implements TablePlanner {
  /** The first new required column without a default: SQLite can only add it by making the (empty) table again. */
  private rebuildFor: string | undefined;
  private readonly added = new Set<string>();

  newColumn(column: ColumnMeta): void {
    if (requiredWithoutDefault(column)) {
      const problem = newRequiredColumnProblem(this.t, column);
      if (problem) return this.refuse(problem);
      // PostgreSQL can add it to an empty table, which is all this plan needs.
      if (this.t.dialect === 'sqlite') this.rebuildFor ??= fieldPath(this.t, column.name);
    }
    this.steps.push({ kind: 'add-column', model: this.t.model, column });
    this.added.add(column.name);
  }

  keptColumn(column: ColumnMeta, change: ColumnChange | undefined): void {
    if (!change) return;
    if (change.kindChanged) {
      // Serve never changes a kind: it runs when the stored values stay valid for this version as they are.
      if (!readsAsItIs(change)) {
        return this.refuse(
          `${change.path} is ${describeStored(change.recorded, change.recordedField)} in the database, but ${describeStored(column, change.field)} in this version's definitions: serve only adds tables, columns and indexes; change the kind with rmsgen migrate, or serve the release the database was migrated for`,
        );
      }
      const filled = this.t.data.filled(column.name);
      const problem = filled > 0 ? changedKindProblem(this.t, change, filled) : undefined;
      if (problem) return this.refuse(problem);
    } else {
      for (const option of change.removedOptions) this.leave(`option ${option} of ${change.path} (not in this version's definitions)`);
    }
    if (change.requiredChanged) {
      // A column the database requires but this version may leave empty would fail its writes;
      // the other way round this version always gives a value, and the constraint can wait.
      if (change.recorded.notNull) {
        this.refuse(
          `${change.path} is required in the database, but optional in this version's definitions: serve does not change constraints; make it optional with rmsgen migrate`,
        );
      } else {
        this.leave(`column ${change.path} stays optional (required in this version's definitions)`);
      }
    }
  }

  removedColumn(name: string): void {
    const recorded = this.t.recordedColumns.get(name);
    if (recorded && requiredWithoutDefault(recorded)) {
      const model = this.t.model.name;
      return this.refuse(
        `${model}.${name} is required in the database and has no default, but is not in this version's definitions, so this version could not create ${model} records: serve the release that added it, or remove it with rmsgen migrate`,
      );
    }
    this.leave(`column ${fieldPath(this.t, name)} (not in this version's definitions)`);
  }

  finish(): TablePlan {
    const { t } = this;
    const designed = snapshotOf(t.model);
    if (this.problems.length > 0) return this.plan([], designed, this.problems);
    for (const index of t.recordedIndexes) {
      // An index on a column this version lacks stays with the column, already named.
      if (!includesIndex(t.designedIndexes, index) && index.columns.every((column) => t.designedColumns.has(column))) {
        this.leave(`index on ${indexedColumns(t.model.name, index)} (not in this version's definitions)`);
      }
    }
    if (this.rebuildFor !== undefined) {
      // The table is empty: making it again is adding the column, unless it holds what this plan leaves in place.
      if (this.left.length > 0) {
        const problem = `${this.rebuildFor} is new and required without a default, which SQLite can only add by making the empty table ${t.name} again, but that would drop what this version leaves in place (${this.left.join('; ')}): add it with rmsgen migrate`;
        return this.plan([], designed, [problem]);
      }
      return this.plan([this.recreated()], designed);
    }
    const indexSteps: MigrationStep[] = [];
    for (const index of t.designedIndexes) {
      if (t.hasIndex(index) && index.columns.every((column) => t.actual.has(column))) continue;
      const problem = uniqueIndexProblem(t, index);
      if (problem) return this.plan([], designed, [problem]);
      indexSteps.push({ kind: 'add-index', index });
    }
    const addedIndexes = indexSteps.flatMap((step) => (step.kind === 'add-index' ? [step.index] : []));
    return this.plan([...this.steps, ...indexSteps], extendSnapshot(t, designed, this.added, addedIndexes));
  }
}

/** Whether the values stored under the recorded kind are valid under the designed one without changing the column. */
function readsAsItIs(change: ColumnChange): boolean {
  if (change.typeChanged || !change.recordedField || !change.field) return false;
  return valueCompatibility(change.recordedField, change.field) !== 'lost';
}

function describeStored(column: ColumnMeta, field: { kind: string; target?: string } | undefined): string {
  const article = (word: string) => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
  if (!field) return `${article(column.type)} column`;
  return field.kind === 'ref' ? `a ref to ${field.target}` : article(field.kind);
}

/**
 * The snapshot after an additive run: the recorded design of everything the run left alone (other
 * releases' columns, indexes and kinds), plus what it added as this version designs it, and the
 * select options it knows besides the recorded ones. Without a recorded snapshot, the design.
 */
function extendSnapshot(t: TableContext, designed: TableSnapshot, added: ReadonlySet<string>, addedIndexes: readonly IndexDesign[]): TableSnapshot {
  const before = t.recorded;
  if (!before) return designed;
  const present = (name: string) => t.actual.has(name) || added.has(name);
  const recorded = (name: string) => present(name) && !added.has(name);
  const columns = before.table.columns.filter((column) => recorded(column.name));
  for (const column of designed.table.columns) if (!columns.some((kept) => kept.name === column.name)) columns.push(column);
  const fields: Record<string, FieldSnapshot> = {};
  for (const column of columns) {
    const old = recorded(column.name) && before.table.columns.some((kept) => kept.name === column.name) ? before.fields[column.name] : undefined;
    const field = old ? withOptions(old, designed.fields[column.name]) : designed.fields[column.name];
    if (field) fields[column.name] = field;
  }
  // The snapshot keeps indexes as `TableMeta` declares them: the recorded ones whose columns stay,
  // and the designed ones this run added (by the names of their designs).
  const addedNames = new Set(addedIndexes.map((index) => index.name));
  const designsOf = (table: TableSnapshot['table'], declared: TableSnapshot['table']['indexes'][number]) => indexDesigns(table, declared, t.dialect);
  const indexes = before.table.indexes.filter((declared) => designsOf(before.table, declared).every((design) => design.columns.every(recorded)));
  const keys = new Set(indexes.map((declared) => JSON.stringify(declared)));
  for (const declared of designed.table.indexes) {
    if (keys.has(JSON.stringify(declared))) continue;
    if (designsOf(designed.table, declared).some((design) => addedNames.has(design.name))) indexes.push(declared);
  }
  const search = (before.table.search ?? []).filter(recorded);
  for (const field of designed.table.search ?? []) {
    if (!search.includes(field) && addedNames.has(searchDesign(designed.table.name, field, t.dialect).name)) search.push(field);
  }
  return { version: 1, model: before.model, table: { name: before.table.name, columns, indexes, ...(search.length > 0 ? { search } : {}) }, fields };
}

/** A recorded select with the options this version adds to it. */
function withOptions(recorded: FieldSnapshot, designed: FieldSnapshot | undefined): FieldSnapshot {
  if (recorded.kind !== 'select' || designed?.kind !== 'select' || !recorded.options || !designed.options) return recorded;
  const extra = designed.options.filter((option) => !recorded.options!.includes(option));
  return extra.length === 0 ? recorded : { ...recorded, options: [...recorded.options, ...extra] };
}
