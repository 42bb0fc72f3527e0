/**
 * CSV as RFC 4180 writes it: fields separated by commas, records by CRLF, a field quoted when it
 * holds a quote, a separator or a line break (quotes doubled inside). Exports start with a UTF-8
 * byte order mark, which spreadsheet apps need to read the file as UTF-8 rather than their locale's
 * code page. The parser reads the same, plus what spreadsheets write in practice: LF or CR line
 * ends, a BOM, and semicolons as the separator (locales with a decimal comma).
 */

export const CSV_BOM = '\uFEFF';

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Records as CSV text, CRLF after each record (no BOM: see `csvFile`). */
export function toCsv(records: readonly (readonly string[])[]): string {
  return records.map((record) => `${record.map(csvField).join(',')}\r\n`).join('');
}

/** A CSV file's content for download: the BOM, then the records. */
export function csvFile(records: readonly (readonly string[])[]): Blob {
  return new Blob([CSV_BOM, toCsv(records)], { type: 'text/csv;charset=utf-8' });
}

export interface CsvRecord {
  /** The line of the file the record starts on, from 1 (a quoted field may span lines). */
  readonly line: number;
  readonly cells: readonly string[];
}

export type CsvParse = { readonly ok: true; readonly records: readonly CsvRecord[]; readonly separator: ',' | ';' } | { readonly ok: false; readonly error: string };

/** The separator of the first line (outside quotes): a semicolon only when it has more of those than commas. */
function separatorOf(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && char === ',') commas += 1;
    else if (!quoted && char === ';') semicolons += 1;
  }
  return semicolons > commas ? ';' : ',';
}

/**
 * Parses CSV text into records. Blank lines are skipped; a record with fewer cells than another
 * is kept as it is (the caller reads missing cells as empty). An unterminated quote is an error
 * naming the line it opened on.
 */
export function parseCsv(input: string): CsvParse {
  const text = input.startsWith(CSV_BOM) ? input.slice(1) : input;
  const separator = separatorOf(text);
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let recordLine = 1;
  let quoteLine = 0;
  let quoted = false;
  /** Whether the current cell was written as a quoted field (so `""` is an empty value, not nothing). */
  let wasQuoted = false;
  /** Whether the current record has a quoted field: a line of just `""` is a record, not a blank line. */
  let wasQuotedRecord = false;

  const endCell = () => {
    cells.push(cell);
    cell = '';
    wasQuoted = false;
  };
  const endRecord = () => {
    endCell();
    if (!(cells.length === 1 && cells[0] === '' && !wasQuotedRecord)) records.push({ line: recordLine, cells });
    cells = [];
    wasQuotedRecord = false;
  };

  for (let at = 0; at < text.length; at += 1) {
    const char = text[at]!;
    if (quoted) {
      if (char === '"') {
        if (text[at + 1] === '"') {
          cell += '"';
          at += 1;
        } else {
          quoted = false;
        }
      } else {
        if (char === '\n' || (char === '\r' && text[at + 1] !== '\n')) line += 1;
        cell += char;
      }
      continue;
    }
    if (char === '"' && cell === '' && !wasQuoted) {
      quoted = true;
      wasQuoted = true;
      wasQuotedRecord = true;
      quoteLine = line;
    } else if (char === separator) {
      endCell();
    } else if (char === '\r' || char === '\n') {
      if (char === '\r' && text[at + 1] === '\n') at += 1;
      endRecord();
      line += 1;
      recordLine = line;
    } else {
      // A quote inside an unquoted field, or text after a closing quote, is kept as written.
      cell += char;
    }
  }
  if (quoted) return { ok: false, error: `A quoted field that starts on line ${quoteLine} never ends.` };
  if (cell !== '' || cells.length > 0 || wasQuoted) endRecord();
  return { ok: true, records, separator };
}
