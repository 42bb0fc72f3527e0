/**
 * The one rule for which stored values survive a change of field kind on the same column type.
 * Full migrations check it against the stored values before recording the new kind; `serve`
 * checks it to decide whether this version can work with the column as it is.
 */
import type { FieldKind } from '../../registry.ts';

/**
 * - `kept`: every value stored under the old kind is valid under the new one (text ↔ longtext, select → text);
 * - `kept-if-options`: valid when it is one of the new select's options (text → select);
 * - `lost`: the values mean something else or do not parse (number → text, ref to another model …).
 */
export type ValueCompatibility = 'kept' | 'kept-if-options' | 'lost';

/** How values stored under `before` read under `after`, for a field whose kind (or ref target) changed. */
export function valueCompatibility(before: { readonly kind: FieldKind }, after: { readonly kind: FieldKind }): ValueCompatibility {
  if (isText(after.kind)) return isText(before.kind) || before.kind === 'select' ? 'kept' : 'lost';
  if (after.kind === 'select' && isText(before.kind)) return 'kept-if-options';
  return 'lost';
}

function isText(kind: FieldKind): boolean {
  return kind === 'text' || kind === 'longtext';
}
