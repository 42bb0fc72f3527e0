/**
 * Who is calling: resolves `Authorization: Bearer <token>` to a Caller with one indexed lookup
 * (token joined with its person). Roles always come from the database, so a role taken from a
 * person takes effect on their next request, for them and for their agents alike.
 */
import type { Knex } from 'knex';
import type { AgentCaller, Caller, PersonCaller } from '../caller.ts';
import { selectFirst, sqlIdentifier } from '../db/statements.ts';
import { HttpError } from '../errors.ts';
import { parseRoles } from './people.ts';
import { PEOPLE_TABLE, TOKENS_TABLE } from './tables.ts';
import { hashToken, isoNow, tokenKindOf } from './tokens.ts';

export const MISSING_TOKEN = 'missing bearer token';
/** The one call that takes no token (SPEC 5). */
export const SIGN_IN_PATH = '/api/auth/login';
export const INVALID_TOKEN = 'invalid or expired token';

/** `last_used_at` of an agent token is written at most this often, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface TokenWithPerson {
  id: string;
  kind: string;
  label: string | null;
  scopes: string | null;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  requests_per_minute: number | string | null;
  writes_per_minute: number | string | null;
  max_affected: number | string | null;
  user_id: string;
  username: string;
  roles: string;
  disabled: boolean | number;
}

/** The one lookup of every request: the token by its hash, joined with its person (written once, not built per call). */
const TOKEN_WITH_PERSON_SQL =
  'select t.id, t.kind, t.label, t.scopes, t.expires_at, t.revoked_at, t.last_used_at, t.requests_per_minute, t.writes_per_minute, t.max_affected, t.user_id, p.username, p.roles, p.disabled' +
  ` from ${sqlIdentifier(TOKENS_TABLE)} as t inner join ${sqlIdentifier(PEOPLE_TABLE)} as p on p.id = t.user_id` +
  ' where t.token_hash = ?';

/** The token in an `Authorization` header value, or undefined when there is none. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1] : undefined;
}

/**
 * Resolves the caller of a request, or throws HttpError 401 for a missing, malformed, unknown,
 * expired or revoked token, or a token whose person is disabled.
 */
export async function authenticate(db: Knex, authorization: string | undefined, now: number = Date.now()): Promise<Caller> {
  if (authorization === undefined || authorization.trim() === '') throw new HttpError(401, MISSING_TOKEN);
  const token = bearerToken(authorization);
  if (token === undefined) throw new HttpError(401, MISSING_TOKEN);
  const claimedKind = tokenKindOf(token);
  if (claimedKind === undefined) throw new HttpError(401, INVALID_TOKEN);

  const row = await selectFirst<TokenWithPerson>(db, TOKEN_WITH_PERSON_SQL, [hashToken(token)]);
  const nowIso = isoNow(now);
  if (!row || row.kind !== claimedKind || row.revoked_at !== null || row.expires_at <= nowIso || Boolean(row.disabled)) {
    throw new HttpError(401, INVALID_TOKEN);
  }

  if (row.kind === 'session') {
    const person: PersonCaller = { kind: 'person', userId: row.user_id, username: row.username, roles: parseRoles(row.roles), tokenId: row.id };
    return person;
  }

  if (row.last_used_at === null || Date.parse(row.last_used_at) < now - LAST_USED_RESOLUTION_MS) {
    await touchAgentToken(db, row.id, now);
  }
  return agentCallerOf(row);
}

/** An agent token's row, with its maker's id, username and roles. */
export type AgentTokenRow = Pick<TokenWithPerson, 'id' | 'label' | 'scopes' | 'requests_per_minute' | 'writes_per_minute' | 'max_affected' | 'user_id' | 'username' | 'roles'>;

/** The agent a token's row stands for: its scopes, to be cut down to its maker's roles (rights.ts). */
export function agentCallerOf(row: AgentTokenRow): AgentCaller {
  return {
    kind: 'agent',
    tokenId: row.id,
    label: row.label ?? '',
    scopes: parseScopes(row.scopes),
    creatorId: row.user_id,
    creatorUsername: row.username,
    creatorRoles: parseRoles(row.roles),
    limits: { requestsPerMinute: numberOrNull(row.requests_per_minute), writesPerMinute: numberOrNull(row.writes_per_minute) },
    ...(row.max_affected !== null ? { maxAffected: Number(row.max_affected) } : {}),
  };
}

async function touchAgentToken(db: Knex, tokenId: string, now: number): Promise<void> {
  const cutoff = isoNow(now - LAST_USED_RESOLUTION_MS);
  await db(TOKENS_TABLE)
    .where('id', tokenId)
    .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', cutoff))
    .update({ last_used_at: isoNow(now) });
}

function numberOrNull(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

export function parseScopes(json: string | null): string[] {
  if (json === null) return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}
