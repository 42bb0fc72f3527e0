/**
 * Shared tokens (see tables.ts): one per (agent, label, value), the same wherever the agent reads
 * the value. Issued as reads need them: in a write's transaction with it, and for reads outside
 * any transaction together with those of the reads waiting at the same moment.
 */
import type { Knex } from 'knex';
import { runSelect, selectIn } from '../db/statements.ts';
import { hashValue, MASK_TABLE, tokenOf } from './tables.ts';
import { insertNext, lockNumbering, numbered } from './token-store.ts';

/** A pending request to mask one value under one label. */
export interface MaskRequest {
  readonly label: string;
  readonly value: string;
}

/**
 * Returns the shared token for each (label, value), issuing new ones where this agent has none
 * yet. Batched: one lookup per label. Inside a command's transaction (a write) new tokens are
 * issued in it, so that a failed command leaves no half-issued numbering behind; outside one (a
 * read) they are issued together with those of the other reads waiting at the same moment.
 */
export async function sharedTokens(db: Knex, agentTokenId: string, requests: readonly MaskRequest[]): Promise<Map<string, string>> {
  const tokens = new Map<string, string>(); // key: maskKey(label, value)
  // Tokens this process knows (most reads of an agent at work) are answered here, with no
  // statement; the rest (label → value hash → value) are looked up, and issued where missing.
  let unknown: Map<string, Map<string, string>> | undefined;
  for (const { label, value } of requests) {
    const key = maskKey(label, value);
    if (tokens.has(key)) continue;
    const valueHash = hashValue(value);
    const n = knownTokens.get(knownTokenKey(agentTokenId, label, valueHash));
    if (n !== undefined) {
      tokens.set(key, tokenOf(label, n));
      continue;
    }
    unknown ??= new Map();
    let hashes = unknown.get(label);
    if (!hashes) unknown.set(label, (hashes = new Map()));
    hashes.set(valueHash, value);
  }
  if (unknown === undefined) return tokens;
  // Labels in a fixed order: on PostgreSQL each takes a lock below, and two callers must not wait on each other crosswise.
  for (const [label, hashes] of [...unknown].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    await lookupTokens(db, agentTokenId, label, hashes, tokens);
    if (hashes.size === 0) continue;
    if (!isTransaction(db)) {
      // A read: its new tokens are issued together with those of the reads waiting with it.
      const numbers = await issueTogether(db, agentTokenId, label, hashes);
      for (const [valueHash, value] of hashes) tokens.set(maskKey(label, value), tokenOf(label, numbers.get(valueHash)!));
      continue;
    }
    const issued: [string, number][] = [];
    await numbered(db, agentTokenId, label, async (trx) => {
      await lookupTokens(trx, agentTokenId, label, hashes, tokens);
      for (const [valueHash, value] of hashes) {
        const n = await insertNext(trx, agentTokenId, label, valueHash, value);
        tokens.set(maskKey(label, value), tokenOf(label, n));
        issued.push([valueHash, n]);
      }
    });
    // Committed by now unless `db` is a transaction of the caller's (then nothing is kept).
    for (const [valueHash, n] of issued) rememberToken(db, agentTokenId, label, valueHash, n);
  }
  return tokens;
}

/**
 * Issued tokens never change: a token keeps its number and value as long as it exists, and nothing
 * renumbers them. So a token that a committed read found is true on every instance for as long as
 * its agent can read, and this process keeps the last ones it found (bounded; oldest out first),
 * sparing reads of an agent's masked records a round trip to the database. Only reads outside a
 * transaction fill it: inside one, a row may be the transaction's own and roll back. Keys are
 * agent, label and the value's hash; no clear value is kept. Two things remove tokens: retention,
 * only those of agent tokens that can no longer act; and an erasure, which empties the erased
 * values' tokens (erase.ts) and drops them from this process's memory (`forgetKnownValues`).
 */
const KNOWN_TOKENS_MAX = 20_000;
const knownTokens = new Map<string, number>();

function knownTokenKey(agentTokenId: string, label: string, valueHash: string): string {
  return `${agentTokenId}\u0000${label}\u0000${valueHash}`;
}

function isTransaction(db: Knex): boolean {
  return (db as { isTransaction?: boolean }).isTransaction === true;
}

function rememberToken(db: Knex, agentTokenId: string, label: string, valueHash: string, n: number): void {
  if (isTransaction(db)) return;
  if (knownTokens.size >= KNOWN_TOKENS_MAX) knownTokens.delete(knownTokens.keys().next().value as string);
  knownTokens.set(knownTokenKey(agentTokenId, label, valueHash), n);
}

/** Drops what this process remembers of these values' tokens (by value hash), of every agent. */
export function forgetKnownValues(valueHashes: ReadonlySet<string>): void {
  for (const key of [...knownTokens.keys()]) if (valueHashes.has(key.slice(key.lastIndexOf('\u0000') + 1))) knownTokens.delete(key);
}

