/**
 * People's sessions: sign-in with username and password (with the lockout), sign-out.
 */
import bcrypt from 'bcryptjs';
import type { Knex } from 'knex';
import { newId } from '../ids.ts';
import { beginAttempt, failAttempt, passAttempt } from './lockout.ts';
import { AuthInputError, BCRYPT_COST, MAX_USERNAME_LENGTH, normalizeUsername } from './people.ts';
import { PEOPLE_TABLE, TOKENS_TABLE, type PersonRow } from './tables.ts';
import { hashToken, isoNow, newToken } from './tokens.ts';

/** SPEC 5.2 / 8: a session token is valid for 12 hours from sign-in. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export type SignInResult =
  | { readonly outcome: 'ok'; readonly token: string; readonly expires: string }
  | { readonly outcome: 'invalid' }
  /** The username is locked (SPEC 5.5). */
  | { readonly outcome: 'locked'; readonly retryAfterSeconds: number }
  /** Too many failures from the client's address. */
  | { readonly outcome: 'throttled'; readonly retryAfterSeconds: number };

export interface SignInOptions {
  /** The client's address, for the per-address throttle (none: not throttled by address). */
  readonly address?: string;
  readonly now?: number;
}

/** A bcrypt hash nobody's password matches, compared against for unknown usernames so timing tells nothing. */
let dummyHash: Promise<string> | undefined;
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= bcrypt.hash('rmsgen: no such user', BCRYPT_COST);
  return dummyHash;
}

/**
 * Checks a username and password and, when they are right and neither the username is locked nor
 * the address throttled, issues a session token. Unknown usernames and disabled people are plain
 * `invalid`.
 */
export async function signIn(db: Knex, usernameInput: string, password: string, options: SignInOptions = {}): Promise<SignInResult> {
  const now = options.now ?? Date.now();
  // No account has a longer name: refused before any hashing (the router answers 400 first). Every
  // other name is an attempt like any, counted against the username and the address.
  if (usernameInput.length > MAX_USERNAME_LENGTH) throw new AuthInputError(`username must be at most ${MAX_USERNAME_LENGTH} characters`);
  const username = normalizeUsername(usernameInput);
  const attempt = await beginAttempt(db, username, options.address ?? null, now);
  if (attempt.outcome !== 'started') return attempt;

  const person = await db<PersonRow>(PEOPLE_TABLE).where('username', username).first();
  const matches = await bcrypt.compare(password, person ? person.password_hash : await dummyPasswordHash());
  if (!person || !matches || Boolean(person.disabled)) {
    await failAttempt(db, now);
    return { outcome: 'invalid' };
  }

  await passAttempt(db, username, options.address ?? null);
  const token = newToken('session');
  const expires = isoNow(now + SESSION_TTL_MS);
  await db.transaction(async (trx) => {
    // Expired and long-revoked sessions of this person are of no more use; keep the table small.
    await trx(TOKENS_TABLE)
      .where({ user_id: person.id, kind: 'session' })
      .andWhere('expires_at', '<', isoNow(now))
      .delete();
    await trx(TOKENS_TABLE).insert({
      id: newId(now),
      token_hash: hashToken(token),
      kind: 'session',
      user_id: person.id,
      label: null,
      scopes: null,
      created_at: isoNow(now),
      expires_at: expires,
      revoked_at: null,
      last_used_at: null,
    });
  });
  return { outcome: 'ok', token, expires };
}

/** Revokes one token (session or agent) by its row id. Idempotent. */
export async function revokeToken(db: Knex, tokenId: string): Promise<void> {
  await db(TOKENS_TABLE).where('id', tokenId).whereNull('revoked_at').update({ revoked_at: isoNow() });
}
