/**
 * Bindings (see tables.ts): the agent that wrote a personal field (in clear, or by sending a
 * token, which binds that token) reads the field through its binding. A binding goes when the
 * field's value changes by anyone else (a person, another agent), or the record is deleted; a write
 * of the same value by someone else leaves it (a re-saved form must not tell the agent anything).
 * It also goes out of use when the stored value no longer matches it (a change made outside the
 * command path). Bindings are kept in the transaction of the write they follow.
 */
import type { Knex } from 'knex';
import { runStatement, selectIn, sqlPlaceholders } from '../db/statements.ts';
import type { MaskBinding } from '../registry.ts';
import { hashValue, MASK_BINDINGS_TABLE, TOKEN_FORM, tokenOf } from './tables.ts';

/** Where a write put its personal values, and what they were before. */
export interface PersonalWrite {
  readonly model: string;
  readonly recordId: string;
  /** The agent that wrote the values (directly, or through a plan it proposed); undefined for a person. */
  readonly agentTokenId?: string;
  /** For the agent: field → the token it knows the written value by. */
  readonly agentTokens?: Readonly<Record<string, string>>;
  /** Personal fields the write gave a value (or emptied), with the value now stored (null when emptied). */
  readonly values: Readonly<Record<string, string | null>>;
  /** Those of them whose stored value changed. */
  readonly changed: readonly string[];
  /** The record was created by this write: nothing is bound to it yet, so nothing to drop. */
  readonly created?: boolean;
}

/**
 * Keeps bindings true after a write: the writing agent's fields are bound to the tokens it knows
 * their values by; everyone else's bindings of a field whose value changed go.
 */
export async function rebindAfterWrite(db: Knex, write: PersonalWrite, labels: ReadonlyMap<string, string>): Promise<void> {
  // SQL written once per shape (runStatement): every update of a personal value runs these, and
  // knex's query builder cost more than SQLite running them.
  if (write.changed.length > 0 && !write.created) {
    const others = write.agentTokenId === undefined ? '' : ' and agent_token_id <> ?';
    await runStatement(db, `${DROP_OF_FIELDS}${sqlPlaceholders(write.changed.length)})${others}`, [
      write.model,
      write.recordId,
      ...write.changed,
      ...(write.agentTokenId === undefined ? [] : [write.agentTokenId]),
    ]);
  }
  if (write.agentTokenId === undefined) return;
  for (const [field, value] of Object.entries(write.values)) {
    const key = [write.agentTokenId, write.model, write.recordId, field];
    if (!write.created) await runStatement(db, DROP_OF_AGENT_FIELD, key);
    const known = write.agentTokens?.[field];
    const match = known === undefined ? undefined : TOKEN_FORM.exec(known);
    if (value === null || !match || match[1] !== labels.get(field)) continue;
    await runStatement(db, INSERT_BINDING, [...key, match[1], Number(match[2]), hashValue(value)]);
  }
}

const DROP_OF_FIELDS = `delete from ${MASK_BINDINGS_TABLE} where model = ? and record_id = ? and field in (`;
const DROP_OF_AGENT_FIELD = `delete from ${MASK_BINDINGS_TABLE} where agent_token_id = ? and model = ? and record_id = ? and field = ?`;
const INSERT_BINDING = `insert into ${MASK_BINDINGS_TABLE} (agent_token_id, model, record_id, field, label, n, value_hash) values (?, ?, ?, ?, ?, ?, ?)`;
const BOUND_TO_FIELDS = `select agent_token_id, field, label, n, value_hash from ${MASK_BINDINGS_TABLE} where model = ? and record_id = ? and field in (`;

/** An agent token that stands for a value (a record's history keeps them with its values). */
export interface TokenFor {
  readonly agent: string;
  readonly token: string;
}

/**
 * For each given field and the value it holds, the tokens agents know that value by through their
 * bindings (a record's history keeps them with the value it replaces: see history/store.ts).
 */
