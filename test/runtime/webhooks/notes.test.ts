/** The delivery worker's backoff (runtime/webhooks/notes.ts): exponential, capped at an hour, jittered to 50–100 %, dead after a day. */
import { describe, expect, it } from 'vitest';
import { backoffMs, FIRST_BACKOFF_MS, MAX_BACKOFF_MS, RETRY_FOR_MS } from '../../../runtime/webhooks/notes.ts';

describe('backoffMs', () => {
  it.each([
    [1, 0, 2_500],
    [1, 0.999999, 5_000],
    [2, 0, 5_000],
    [3, 0.5, 15_000],
    [10, 0, 1_280_000],
    [11, 0.9999999, MAX_BACKOFF_MS],
    [40, 0, MAX_BACKOFF_MS / 2],
  ])('after %i failed attempts, jitter %f: %i ms', (attempts, random, expected) => {
    expect(backoffMs(attempts, random)).toBe(expected);
  });

  it('never waits more than the cap, and dies within a day: a failing receiver gets between 30 and 40 attempts', () => {
    for (const random of [0, 0.5, 0.999999]) {
      let elapsed = 0;
      let attempts = 0;
      for (;;) {
        attempts++;
        const wait = backoffMs(attempts, random);
        expect(wait).toBeGreaterThanOrEqual(FIRST_BACKOFF_MS / 2);
        expect(wait).toBeLessThanOrEqual(MAX_BACKOFF_MS);
        if (elapsed + wait > RETRY_FOR_MS) break;
        elapsed += wait;
      }
      expect(attempts).toBeGreaterThanOrEqual(24);
      expect(attempts).toBeLessThanOrEqual(60);
    }
  });
});
