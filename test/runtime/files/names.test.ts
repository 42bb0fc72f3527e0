/** The rule a file's name is kept by (runtime/files/names.ts), as docs/api.md states it. */
import { describe, expect, it } from 'vitest';
import { fileName, MAX_NAME_CHARACTERS } from '../../../runtime/files/names.ts';

/** A header as Node hands it over: its bytes read as Latin-1. */
const rawUtf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

const cases: [string, string | string[] | undefined, string][] = [
  ['no header', undefined, 'file'],
  ['a plain name', 'lease.pdf', 'lease.pdf'],
  ['percent-encoded UTF-8', encodeURIComponent('Überweisung März.pdf'), 'Überweisung März.pdf'],
  ['raw UTF-8 bytes', rawUtf8('résumé.pdf'), 'résumé.pdf'],
  ['decoded once only', '%252e%252e%252fx', '%2e%2e%2fx'],
  ['not percent-encoding', '100%.pdf', '100%.pdf'],
  ['a relative path', '../../etc/passwd', 'passwd'],
  ['a Windows path', 'C:\\Users\\ann\\scan.png', 'scan.png'],
  ['an encoded path', encodeURIComponent('../../etc/shadow'), 'shadow'],
  ['only dots', '..', 'file'],
  ['a trailing slash', 'dir/', 'file'],
  ['NUL and controls', encodeURIComponent('a\u0000b\u0007c\u007f\u0085.txt'), 'abc.txt'],
  ['a right-to-left override', encodeURIComponent('invoice\u202Efdp.exe'), 'invoicefdp.exe'],
  ['marks, isolates, zero-width, BOM', encodeURIComponent('\uFEFF\u200Ea\u200Bb\u2066c\u2069\u061C.pdf'), 'abc.pdf'],
  ['spaces and dots at the ends', '  . report.pdf .  ', 'report.pdf'],
  ['the first of several headers', ['one.pdf', 'two.pdf'], 'one.pdf'],
];

describe('fileName', () => {
  it.each(cases)('%s', (_what, header, kept) => {
    expect(fileName(header)).toBe(kept);
  });

  it(`cuts a long name to ${MAX_NAME_CHARACTERS} characters, keeping a short extension`, () => {
    expect(fileName(`${'a'.repeat(1000)}.pdf`)).toBe(`${'a'.repeat(196)}.pdf`);
    expect([...fileName('é'.repeat(1000))].length).toBe(MAX_NAME_CHARACTERS);
    // An extension longer than 16 characters is part of the stem.
    expect(fileName(`${'a'.repeat(300)}.${'b'.repeat(40)}`)).toBe('a'.repeat(MAX_NAME_CHARACTERS));
    // Characters, not UTF-16 units: an emoji is one.
    expect([...fileName('😀'.repeat(500))].length).toBe(MAX_NAME_CHARACTERS);
  });
});
