/**
 * What planning one table works with, whichever the mode: the table's context (design, recorded
 * design, what the database holds), how a column differs from its recorded design, the draft a
 * mode's policy fills, and the checks both modes share.
 */
import type { Dialect } from '../connect.ts';
import type { ColumnMeta, FieldKind, FieldMeta, ModelMeta } from '../../registry.ts';
import { includesIndex, indexesOf, type IndexDesign } from './index-design.ts';
import { isListedTable } from './table-models.ts';
import type { InspectedTable } from './inspected.ts';
import type { FieldSnapshot, TableSnapshot } from './snapshot.ts';
import type { MigrationStep } from './steps.ts';
import { StoredData } from './stored-data.ts';
import { valueCompatibility } from './value-compatibility.ts';

/** A designed table the database has. */
export interface TableContext {
  readonly model: ModelMeta;
  readonly name: string;
  readonly dialect: Dialect;
  /** The design recorded when it was last migrated; absent when no migration recorded it. */
  readonly recorded: TableSnapshot | undefined;
  /** The columns the database has, in its order. */
  readonly actual: ReadonlySet<string>;
  readonly designedColumns: ReadonlyMap<string, ColumnMeta>;
  readonly recordedColumns: ReadonlyMap<string, ColumnMeta>;
  readonly designedIndexes: readonly IndexDesign[];
  readonly recordedIndexes: readonly IndexDesign[];
  /** Whether the database holds the index: by name when inspection read the names, else as recorded. */
  readonly hasIndex: (index: IndexDesign) => boolean;
  readonly data: StoredData;
}

export function tableContext(
  model: ModelMeta,
  recorded: TableSnapshot | undefined,
  inspected: InspectedTable,
  dialect: Dialect,
  indexNames?: ReadonlySet<string>,
): TableContext {
  const recordedIndexes = recorded ? indexesOf(recorded.table, dialect, isListedTable(model)) : [];
  return {
    model,
    name: model.table.name,
    dialect,
    recorded,
    actual: new Set(inspected.columns),
    designedColumns: new Map(model.table.columns.map((column) => [column.name, column])),
    recordedColumns: new Map((recorded?.table.columns ?? []).map((column) => [column.name, column])),
    designedIndexes: indexesOf(model.table, dialect, isListedTable(model)),
    recordedIndexes,
    hasIndex: (index) => (indexNames ? indexNames.has(index.name) : includesIndex(recordedIndexes, index)),
    data: new StoredData(model.table.name, inspected),
  };
}

/**
 * A unique index cannot be added over values several rows share: the refusal names a few of them.
 * (Empty values never collide.) Asks for the duplicates only when the table has rows.
 */
export function uniqueIndexProblem(t: TableContext, index: IndexDesign): string | undefined {
  if (!index.unique || index.columns.some((column) => !t.actual.has(column))) return undefined;
  const shared = t.data.duplicates(index.columns);
  if (shared.length === 0) return undefined;
  const what = index.columns.map((column) => `${t.model.name}.${column}`).join(', ');
  const values = shared.map(([value, rows]) => `${JSON.stringify(value)} (${rows} records)`).join(', ');
  return `${what} must be unique, but records share values: ${values}: change those records so each value is held once, then migrate again`;
}

/** The recorded indexes that cover `column` (they go when it does). */
export function recordedIndexesOn(t: TableContext, column: string): IndexDesign[] {
  return t.recordedIndexes.filter((index) => index.columns.includes(column));
}

/** A designed column the database has, compared with its recorded design. */
export interface ColumnChange {
  /** `lead.probability`. */
  readonly path: string;
  readonly column: ColumnMeta;
  readonly recorded: ColumnMeta;
  readonly field: FieldMeta | undefined;
  readonly recordedField: FieldSnapshot | undefined;
  readonly typeChanged: boolean;
  /** `from number to text`, `from a ref to party to a ref to invoice`; absent when the kind stayed. */
  readonly kindChange: string | undefined;
  /** The column type or the field kind changed. */
  readonly kindChanged: boolean;
  /** Options the recorded select (or multiselect) had and the designed one lacks (only when the kind stayed). */
  readonly removedOptions: readonly string[];
  readonly requiredChanged: boolean;
}

/** How `column` differs from its recorded design; undefined when none is recorded, and for `id`. */
export function columnChange(t: TableContext, column: ColumnMeta): ColumnChange | undefined {
  const recorded = t.recordedColumns.get(column.name);
  if (!recorded || column.name === 'id') return undefined;
  const field = t.model.fields.find((candidate) => candidate.name === column.name);
  const recordedField = t.recorded?.fields[column.name];
  const kindChange = field && recordedField ? describeKindChange(recordedField, field) : undefined;
  const typeChanged = recorded.type !== column.type;
  const kindChanged = typeChanged || kindChange !== undefined;
  const removedOptions =
    !kindChanged && (field?.kind === 'select' || field?.kind === 'multiselect') && recordedField?.options && field.options
      ? recordedField.options.filter((option) => !field.options!.includes(option))
      : [];
  return {
    path: fieldPath(t, column.name),
    column,
    recorded,
    field,
    recordedField,
    typeChanged,
    kindChange,
    kindChanged,
    removedOptions,
    requiredChanged: column.notNull !== recorded.notNull,
  };
}

/**
 * A change that gives stored values another meaning: of kind, of a ref's target, of a decimal's
 * scale (values are stored scaled: 1.234 at scale 3 is 1234, which reads 123.4 at scale 1), of a
 * money field's currency (minor units of another currency). Snapshots from before scale and
 * currency were recorded say nothing of them.
 */