/** Finds the tokens this agent already has for `missing` (value hash → value); found ones move to `tokens`. */
async function lookupTokens(db: Knex, agentTokenId: string, label: string, missing: Map<string, string>, tokens: Map<string, string>): Promise<void> {
  for (const [valueHash, value] of missing) {
    const n = knownTokens.get(knownTokenKey(agentTokenId, label, valueHash));
    if (n === undefined) continue;
    tokens.set(maskKey(label, value), tokenOf(label, n));
    missing.delete(valueHash);
  }
  for (const row of await storedTokens(db, agentTokenId, label, [...missing.keys()])) {
    tokens.set(maskKey(label, missing.get(row.value_hash)!), tokenOf(label, row.n));
    rememberToken(db, agentTokenId, label, row.value_hash, Number(row.n));
    missing.delete(row.value_hash);
  }
}

/** The tokens stored for these value hashes of (agent, label). */
function storedTokens(db: Knex, agentTokenId: string, label: string, valueHashes: readonly string[]): Promise<{ n: number | string; value_hash: string }[]> {
  return selectIn(db, `select n, value_hash from ${MASK_TABLE} where agent_token_id = ? and label = ? and`, 'value_hash', [agentTokenId, label], valueHashes);
}

/** The key of `sharedTokens`' answer for one (label, value). */
export function maskKey(label: string, value: string): string {
  return `${label}\u0000${value}`;
}

/** A read's new token, waiting to be issued with the others of its moment. */
interface PendingToken {
  readonly agentTokenId: string;
  readonly label: string;
  readonly valueHash: string;
  readonly value: string;
  readonly resolve: (n: number) => void;
  readonly reject: (error: unknown) => void;
}

/** Per database: the reads' tokens waiting, and whether a flush is due or running (one at a time). */
const pendingTokens = new WeakMap<Knex, { queued: PendingToken[]; busy: boolean }>();

/** Rows of one multi-row insert of tokens (five values each). */
const TOKENS_PER_INSERT = 200;

/**
 * Issues the tokens of `hashes` (value hash → value) for (agent, label) outside any transaction,
 * together with those that other reads ask for at the same moment: an agent that reads many new
 * records at once (the first pages of its work) would otherwise issue them one transaction at a
 * time, each waiting on the lock of the one before (on PostgreSQL, 5 round trips under the lock
 * each). Per (agent, label) one transaction takes the numbering lock, finds those issued since
 * (by another instance, or a read just before), and numbers the rest in one insert.
 */
function issueTogether(db: Knex, agentTokenId: string, label: string, hashes: ReadonlyMap<string, string>): Promise<Map<string, number>> {
  let queue = pendingTokens.get(db);
  if (!queue) pendingTokens.set(db, (queue = { queued: [], busy: false }));
  const waiting = [...hashes].map(
    ([valueHash, value]) => new Promise<[string, number]>((resolve, reject) => queue.queued.push({ agentTokenId, label, valueHash, value, resolve: (n) => resolve([valueHash, n]), reject })),
  );
  if (!queue.busy) {
    // One flush at a time: what arrives while one runs waits for the next, which takes all of it.
    // Flushes side by side would each hold a pooled connection while waiting for the same lock,
    // and starve the other requests of connections.
    queue.busy = true;
    setImmediate(async () => {
      try {
        while (queue.queued.length > 0) await issuePending(db, queue.queued.splice(0));
      } finally {
        queue.busy = false;
      }
    });
  }
  return Promise.all(waiting).then((numbers) => new Map(numbers));
}

async function issuePending(db: Knex, pending: readonly PendingToken[]): Promise<void> {
  const groups = new Map<string, PendingToken[]>();
  for (const entry of pending) {
    const key = `${entry.label}\u0000${entry.agentTokenId}`;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  // One transaction per (agent, label), each taking one lock: none waits on another crosswise.
  for (const group of groups.values()) {
    const { agentTokenId, label } = group[0]!;
    try {
      const numbers = new Map<string, number>();
      await db.transaction(async (trx) => {
        await lockNumbering(trx, agentTokenId, label);
        const values = new Map(group.map((entry) => [entry.valueHash, entry.value]));
        for (const row of await storedTokens(trx, agentTokenId, label, [...values.keys()])) numbers.set(row.value_hash, Number(row.n));
        const fresh = [...values].filter(([valueHash]) => !numbers.has(valueHash));
        if (fresh.length === 0) return;
        const [last] = await runSelect<{ n: number | string }>(trx, `select coalesce(max(n), 0) as n from ${MASK_TABLE} where agent_token_id = ? and label = ?`, [agentTokenId, label]);
        let n = Number(last!.n);
        for (let i = 0; i < fresh.length; i += TOKENS_PER_INSERT) {
          const rows = fresh.slice(i, i + TOKENS_PER_INSERT).map(([valueHash, value]) => {
            numbers.set(valueHash, ++n);
            return [agentTokenId, label, n, valueHash, value];
          });
          await trx.raw(`insert into ${MASK_TABLE} (agent_token_id, label, n, value_hash, value) values ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')}`, rows.flat());
        }
      });
      for (const [valueHash, n] of numbers) rememberToken(db, agentTokenId, label, valueHash, n);
      for (const entry of group) entry.resolve(numbers.get(entry.valueHash)!);
    } catch (error) {
      for (const entry of group) entry.reject(error);
    }
  }
}

