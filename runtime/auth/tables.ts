/**
 * The auth tables. Everything sign-in needs lives here, in the database, so that several
 * instances of the server share sessions, agent tokens and lockout counters.
 *
 * Timestamps are ISO-8601 UTC strings from `Date.prototype.toISOString()` (always 24 characters),
 * so they compare correctly as text on SQLite and PostgreSQL alike.
 */
import type { Knex } from 'knex';
import { addColumnsIfMissing, createTableIfMissing } from '../db/system-tables.ts';

export const PEOPLE_TABLE = 'rms_people';
export const TOKENS_TABLE = 'rms_tokens';
export const LOGIN_FAILURES_TABLE = 'rms_login_failures';

/** Row of `rms_people`. `roles` is a JSON array of role names. */
export interface PersonRow {
  id: string;
  username: string;
  password_hash: string;
  roles: string;
  disabled: boolean | number;
  created_at: string;
}

export type TokenKind = 'session' | 'agent';

/** Row of `rms_tokens`. Only the sha256 of a token is stored, never the token. */
export interface TokenRow {
  id: string;
  token_hash: string;
  kind: TokenKind;
  user_id: string;
  label: string | null;
  /** JSON array of scope patterns (agent tokens only). */
  scopes: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  /** An agent token's own limits; null: the server's. */
  requests_per_minute: number | null;
  writes_per_minute: number | null;
  /** An agent token's cap on the records one bulk command changes; null: the default. */
  max_affected: number | null;
}

/** Row of `rms_login_failures`: one failed sign-in. `id` is time-ordered (newId). */
export interface LoginFailureRow {
  id: string;
  username: string;
  at: string;
  /** The client address it came from (null for rows from before the per-address throttle). */
  address: string | null;
}

/** Creates the auth tables that are missing. Safe to call on every start and from several instances. */
export async function ensureAuthTables(db: Knex): Promise<void> {
  await createTableIfMissing(db, PEOPLE_TABLE, (t) => {
    t.string('id', 26).primary();
    t.string('username', 64).notNullable().unique();
    t.string('password_hash', 100).notNullable();
    t.text('roles').notNullable();
    t.boolean('disabled').notNullable().defaultTo(false);
    t.string('created_at', 24).notNullable();
  });
  await createTableIfMissing(db, TOKENS_TABLE, (t) => {
    t.string('id', 26).primary();
    t.string('token_hash', 64).notNullable().unique();
    t.string('kind', 10).notNullable();
    t.string('user_id', 26).notNullable().references('id').inTable(PEOPLE_TABLE);
    t.string('label', 200).nullable();
    t.text('scopes').nullable();
    t.string('created_at', 24).notNullable();
    t.string('expires_at', 24).notNullable();
    t.string('revoked_at', 24).nullable();
    t.string('last_used_at', 24).nullable();
    t.integer('requests_per_minute').nullable();
    t.integer('writes_per_minute').nullable();
    t.integer('max_affected').nullable();
    t.index(['user_id', 'kind'], 'rms_tokens_user_kind');
  });
  // Agent tokens' own rate limits (null: the server's) came after the table.
  await addColumnsIfMissing(db, TOKENS_TABLE, {
    requests_per_minute: (t) => t.integer('requests_per_minute').nullable(),
    writes_per_minute: (t) => t.integer('writes_per_minute').nullable(),
  });
  // An agent token's bulk cap (null: the default) came after them.
  await addColumnsIfMissing(db, TOKENS_TABLE, { max_affected: (t) => t.integer('max_affected').nullable() });
  await createTableIfMissing(db, LOGIN_FAILURES_TABLE, (t) => {
    t.string('id', 26).primary();
    t.string('username', 200).notNullable();
    t.string('at', 24).notNullable();
    t.string('address', 64).nullable();
    t.index(['username', 'at'], 'rms_login_failures_username_at');
    t.index(['at'], 'rms_login_failures_at');
    t.index(['address', 'at'], 'rms_login_failures_address_at');
  });
  // The client address of a failure (the per-address throttle) came after the table.
  await addColumnsIfMissing(db, LOGIN_FAILURES_TABLE, {
    address: (t) => {
      t.string('address', 64).nullable();
      t.index(['address', 'at'], 'rms_login_failures_address_at');
    },
  });
}
