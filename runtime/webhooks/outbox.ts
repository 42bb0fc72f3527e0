/**
 * The outbox: every committed change of a record writes one event row in the write's own
 * transaction (commands/run.ts, next to its history entry), so that an event exists exactly when
 * its change committed — a rolled-back write leaves none. Each event has a stable id, the time,
 * the model and record, the command called, who (a person, or an agent and the plan a person
 * approved), the names of the changed fields, a per-record sequence number (1, 2, … in the order
 * the record's changes committed: a write holds its record's lock, so the numbers cannot race)
 * and the record as stored after the change, which each subscription's role shapes when it is
 * sent (worker.ts). A write that changed nothing (no history entry) sends nothing.
 *
 * The record is kept only with an event some subscription is sent (what is sent needs it; nothing
 * else reads it). The event's deliveries — one per subscription that wants it — are made in the same transaction,
 * so that the worker's queue holds every committed event at once (and a record's earlier
 * deliveries always exist when a later one does), and a subscription gets exactly the events
 * written after it was made.
 */
import type { Knex } from 'knex';
import type { AuditActor } from '../audit/store.ts';
import type { RecordChange, RunResult } from '../commands/results.ts';
import type { CommandContext, RecordService } from '../commands/types.ts';
import { kindTraits } from '../command-kinds.ts';
import { newId } from '../ids.ts';
import type { StoredRecord } from '../registry.ts';
import { rowsInsertSql, runPreparedStatement, runStatement, runWrite, sqlIdentifier, sqlIdentifiers } from '../db/statements.ts';
import type { HistoryInsert } from '../history/store.ts';
import { webhookOf, type WebhookRow } from './store.ts';
import { wantsEvent } from './subscriptions.ts';
import { DELIVERIES_TABLE, EVENTS_TABLE, WEBHOOKS_TABLE } from './tables.ts';

/** Who made a change, as an event names them. */
export interface EventActor {
  readonly kind: 'person' | 'agent';
  /** The person; for an agent, the person who made its token. */
  readonly username: string;
  readonly agent_label: string | null;
  /** The approved plan the change ran from. */
  readonly plan_id: string | null;
}

/** One record's change, as the command path gives it to the outbox. */
export interface ChangeEvent {
  readonly model: string;
  readonly recordId: string;
  /** The command called (`lead.update_many` for each record of that bulk command). */
  readonly command: string;
  readonly actor: EventActor;
  readonly changes: readonly string[];
  /** The record after the change, with its lines; null after a delete. */
  readonly record: StoredRecord | null;
  readonly changeId: string | null;
  readonly batchId: string | null;
  /** A create: the record has no event before this one. */
  readonly created: boolean;
}

/** The event of one record's change, from what its handler answered; `by` and `planId` name an approved plan's proposer. */
export async function changeEventOf(
  ctx: CommandContext,
  db: Knex,
  result: RunResult,
  who: { readonly by: AuditActor; readonly planId: string | null },
  keys: { readonly command: string; readonly changeId: string | null; readonly batchId: string | null },
): Promise<ChangeEvent | undefined> {
  if (!('change' in result) || !result.change) return undefined;
  const change = result.change as RecordChange;
  const model = ctx.command.model;
  let record: StoredRecord | null = null;
  if (result.shape === 'record') record = result.record;
  else if (result.shape === 'erased') record = (await recordWithLines(ctx, db, change.recordId)) ?? null;
  return {
    model: model.meta.name,
    recordId: change.recordId,
    command: keys.command,
    actor: eventActorOf(who),
    changes: changedNames(result.shape === 'deleted', change),
    record,
    changeId: keys.changeId,
    batchId: keys.batchId,
    created: kindTraits(ctx.command.meta.kind).change === 'create',
  };
}

const actorsOfWho = new WeakMap<object, EventActor>();

/** Who made a change, as its event names them: one object for the events of one call (its JSON is then written once). */
function eventActorOf(who: { readonly by: AuditActor; readonly planId: string | null }): EventActor {
  let actor = actorsOfWho.get(who);
  if (actor === undefined) actorsOfWho.set(who, (actor = { kind: who.by.actor, username: who.by.username, agent_label: who.by.agentLabel ?? null, plan_id: who.planId }));
  return actor;
}

/** The names of the fields (and line lists) the change wrote a new value to: every field a delete emptied. */
function changedNames(deleted: boolean, change: RecordChange): string[] {
  return [...Object.keys(deleted ? change.before : change.after), ...Object.keys(change.lines ?? {})];
}