function describeKindChange(before: FieldSnapshot, after: { kind: FieldKind; target?: string; scale?: number; currency?: string }): string | undefined {
  if (before.kind !== after.kind) return `from ${before.kind} to ${after.kind}`;
  if (before.kind === 'ref' && before.target !== after.target) return `from a ref to ${before.target} to a ref to ${after.target}`;
  if (before.kind === 'decimal' && before.scale !== undefined && after.scale !== undefined && before.scale !== after.scale) {
    return `from a decimal of scale ${before.scale} to a decimal of scale ${after.scale}`;
  }
  if (before.kind === 'money' && before.currency !== undefined && after.currency !== undefined && before.currency !== after.currency) {
    return `from money in ${before.currency} to money in ${after.currency}`;
  }
  return undefined;
}

export function fieldPath(t: TableContext, column: string): string {
  return `${t.model.name}.${column}`;
}

export function requiredWithoutDefault(column: ColumnMeta): boolean {
  return column.notNull && column.default === undefined;
}

/** Rows already in the table would have no value for a new required column without a default. */
export function newRequiredColumnProblem(t: TableContext, column: ColumnMeta): string | undefined {
  const rows = t.data.rows();
  if (rows === 0) return undefined;
  const field = t.model.fields.find((candidate) => candidate.name === column.name);
  // A module's default (a value, `today`, `now`) is a write's, given to records created from now on, not to rows already there.
  const why = field?.default !== undefined ? "its default is given to records created from now on, not to rows already there" : 'the field has no default';
  return `${fieldPath(t, column.name)} is new and required, but ${t.name} has ${rows} row(s) and ${why}: add it as optional, fill it in, then make it required`;
}

/** Whether the `filled` values of a column whose kind changed stay valid under the new kind; the problem when they do not. */
export function changedKindProblem(t: TableContext, change: ColumnChange, filled: number): string | undefined {
  const { recordedField: before, field: after } = change;
  const described = before && after ? change.kindChange : `from column type ${change.recorded.type} to ${change.column.type}`;
  const refused = `${change.path} changed kind ${described}, but ${filled} row(s) hold a value in it: keep the kind, or add a new field, copy the values over, and remove this one when it is empty`;
  if (change.typeChanged || !before || !after) return refused;
  switch (valueCompatibility(before, after)) {
    case 'kept':
      return undefined;
    case 'kept-if-options': {
      const outside = t.data.valuesOutside(change.column.name, after.options ?? []);
      if (outside.length === 0) return undefined;
      const values = outside.map(([value, rows]) => `${value} (${rows} row(s))`);
      return `${change.path} became a select, but some records hold other values: ${values.join(', ')}: make them options, or change those records first`;
    }
    case 'lost':
      return refused;
  }
}

/** What one table contributes to the plan. */
export interface TablePlan {
  readonly steps: readonly MigrationStep[];
  readonly problems: readonly string[];
  readonly leftInPlace: readonly string[];
  /** The snapshot to record for the table once the steps are applied. */
  readonly snapshot: TableSnapshot;
}

/**
 * A mode's decisions for one table. The planner calls the column methods in reporting order
 * (designed columns as designed, then the database's other columns), then `finish`. Any of them
 * may stop at a fact not yet inspected (see StoredData); the table is then planned again.
 */
export interface TablePlanner {
  /** A designed column the table lacks. */
  newColumn(column: ColumnMeta): void;
  /** A designed column the table has; `change` compares it with its recorded design, if any. */
  keptColumn(column: ColumnMeta, change: ColumnChange | undefined): void;
  /** A column the table has and the design lacks. */
  removedColumn(name: string): void;
  finish(): TablePlan;
}

/** A table recorded for a model the design no longer has, still in the database. */
export interface RemovedTable {
  readonly table: string;
  readonly snapshot: TableSnapshot;
  readonly data: StoredData;
}

/** The parts of the plan a removed table adds to. */
export interface PlanParts {
  readonly steps: MigrationStep[];
  readonly problems: string[];
  readonly leftInPlace: string[];
  readonly forgotten: string[];
}

/** How a migration mode treats each difference between the design and the database. */
export interface ModePolicy {
  removedTable(removed: RemovedTable, plan: PlanParts): void;
  tablePlanner(t: TableContext): TablePlanner;
}

/** The steps, problems and things left in place a policy gathers for one table. */
export abstract class TableDraft {
  protected readonly steps: MigrationStep[] = [];
  protected readonly problems: string[] = [];
  /** What is left for `rmsgen migrate`, e.g. `column lead.foo (not in this version's definitions)`. */
  protected readonly left: string[] = [];

  constructor(protected readonly t: TableContext) {}

  protected refuse(problem: string): void {
    this.problems.push(problem);
  }

  protected leave(item: string): void {
    this.left.push(item);
  }

  protected plan(steps: readonly MigrationStep[], snapshot: TableSnapshot, problems: readonly string[] = []): TablePlan {
    return { steps, problems, leftInPlace: this.left.map(leftLine), snapshot };
  }

  /** The table made again as designed (it is empty). */
  protected recreated(): MigrationStep {
    return { kind: 'create-table', model: this.t.model, indexes: this.t.designedIndexes, recreate: true };
  }
}

/** The line `serve` logs for something the additive plan leaves to `rmsgen migrate`. */
export function leftLine(item: string): string {
  return `left in place for rmsgen migrate: ${item}`;
}
