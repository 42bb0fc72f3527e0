/**
 * Issuing and finding tokens (see tables.ts): the numbering of (agent, label), which every kind of
 * token shares and which takes turns across transactions and instances; written tokens; and what a
 * token an agent sends stands for.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { runSelect, selectRows } from '../db/statements.ts';
import { badRequest } from '../errors.ts';
import { ERASED_KEY_PREFIX, MASK_TABLE, TOKEN_FORM, WRITTEN_KEY_PREFIX, tokenOf } from './tables.ts';

/** Key class of the advisory locks that make numbering per (agent, label) take turns on PostgreSQL. */
const MASK_LOCK_CLASS = 727_376_702;

/**
 * Makes numbering in `trx` take turns until it ends. PostgreSQL: (agent, label)'s advisory lock.
 * SQLite: the database's write lock, taken now (what BEGIN IMMEDIATE does; knex begins deferred),
 * so that reading the last number and writing the next are one turn: a transaction that read first
 * and wrote later could find another process's commit in between and fail (SQLITE_BUSY_SNAPSHOT).
 * A delete of no row takes the lock and changes nothing.
 */
export async function lockNumbering(trx: Knex, agentTokenId: string, label: string): Promise<void> {
  if (dialectOf(trx) === 'postgres') await trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [MASK_LOCK_CLASS, `${label}:${agentTokenId}`]);
  else await trx.raw(`delete from ${MASK_TABLE} where 0`);
}

/**
 * Runs `issue`, which numbers new tokens for (agent, label) with `insertNext`. PostgreSQL: several
 * instances (or requests) may number at once, and max(n)+1 would give two values one number: a
 * transaction-scoped advisory lock on (agent, label) makes them take turns. It runs in a savepoint
 * of the caller's transaction (its own transaction outside one), and the lock is held until that
 * transaction ends, when the new tokens become visible to others. SQLite runs one statement at a
 * time, and `insertNext` numbers in one statement.
 */
export async function numbered(db: Knex, agentTokenId: string, label: string, issue: (db: Knex) => Promise<void>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return issue(db);
  try {
    await db.transaction(async (trx) => {
      await lockNumbering(trx, agentTokenId, label);
      await issue(trx);
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

/**
 * Stores a token numbered max(n)+1 for (agent, label) in one statement, inside a transaction, and
 * returns its number. Transactions take turns (SQLite's one writer, PostgreSQL's advisory lock),
 * but one may still meet a token for the same value that another stored since it looked: the
 * insert then takes that token instead of failing on the unique key; on PostgreSQL a snapshot too
 * old to see it (a REPEATABLE READ `search`) fails to serialize (40001) and the command path runs
 * it again.
 */
export async function insertNext(db: Knex, agentTokenId: string, label: string, valueHash: string, value: string): Promise<number> {
  const inserted = await runSelect<{ n: number | string }>(
    db,
    `insert into ${MASK_TABLE} (agent_token_id, label, n, value_hash, value) ` +
      `select ?, ?, coalesce(max(n), 0) + 1, ?, ? from ${MASK_TABLE} where agent_token_id = ? and label = ? ` +
      'on conflict (agent_token_id, label, value_hash) do nothing returning n',
    [agentTokenId, label, valueHash, value, agentTokenId, label],
  );
  if (inserted.length > 0) return Number(inserted[0]!.n);
  const existing = await selectRows<{ n: number | string }>(
    db,
    `select n from ${MASK_TABLE} where agent_token_id = ? and label = ? and value_hash = ?`,
    [agentTokenId, label, valueHash],
  );
  if (existing.length === 0) throw new Error(`masking token of ${label} neither inserted nor found`);
  return Number(existing[0]!.n);
}

/**
 * Issues a written token for `value`, which the agent sent in clear, in `trx`: the transaction of
 * the write that stores the value (or of the plan that keeps it), so that a write that is refused,
 * fails or is only tried keeps nothing.
 */
export async function issueWrittenToken(trx: Knex, agentTokenId: string, label: string, value: string): Promise<string> {
  let n = 0;
  await numbered(trx, agentTokenId, label, async (db) => {
    n = await insertNext(db, agentTokenId, label, `${WRITTEN_KEY_PREFIX}${writtenKey()}`, value);
  });
  return tokenOf(label, n);
}

let writtenCounter = 0;
/** A key no other written token has: this process's time, a counter and randomness. */
function writtenKey(): string {
  writtenCounter = (writtenCounter + 1) % 1_000_000;
  return `${Date.now().toString(36)}.${writtenCounter.toString(36)}.${createHash('sha256').update(`${process.pid}:${Math.random()}`).digest('hex').slice(0, 24)}`;
}

/** What a token an agent holds stands for. */
export interface IssuedToken {
  readonly label: string;
  readonly n: number;
  /** The clear value. */
  readonly value: string;
  /** Issued for a value the agent wrote (bound to where it wrote it), not shared by every record holding the value. */
  readonly written: boolean;
}

/**
 * The token `value` as this agent was issued it under `label`; anything else in token form is
 * refused with `invalid token` (SPEC 2.4): another label's token, a number never issued, another
 * agent's token, or one whose value was erased.
 */
export async function findIssuedToken(db: Knex, agentTokenId: string, label: string, value: string): Promise<IssuedToken> {
  const match = TOKEN_FORM.exec(value);
  if (!match || match[1] !== label) throw badRequest('invalid token');
  const n = Number(match[2]);
  // Only the number exactly as issued: `NAME_01` is not `NAME_1`.
  if (!Number.isSafeInteger(n) || n < 1 || String(n) !== match[2]) throw badRequest('invalid token');
  const row = (await db(MASK_TABLE).select('value', 'value_hash').where({ agent_token_id: agentTokenId, label, n }).first()) as { value: string; value_hash: string } | undefined;
  // A token whose value was erased (masking/erase.ts) stands for nothing any more.
  if (!row || row.value_hash.startsWith(ERASED_KEY_PREFIX)) throw badRequest('invalid token');
  return { label, n, value: row.value, written: row.value_hash.startsWith(WRITTEN_KEY_PREFIX) };
}
