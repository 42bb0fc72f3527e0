/**
 * The plan: what the planner hands to apply. Steps say what to change, never how; apply turns
 * them into DDL for the dialect.
 */
import type { ColumnMeta, ModelMeta } from '../../registry.ts';
import type { IndexDesign } from './index-design.ts';
import type { TableSnapshot } from './snapshot.ts';

export type MigrationStep =
  /** Creates the model's table with its indexes; `recreate` drops the (empty) table first. */
  | { readonly kind: 'create-table'; readonly model: ModelMeta; readonly indexes: readonly IndexDesign[]; readonly recreate: boolean }
  | { readonly kind: 'add-column'; readonly model: ModelMeta; readonly column: ColumnMeta }
  /** Drops an empty column, and first the indexes that cover it. */
  | { readonly kind: 'drop-column'; readonly table: string; readonly column: string; readonly indexes: readonly IndexDesign[] }
  /** Drops an empty column (and the indexes that cover it) and adds it again as designed. */
  | { readonly kind: 'replace-column'; readonly model: ModelMeta; readonly column: ColumnMeta; readonly indexes: readonly IndexDesign[] }
  | { readonly kind: 'alter-not-null'; readonly table: string; readonly column: string; readonly notNull: boolean }
  /** Makes the table again as designed, copying the `keep` columns of every row (SQLite's way to change constraints). */
  | { readonly kind: 'rebuild-table'; readonly model: ModelMeta; readonly keep: readonly string[]; readonly indexes: readonly IndexDesign[] }
  | { readonly kind: 'add-index'; readonly index: IndexDesign }
  | { readonly kind: 'drop-index'; readonly index: IndexDesign }
  | { readonly kind: 'drop-table'; readonly table: string };

/**
 * `full` (`rmsgen migrate`): every change the definitions ask for that loses no data.
 * `additive` (`serve` on start): only missing tables, columns and indexes; see additive-policy.ts.
 */
export type MigrationMode = 'full' | 'additive';

export interface MigrationPlan {
  readonly steps: readonly MigrationStep[];
  /** Refused changes; when any, nothing is applied. */
  readonly problems: readonly string[];
  /** Additive mode: what the full plan would change and this one leaves alone, one line each. */
  readonly leftInPlace: readonly string[];
  /** Snapshots to record once applied. */
  readonly snapshots: readonly TableSnapshot[];
  /** Tables whose snapshot is dropped (model removed). */
  readonly forgotten: readonly string[];
}
