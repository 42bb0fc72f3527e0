/**
 * People: the accounts that sign in with a username and password. Passwords are stored as
 * bcrypt hashes (cost 10); roles as a JSON array. These functions are shared by the HTTP side,
 * the `rmsgen user` commands and the tests.
 */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { Knex } from 'knex';
import { newId } from '../ids.ts';
import { BULK_LIMITS } from '../kinds.ts';
import { ADMIN_ROLE } from '../rights.ts';
import { PEOPLE_TABLE, TOKENS_TABLE, type PersonRow } from './tables.ts';
import { isoNow } from './tokens.ts';

export const BCRYPT_COST = 10;
export const MIN_PASSWORD_LENGTH = 8;
/** bcrypt reads only the first 72 bytes; longer passwords would be silently cut, so they are refused. */
export const MAX_PASSWORD_BYTES = 72;
export const MAX_USERNAME_LENGTH = 64;

const USERNAME_SHAPE = /^[a-z0-9][a-z0-9._@-]*$/;

/** A refusal caused by the input (unknown user, weak password, …); the CLI prints its message and exits 1. */
export class AuthInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthInputError';
  }
}

export interface Person {
  readonly id: string;
  readonly username: string;
  readonly roles: readonly string[];
  readonly disabled: boolean;
  readonly createdAt: string;
}

/** Usernames are case-insensitive: stored and looked up in lower case. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

/** Throws AuthInputError unless `username` (already normalised) is a valid new username. */
export function checkUsername(username: string): void {
  if (username.length === 0) throw new AuthInputError('username must not be empty');
  if (username.length > MAX_USERNAME_LENGTH) throw new AuthInputError(`username must be at most ${MAX_USERNAME_LENGTH} characters`);
  if (!USERNAME_SHAPE.test(username)) {
    throw new AuthInputError('username may contain only letters, digits and . _ @ - and must start with a letter or digit');
  }
}

/** Throws AuthInputError unless `password` is acceptable for a person. */
export function checkPassword(password: string): void {
  if (password.length === 0) throw new AuthInputError('password must not be empty');
  if (password.length < MIN_PASSWORD_LENGTH) throw new AuthInputError(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) throw new AuthInputError(`password must be at most ${MAX_PASSWORD_BYTES} bytes`);
}

/** bcrypt's smallest cost, the least `hashCost` may be. */
export const MIN_BCRYPT_COST = 4;

export function hashPassword(password: string, cost: number = BCRYPT_COST): Promise<string> {
  return bcrypt.hash(password, cost);
}

export function toPerson(row: PersonRow): Person {
  return {
    id: row.id,
    username: row.username,
    roles: parseRoles(row.roles),
    disabled: Boolean(row.disabled),
    createdAt: row.created_at,
  };
}

export function parseRoles(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}

/** Sorted, de-duplicated, empty names dropped. */
function normalizeRoles(roles: readonly string[]): string[] {
  return [...new Set(roles.map((r) => r.trim()).filter((r) => r.length > 0))].sort();
}

export async function findPerson(db: Knex, username: string): Promise<Person | undefined> {
  const row = await db<PersonRow>(PEOPLE_TABLE).where('username', normalizeUsername(username)).first();
  return row ? toPerson(row) : undefined;
}

async function requirePerson(db: Knex, username: string): Promise<Person> {
  const person = await findPerson(db, username);
  if (!person) throw new AuthInputError(`no user named ${normalizeUsername(username)}`);
  return person;
}

export async function listPeople(db: Knex): Promise<Person[]> {
  const rows = await db<PersonRow>(PEOPLE_TABLE).select('*').orderBy('username');
  return rows.map(toPerson);
}

export interface NewPerson {
  readonly username: string;
  readonly password: string;
  readonly roles: readonly string[];
}

