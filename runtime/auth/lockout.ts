/**
 * Sign-in lockout (SPEC 5.5): five failed sign-ins for a username within one minute lock that
 * username for one minute. Failures are rows in the database so that every instance sees them.
 *
 * Besides, one client address may fail at most `ADDRESS_FAILURES` sign-ins a minute, whatever the
 * usernames: the per-username lock alone would let it guess across many usernames at bcrypt's
 * cost. Past that its attempts are refused (429) until the oldest of those failures is a minute old.
 *
 * An attempt first records itself as a failure (before the slow bcrypt compare), so a burst of
 * parallel guesses cannot all slip past the check; the row is removed again when the attempt turns
 * out to be locked out (attempts during a lock are not failures) or when the password is right
 * (a successful sign-in clears the username's failures).
 */
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { newId } from '../ids.ts';
import { LOGIN_FAILURES_TABLE, type LoginFailureRow } from './tables.ts';
import { isoNow } from './tokens.ts';

export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_WINDOW_MS = 60_000;
export const LOCKOUT_DURATION_MS = 60_000;
/** Failed sign-ins one client address may make within `LOCKOUT_WINDOW_MS`. */
export const ADDRESS_FAILURES = 30;
/** How much history decides a lock; older failures are deleted. */
const HISTORY_MS = 10 * 60_000;

/**
 * Walks failures in order and returns when the last lock they cause ends (ms), or 0.
 * A lock consumes the failures that caused it, so the count starts afresh after it.
 */
export function lockedUntil(failures: readonly { id: string; at: string }[], stopAtId?: string): number {
  let until = 0;
  let window: number[] = [];
  for (const failure of failures) {
    if (failure.id === stopAtId) break;
    const at = Date.parse(failure.at);
    if (at < until) continue; // recorded while locked: not a counted failure
    window.push(at);
    window = window.filter((t) => t > at - LOCKOUT_WINDOW_MS);
    if (window.length >= LOCKOUT_FAILURES) {
      until = at + LOCKOUT_DURATION_MS;
      window = [];
    }
  }
  return until;
}

async function recentFailures(db: Knex, username: string, now: number): Promise<LoginFailureRow[]> {
  return db<LoginFailureRow>(LOGIN_FAILURES_TABLE)
    .where('username', username)
    .andWhere('at', '>', isoNow(now - HISTORY_MS))
    .orderBy('id', 'asc')
    .limit(1000);
}

export type AttemptStart =
  | { readonly outcome: 'locked' | 'throttled'; readonly retryAfterSeconds: number }
  | { readonly outcome: 'started'; readonly attemptId: string };

/**
 * Starts a sign-in attempt for `username` from `address`: refuses it when the username is locked
 * or the address throttled, otherwise records it (pessimistically) as a failure and returns its
 * id for `passAttempt`.
 *
 * On PostgreSQL the attempts of one username are looked at and recorded one at a time (a lock held
 * until the attempt is recorded): with several instances, an attempt that read the failures
 * before another's row was committed, while the other read them before this one's, let both pass
 * — the ids' order is no order across processes (up to nine wrong passwords were checked before
 * the lock, found by a probe). In one process (SQLite's) the ids do follow the order rows are
 * recorded in, which the check after recording relies on.
 */
export async function beginAttempt(db: Knex, username: string, address: string | null, now: number = Date.now()): Promise<AttemptStart> {
  if (dialectOf(db) !== 'postgres') return recordAttempt(db, username, address, now);
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`rms_login_failures:${username}`]);
    return recordAttempt(trx, username, address, now);
  });
}

async function recordAttempt(db: Knex, username: string, address: string | null, now: number): Promise<AttemptStart> {
  const before = lockedUntil(await recentFailures(db, username, now));
  if (before > now) return { outcome: 'locked', retryAfterSeconds: secondsUntil(before, now) };
  const throttled = address === null ? 0 : await addressThrottledUntil(db, address, now);
  if (throttled > now) return { outcome: 'throttled', retryAfterSeconds: secondsUntil(throttled, now) };

  const attemptId = newId(now);
  await db(LOGIN_FAILURES_TABLE).insert({ id: attemptId, username, at: isoNow(now), address });
  // Concurrent attempts (here or on other instances) recorded before ours may have locked the username or throttled the address.
  const raced = lockedUntil(await recentFailures(db, username, now), attemptId);
  const racedAddress = address === null ? 0 : await addressThrottledUntil(db, address, now, attemptId);
  if (raced > now || racedAddress > now) {
    await db(LOGIN_FAILURES_TABLE).where('id', attemptId).delete();
    return raced > now ? { outcome: 'locked', retryAfterSeconds: secondsUntil(raced, now) } : { outcome: 'throttled', retryAfterSeconds: secondsUntil(racedAddress, now) };
  }
  return { outcome: 'started', attemptId };
}

function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}

/**
 * When the address may fail again: with `ADDRESS_FAILURES` failures in the last minute (those
 * recorded before `beforeId`, when given), a minute after the oldest of them; else 0.
 */
async function addressThrottledUntil(db: Knex, address: string, now: number, beforeId?: string): Promise<number> {
  const query = db<LoginFailureRow>(LOGIN_FAILURES_TABLE)
    .select('at')
    .where('address', address)
    .andWhere('at', '>', isoNow(now - LOCKOUT_WINDOW_MS))
    .orderBy('at', 'desc')
    .limit(ADDRESS_FAILURES);
  if (beforeId !== undefined) query.andWhere('id', '<', beforeId);
  const rows = await query;
  if (rows.length < ADDRESS_FAILURES) return 0;
  return Date.parse(rows[rows.length - 1]!.at) + LOCKOUT_WINDOW_MS;
}

/**
 * The attempt succeeded: the username's failures are forgotten — as the username's. Those made
 * from other addresses still count against their address (another person's sign-in must not let
 * an address that tries many usernames start over): they stay, under no username.
 */
export async function passAttempt(db: Knex, username: string, address: string | null): Promise<void> {
  await db.transaction(async (trx) => {
    const own = trx(LOGIN_FAILURES_TABLE).where('username', username);
    await (address === null ? own.whereNull('address') : own.andWhere((query) => query.whereNull('address').orWhere('address', address))).delete();
    await trx(LOGIN_FAILURES_TABLE).where('username', username).update({ username: '' });
  });
}

/** The attempt failed: its row stays as the failure; old failures of every username are pruned. */
export async function failAttempt(db: Knex, now: number = Date.now()): Promise<void> {
  await db(LOGIN_FAILURES_TABLE).where('at', '<', isoNow(now - HISTORY_MS)).delete();
}
