/**
 * What an erasure (`<model>.erase`, GDPR article 17) leaves where a personal value was: in the
 * record, empty, or for a required field (whose column cannot be empty) the kind's erased value;
 * elsewhere the marker `{"erased": true}`, in history entries (a field's `{from, to}` becomes the
 * marker; a line's field holds it), audit inputs and plans. And the values an erasure forgets,
 * with the one rule by which stored JSON is searched for them and rewritten. Imports only the
 * API's shapes: every store uses it.
 */
import type { FieldKind } from './api-shapes.ts';

/**
 * What a required personal field (a column that cannot be empty) holds once erased: a value no one
 * would take for a person's. Kinds without one (a select's options, a multiselect's, a ref's
 * target are all real values) may not be both required and personal: the generator refuses them.
 */
export const ERASED_VALUES: Readonly<Record<FieldKind, string | number | boolean | undefined>> = {
  text: '[erased]',
  longtext: '[erased]',
  email: '[erased]',
  url: '[erased]',
  phone: '[erased]',
  number: 0,
  money: 0,
  decimal: 0,
  date: '0001-01-01',
  datetime: '0001-01-01T00:00:00.000Z',
  bool: false,
  select: undefined,
  multiselect: undefined,
  ref: undefined,
  // Emptied (null): no file stands for an erased one.
  file: undefined,
};

/** What a personal field holds once erased: empty, or a required field's erased value. */
export function erasedValueOf(field: { readonly kind: FieldKind; readonly required: boolean; readonly name: string }): string | number | boolean | null {
  if (!field.required) return null;
  const value = ERASED_VALUES[field.kind];
  if (value === undefined) throw new Error(`bug: required personal field ${field.name} of kind ${field.kind} passed the generator, which has no erased value for it`);
  return value;
}

/** What stands where an erased personal value was. */
export interface ErasedMarker {
  readonly erased: true;
}

export const ERASED: ErasedMarker = Object.freeze({ erased: true });

/** Whether a stored value is the erased marker. */
export function isErased(value: unknown): value is ErasedMarker {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { erased?: unknown }).erased === true && Object.keys(value).length === 1;
}

/**
 * The personal values of one record that an erasure forgets: what its personal fields (and its
 * lines') hold now, held before (its history), and were sent for it (audit inputs, plans). Kept as
 * their text (a value of another kind as its JSON, as masking keys values).
 */
export class ErasedValues {
  private readonly texts = new Set<string>();

  /** `ignored`: the texts of the erased values the record's required fields take (an earlier erasure's, never a person's). */
  constructor(private readonly ignored: ReadonlySet<string> = new Set()) {}

  /** Adds a value (nothing for an empty one, a marker or an erased value). */
  add(value: unknown): void {
    if (value === null || value === undefined || isErased(value)) return;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (!this.ignored.has(text)) this.texts.add(text);
  }

  get size(): number {
    return this.texts.size;
  }

  /** Their texts (masking stores a value as this text). */
  all(): string[] {
    return [...this.texts];
  }

  /**
   * What a JSON column holding one of them as a whole value contains: the value as JSON (a string
   * with its quotes), for a search that meets whole values only, never part of a longer text.
   */
  needles(): string[] {
    return [...this.texts].map((text) => (text.startsWith('[') ? text : JSON.stringify(text)));
  }

  /** Whether this value (a string, or a list as a multiselect holds it) is one of them. */
  has(value: unknown): boolean {
    if (typeof value === 'string') return this.texts.has(value);
    return Array.isArray(value) && value.length > 0 && this.texts.has(JSON.stringify(value));
  }

  /**
   * `value` with every one of them it holds (as a whole string or list, at any depth; object keys
   * stay) replaced by the marker; `changed` says whether anything was.
   */
  redact(value: unknown): { value: unknown; changed: boolean } {
    if (this.has(value)) return { value: ERASED, changed: true };
    if (Array.isArray(value)) {
      let changed = false;
      const items = value.map((item) => {
        const redacted = this.redact(item);
        changed ||= redacted.changed;
        return redacted.value;
      });
      return changed ? { value: items, changed } : { value, changed };
    }
    if (typeof value === 'object' && value !== null) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const redacted = this.redact(item);
        changed ||= redacted.changed;
        out[key] = redacted.value;
      }
      return changed ? { value: out, changed } : { value, changed };
    }
    return { value, changed: false };
  }

  /** A free text (an error message) with each of them it contains replaced by `[erased]`. */
  redactText(text: string): string {
    let out = text;
    for (const value of this.texts) if (value.length > 0) out = out.split(value).join('[erased]');
    return out;
  }
}

/**
 * Which keys of a record-shaped object (a record, an input, a plan's result) hold personal values:
 * its personal fields, and per line list the personal fields of its lines.
 */
export interface PersonalKeys {
  readonly fields: ReadonlySet<string>;
  readonly lines: Readonly<Record<string, ReadonlySet<string>>>;
}

/** Visits each personal value a record-shaped object holds under `keys` (its own, and its lines'). */
export function personalValuesOf(object: unknown, keys: PersonalKeys, visit: (value: unknown) => void): void {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return;
  for (const [key, value] of Object.entries(object)) {
    if (keys.fields.has(key)) visit(value);
    const lineKeys = keys.lines[key];
    if (lineKeys && Array.isArray(value)) for (const line of value) personalValuesOf(line, { fields: lineKeys, lines: {} }, visit);
  }
}

/** The object with each personal value it holds under `keys` replaced by the marker (empty values stay empty). */
export function withPersonalErased(object: unknown, keys: PersonalKeys): { value: unknown; changed: boolean } {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return { value: object, changed: false };
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const lineKeys = keys.lines[key];
    if (keys.fields.has(key) && value !== null && value !== undefined && !isErased(value)) {
      out[key] = ERASED;
      changed = true;
    } else if (lineKeys && Array.isArray(value)) {
      out[key] = value.map((line) => {
        const erased = withPersonalErased(line, { fields: lineKeys, lines: {} });
        changed ||= erased.changed;
        return erased.value;
      });
    } else out[key] = value;
  }
  return { value: changed ? out : object, changed };
}
