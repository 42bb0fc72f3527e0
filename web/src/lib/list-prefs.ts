/**
 * Which columns a list shows and how it is sorted, remembered per person and model in
 * localStorage (the session itself lives in sessionStorage and ends with the tab; these outlast
 * it). Stored names are checked against the fields the person reads now, so a field that was
 * removed or withheld since simply drops out.
 */
import { fieldOf, titleFieldOf } from './meta.ts';
import { ordersBy, type FieldInfo, type FieldKind, type ModelInfo, type OrderKey } from './types.ts';

export interface ListPrefs {
  /** Field names shown besides the title (shown in `columnOrder`); absent: the default columns. */
  readonly columns?: readonly string[];
  /** The sort chosen last (`field` or `-field`); null: the default order; absent: never chosen. */
  readonly sort?: string | null;
}

/** At most this many default columns besides the title: five columns fit a laptop's list without wrapping titles. */
export const DEFAULT_COLUMN_COUNT = 4;

function storageKey(username: string, model: string): string {
  return `rms.list.${encodeURIComponent(username)}.${encodeURIComponent(model)}`;
}

export function readListPrefs(username: string, model: string): ListPrefs {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(storageKey(username, model)) ?? '{}');
    if (typeof parsed !== 'object' || parsed === null) return {};
    const { columns, sort } = parsed as Record<string, unknown>;
    return {
      ...(Array.isArray(columns) && columns.every((name) => typeof name === 'string') ? { columns: columns as string[] } : {}),
      ...(typeof sort === 'string' || sort === null ? { sort } : {}),
    };
  } catch {
    return {};
  }
}

export function writeListPrefs(username: string, model: string, change: ListPrefs): void {
  try {
    const next: Record<string, unknown> = { ...readListPrefs(username, model), ...change };
    if (change.columns === undefined && 'columns' in change) delete next.columns;
    localStorage.setItem(storageKey(username, model), JSON.stringify(next));
  } catch {
    // storage full or disabled: the choice lasts until the page is left
  }
}

/**
 * The order kinds are picked in when a model has no `list` hint: where a record stands (a governed
 * select), what it is worth, when, and with whom first; long text and URLs never (they do not fit
 * a cell).
 */
const KIND_PRIORITY: readonly FieldKind[] = ['select', 'money', 'date', 'datetime', 'ref', 'number', 'decimal', 'multiselect', 'bool', 'text', 'email', 'phone'];

function priorityOf(field: FieldInfo): number {
  if (field.kind === 'select' && field.governed) return 0;
  const index = KIND_PRIORITY.indexOf(field.kind);
  return index < 0 ? Number.POSITIVE_INFINITY : index + 1;
}

/**
 * The order a list's columns come in: the fields of the module's `list` hint as the hint writes
 * them, then the other fields in the model's order. The title is not among them (it always comes
 * first).
 */
export function columnOrder(model: ModelInfo): FieldInfo[] {
  const title = titleFieldOf(model);
  const hinted = (model.list ?? []).map((name) => fieldOf(model, name)).filter((field): field is FieldInfo => field !== undefined && field !== title);
  return [...hinted, ...model.fields.filter((field) => field !== title && !hinted.includes(field))];
}

/**
 * The columns besides the title a list shows by default: the module's `list` hint when it has one,
 * in its order; else up to `DEFAULT_COLUMN_COUNT` fields picked one kind at a time in
 * `KIND_PRIORITY` (so a lead shows its stage, revenue, close date and party rather than two
 * dates), required fields first within a kind, shown in the model's field order.
 */
export function defaultColumns(model: ModelInfo): string[] {
  if (model.list) return columnOrder(model).filter((field) => model.list!.includes(field.name)).map((field) => field.name);
  const candidates = columnOrder(model);
  const byKind = new Map<number, FieldInfo[]>();
  for (const field of candidates) {
    const priority = priorityOf(field);
    if (!Number.isFinite(priority)) continue;
    const group = byKind.get(priority) ?? [];
    group.push(field);
    byKind.set(priority, group);
  }
  const groups = [...byKind.entries()].sort(([a], [b]) => a - b).map(([, fields]) => [...fields.filter((field) => field.required), ...fields.filter((field) => !field.required)]);
  const chosen = new Set<string>();
  for (let round = 0; chosen.size < DEFAULT_COLUMN_COUNT && groups.some((group) => group.length > round); round += 1) {
    for (const group of groups) {
      const field = group[round];
      if (field && chosen.size < DEFAULT_COLUMN_COUNT) chosen.add(field.name);
    }
  }
  return candidates.filter((field) => chosen.has(field.name)).map((field) => field.name);
}

/** The list's columns: the title first, then the chosen (or default) fields in `columnOrder`. */
export function listColumns(model: ModelInfo, chosen: readonly string[] | undefined): FieldInfo[] {
  const title = titleFieldOf(model);
  const names = new Set(chosen ?? defaultColumns(model));
  const rest = columnOrder(model).filter((field) => names.has(field.name));
  return title ? [title, ...rest] : rest.length > 0 ? rest : [...model.fields];
}

/** `-close_date` → close_date descending; null for a field the person cannot sort by. */
export function parseSort(text: string | null | undefined, fields: readonly FieldInfo[]): OrderKey | null {
  if (!text) return null;
  const dir = text.startsWith('-') ? 'desc' : 'asc';
  const name = text.replace(/^-/, '');
  // A field records do not order by (a shared link or a remembered sort from before) sorts nothing.
  return fields.some((field) => field.name === name && ordersBy(field.kind)) ? { field: name, dir } : null;
}

export function sortText(sort: OrderKey | null): string | null {
  return sort ? `${sort.dir === 'desc' ? '-' : ''}${sort.field}` : null;
}
