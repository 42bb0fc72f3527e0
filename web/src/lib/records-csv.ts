/**
 * Records to CSV and back, by field kind. Export writes values that import reads again: money in
 * major units without grouping, with the currency's decimals and a point before them (`1234.50`),
 * decimals the same way (`2.5`), dates `YYYY-MM-DD`, datetimes as the UTC instant
 * (`2026-11-26T14:30:00.000Z`), yes/no as `true`/`false`, options and refs by their stored value
 * (an id for refs), a multiselect's options comma-separated in their declared order. Import also
 * takes what people type in a spreadsheet: `1,234.50`, `yes`/`no`/`1`/`0`, option labels in any
 * case, and a ref by its target's title (see `resolveRef`).
 *
 * A model's line lists export to files of their own, one row per line: its record's id and title
 * first (`linesHeader`). Import creates records without lines (lib/records-csv.ts does not read
 * line files); a model whose lines are required cannot be imported (`importBlocker`).
 */
import { isEditable } from './form.ts';
import { minorDigits, moneyInputText, inDeclaredOrder, optionLabel, parseAmount, parseDecimal, parseInteger, plainNumber } from './format.ts';
import { recordTitle, titleFieldOf } from './meta.ts';
import type { FieldInfo, LineListInfo, ModelInfo, RecordValue } from './types.ts';

/**
 * Amounts in a CSV file are read as the export writes them, whatever the app's locale: a point
 * before the decimals, commas (or spaces) grouping thousands (`parseAmount` in en-US).
 */
const CSV_LOCALE = 'en-US';

/** What spreadsheets skip before a cell's first character, or fold into a look-alike (full-width `＝` is `=`). */
function spreadsheetStart(text: string): string {
  return text.normalize('NFKC').replace(/^[\s\p{Cc}\p{Cf}]+/u, '');
}

/** A text a spreadsheet may read as a formula: after what it skips (`spreadsheetStart`), it starts with `=`, `+`, `-` or `@`; or it starts with a tab or carriage return. */
function startsLikeFormula(text: string): boolean {
  return /^[\t\r]/.test(text) || /^[=+\-@]/.test(spreadsheetStart(text));
}

/** A signed number or a phone number (`-12.50`, `+44 20 7946 0958`, `+1 (555) 010-9999`): digits, spaces and `( ) . / -` only. */
const PLAIN_VALUE = /^[+-][\d\s().\/-]*\d[\d\s().\/-]*$/;

/**
 * Whether a spreadsheet would run `text` as a formula ("CSV injection") that could call a function
 * or reach another cell: it starts like a formula (`startsLikeFormula`, so ` =1+1`, `\u00a0=1+1`
 * and `＝1+1` too) and is not a plain signed number or phone number, which has no letters to name
 * a function or a cell with.
 */
export function isFormulaLike(text: string): boolean {
  if (/^[\t\r]/.test(text)) return true;
  const start = spreadsheetStart(text);
  if (/^[=@]/.test(start)) return true;
  return /^[+-]/.test(start) && !PLAIN_VALUE.test(start.trimEnd());
}

/**
 * An exported text that `isFormulaLike` gets an apostrophe in front, which spreadsheets show as
 * text; so does a text that starts with apostrophes followed by what import would take one off
 * (so that `'=x` comes back as `'=x`).
 */
