/**
 * Subscriptions and deliveries as stored (tables.ts), read and written for the webhook commands
 * (commands.ts) and the worker (worker.ts). Secrets are kept in clear: the server signs with them.
 */
import type { Knex } from 'knex';
import { DELIVERIES_TABLE, WEBHOOKS_TABLE } from './tables.ts';

export interface Webhook {
  readonly id: string;
  readonly url: string;
  /** null: every model. */
  readonly models: readonly string[] | null;
  /** null: every command. */
  readonly commands: readonly string[] | null;
  readonly asRole: string;
  readonly secrets: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly createdBy: string;
}

export interface WebhookRow {
  id: string;
  url: string;
  models: string | null;
  commands: string | null;
  as_role: string;
  secrets: string;
  created_at: string;
  updated_at: string;
  created_by: string;
}

/** A row as stored → the webhook. */
export function webhookOf(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    models: row.models === null ? null : (JSON.parse(row.models) as string[]),
    commands: row.commands === null ? null : (JSON.parse(row.commands) as string[]),
    asRole: row.as_role,
    secrets: JSON.parse(row.secrets) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
  };
}

export function webhookRow(webhook: Webhook): WebhookRow {
  return {
    id: webhook.id,
    url: webhook.url,
    models: webhook.models === null ? null : JSON.stringify(webhook.models),
    commands: webhook.commands === null ? null : JSON.stringify(webhook.commands),
    as_role: webhook.asRole,
    secrets: JSON.stringify(webhook.secrets),
    created_at: webhook.createdAt,
    updated_at: webhook.updatedAt,
    created_by: webhook.createdBy,
  };
}

export async function findWebhook(db: Knex, id: string): Promise<Webhook | undefined> {
  const row = (await db<WebhookRow>(WEBHOOKS_TABLE).where({ id }).first()) as WebhookRow | undefined;
  return row && webhookOf(row);
}

/** Every subscription, oldest first. */
export async function allWebhooks(db: Knex): Promise<Webhook[]> {
  return ((await db<WebhookRow>(WEBHOOKS_TABLE).orderBy('id')) as WebhookRow[]).map(webhookOf);
}

/** A delivery's state, as `webhook.deliveries` lists it. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  webhook_id: string;
  model: string;
  record_id: string;
  record_seq: number;
  status: 'pending' | 'delivered' | 'dead';
  attempts: number;
  first_at: string;
  next_at: string;
  lease_until: string | null;
  leased_by: string | null;
  last_at: string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
}

export async function deleteWebhook(db: Knex, id: string): Promise<boolean> {
  await db(DELIVERIES_TABLE).where({ webhook_id: id }).delete();
  return Number(await db(WEBHOOKS_TABLE).where({ id }).delete()) === 1;
}