export async function boundTokens(db: Knex, model: string, recordId: string, values: Readonly<Record<string, string>>): Promise<Record<string, TokenFor[]>> {
  const fields = Object.keys(values);
  if (fields.length === 0) return {};
  // In the write's transaction (it reads what the write is about to replace), SQL written once.
  const rows = await runStatement<{ agent_token_id: string; field: string; label: string; n: number | string; value_hash: string }>(
    db,
    `${BOUND_TO_FIELDS}${sqlPlaceholders(fields.length)})`,
    [model, recordId, ...fields],
  );
  const found: Record<string, TokenFor[]> = {};
  for (const row of rows) {
    if (row.value_hash !== hashValue(values[row.field]!)) continue;
    (found[row.field] ??= []).push({ agent: row.agent_token_id, token: tokenOf(row.label, row.n) });
  }
  return found;
}

/** Binds tokens again (a revert puts back values and, with them, the tokens agents knew them by). */
export async function restoreBindings(db: Knex, model: string, recordId: string, restored: Readonly<Record<string, { value: string; tokens: readonly TokenFor[] }>>): Promise<void> {
  for (const [field, { value, tokens }] of Object.entries(restored)) {
    for (const { agent, token: bound } of tokens) {
      const match = TOKEN_FORM.exec(bound);
      if (!match) continue;
      const key = [agent, model, recordId, field];
      await runStatement(db, DROP_OF_AGENT_FIELD, key);
      await runStatement(db, INSERT_BINDING, [...key, match[1], Number(match[2]), hashValue(value)]);
    }
  }
}

/** A deleted record keeps no bindings. */
export async function forgetRecord(db: Knex, model: string, recordId: string): Promise<void> {
  await db(MASK_BINDINGS_TABLE).where({ model, record_id: recordId }).delete();
}

/** The agent's bindings on these records of `model`, keyed by `<record id>\0<field>`. */
export async function bindingsOf(db: Knex, agentTokenId: string, model: string, ids: readonly string[]): Promise<Map<string, MaskBinding>> {
  const bound = new Map<string, MaskBinding>();
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

/** The key of `bindingsOf`'s answer. */
export function bindingKey(recordId: string, field: string): string {
  return `${recordId}\u0000${field}`;
}

/** The column `bindingsColumn` adds to a record's read (a space: no field's name has one). */
export const BINDINGS_COLUMN = 'rms bindings';

/**
 * A column for a model's read of one record (`table` quoted, as its `select` names it): the
 * bindings the agent has on the row, as a JSON array of `[field, label, n, value_hash]`. Its two
 * bound values, the agent token's id and the model, come before the record's id. An agent's `get`
 * reads them with the record (the generated `findForAgent`): on PostgreSQL one round trip, not two.
 */
export function bindingsColumn(dialect: 'sqlite' | 'postgres', table: string): string {
  const row = dialect === 'postgres' ? 'json_agg(json_build_array(b.field, b.label, b.n, b.value_hash))' : 'json_group_array(json_array(b.field, b.label, b.n, b.value_hash))';
  return `(select ${row} from ${MASK_BINDINGS_TABLE} as b where b.agent_token_id = ? and b.model = ? and b.record_id = ${table}."id") as "${BINDINGS_COLUMN}"`;
}

/** `bindingsColumn`'s value (pg parses JSON itself; SQLite answers text) → the bindings, keyed as `bindingsOf`'s. */
export function bindingsFromColumn(recordId: string, value: unknown): Map<string, MaskBinding> {
  const bound = new Map<string, MaskBinding>();
  const rows = (typeof value === 'string' ? (value === '[]' ? [] : JSON.parse(value)) : (value ?? [])) as [string, string, number | string, string][];
  for (const [field, label, n, valueHash] of rows) bound.set(bindingKey(recordId, field), { label, n: Number(n), valueHash });
  return bound;
}

/**
 * Bindings read with a record (the record object as the command answers it → the agent and its
 * bindings on that record), so that showing the record to that agent does not read them again.
 */
const readWithRecord = new WeakMap<object, { readonly agentTokenId: string; readonly bindings: ReadonlyMap<string, MaskBinding> }>();

export function keepBindingsRead(record: object, agentTokenId: string, bindings: ReadonlyMap<string, MaskBinding>): void {
  readWithRecord.set(record, { agentTokenId, bindings });
}

/** The bindings read with this one record (`records` holds one) for this agent; else undefined. */
export function bindingsReadWith(records: readonly object[], agentTokenId: string): ReadonlyMap<string, MaskBinding> | undefined {
  if (records.length !== 1) return undefined;
  const read = readWithRecord.get(records[0]!);
  return read?.agentTokenId === agentTokenId ? read.bindings : undefined;
}
