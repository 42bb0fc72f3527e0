/**
 * The tables of events and webhooks: the outbox (`rms_events`, one row per record a committed
 * write changed), the subscriptions (`rms_webhooks`) and one delivery per event and subscription
 * that wants it (`rms_webhook_deliveries`, made with the event: its state, attempts, lease). Created additively like the other
 * `rms_*` tables (db/system-tables.ts), listed in `SYSTEM_TABLES` (system-table-list.ts).
 */
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { createIndexIfMissing, createTableIfMissing } from '../db/system-tables.ts';

/** The index that finds an event's deliveries by the event's key. */
export const DELIVERIES_BY_EVENT_INDEX = 'rms_webhook_deliveries_event_key';

export const EVENTS_TABLE = 'rms_events';
export const WEBHOOKS_TABLE = 'rms_webhooks';
export const DELIVERIES_TABLE = 'rms_webhook_deliveries';

export async function ensureWebhookTables(db: Knex): Promise<void> {
  await createEventsTableIfMissing(db, (table) => {
    /** The event id (`Webhook-Id`): time-ordered, the same on every attempt and redelivery; deliveries name it too. */
    table.string('id', 64).notNullable();
    table.string('at', 32).notNullable();
    table.string('model', 100).notNullable();
    table.string('record_id', 64).notNullable();
    /** 1 for a record's first event, then one more per event of the same record: receivers order by it. */
    table.integer('record_seq').notNullable();
    /** The command called, `<model>.<command>` (a bulk command's for each of its records). */
    table.string('command', 200).notNullable();
    /** JSON `{kind, username, agent_label, plan_id}`. */
    table.text('actor').notNullable();
    /** JSON array of the changed fields' (and line lists') names. */
    table.text('changes').notNullable();
    /**
     * JSON of the stored record after the change (every field, its lines), shaped per subscription
     * when sent; null after a delete, and for an event no subscription was sent.
     */
    table.text('record').nullable();
    table.string('change_id', 64).nullable();
    table.string('batch_id', 64).nullable();
    // Every read of the outbox is by record (its last sequence; a delivery's event; an erasure).
    table.primary(['model', 'record_id', 'record_seq'], 'rms_events_pkey');
  });
  await createTableIfMissing(db, WEBHOOKS_TABLE, (table) => {
    table.string('id', 64).primary();
    table.text('url').notNullable();
    /** JSON array of model names, or null for every model. */
    table.text('models').nullable();
    /** JSON array of command names (`create`, `qualify`, …), or null for every command. */
    table.text('commands').nullable();
    table.string('as_role', 100).notNullable();
    /** JSON array of one or two `whsec_…` secrets: each signs every request. */
    table.text('secrets').notNullable();
    table.string('created_at', 32).notNullable();
    table.string('updated_at', 32).notNullable();
    table.string('created_by', 200).notNullable();
  });
  await createTableIfMissing(db, DELIVERIES_TABLE, (table) => {
    table.string('id', 64).primary();
    table.string('event_id', 64).notNullable();
    table.string('webhook_id', 64).notNullable();
    table.string('model', 100).notNullable();
    table.string('record_id', 64).notNullable();
    table.integer('record_seq').notNullable();
    /** `pending` (due at `next_at`, or in flight under a lease), `delivered` or `dead`. */
    table.string('status', 16).notNullable();
    table.integer('attempts').notNullable().defaultTo(0);
    /** ISO-8601 UTC: when retrying started (made, or redelivered); it dies 24 h later. */
    table.string('first_at', 32).notNullable();
    table.string('next_at', 32).notNullable();
    /** ISO-8601 UTC: until then the instance `leased_by` has it in flight and no other takes it. */
    table.string('lease_until', 32).nullable();
    table.string('leased_by', 200).nullable();
    table.string('last_at', 32).nullable();
    table.integer('last_status').nullable();
    table.text('last_error').nullable();
    table.string('delivered_at', 32).nullable();
    table.unique(['webhook_id', 'event_id'], { indexName: 'rms_webhook_deliveries_event' });
    table.index(['status', 'next_at'], 'rms_webhook_deliveries_due');
    table.index(['webhook_id', 'model', 'record_id', 'record_seq'], 'rms_webhook_deliveries_record');
  });
  // An event's deliveries, whatever their subscription: retention removes an event none is left of
  // (prune.ts). Made apart from the table, so that a database made before it gets it too.
  await createIndexIfMissing(db, DELIVERIES_BY_EVENT_INDEX, DELIVERIES_TABLE, ['model', 'record_id', 'record_seq']);
}

/**
 * The outbox's table. It is written with every change, so it is kept to one B-tree on SQLite: a
 * table without a rowid, its rows kept in the order of their key (model, record, sequence),
 * which is every lookup's (an id column with its own index, and a rowid table besides, would
 * write three for each change: measured, a fifth of a single write's time). PostgreSQL: a table
 * with that primary key.
 */
async function createEventsTableIfMissing(db: Knex, build: (table: Knex.CreateTableBuilder) => void): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return createTableIfMissing(db, EVENTS_TABLE, build);
  if (await db.schema.hasTable(EVENTS_TABLE)) return;
  const [create, ...rest] = db.schema.createTable(EVENTS_TABLE, build).toSQL();
  await db.raw(`${create!.sql} without rowid`, create!.bindings);
  for (const statement of rest) await db.raw(statement.sql, statement.bindings);
}
