/** Table tests of web/src/lib/csv.ts: CSV reading and writing. */
import { describe, expect, it } from 'vitest';
import { CSV_BOM, parseCsv, toCsv } from '../../../web/src/lib/csv.ts';

describe('CSV', () => {
  it('quotes what needs quoting (RFC 4180) and ends records with CRLF', () => {
    expect(toCsv([['a', 'b,c', 'say "hi"', 'two\nlines', ' padded', '']])).toBe('a,"b,c","say ""hi""","two\nlines"," padded",\r\n');
  });

  it('reads back what it writes, with the line each record starts on', () => {
    const records = [
      ['Title', 'Notes'],
      ['One', 'first\r\nsecond'],
      ['Two, "quoted"', ''],
      ['', 'only notes'],
    ];
    const parsed = parseCsv(CSV_BOM + toCsv(records));
    expect(parsed).toEqual({
      ok: true,
      separator: ',',
      records: [
        { line: 1, cells: ['Title', 'Notes'] },
        { line: 2, cells: ['One', 'first\r\nsecond'] },
        { line: 4, cells: ['Two, "quoted"', ''] },
        { line: 5, cells: ['', 'only notes'] },
      ],
    });
  });

  it('takes LF and CR line ends, semicolons, blank lines and a missing final line end', () => {
    expect(parseCsv('a;b\n\n1;"x;y"\r2;3')).toEqual({
      ok: true,
      separator: ';',
      records: [
        { line: 1, cells: ['a', 'b'] },
        { line: 3, cells: ['1', 'x;y'] },
        { line: 4, cells: ['2', '3'] },
      ],
    });
  });

  it('names the line of a quote that never ends', () => {
    expect(parseCsv('a,b\n1,"open\n2,3\n')).toEqual({ ok: false, error: 'A quoted field that starts on line 2 never ends.' });
  });
});
