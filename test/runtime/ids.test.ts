/**
 * Record ids (runtime/ids.ts): 26 Crockford base32 characters, the time first, so that ids sort by
 * creation time, within one millisecond too. newId keeps the last time it was given in the
 * process, which every test file of this worker shares (and tests with a clock of their own move
 * ahead): its ids are checked for their order, not their time.
 */
import { describe, expect, it } from 'vitest';
import { encodeId, newId } from '../../runtime/ids.ts';

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const bytes = (...values: number[]) => Uint8Array.from(values);

describe('encodeId', () => {
  it.each([
    [0, bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), '00000000000000000000000000'],
    [31, bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 31), '000000000Z000000000000000Z'],
    [32, bytes(0, 0, 0, 0, 32, 0, 0, 0, 0, 0), '00000000100000001000000000'],
    [2 ** 30 - 1, bytes(255, 255, 255, 255, 255, 0, 0, 0, 0, 0), '0000ZZZZZZZZZZZZZZ00000000'],
    [2 ** 30, bytes(0, 0, 0, 0, 0, 255, 255, 255, 255, 255), '000100000000000000ZZZZZZZZ'],
    [1_700_000_000_000, bytes(1, 35, 69, 103, 137, 171, 205, 239, 1, 35), '01HF7YAT0004HMASW9NF6YY093'],
    [2 ** 48 - 1, bytes(255, 255, 255, 255, 255, 255, 255, 255, 255, 255), '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'],
  ])('time %d and its random bytes: %s', (time, random, id) => {
    expect(encodeId(time, random)).toBe(id);
  });
});

describe('newId', () => {
  it('sorts by creation: within one millisecond by an incremented random part, then by time', () => {
    const now = Date.now();
    const ids = [newId(now), newId(now), newId(now), newId(now + 1), newId(now + 1), newId(now + 2)];
    expect(ids.every((id) => CROCKFORD.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // An earlier time than the last one (a clock set back) still sorts after it.
    expect(newId(now - 5_000) > ids.at(-1)!).toBe(true);
  });
});