async function recordWithLines(ctx: CommandContext, db: Knex, id: string): Promise<StoredRecord | undefined> {
  const model = ctx.command.model;
  const record = await model.queries.find(db, id);
  if (!record || model.lines.size === 0) return record;
  const lines: Record<string, unknown> = {};
  for (const [name, list] of model.lines) lines[name] = (await list.queries.linesOf(db, [id])).get(id) ?? [];
  return { ...record, ...lines } as StoredRecord;
}

/** Rows of one insert: within every database's limit of bound values. */
const ROWS_PER_INSERT = 500;

const EVENT_COLUMNS = ['id', 'at', 'model', 'record_id', 'record_seq', 'command', 'actor', 'changes', 'record', 'change_id', 'batch_id'] as const;
/** `insert into rms_events (…) values (?, …), …` for a number of rows. */
const insertEventsSql = rowsInsertSql(EVENTS_TABLE, EVENT_COLUMNS);
const SELECT_WEBHOOKS = `select * from ${sqlIdentifier(WEBHOOKS_TABLE)} order by ${sqlIdentifier('id')}`;
/**
 * PostgreSQL, a single write's history entry and event: the entry inserted, the event numbered and
 * inserted, and whether any webhook exists, in one round trip (each costs the server more than the
 * statement costs the database: as two statements, the event cost a create 12–17 % more server
 * CPU). The record is added afterwards, for an event some webhook wants.
 */
const insertWithHistoryPg = (historyInsert: string) => `with ${sqlIdentifier('history')} as (${historyInsert}),
inserted as (
  insert into ${sqlIdentifier(EVENTS_TABLE)} (${sqlIdentifiers(EVENT_COLUMNS)})
  select ?, ?, ?, ?, coalesce(max(${sqlIdentifier('record_seq')}), 0) + 1, ?, ?, ?, null, ?, ?
  from ${sqlIdentifier(EVENTS_TABLE)} where ${sqlIdentifier('model')} = ? and ${sqlIdentifier('record_id')} = ?
  returning ${sqlIdentifier('record_seq')}
)
select (select ${sqlIdentifier('record_seq')} from inserted) as ${sqlIdentifier('seq')}, exists (select 1 from ${sqlIdentifier(WEBHOOKS_TABLE)}) as ${sqlIdentifier('subscribed')}`;
const insertWithHistoryPgByText = new Map<string, string>();
const SELECT_LAST_SEQ = `select max(${sqlIdentifier('record_seq')}) as ${sqlIdentifier('seq')} from ${sqlIdentifier(EVENTS_TABLE)} where ${sqlIdentifier('model')} = ? and ${sqlIdentifier('record_id')} = ?`;

/**
 * Writes the events in `db`, the write's transaction, each with its record's next sequence number,
 * and their deliveries to the subscriptions that want them.
 */
export async function writeEvents(db: Knex, service: RecordService, events: readonly ChangeEvent[], now: number): Promise<void> {
  if (events.length === 0) return;
  const at = new Date(now).toISOString();
  const next = await nextSequences(db, events);
  const webhooks = (await runStatement<WebhookRow>(db, SELECT_WEBHOOKS, [])).map(webhookOf);
  const wanting = events.map((event) => webhooks.filter((webhook) => wantsEvent(service.registry, webhook, event)));
  const actors = new Map<EventActor, string>();
  const rows = events.map((event, index) => {
    const key = `${event.model}\u0000${event.recordId}`;
    const seq = next.get(key) ?? 1;
    next.set(key, seq + 1);
    return {
      id: newId(now),
      at,
      model: event.model,
      record_id: event.recordId,
      record_seq: seq,
      command: event.command,
      actor: actors.get(event.actor) ?? actors.set(event.actor, JSON.stringify(event.actor)).get(event.actor)!,
      changes: JSON.stringify(event.changes),
      // Only what is sent needs the record: an event no webhook wants keeps none.
      record: event.record === null || wanting[index]!.length === 0 ? null : JSON.stringify(event.record),
      change_id: event.changeId,
      batch_id: event.batchId,
    };
  });
  // SQL written once per row count: for a bulk command's hundreds of rows knex's builder cost more than the insert.
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    await runWrite(db, insertEventsSql(chunk.length), chunk.flatMap((row) => EVENT_COLUMNS.map((column) => row[column])));
  }
  if (webhooks.length === 0) return;
  await writeDeliveries(db, rows.flatMap((row, index) => wanting[index]!.map((webhook) => ({ row, webhook }))), at, now);
}

