/**
 * Records to CSV and back, by field kind. Export writes values that import reads again: money in
 * major units without grouping (`1234.50`), dates `YYYY-MM-DD`, yes/no as `true`/`false`, options
 * and refs by their stored value (an id for refs). Import also takes what people type in a
 * spreadsheet: `1,234.50`, `yes`/`no`/`1`/`0`, option labels in any case.
 */
import { moneyInputText, optionLabel, parseInteger, parseMoney } from './format.ts';
import type { FieldInfo, ModelInfo, RecordValue } from './types.ts';

/**
 * Spreadsheet apps run a cell that starts with one of these as a formula ("CSV injection"), so an
 * exported text that starts with one gets an apostrophe in front, which they show as text; import
 * takes the apostrophe off again.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** The columns an export writes besides the record's id: every field the person reads, in the model's order. */
export function exportFields(model: ModelInfo): readonly FieldInfo[] {
  return model.fields;
}

/** The header of a field's column: its label, with the currency of a money field (`Amount (EUR)`). */
export function columnHeader(field: FieldInfo): string {
  return field.kind === 'money' && field.currency ? `${field.label} (${field.currency})` : field.label;
}

export function exportHeader(fields: readonly FieldInfo[]): string[] {
  return ['ID', ...fields.map(columnHeader)];
}

export function exportCell(field: FieldInfo, value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (field.kind) {
    case 'money':
      return typeof value === 'number' ? moneyInputText(value) : String(value);
    case 'bool':
      return value === true ? 'true' : value === false ? 'false' : String(value);
    case 'text':
    case 'longtext': {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return FORMULA_START.test(text) ? `'${text}` : text;
    }
    default:
      return typeof value === 'string' ? value : String(value);
  }
}

export function exportRow(fields: readonly FieldInfo[], record: RecordValue): string[] {
  return [record.id, ...fields.map((field) => exportCell(field, record[field.name]))];
}

/** The fields an import can fill: what `create` takes (governed selects start at their first option). */
export function importFields(model: ModelInfo): FieldInfo[] {
  return model.fields.filter((field) => !field.governed);
}

/** `Expected revenue`, `expected_revenue`, `EXPECTED-REVENUE` and `expected revenue (EUR)` are one name. */
function normalName(text: string): string {
  return text.trim().toLowerCase().replace(/[\s_-]+/g, ' ');
}

/**
 * The field each column goes to by default: a header that matches a field's name or label (case
 * and spacing aside) maps to it; each field takes the first column that matches it; the rest map
 * to nothing (null).
 */
export function defaultMapping(headers: readonly string[], fields: readonly FieldInfo[]): (string | null)[] {
  const taken = new Set<string>();
  return headers.map((header) => {
    const name = normalName(header);
    const field = fields.find((candidate) => !taken.has(candidate.name) && [candidate.name, candidate.label, columnHeader(candidate)].some((known) => normalName(known) === name));
    if (!field) return null;
    taken.add(field.name);
    return field.name;
  });
}

export type CellValue = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

const TRUE_WORDS = new Set(['true', 'yes', '1', 'y']);
const FALSE_WORDS = new Set(['false', 'no', '0', 'n']);

/** A cell as the JSON value `create` takes; `undefined` for an empty cell (the field is left out). */
export function importCell(field: FieldInfo, cell: string): CellValue {
  const text = cell.trim();
  if (text === '') return { ok: true, value: undefined };
  const quoted = `“${text.length > 40 ? `${text.slice(0, 40)}…` : text}”`;
  switch (field.kind) {
    case 'money': {
      // A currency sign or the field's own code around the amount is fine (`€1,200.00`, `1200 EUR`).
      const code = field.currency ? `|\\b${field.currency.replace(/[^A-Za-z]/g, '')}\\b` : '';
      const symbols = new RegExp(`[$€£¥₹]${code}`, 'gi');
      const value = parseMoney(text.replace(symbols, ''));
      return value === undefined || value === null ? { ok: false, error: `${field.label}: ${quoted} is not an amount like 1,234.50` } : { ok: true, value };
    }
    case 'number': {
      const value = parseInteger(text);
      return value === undefined || value === null ? { ok: false, error: `${field.label}: ${quoted} is not a whole number` } : { ok: true, value };
    }
    case 'bool': {
      const word = text.toLowerCase();
      if (TRUE_WORDS.has(word)) return { ok: true, value: true };
      if (FALSE_WORDS.has(word)) return { ok: true, value: false };
      return { ok: false, error: `${field.label}: ${quoted} is not yes or no (true/false, yes/no, 1/0)` };
    }
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text) ? { ok: true, value: text } : { ok: false, error: `${field.label}: ${quoted} is not a date like 2025-03-31` };
    case 'select': {
      const options = field.options ?? [];
      const option = options.find((candidate) => candidate === text) ?? options.find((candidate) => candidate.toLowerCase() === text.toLowerCase() || optionLabel(candidate).toLowerCase() === text.toLowerCase());
      return option === undefined ? { ok: false, error: `${field.label}: ${quoted} is not one of ${options.map(optionLabel).join(', ')}` } : { ok: true, value: option };
    }
    case 'ref':
      return { ok: true, value: text };
    case 'text':
      return { ok: true, value: text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text };
    default:
      // Long text keeps its line breaks and spacing; only the spreadsheet's apostrophe goes.
      return { ok: true, value: cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell };
  }
}

/** One CSV record as the input of `create`, or the problems that keep it from being sent. */
export function importInput(cells: readonly string[], mapping: readonly (string | null)[], fields: readonly FieldInfo[]): { input: Record<string, unknown>; errors: string[] } {
  const input: Record<string, unknown> = {};
  const errors: string[] = [];
  mapping.forEach((name, column) => {
    const field = name === null ? undefined : fields.find((candidate) => candidate.name === name);
    if (!field) return;
    const parsed = importCell(field, cells[column] ?? '');
    if (!parsed.ok) errors.push(parsed.error);
    else if (parsed.value !== undefined) input[field.name] = parsed.value;
  });
  return { input, errors };
}
