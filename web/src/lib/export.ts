/**
 * A whole list as CSV: every page of the current filter and order, fetched a thousand rows at a
 * time (the server takes up to 5,000; smaller pages keep each answer quick and let the progress
 * move), then written with `csvFile`.
 */
import { can } from './meta.ts';
import { run, search } from './api.ts';
import { csvFile } from './csv.ts';
import { exportFields, exportHeader, exportRow, linesHeader, linesRows } from './records-csv.ts';
import type { FilterCondition, LineListInfo, ModelInfo, OrderKey, RecordValue } from './types.ts';

export const EXPORT_PAGE_SIZE = 1000;

export interface ExportPage {
  readonly rows: readonly RecordValue[];
  /** How many rows match in all, when the answer says (`search`); null when it does not (`list`). */
  readonly total: number | null;
}

/**
 * Every row, page by page, until a page comes back short. Rows are keyed by id: a record created
 * meanwhile that shifts the pages by one is not written twice.
 */
export async function fetchAllRows(
  fetchPage: (offset: number, limit: number) => Promise<ExportPage>,
  onProgress: (done: number, total: number | null) => void = () => {},
  pageSize = EXPORT_PAGE_SIZE,
): Promise<RecordValue[]> {
  const rows = new Map<string, RecordValue>();
  for (let offset = 0; ; offset += pageSize) {
    const page = await fetchPage(offset, pageSize);
    for (const row of page.rows) rows.set(row.id, row);
    onProgress(rows.size, page.total);
    if (page.rows.length < pageSize || (page.total !== null && offset + pageSize >= page.total)) break;
  }
  return [...rows.values()];
}

/**
 * One page of a model's records by `search` (with the total) or, for people who may only `list`, by
 * `list`; with their lines when the model has line lists.
 */
export function modelPages(model: ModelInfo, filter: readonly FilterCondition[], order: readonly OrderKey[]): (offset: number, limit: number) => Promise<ExportPage> {
  const include = model.lines.map((list) => list.name);
  if (can(model, 'search')) return (offset, limit) => search(model.name, { filter, order, offset, limit, include });
  return async (offset, limit) => {
    const body: Record<string, unknown> = { offset, limit };
    if (filter.length) body.filter = filter;
    if (order.length) body.order = order;
    if (include.length) body.include = include;
    return { rows: await run<RecordValue[]>(model.name, 'list', body), total: null };
  };
}

/** The rows as a CSV file: an ID column, then every field the person reads in clear. */
export function recordsCsv(model: ModelInfo, rows: readonly RecordValue[]): Blob {
  const fields = exportFields(model);
  return csvFile([exportHeader(fields), ...rows.map((row) => exportRow(fields, row))]);
}

/** A line list's file: one row per line of the rows, its record's id and title first. */
export function linesCsv(model: ModelInfo, list: LineListInfo, rows: readonly RecordValue[]): Blob {
  return csvFile([linesHeader(model, list), ...linesRows(model, list, rows)]);
}

/** Hands a file to the browser's downloads. */
export function download(file: Blob, name: string): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by now; a moment later it can go.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** `leads-2025-03-31.csv` */
export function exportFileName(plural: string, suffix = ''): string {
  const date = new Date().toISOString().slice(0, 10);
  return `${plural.toLowerCase().replace(/[^a-z0-9]+/g, '-')}${suffix}-${date}.csv`;
}
