/**
 * Masking tokens for personal fields (SPEC 2.4): an agent sees `<LABEL>_<n>` where a person sees
 * the value. Each agent token has its own numbering per label, kept in the database so it survives
 * restarts and is shared by every instance. Two kinds of token share that numbering:
 *
 * - **Shared** tokens stand for a value wherever the agent reads it: the same clear value gives the
 *   same token on every record, model and call (two parties sharing an email show one `EMAIL_n`).
 * - **Written** tokens are issued for a value the agent itself sends in clear. Such a value never
 *   gets a shared token (nor one already issued for an equal value): were it to, an agent could
 *   write a guess and compare the token it gets back with one it holds, and learn whether a value
 *   it has only seen masked equals its guess. A written token is *bound* to the record field it
 *   was written to, and reads of that field show it, for as long as the field keeps that value.
 *
 * Bindings: the agent that wrote a field (in clear, or by sending a token, which binds that
 * token) reads the field through its binding. A binding goes when the field's value changes by
 * anyone else (a person, another agent), or the record is deleted; a write of the same value by
 * someone else leaves it (a re-saved form must not tell the agent anything). It also goes out of
 * use when the stored value no longer matches it (a change made outside the command path). What an
 * agent can and cannot link this way is set out in docs/security.md.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { createTableIfMissing } from '../db/system-tables.ts';
import type { AgentCaller } from '../caller.ts';
import { dialectOf } from '../db/connect.ts';
import { runSelect, selectIn, selectRows } from '../db/statements.ts';
import { badRequest } from '../errors.ts';
import type { FieldMeta } from '../registry.ts';

export const MASK_TABLE = 'rms_mask_tokens';
export const MASK_BINDINGS_TABLE = 'rms_mask_bindings';

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
  await createTableIfMissing(db, MASK_TABLE, (table) => {
    table.string('agent_token_id', 64).notNullable();
    table.string('label', 100).notNullable();
    table.bigInteger('n').notNullable();
    // The lookup key of the token: for a shared token the sha256 of its value (values may be long
    // texts, too long for a btree key), unique per agent and label; for a written token
    // `written:<id>`, which no lookup by value finds.
    table.string('value_hash', 64).notNullable();
    table.text('value').notNullable();
    table.primary(['agent_token_id', 'label', 'n']);
    table.unique(['agent_token_id', 'label', 'value_hash']);
  });
  await createTableIfMissing(db, MASK_BINDINGS_TABLE, (table) => {
    table.string('agent_token_id', 64).notNullable();
    table.string('model', 100).notNullable();
    table.string('record_id', 64).notNullable();
    table.string('field', 100).notNullable();
    table.string('label', 100).notNullable();
    table.bigInteger('n').notNullable();
    /** sha256 of the value the agent wrote: the binding holds only while the field still holds it. */
    table.string('value_hash', 64).notNullable();
    table.primary(['agent_token_id', 'model', 'record_id', 'field']);
    table.index(['model', 'record_id'], 'rms_mask_bindings_record');
  });
}

