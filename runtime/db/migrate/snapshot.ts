/**
 * What a migration records of each model table it applied, in `rms_schema` (one JSON row per
 * table). SQLite cannot tell a `text` column holding a select from one holding free text, so kind
 * changes are found by comparing snapshots, not column types. Rows written by older releases must
 * stay readable: extend this format only with optional fields.
 */
import type { FieldKind, ModelMeta, TableMeta } from '../../registry.ts';

export const SCHEMA_TABLE = 'rms_schema';

export interface FieldSnapshot {
  readonly kind: FieldKind;
  readonly options?: readonly string[];
  readonly target?: string;
  /** A decimal's digits after the point: its values are stored scaled by them (absent in older rows). */
  readonly scale?: number;
  /** A money field's currency: its values are minor units of it (absent in older rows). */
  readonly currency?: string;
}

export interface TableSnapshot {
  readonly version: 1;
  readonly model: string;
  readonly table: TableMeta;
  readonly fields: Readonly<Record<string, FieldSnapshot>>;
}

export function snapshotOf(model: ModelMeta): TableSnapshot {
  const fields: Record<string, FieldSnapshot> = {};
  for (const field of model.fields) {
    fields[field.name] = {
      kind: field.kind,
      ...(field.options ? { options: [...field.options] } : {}),
      ...(field.target ? { target: field.target } : {}),
      ...(field.kind === 'decimal' && field.scale !== undefined ? { scale: field.scale } : {}),
      ...(field.kind === 'money' && field.currency !== undefined ? { currency: field.currency } : {}),
    };
  }
  return { version: 1, model: model.name, table: model.table, fields };
}
