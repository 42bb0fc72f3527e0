import { describe, expect, it } from 'vitest';
import { lockedUntil } from '../../../runtime/auth/lockout.ts';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const failures = (...offsetsMs: number[]) =>
  offsetsMs.map((ms, i) => ({ id: String(i).padStart(4, '0'), at: new Date(T0 + ms).toISOString() }));

describe('lockedUntil', () => {
  it('four failures do not lock', () => {
    expect(lockedUntil(failures(0, 1000, 2000, 3000))).toBe(0);
  });

  it('five failures within a minute lock for a minute from the fifth', () => {
    expect(lockedUntil(failures(0, 1000, 2000, 3000, 50_000))).toBe(T0 + 50_000 + 60_000);
  });

  it('five failures spread over more than a minute do not lock', () => {
    expect(lockedUntil(failures(0, 20_000, 40_000, 59_000, 61_000))).toBe(0);
  });

  it('the count starts afresh after a lock', () => {
    // locked at 4s until 64s; one more failure after the lock does not lock again
    expect(lockedUntil(failures(0, 1000, 2000, 3000, 4000, 65_000))).toBe(T0 + 64_000);
  });

  it('failures recorded during a lock do not count', () => {
    expect(lockedUntil(failures(0, 1000, 2000, 3000, 4000, 10_000, 11_000, 12_000, 13_000, 65_000))).toBe(T0 + 64_000);
  });

  it('stops at the given attempt', () => {
    const list = failures(0, 1000, 2000, 3000, 4000);
    expect(lockedUntil(list, list[4]!.id)).toBe(0);
    expect(lockedUntil(list)).toBe(T0 + 64_000);
  });
});