export function defuseFormula(text: string): string {
  return isFormulaLike(text) || (text.startsWith("'") && startsLikeFormula(text.replace(/^'+/, ''))) ? `'${text}` : text;
}

/**
 * Import takes off the apostrophe export put in front (`defuseFormula`), and the one older exports
 * put before any `=`, `+`, `-` or `@`: one leading apostrophe, when what follows (past any further
 * apostrophes) starts like a formula.
 */
export function undoDefuse(text: string): string {
  return text.startsWith("'") && startsLikeFormula(text.slice(1).replace(/^'+/, '')) ? text.slice(1) : text;
}

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
      return typeof value === 'number' ? moneyInputText(value, field.currency, CSV_LOCALE) : String(value);
    case 'decimal':
      return typeof value === 'number' ? plainNumber(value) : String(value);
    case 'bool':
      return value === true ? 'true' : value === false ? 'false' : String(value);
    case 'multiselect':
      return Array.isArray(value) ? inDeclaredOrder(field, value.map(String)).join(', ') : String(value);
    case 'file':
      // Its files' ids, as an import takes them (a file as records answer it is {id, name, …}).
      return (Array.isArray(value) ? value : [value]).map(fileIdOf).join(', ');
    case 'text':
    case 'longtext':
    case 'email':
    case 'url':
    case 'phone':
      return defuseFormula(typeof value === 'string' ? value : JSON.stringify(value));
    default:
      return typeof value === 'string' ? value : String(value);
  }
}

function fileIdOf(file: unknown): string {
  return typeof file === 'object' && file !== null && typeof (file as { id?: unknown }).id === 'string' ? (file as { id: string }).id : String(file);
}

export function exportRow(fields: readonly FieldInfo[], record: RecordValue): string[] {
  return [record.id, ...fields.map((field) => exportCell(field, record[field.name]))];
}

/**
 * The header of a line list's file: the record's id and title (`Order ID`, `Number`), the line's
 * place in its list (`Line`, from 1), then every line field the person reads.
 */
export function linesHeader(model: ModelInfo, list: LineListInfo): string[] {
  return [`${model.label} ID`, titleFieldOf(model)?.label ?? model.label, 'Line', ...list.fields.map(columnHeader)];
}

/** A line list's rows: one per line of each record, in the records' order and each list's. */
export function linesRows(model: ModelInfo, list: LineListInfo, records: readonly RecordValue[]): string[][] {
  return records.flatMap((record) => {
    const lines = Array.isArray(record[list.name]) ? (record[list.name] as Record<string, unknown>[]) : [];
    return lines.map((line, index) => [record.id, recordTitle(model, record) === record.id ? '' : defuseFormula(recordTitle(model, record)), String(index + 1), ...list.fields.map((field) => exportCell(field, line[field.name]))]);
  });
}

/** The fields an import can fill: what `create` takes and the person writes (governed selects start at their first option; computed fields are worked out). */
export function importFields(model: ModelInfo): FieldInfo[] {
  return model.fields.filter(isEditable);
}

/**
 * Why the model's records cannot be imported from CSV, or undefined: an import creates records
 * without their lines, so a model that needs lines (`min` of a line list above 0) is refused.
 */
export function importBlocker(model: ModelInfo, plural: string): string | undefined {
  const needed = model.lines.find((list) => list.min > 0);
  if (!needed) return undefined;
  const noun = model.label.toLowerCase();
  return `${plural} cannot be imported from CSV: each ${noun} needs at least ${needed.min === 1 ? 'one' : needed.min} ${needed.min === 1 ? 'line' : 'lines'} of ${needed.label.toLowerCase()}, and an import creates ${plural.toLowerCase()} without their lines. Create them here with New ${noun}, or through the API, which takes the lines with the ${noun}.`;
}

/** `Expected revenue`, `expected_revenue`, `EXPECTED-REVENUE`, `E-mail` and `Email` are one name: letters and digits, any case. */
function normalName(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * The field each column goes to by default: a header that matches a field's name, label or
 * export header (`Amount (EUR)`), case, spaces and punctuation aside, maps to it; each field
 * takes the first column that matches it; the rest map to nothing (null).
 */
export function defaultMapping(headers: readonly string[], fields: readonly FieldInfo[]): (string | null)[] {
  const taken = new Set<string>();
  return headers.map((header) => {
    const name = normalName(header);
    const field = name === '' ? undefined : fields.find((candidate) => !taken.has(candidate.name) && [candidate.name, candidate.label, columnHeader(candidate)].some((known) => normalName(known) === name));
    if (!field) return null;
    taken.add(field.name);
    return field.name;
  });
}

/** The columns that go into no field, by their header (`(column 3)` for one without): the import page lists them all. */
export function unmatchedColumns(headers: readonly string[], mapping: readonly (string | null)[]): string[] {
  return headers.flatMap((header, column) => (mapping[column] ? [] : [header.trim() || `(column ${column + 1})`]));
}

export type CellValue = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

const TRUE_WORDS = new Set(['true', 'yes', '1', 'y']);
const FALSE_WORDS = new Set(['false', 'no', '0', 'n']);

/** “1,234.50” as a CSV amount of this currency would be written (`123,450` where it has no decimals). */
function exampleAmount(currency: string | undefined): string {
  const digits = minorDigits(currency);
  return new Intl.NumberFormat(CSV_LOCALE, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(digits === 0 ? 123450 : 1234.5);
}

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
      const amount = parseAmount(text.replace(symbols, ''), field.currency, CSV_LOCALE);
      if (amount.ok && amount.value !== null) return { ok: true, value: amount.value };
      if (!amount.ok && amount.problem === 'too-many-decimals') {
        const digits = minorDigits(field.currency);
        return { ok: false, error: `${field.label}: ${quoted} has ${digits === 0 ? 'decimals' : `more than ${digits} decimals`}${field.currency ? ` (${field.currency})` : ''}; nothing is rounded` };
      }
      return { ok: false, error: `${field.label}: ${quoted} is not an amount like ${exampleAmount(field.currency)}` };
    }
    case 'number': {
      const value = parseInteger(text);
      return value === undefined || value === null ? { ok: false, error: `${field.label}: ${quoted} is not a whole number` } : { ok: true, value };
    }
    case 'decimal': {
      const scale = field.scale ?? 2;
      const number = parseDecimal(text, scale, CSV_LOCALE);
      if (number.ok && number.value !== null) return { ok: true, value: number.value };
      if (!number.ok && number.problem === 'too-many-decimals') return { ok: false, error: `${field.label}: ${quoted} has more than ${scale} decimals; nothing is rounded` };
      return { ok: false, error: `${field.label}: ${quoted} is not a number like ${scale === 0 ? '1,234' : `1,234.${'5'.padEnd(scale, '0')}`}` };
    }
    case 'datetime':
      // The instant as the export writes it, or any ISO 8601 date and time with its offset: a time without one would mean a different instant per reader.
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text))
        ? { ok: true, value: text }
        : { ok: false, error: `${field.label}: ${quoted} is not a date and time with its offset, like 2025-03-31T14:30:00Z` };
    case 'multiselect': {
      const options = field.options ?? [];
      const chosen: string[] = [];
      for (const part of text.split(/[,;]/).map((item) => item.trim()).filter(Boolean)) {
        const option = options.find((candidate) => candidate === part) ?? options.find((candidate) => candidate.toLowerCase() === part.toLowerCase() || optionLabel(candidate).toLowerCase() === part.toLowerCase());
        if (option === undefined) return { ok: false, error: `${field.label}: “${part}” is not one of ${options.map(optionLabel).join(', ')}` };
        if (!chosen.includes(option)) chosen.push(option);
      }
      return { ok: true, value: chosen.length === 0 ? undefined : inDeclaredOrder(field, chosen) };
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
    case 'file': {
      // Ids of uploaded files, as the export writes them: several, with `multiple`, separated by commas.
      const ids = text.split(/[,;]/).map((item) => item.trim()).filter(Boolean);
      if (field.multiple) return { ok: true, value: ids };
      return ids.length === 1 ? { ok: true, value: ids[0] } : { ok: false, error: `${field.label}: ${quoted} names ${ids.length} files; the field holds one` };
    }
    case 'text':
    case 'email':
    case 'url':
    case 'phone':
      return { ok: true, value: undoDefuse(text) };
    default:
      // Long text keeps its line breaks and spacing; only the spreadsheet's apostrophe goes.
      return { ok: true, value: undoDefuse(cell) };
  }
}

/**
 * What the cells of a ref column name, looked up in the target model (lib/ref-lookup.ts): the
 * values that are ids of its records, and the ids of the records each other value is the title of.
 * Absent for a target the person cannot look up: its cells go to the server as ids.
 */
export interface RefLookup {
  readonly target: ModelInfo;
  readonly ids: ReadonlySet<string>;
  readonly byTitle: ReadonlyMap<string, readonly string[]>;
}

/**
 * A ref cell as the id it stands for: an id of a record of the target, else the title of exactly
 * one (a unit's code, a party's name, exactly as written); a title that several records share is
 * refused, naming how many, and so is a value that is neither.
 */
export function resolveRef(field: FieldInfo, value: string, lookup: RefLookup | undefined): CellValue {
  if (!lookup || lookup.ids.has(value)) return { ok: true, value };
  const quoted = `“${value.length > 40 ? `${value.slice(0, 40)}…` : value}”`;
  const target = lookup.target.label.toLowerCase();
  const ids = lookup.byTitle.get(value) ?? [];
  if (ids.length === 1) return { ok: true, value: ids[0] };
  const titleLabel = lookup.target.fields.find((candidate) => candidate.name === lookup.target.title_field)?.label.toLowerCase() ?? 'title';
  if (ids.length === 0) return { ok: false, error: `${field.label}: no ${target} has the id or ${titleLabel} ${quoted}` };
  return { ok: false, error: `${field.label}: ${quoted} is the ${titleLabel} of ${ids.length} ${target} records; use the id of the one you mean` };
}

/** One CSV record as the input of `create`, or the problems that keep it from being sent. Refs are resolved with `refs` (by field name). */
export function importInput(
  cells: readonly string[],
  mapping: readonly (string | null)[],
  fields: readonly FieldInfo[],
  refs: ReadonlyMap<string, RefLookup> = new Map(),
): { input: Record<string, unknown>; errors: string[] } {
  const input: Record<string, unknown> = {};
  const errors: string[] = [];
  mapping.forEach((name, column) => {
    const field = name === null ? undefined : fields.find((candidate) => candidate.name === name);
    if (!field) return;
    let parsed = importCell(field, cells[column] ?? '');
    if (parsed.ok && field.kind === 'ref' && typeof parsed.value === 'string') parsed = resolveRef(field, parsed.value, refs.get(field.name));
    if (!parsed.ok) errors.push(parsed.error);
    else if (parsed.value !== undefined) input[field.name] = parsed.value;
  });
  return { input, errors };
}
