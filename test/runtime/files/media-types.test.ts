/** Media types and sizes as module files and options write them (runtime/files/media-types.ts). */
import { describe, expect, it } from 'vitest';
import { accepts, isKnownAccept, parseByteSize, sizeInWords } from '../../../runtime/files/media-types.ts';

describe('accept', () => {
  it.each([
    ['application/pdf', true],
    ['image/*', true],
    ['image/svg+xml', true],
    ['text/csv', true],
    ['application/pdff', false],
    ['Image/PNG', false],
    ['images/*', false],
    ['*/*', false],
    ['pdf', false],
    [' application/pdf', false],
  ] as const)('%s is known: %s', (entry, known) => {
    expect(isKnownAccept(entry)).toBe(known);
  });

  it.each([
    [[], 'application/x-anything', true],
    [['image/*'], 'image/png', true],
    [['image/*'], 'image/svg+xml', true],
    [['image/*'], 'imagex/png', false],
    [['application/pdf'], 'application/pdf', true],
    [['application/pdf'], 'Application/PDF; charset=binary', true],
    [['application/pdf', 'image/*'], 'text/plain', false],
  ] as const)('%j accepts %s: %s', (accept, type, expected) => {
    expect(accepts(accept, type)).toBe(expected);
  });
});

describe('sizes', () => {
  it.each([
    ['20MB', 20 * 1024 * 1024],
    ['20 mb', 20 * 1024 * 1024],
    ['1B', 1],
    ['512KB', 512 * 1024],
    ['1GB', 1024 ** 3],
    ['1024GB', 1024 ** 4],
    ['1025GB', undefined],
    ['0MB', undefined],
    ['1.5MB', undefined],
    ['-1MB', undefined],
    ['20', undefined],
    ['20TB', undefined],
    ['twenty MB', undefined],
  ] as const)('%s is %s bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each([
    [300, '300 B'],
    [1024, '1 KB'],
    [2150, '2.1 KB'],
    [20 * 1024 * 1024, '20 MB'],
    [50 * 1024 * 1024, '50 MB'],
  ] as const)('%i bytes in words: %s', (bytes, words) => {
    expect(sizeInWords(bytes)).toBe(words);
  });
});
