/**
 * Masking after an erasure (see runtime/erased.ts). A token whose value was erased keeps its row,
 * emptied — no value and no hash of one: its number is never issued again (numbering takes the
 * next after the last, and an agent must never find a number it holds standing for another value),
 * and an agent that sends it back is refused with `invalid token`, as for a number never issued.
 * Every agent's tokens of the values go (a value another record also holds gets a new token the next
 * time an agent reads it). The erased record's bindings, and those of its lines, go too, and every
 * binding to an erased value on another record.
 */
import type { Knex } from 'knex';
import type { ErasedValues } from '../erased.ts';
import { forgetKnownValues } from './shared-tokens.ts';
import type { TokenFor } from './bindings.ts';
import { ERASED_KEY_PREFIX, hashValue, MASK_BINDINGS_TABLE, MASK_TABLE, tokenOf } from './tables.ts';

/** Rows of `IN (…)` per statement: well below both databases' limits on bound values. */
const VALUES_PER_STATEMENT = 500;

/** Empties every agent's tokens of these values; answers them. */
export async function eraseMaskedValues(db: Knex, values: ErasedValues): Promise<TokenFor[]> {
  const texts = values.all();
  const erased: TokenFor[] = [];
  for (let i = 0; i < texts.length; i += VALUES_PER_STATEMENT) {
    const chunk = texts.slice(i, i + VALUES_PER_STATEMENT);
    const rows = (await db(MASK_TABLE).whereIn('value', chunk).select('agent_token_id', 'label', 'n')) as { agent_token_id: string; label: string; n: number | string }[];
    for (const row of rows) erased.push({ agent: row.agent_token_id, token: tokenOf(row.label, Number(row.n)) });
    await db(MASK_TABLE)
      .whereIn('value', chunk)
      // Unique per (agent, label), as `n` is.
      .update({ value: '', value_hash: db.raw(`? || cast(n as varchar(20))`, [ERASED_KEY_PREFIX]) });
  }
  forgetKnownValues(new Set(texts.map(hashValue)));
  return erased;
}

/**
 * Removes every agent's bindings to these values, on any record: a binding names a token whose value
 * is erased now (`eraseMaskedValues`), which reads would show and writes refuse. A record that still
 * holds such a value shows the agent a new token for it the next time it reads it. Answers how many.
 */
export async function forgetBindingsOfValues(db: Knex, values: ErasedValues): Promise<number> {
  const hashes = values.all().map(hashValue);
  let removed = 0;
  for (let i = 0; i < hashes.length; i += VALUES_PER_STATEMENT) {
    removed += Number(await db(MASK_BINDINGS_TABLE).whereIn('value_hash', hashes.slice(i, i + VALUES_PER_STATEMENT)).delete());
  }
  return removed;
}

/** Removes the bindings of a record (`owner`: its model, or `<model>.<lines>` for lines) or of several; answers how many. */
export async function forgetBindings(db: Knex, owner: string, ids: readonly string[]): Promise<number> {
  let removed = 0;
  for (let i = 0; i < ids.length; i += VALUES_PER_STATEMENT) {
    removed += Number(await db(MASK_BINDINGS_TABLE).where({ model: owner }).whereIn('record_id', ids.slice(i, i + VALUES_PER_STATEMENT)).delete());
  }
  return removed;
}