/**
 * A single write's history entry (its insert, history/store.ts) and its change's event (none when
 * it makes none), in `db`, the write's transaction: on PostgreSQL in one statement (see
 * `insertWithHistoryPg`), elsewhere the entry's insert and then `writeEvents`.
 */
export async function writeHistoryAndEvent(db: Knex, service: RecordService, history: HistoryInsert, event: ChangeEvent | undefined, now: number): Promise<void> {
  if (event === undefined || service.dialect !== 'postgres') {
    await runStatement(db, history.sql, history.bindings);
    if (event !== undefined) await writeEvents(db, service, [event], now);
    return;
  }
  const at = new Date(now).toISOString();
  const id = newId(now);
  let sql = insertWithHistoryPgByText.get(history.sql);
  if (sql === undefined) insertWithHistoryPgByText.set(history.sql, (sql = insertWithHistoryPg(history.sql)));
  const [inserted] = await runPreparedStatement<{ seq: number | string; subscribed: boolean }>(db, sql, [
    ...history.bindings,
    id,
    at,
    event.model,
    event.recordId,
    event.command,
    JSON.stringify(event.actor),
    JSON.stringify(event.changes),
    event.changeId,
    event.batchId,
    event.model,
    event.recordId,
  ]);
  if (!inserted?.subscribed) return;
  const webhooks = (await runPreparedStatement<WebhookRow>(db, SELECT_WEBHOOKS, [])).map(webhookOf).filter((webhook) => wantsEvent(service.registry, webhook, event));
  if (webhooks.length === 0) return;
  const row = { id, model: event.model, record_id: event.recordId, record_seq: Number(inserted.seq) };
  if (event.record !== null) await db(EVENTS_TABLE).where({ model: row.model, record_id: row.record_id, record_seq: row.record_seq }).update({ record: JSON.stringify(event.record) });
  await writeDeliveries(db, webhooks.map((webhook) => ({ row, webhook })), at, now);
}

/** One delivery per event and webhook that wants it, due at once. */
async function writeDeliveries(
  db: Knex,
  pairs: readonly { readonly row: { readonly id: string; readonly model: string; readonly record_id: string; readonly record_seq: number }; readonly webhook: { readonly id: string } }[],
  at: string,
  now: number,
): Promise<void> {
  const deliveries = pairs.map(({ row, webhook }) => ({ id: newId(now), event_id: row.id, webhook_id: webhook.id, model: row.model, record_id: row.record_id, record_seq: row.record_seq, status: 'pending', attempts: 0, first_at: at, next_at: at }));
  for (let start = 0; start < deliveries.length; start += ROWS_PER_INSERT) await db(DELIVERIES_TABLE).insert(deliveries.slice(start, start + ROWS_PER_INSERT));
}

/**
 * Each record's next sequence number, by `<model>\0<record id>` (absent: 1, a record without
 * events), read in the write's transaction: on SQLite other writes may have run before it in that
 * transaction, uncommitted (runtime/db/write-groups.ts); on PostgreSQL the record's lock orders them.
 */
async function nextSequences(db: Knex, events: readonly ChangeEvent[]): Promise<Map<string, number>> {
  const next = new Map<string, number>();
  // A record just created has no event before this one: no read for it.
  const changed = events.filter((event) => !event.created);
  if (changed.length === 1) {
    const [event] = changed as [ChangeEvent];
    const [row] = await runStatement<{ seq: number | string | null }>(db, SELECT_LAST_SEQ, [event.model, event.recordId]);
    if (row && row.seq !== null) next.set(`${event.model}\u0000${event.recordId}`, Number(row.seq) + 1);
    return next;
  }
  const byModel = new Map<string, Set<string>>();
  for (const event of changed) (byModel.get(event.model) ?? byModel.set(event.model, new Set()).get(event.model)!).add(event.recordId);
  for (const [model, idSet] of byModel) {
    const ids = [...idSet];
    for (let start = 0; start < ids.length; start += ROWS_PER_INSERT) {
      const rows = (await db(EVENTS_TABLE)
        .where({ model })
        .whereIn('record_id', ids.slice(start, start + ROWS_PER_INSERT))
        .groupBy('record_id')
        .select('record_id')
        .max({ seq: 'record_seq' })) as { record_id: string; seq: number | string }[];
      for (const row of rows) next.set(`${model}\u0000${row.record_id}`, Number(row.seq) + 1);
    }
  }
  return next;
}
