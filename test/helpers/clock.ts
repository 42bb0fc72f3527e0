/**
 * A clock for the server's time-dependent rules (runtime/clock.ts) that stands still until a test
 * moves it, so that a test of a rate window, the lockout or an expiry advances time instead of
 * sleeping, and never straddles a window boundary by chance. Pass it to `startTestServer({ clock })`.
 */
import type { Clock } from '../../runtime/clock.ts';

const MINUTE_MS = 60_000;

export class TestClock implements Clock {
  private at: number;

  /** Starts at `at` (ms since the epoch), by default at the start of the next clock minute plus a second. */
  constructor(at: number = (Math.floor(Date.now() / MINUTE_MS) + 1) * MINUTE_MS + 1_000) {
    this.at = at;
  }

  now(): number {
    return this.at;
  }

  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.at += ms;
  }

  /** Moves time to a second into the next clock minute: a fresh rate window. */
  nextMinute(): void {
    this.at = (Math.floor(this.at / MINUTE_MS) + 1) * MINUTE_MS + 1_000;
  }
}
