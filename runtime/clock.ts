/**
 * The time as the server's time-dependent rules read it: agents' rate-limit windows, the sign-in
 * lockout and per-address throttle, the expiry of sessions and agent tokens, and the day and time
 * a write gives `'today'` and `'now'` (defaults, actions' sets). One seam, so that
 * tests move time instead of waiting for it (test/README.md).
 *
 * The server reads `systemClock` unless code that embeds it passes another to
 * `startServer({ clock })`; no option, variable or flag of `rmsgen serve` can set one, so a
 * deployed server always runs on the system's time.
 */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