/** Creates a person; throws AuthInputError when the username is taken or the input is weak. */
export async function createPerson(db: Knex, input: NewPerson, hashCost: number = BCRYPT_COST): Promise<Person> {
  const username = normalizeUsername(input.username);
  checkUsername(username);
  checkPassword(input.password);
  if (await findPerson(db, username)) throw new AuthInputError(`user ${username} already exists`);
  const row: PersonRow = {
    id: newId(),
    username,
    password_hash: await hashPassword(input.password, hashCost),
    roles: JSON.stringify(normalizeRoles(input.roles)),
    disabled: false,
    created_at: isoNow(),
  };
  try {
    await db(PEOPLE_TABLE).insert(row);
  } catch (err) {
    // Lost a race with another writer for the same username.
    if (await findPerson(db, username)) throw new AuthInputError(`user ${username} already exists`);
    throw err;
  }
  return toPerson(row);
}

/** Sets a new password and signs the person out everywhere (their agent tokens keep working). */
export async function setPassword(db: Knex, username: string, password: string): Promise<void> {
  checkPassword(password);
  const person = await requirePerson(db, username);
  const passwordHash = await hashPassword(password);
  await db.transaction(async (trx) => {
    await trx(PEOPLE_TABLE).where('id', person.id).update({ password_hash: passwordHash });
    await revokeSessions(trx, person.id);
  });
}

/** Replaces the person's roles. Their agents' rights shrink with them at once (rights are read per request). */
export async function setRoles(db: Knex, username: string, roles: readonly string[]): Promise<Person> {
  const person = await requirePerson(db, username);
  const next = normalizeRoles(roles);
  await db.transaction(async (trx) => {
    await trx(PEOPLE_TABLE).where('id', person.id).update({ roles: JSON.stringify(next) });
    // Only an admin may give a token a bulk cap above the default: an admin who stops being one
    // takes their own tokens back to it, as their tokens' rate limits go back to the server's.
    if (person.roles.includes(ADMIN_ROLE) && !next.includes(ADMIN_ROLE)) {
      await trx(TOKENS_TABLE).where({ user_id: person.id, kind: 'agent' }).where('max_affected', '>', BULK_LIMITS.agentMaxAffected).update({ max_affected: BULK_LIMITS.agentMaxAffected });
    }
  });
  return { ...person, roles: next };
}

/**
 * Disables a person: they cannot sign in, their sessions are revoked, and their agent tokens
 * are refused while they stay disabled (authenticate checks the creator).
 */
export async function disablePerson(db: Knex, username: string): Promise<void> {
  const person = await requirePerson(db, username);
  await db.transaction(async (trx) => {
    await trx(PEOPLE_TABLE).where('id', person.id).update({ disabled: true });
    await revokeSessions(trx, person.id);
  });
}

/** Enables a disabled person again; their unexpired, unrevoked agent tokens work again. */
export async function enablePerson(db: Knex, username: string): Promise<void> {
  const person = await requirePerson(db, username);
  await db(PEOPLE_TABLE).where('id', person.id).update({ disabled: false });
}

async function revokeSessions(db: Knex | Knex.Transaction, userId: string): Promise<void> {
  await db(TOKENS_TABLE).where({ user_id: userId, kind: 'session' }).whereNull('revoked_at').update({ revoked_at: isoNow() });
}

/** A random password for the first admin: 24 base64url characters (144 bits). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * On a first start (no person at all) creates `admin` with role `admin`. The password is the one
 * given, else a random one returned in `password` so the caller can hand it over once (the server
 * writes it to a file only its user can read, never to the log).
 */
export async function ensureAdminUser(db: Knex, options: { password?: string; hashCost?: number } = {}): Promise<{ created: boolean; password?: string }> {
  const any = await db(PEOPLE_TABLE).select('id').first();
  if (any) return { created: false };
  const given = options.password !== undefined && options.password !== '' ? options.password : undefined;
  if (given !== undefined) {
    try {
      checkPassword(given);
    } catch (err) {
      throw new AuthInputError(`admin password: ${(err as Error).message}`);
    }
  }
  const password = given ?? generatePassword();
  try {
    await createPerson(db, { username: 'admin', password, roles: ['admin'] }, options.hashCost);
  } catch (err) {
    // Another instance starting at the same moment created it first.
    if (err instanceof AuthInputError && (await findPerson(db, 'admin'))) return { created: false };
    throw err;
  }
  return given === undefined ? { created: true, password } : { created: true };
}
