/**
 * The outbox's retention (retention/prune.ts runs it in every pass): without it `rms_events` and
 * `rms_webhook_deliveries` would grow with every change for ever.
 *
 * - A delivery goes once it is final and old: `delivered` ones delivered before their cutoff
 *   (`--retain-events-days`), `dead` ones that died before theirs (`--retain-dead-events-days`,
 *   longer, so that `webhook.redeliver` can still send them again). A pending one (due, or in
 *   flight under a lease) is never removed, whatever its age.
 * - An event goes once no delivery of it is left: its deliveries were removed (above, or with
 *   their subscription), or no subscription wanted it. So an event with a pending delivery stays.
 * - But a record's last event always stays, without its copy of the record once nothing will send
 *   it: the next event of the record is numbered after it (`record_seq`, outbox.ts), and receivers
 *   order by that number, so it must never start again from 1. What is kept is one small row per
 *   record that ever changed.
 *
 * Each step is repeated in small batches like the rest of a pass (db/batched-delete.ts),
 * and every condition is on the DELETE itself, not only in the batch's selection: on PostgreSQL a
 * row changed since the selection (a dead delivery redelivered meanwhile) is checked again and kept.
 */
import type { Knex } from 'knex';
import { runInBatches, type BatchOptions } from '../db/batched-delete.ts';
import { DELIVERIES_TABLE, EVENTS_TABLE } from './tables.ts';

export interface EventCutoffs {
  /** Deliveries delivered before it. */
  readonly deliveredBefore?: string;
  /** Deliveries that died (their last attempt) before it. */
  readonly deadBefore?: string;
}

export interface EventPruneReport {
  readonly deliveries: number;
  readonly events: number;
}

export async function pruneEvents(db: Knex, cutoffs: EventCutoffs, options: BatchOptions = {}): Promise<EventPruneReport> {
  const { deliveredBefore, deadBefore } = cutoffs;
  if (deliveredBefore === undefined && deadBefore === undefined) return { deliveries: 0, events: 0 };
  const final = (query: Knex.QueryBuilder) =>
    query.where((either) => {
      if (deliveredBefore !== undefined) either.orWhere((delivered) => delivered.where('status', 'delivered').andWhere('delivered_at', '<', deliveredBefore));
      if (deadBefore !== undefined) either.orWhere((dead) => dead.where('status', 'dead').andWhere('last_at', '<', deadBefore));
    });
  const deliveries = await runInBatches(options, async (size) => {
    const ids = ((await final(db(DELIVERIES_TABLE).select('id')).limit(size)) as { id: string }[]).map((row) => row.id);
    if (ids.length === 0) return { seen: 0, removed: 0 };
    return { seen: ids.length, removed: Number(await final(db(DELIVERIES_TABLE).whereIn('id', ids)).delete()) };
  });
  const events = await pruneUndeliveredEvents(db, options);
  return { deliveries, events };
}

type Key = { model: string; record_id: string; record_seq: number | string };

/**
 * Walks the outbox in the order of its key, a page at a time (each page one range of the primary
 * key: a pass reads every row once, however many it keeps), removing the events of the page no
 * delivery is left of but a record's last, and dropping the copy of the record from that last one.
 */
async function pruneUndeliveredEvents(db: Knex, options: BatchOptions): Promise<number> {
  const e = EVENTS_TABLE;
  const noDelivery = `not exists (select 1 from ${DELIVERIES_TABLE} d where d.model = ${e}.model and d.record_id = ${e}.record_id and d.record_seq = ${e}.record_seq)`;
  const later = `exists (select 1 from ${e} later where later.model = ${e}.model and later.record_id = ${e}.record_id and later.record_seq > ${e}.record_seq)`;
  let after: Key | undefined;
  return runInBatches(options, async (size) => {
    const page = db(e).select('model', 'record_id', 'record_seq').orderBy([{ column: 'model' }, { column: 'record_id' }, { column: 'record_seq' }]).limit(size);
    if (after) page.whereRaw('(model, record_id, record_seq) > (?, ?, ?)', [after.model, after.record_id, Number(after.record_seq)]);
    const keys = (await page) as Key[];
    if (keys.length === 0) return { seen: 0, removed: 0 };
    after = keys[keys.length - 1]!;
    const first = keys[0]!;
    const inPage = (query: Knex.QueryBuilder) =>
      query.whereRaw('(model, record_id, record_seq) >= (?, ?, ?) and (model, record_id, record_seq) <= (?, ?, ?)', [first.model, first.record_id, Number(first.record_seq), after!.model, after!.record_id, Number(after!.record_seq)]).whereRaw(noDelivery);
    const removed = Number(await inPage(db(e)).whereRaw(later).delete());
    // What is left of the page without deliveries is the records' last events: nothing sends them again.
    await inPage(db(e)).whereNotNull('record').update({ record: null });
    return { seen: keys.length, removed };
  });
}
