/** What the runtime's builder of a field's kind is told, for a field as read (before its IR exists). */
import { patternRegExp } from '../../runtime/kinds.ts';
import type { ValueArguments } from '../../runtime/value-schemas.ts';
import type { FieldDraft } from './drafts.ts';
import type { FieldShape } from './shapes.ts';

/** The builder arguments of a field definition: its options, target, scale, bounds (as read) and text checks (a pattern only once it compiles). */
export function shapeArguments(def: FieldShape, bounds?: FieldDraft['bounds']): ValueArguments {
  return {
    options: 'options' in def ? def.options : undefined,
    target: 'to' in def ? def.to : undefined,
    scale: 'scale' in def ? def.scale : undefined,
    multiple: 'multiple' in def ? def.multiple : undefined,
    length: 'length' in def ? def.length : undefined,
    pattern: 'pattern' in def && def.pattern !== undefined && compiles(def.pattern) ? def.pattern : undefined,
    min: bounds?.min,
    max: bounds?.max,
  };
}

export function fieldArguments(field: FieldDraft): ValueArguments {
  return shapeArguments(field, field.bounds);
}

/** Whether a pattern compiles as the runtime compiles it (anchored, Unicode). */
export function compiles(pattern: string): boolean {
  try {
    patternRegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
