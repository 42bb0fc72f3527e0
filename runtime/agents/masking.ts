/**
 * Masking tokens for personal fields (SPEC 2.4). Each agent token has its own numbering per label:
 * the same clear value gives the same token (`NAME_1`) to the same agent on every call and every
 * model, and nothing to any other agent. The mapping lives in the database so it survives restarts
 * and is shared by every instance.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { badRequest } from '../errors.ts';

export const MASK_TABLE = 'rms_mask_tokens';

/**
 * `<LABEL>_<n>`: upper-case label, underscore, integer (SPEC 2.4). Issued numbers start at 1 and
 * have no leading zeros, but `NAME_0` and `NAME_01` have the form all the same: they are refused as
 * `invalid token`, never stored as clear text.
 */
const TOKEN_FORM = /^([A-Z][A-Z0-9_]*)_([0-9]+)$/;

export function isTokenForm(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_FORM.test(value);
}

export async function ensureMaskTables(db: Knex): Promise<void> {
  if (await db.schema.hasTable(MASK_TABLE)) return;
  await db.schema.createTable(MASK_TABLE, (table) => {
    table.string('agent_token_id', 64).notNullable();
    table.string('label', 100).notNullable();
    table.bigInteger('n').notNullable();
    // Lookups by value go through its hash: values may be long texts, too long for a btree key.
    table.string('value_hash', 64).notNullable();
    table.text('value').notNullable();
    table.primary(['agent_token_id', 'label', 'n']);
    table.unique(['agent_token_id', 'label', 'value_hash']);
  });
}

function hashValue(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A pending request to mask one value under one label. */
export interface MaskRequest {
  readonly label: string;
  readonly value: string;
}

const CHUNK = 400;

/**
 * Returns the token for each (label, value), issuing new ones where this agent has none yet.
 * Batched: one lookup per label and chunk, then one insert per new token. Call inside the
 * command's transaction so a failed command leaves no half-issued numbering behind.
 */
export async function maskValues(db: Knex, agentTokenId: string, requests: readonly MaskRequest[]): Promise<Map<string, string>> {
  const tokens = new Map<string, string>(); // key: maskKey(label, value)
  const byLabel = new Map<string, Set<string>>();
  for (const { label, value } of requests) {
    let values = byLabel.get(label);
    if (!values) byLabel.set(label, (values = new Set()));
    values.add(value);
  }
  // Labels in a fixed order: on PostgreSQL each takes a lock below, and two callers must not wait on each other crosswise.
  for (const [label, values] of [...byLabel].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const hashes = new Map<string, string>();
    for (const value of values) hashes.set(hashValue(value), value);
    await lookupTokens(db, agentTokenId, label, hashes, tokens);
    if (hashes.size === 0) continue;
    if (dialectOf(db) === 'postgres') await issueTokensLocked(db, agentTokenId, label, hashes, tokens);
    else await issueTokens(db, agentTokenId, label, hashes, tokens);
  }
  return tokens;
}

/** Finds the tokens this agent already has for `missing` (value hash → value); found ones move to `tokens`. */
async function lookupTokens(db: Knex, agentTokenId: string, label: string, missing: Map<string, string>, tokens: Map<string, string>): Promise<void> {
  const allHashes = [...missing.keys()];
  for (let i = 0; i < allHashes.length; i += CHUNK) {
    const rows: { n: number | string; value_hash: string }[] = await db(MASK_TABLE)
      .select('n', 'value_hash')
      .where({ agent_token_id: agentTokenId, label })
      .whereIn('value_hash', allHashes.slice(i, i + CHUNK));
    for (const row of rows) {
      tokens.set(maskKey(label, missing.get(row.value_hash)!), `${label}_${Number(row.n)}`);
      missing.delete(row.value_hash);
    }
  }
}

/** Key class of the advisory locks that make numbering per (agent, label) take turns on PostgreSQL. */
const MASK_LOCK_CLASS = 727_376_702;

/**
 * PostgreSQL: several instances (or requests) may number new tokens for one agent and label at
 * once, and max(n)+1 would give two values the same number. A transaction-scoped advisory lock on
 * (agent, label) makes them take turns; under it, values issued meanwhile are looked up again.
 * It runs in a savepoint of the command's transaction (its own transaction for plain reads), and
 * the lock is held until that transaction ends, when the new tokens become visible to others.
 */
async function issueTokensLocked(db: Knex, agentTokenId: string, label: string, missing: Map<string, string>, tokens: Map<string, string>): Promise<void> {
  try {
    await db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [MASK_LOCK_CLASS, `${label}:${agentTokenId}`]);
      await lookupTokens(trx, agentTokenId, label, missing, tokens);
      if (missing.size > 0) await issueTokens(trx, agentTokenId, label, missing, tokens);
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
    // Only a REPEATABLE READ transaction (`search`) gets here: its snapshot is older than tokens
    // another transaction issued while it waited for the lock, so it cannot see them. Running the
    // transaction again (the command path retries serialization failures) sees them.
    throw new MaskRaceError();
  }
}

const UNIQUE_VIOLATION = '23505';

/** A serialization failure (SQLSTATE 40001): the transaction raced another and is to be run again. */
export class MaskRaceError extends Error {
  readonly code = '40001';
  constructor() {
    super('masking tokens were issued concurrently: retry the transaction');
    this.name = 'MaskRaceError';
  }
}

/** Numbers `missing` from max(n)+1 on and stores them. */
async function issueTokens(db: Knex, agentTokenId: string, label: string, missing: Map<string, string>, tokens: Map<string, string>): Promise<void> {
  const max = await db(MASK_TABLE).where({ agent_token_id: agentTokenId, label }).max({ n: 'n' }).first();
  let next = Number(max?.n ?? 0);
  const inserts = [];
  for (const [valueHash, value] of missing) {
    next++;
    inserts.push({ agent_token_id: agentTokenId, label, n: next, value_hash: valueHash, value });
    tokens.set(maskKey(label, value), `${label}_${next}`);
  }
  for (let i = 0; i < inserts.length; i += 100) await db(MASK_TABLE).insert(inserts.slice(i, i + 100));
}

/** The key of `maskValues`' answer for one (label, value). */
export function maskKey(label: string, value: string): string {
  return `${label}\u0000${value}`;
}

/**
 * The clear value of a token this agent was issued for `label`; anything else in token form is
 * refused with `invalid token` (SPEC 2.4): another label's token, a number never issued, or
 * another agent's token.
 */
export async function unmaskValue(db: Knex, agentTokenId: string, label: string, token: string): Promise<string> {
  const match = TOKEN_FORM.exec(token);
  if (!match || match[1] !== label) throw badRequest('invalid token');
  const n = Number(match[2]);
  // Only the number exactly as issued: `NAME_01` is not `NAME_1`.
  if (!Number.isSafeInteger(n) || n < 1 || String(n) !== match[2]) throw badRequest('invalid token');
  const row = await db(MASK_TABLE).select('value').where({ agent_token_id: agentTokenId, label, n }).first();
  if (!row) throw badRequest('invalid token');
  return row.value as string;
}
