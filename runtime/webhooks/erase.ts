/**
 * Events after an erasure (commands/erase.ts): an event keeps the record as it was after its
 * change, to be sent to subscriptions; the erased record's events get `{"erased": true}` where its
 * personal values were (runtime/erased.ts), sent or not, so that none leaves later (a
 * redelivery, a retry) and none stays in the outbox.
 */
import type { Knex } from 'knex';
import type { ErasedValues } from '../erased.ts';
import { EVENTS_TABLE } from './tables.ts';

/** Rewrites the record's events without the values; answers how many changed. */
export async function eraseFromEvents(db: Knex, erasure: { readonly model: string; readonly recordId: string; readonly values: ErasedValues }): Promise<number> {
  if (erasure.values.size === 0) return 0;
  const rows = (await db(EVENTS_TABLE).where({ model: erasure.model, record_id: erasure.recordId }).whereNotNull('record').select('record_seq', 'record')) as { record_seq: number; record: string }[];
  let changed = 0;
  for (const row of rows) {
    const redacted = erasure.values.redact(JSON.parse(row.record));
    if (!redacted.changed) continue;
    await db(EVENTS_TABLE).where({ model: erasure.model, record_id: erasure.recordId, record_seq: row.record_seq }).update({ record: JSON.stringify(redacted.value) });
    changed++;
  }
  return changed;
}