function hashValue(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function token(label: string, n: number | string): string {
  return `${label}_${Number(n)}`;
}

// ---------------------------------------------------------------------------------------------
// Shared tokens: one per (agent, label, value).

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
    if (!isTransaction(db)) {
      // A read: its new tokens are issued together with those of the reads waiting with it.
      const numbers = await issueTogether(db, agentTokenId, label, hashes);
      for (const [valueHash, value] of hashes) tokens.set(maskKey(label, value), token(label, numbers.get(valueHash)!));
      continue;
    }
    const issued: [string, number][] = [];
    await numbered(db, agentTokenId, label, async (trx) => {
      await lookupTokens(trx, agentTokenId, label, hashes, tokens);
      for (const [valueHash, value] of hashes) {
        const n = await insertNext(trx, agentTokenId, label, valueHash, value);
        tokens.set(maskKey(label, value), token(label, n));
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
 * renumbers or deletes them. So a token that a committed read found is true on every instance
 * for good, and this process keeps the last ones it found (bounded; oldest out first), sparing
 * reads of an agent's masked records a round trip to the database. Only reads outside a
 * transaction fill it: inside one, a row may be the transaction's own and roll back. Keys are
 * agent, label and the value's hash; no clear value is kept.
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

/** Finds the tokens this agent already has for `missing` (value hash → value); found ones move to `tokens`. */
async function lookupTokens(db: Knex, agentTokenId: string, label: string, missing: Map<string, string>, tokens: Map<string, string>): Promise<void> {
  for (const [valueHash, value] of missing) {
    const n = knownTokens.get(knownTokenKey(agentTokenId, label, valueHash));
    if (n === undefined) continue;
    tokens.set(maskKey(label, value), token(label, n));
    missing.delete(valueHash);
  }
  for (const row of await storedTokens(db, agentTokenId, label, [...missing.keys()])) {
    tokens.set(maskKey(label, missing.get(row.value_hash)!), token(label, row.n));
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

// ---------------------------------------------------------------------------------------------
// Numbering, shared by both kinds.

/** Key class of the advisory locks that make numbering per (agent, label) take turns on PostgreSQL. */
const MASK_LOCK_CLASS = 727_376_702;

/**
 * Makes numbering in `trx` take turns until it ends. PostgreSQL: (agent, label)'s advisory lock.
 * SQLite: the database's write lock, taken now (what BEGIN IMMEDIATE does; knex begins deferred),
 * so that reading the last number and writing the next are one turn: a transaction that read first
 * and wrote later could find another process's commit in between and fail (SQLITE_BUSY_SNAPSHOT).
 * A delete of no row takes the lock and changes nothing.
 */
async function lockNumbering(trx: Knex, agentTokenId: string, label: string): Promise<void> {
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
async function numbered(db: Knex, agentTokenId: string, label: string, issue: (db: Knex) => Promise<void>): Promise<void> {
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

/**
 * Stores a token numbered max(n)+1 for (agent, label) in one statement, inside a command's
 * transaction, and returns its number. Transactions take turns (SQLite's one writer, PostgreSQL's
 * advisory lock), but one may still meet a token for the same value that another stored since it
 * looked: the insert then takes that token instead of failing on the unique key; on PostgreSQL a
 * snapshot too old to see it (a REPEATABLE READ `search`) fails to serialize (40001) and the
 * command path runs it again.
 */
async function insertNext(db: Knex, agentTokenId: string, label: string, valueHash: string, value: string): Promise<number> {
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

// ---------------------------------------------------------------------------------------------
// Written tokens and what an agent sends.

/**
 * What an agent's input holds in its personal fields: the clear values to store, and for each
 * field the token the agent knows the value by — the token it sent, or a written token issued now
 * for a value it sent in clear. The tokens are what the agent sees of its own input afterwards:
 * in answers (through bindings), in its plans and in the audit trail.
 */
export interface UnmaskedInput {
  readonly input: Record<string, unknown>;
  /** Field → token, for every personal field the input gives a value. */
  readonly written: Record<string, string>;
}

/**
 * Replaces the tokens in an agent's personal fields with the values they stand for (400 `invalid
 * token` for one it was not issued, SPEC 2.4), and issues a written token for each value sent in
 * clear. Runs before the command's transaction: a written token of a refused call stays unused.
 */
export async function unmaskInput(db: Knex, agent: AgentCaller, masked: readonly FieldMeta[], input: Record<string, unknown>): Promise<UnmaskedInput> {
  const clear: Record<string, unknown> = { ...input };
  const written: Record<string, string> = {};
  for (const field of masked) {
    const value = clear[field.name];
    if (typeof value !== 'string') continue;
    const label = field.maskLabel!;
    if (isTokenForm(value)) {
      clear[field.name] = await unmaskValue(db, agent.tokenId, label, value);
      written[field.name] = value;
    } else {
      let n = 0;
      await numbered(db, agent.tokenId, label, async (trx) => {
        n = await insertNext(trx, agent.tokenId, label, `written:${writtenKey()}`, value);
      });
      written[field.name] = token(label, n);
    }
  }
  return { input: clear, written };
}

let writtenCounter = 0;
/** A key no other written token has: this process's time, a counter and randomness. */
function writtenKey(): string {
  writtenCounter = (writtenCounter + 1) % 1_000_000;
  return `${Date.now().toString(36)}.${writtenCounter.toString(36)}.${createHash('sha256').update(`${process.pid}:${Math.random()}`).digest('hex').slice(0, 24)}`;
}

/**
 * The clear value of a token this agent was issued for `label`; anything else in token form is
 * refused with `invalid token` (SPEC 2.4): another label's token, a number never issued, or
 * another agent's token.
 */
export async function unmaskValue(db: Knex, agentTokenId: string, label: string, value: string): Promise<string> {
  const match = TOKEN_FORM.exec(value);
  if (!match || match[1] !== label) throw badRequest('invalid token');
  const n = Number(match[2]);
  // Only the number exactly as issued: `NAME_01` is not `NAME_1`.
  if (!Number.isSafeInteger(n) || n < 1 || String(n) !== match[2]) throw badRequest('invalid token');
  const row = await db(MASK_TABLE).select('value').where({ agent_token_id: agentTokenId, label, n }).first();
  if (!row) throw badRequest('invalid token');
  return row.value as string;
}

/** An input as the agent that wrote it sees it: its personal values replaced by the tokens it knows them by. */
export function inputAsWritten(input: Readonly<Record<string, unknown>>, written: Readonly<Record<string, string>> | undefined): Record<string, unknown> {
  const seen: Record<string, unknown> = { ...input };
  for (const [field, value] of Object.entries(written ?? {})) if (typeof seen[field] === 'string') seen[field] = value;
  return seen;
}

// ---------------------------------------------------------------------------------------------
// Bindings.

/** Where a write put its personal values, and what they were before. */
export interface PersonalWrite {
  readonly model: string;
  readonly recordId: string;
  /** The agent that wrote the values (directly, or through a plan it proposed); undefined for a person. */
  readonly agentTokenId?: string;
  /** For the agent: field → the token it knows the written value by. */
  readonly written?: Readonly<Record<string, string>>;
  /** Personal fields the write gave a value (or emptied), with the value now stored (null when emptied). */
  readonly values: Readonly<Record<string, string | null>>;
  /** Those of them whose stored value changed. */
  readonly changed: readonly string[];
}

/**
 * Keeps bindings true after a write, in its transaction: the writing agent's fields are bound to
 * the tokens it knows their values by; everyone else's bindings of a field whose value changed go.
 */
export async function rebindAfterWrite(db: Knex, write: PersonalWrite, labels: ReadonlyMap<string, string>): Promise<void> {
  if (write.changed.length > 0) {
    const others = db(MASK_BINDINGS_TABLE).where({ model: write.model, record_id: write.recordId }).whereIn('field', [...write.changed]);
    if (write.agentTokenId !== undefined) others.whereNot('agent_token_id', write.agentTokenId);
    await others.delete();
  }
  if (write.agentTokenId === undefined) return;
  for (const [field, value] of Object.entries(write.values)) {
    const key = { agent_token_id: write.agentTokenId, model: write.model, record_id: write.recordId, field };
    await db(MASK_BINDINGS_TABLE).where(key).delete();
    const written = write.written?.[field];
    const match = written === undefined ? undefined : TOKEN_FORM.exec(written);
    if (value === null || !match || match[1] !== labels.get(field)) continue;
    await db(MASK_BINDINGS_TABLE).insert({ ...key, label: match[1], n: Number(match[2]), value_hash: hashValue(value) });
  }
}

/**
 * For each given field and the value it holds, the tokens agents know that value by through their
 * bindings (a record's history keeps them with the value it replaces: see history/store.ts).
 */
export async function boundTokens(db: Knex, model: string, recordId: string, values: Readonly<Record<string, string>>): Promise<Record<string, { agent: string; token: string }[]>> {
  const fields = Object.keys(values);
  if (fields.length === 0) return {};
  const rows: { agent_token_id: string; field: string; label: string; n: number | string; value_hash: string }[] = await db(MASK_BINDINGS_TABLE)
    .select('agent_token_id', 'field', 'label', 'n', 'value_hash')
    .where({ model, record_id: recordId })
    .whereIn('field', fields);
  const found: Record<string, { agent: string; token: string }[]> = {};
  for (const row of rows) {
    if (row.value_hash !== hashValue(values[row.field]!)) continue;
    (found[row.field] ??= []).push({ agent: row.agent_token_id, token: token(row.label, row.n) });
  }
  return found;
}

/** Binds tokens again (a revert puts back values and, with them, the tokens agents knew them by). */
export async function restoreBindings(db: Knex, model: string, recordId: string, restored: Readonly<Record<string, { value: string; tokens: readonly { agent: string; token: string }[] }>>): Promise<void> {
  for (const [field, { value, tokens }] of Object.entries(restored)) {
    for (const { agent, token: bound } of tokens) {
      const match = TOKEN_FORM.exec(bound);
      if (!match) continue;
      const key = { agent_token_id: agent, model, record_id: recordId, field };
      await db(MASK_BINDINGS_TABLE).where(key).delete();
      await db(MASK_BINDINGS_TABLE).insert({ ...key, label: match[1], n: Number(match[2]), value_hash: hashValue(value) });
    }
  }
}

/** A deleted record keeps no bindings. */
export async function forgetRecord(db: Knex, model: string, recordId: string): Promise<void> {
  await db(MASK_BINDINGS_TABLE).where({ model, record_id: recordId }).delete();
}

// ---------------------------------------------------------------------------------------------
// Reads.

type RecordValue = Record<string, unknown>;

/**
 * The records as `agent` sees them: each personal field as the token the agent's binding gives it,
 * or else its shared token (issued as needed). `masked` are the fields to mask; `model` is the
 * records' model.
 */
export async function maskRecords(db: Knex, agent: AgentCaller, model: string, masked: readonly FieldMeta[], records: readonly RecordValue[]): Promise<RecordValue[]> {
  const ids = records.filter((record) => masked.some((field) => typeof record[field.name] === 'string')).map((record) => String(record.id));
  if (ids.length === 0) return [...records];
  const bound = await bindingsOf(db, agent.tokenId, model, ids);
  const requests: MaskRequest[] = [];
  const out = records.map((record) => ({ ...record }));
  const pending: { record: RecordValue; field: FieldMeta; value: string }[] = [];
  for (const record of out) {
    for (const field of masked) {
      const value = record[field.name];
      if (typeof value !== 'string') continue;
      const binding = bound.get(`${String(record.id)}\u0000${field.name}`);
      if (binding && binding.label === field.maskLabel && binding.valueHash === hashValue(value)) {
        record[field.name] = token(binding.label, binding.n);
        continue;
      }
      requests.push({ label: field.maskLabel!, value });
      pending.push({ record, field, value });
    }
  }
  if (pending.length === 0) return out;
  const tokens = await sharedTokens(db, agent.tokenId, requests);
  for (const { record, field, value } of pending) record[field.name] = tokens.get(maskKey(field.maskLabel!, value));
  return out;
}

interface Binding {
  readonly label: string;
  readonly n: number;
  readonly valueHash: string;
}

/** The agent's bindings on these records of `model`, keyed by `<record id>\0<field>`. */
async function bindingsOf(db: Knex, agentTokenId: string, model: string, ids: readonly string[]): Promise<Map<string, Binding>> {
  const bound = new Map<string, Binding>();
  const rows = await selectIn<{ record_id: string; field: string; label: string; n: number | string; value_hash: string }>(
    db,
    `select record_id, field, label, n, value_hash from ${MASK_BINDINGS_TABLE} where agent_token_id = ? and model = ? and`,
    'record_id',
    [agentTokenId, model],
    [...new Set(ids)],
  );
  for (const row of rows) bound.set(`${row.record_id}\u0000${row.field}`, { label: row.label, n: Number(row.n), valueHash: row.value_hash });
  return bound;
}
