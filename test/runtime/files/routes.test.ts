/** The download's headers worked out from the request and the file (runtime/files/routes.ts). */
import { describe, expect, it } from 'vitest';
import { byteRange, contentDisposition } from '../../../runtime/files/routes.ts';

describe('byteRange', () => {
  it.each([
    [undefined, 100, undefined],
    ['bytes=0-9', 100, [0, 9]],
    ['bytes=90-', 100, [90, 99]],
    ['bytes=90-500', 100, [90, 99]],
    ['bytes=-10', 100, [90, 99]],
    ['bytes=-500', 100, [0, 99]],
    ['bytes=100-', 100, 'unsatisfiable'],
    // Invalid (a last before its first): RFC 9110 ignores the header; the whole file.
    ['bytes=9-3', 100, undefined],
    ['bytes=200-100', 100, undefined],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=-', 100, undefined],
    ['bytes=0-1,5-6', 100, undefined],
    ['items=0-1', 100, undefined],
  ] as const)('%s of %i bytes: %j', (header, size, expected) => {
    expect(byteRange(header, size)).toEqual(expected);
  });
});

describe('contentDisposition', () => {
  it.each([
    ['inline', 'scan.png', `inline; filename="scan.png"; filename*=UTF-8''scan.png`],
    ['attachment', 'März "final".pdf', `attachment; filename="M_rz _final_.pdf"; filename*=UTF-8''M%C3%A4rz%20%22final%22.pdf`],
    ['attachment', "it's (1).svg", `attachment; filename="it's (1).svg"; filename*=UTF-8''it%27s%20%281%29.svg`],
    ['attachment', '100%\\x.txt', `attachment; filename="100__x.txt"; filename*=UTF-8''100%25%5Cx.txt`],
  ] as const)('%s %s', (kind, name, header) => {
    expect(contentDisposition(kind, name)).toBe(header);
  });
});
