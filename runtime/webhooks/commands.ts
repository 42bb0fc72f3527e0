/**
 * The webhook commands — `webhook.create`, `list`, `get`, `update`, `delete`, `deliveries`,
 * `redeliver` — the service's own commands (runtime/command-kinds.ts, `result: 'service'`): only
 * the built-in `admin` role uses them; anyone else, and every agent, gets the 404 of a command that
 * does not exist. Each answers the envelope `{denied: [], value}` and leaves an audit row (its
 * input without secrets). A bad input is a 400 naming the field, and changes nothing.
 */
import type { Knex } from 'knex';
import { auditActor, writeAudit } from '../audit/store.ts';
import type { Caller } from '../caller.ts';
import { SERVICE_COMMANDS, kindTraits, type ServiceKind } from '../command-kinds.ts';
import type { RecordService } from '../commands/types.ts';
import { HttpError, badRequest, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { ADMIN_ROLE } from '../rights.ts';
import { webhookUrl, webhookUrlProblem } from './address.ts';
import { generateSecret, secretKey, secretProblem, textWithoutSecrets, withoutSecrets } from './secrets.ts';
import { allWebhooks, deleteWebhook, findWebhook, webhookRow, type DeliveryRow, type Webhook } from './store.ts';
import { DELIVERIES_TABLE, EVENTS_TABLE, WEBHOOKS_TABLE } from './tables.ts';
import type { WebhookDeliveryInfo, WebhookInfo } from '../shapes/webhooks.ts';

/** What the webhook commands need besides the record service. */
export interface WebhookSettings {
  /** `serve --allow-private-webhooks`: URLs may name loopback and private addresses. */
  readonly allowPrivate: boolean;
}

/** The service commands this caller may use: all of them for a person with `admin`, none for anyone else. */
export function serviceCommandsOf(caller: Caller): string[] {
  return caller.kind === 'person' && caller.roles.includes(ADMIN_ROLE) ? [...SERVICE_COMMANDS.keys()] : [];
}

/** Runs a webhook command for the caller; throws HttpError (404: unknown, or not the caller's; 400: bad input). */
export async function runServiceCommand(service: RecordService, settings: WebhookSettings, caller: Caller, id: string, rawInput: unknown): Promise<{ denied: never[]; value: unknown }> {
  const kind = SERVICE_COMMANDS.get(id);
  if (!kind || !serviceCommandsOf(caller).includes(id)) throw notFound();
  let recordId: string | null = null;
  try {
    if (typeof rawInput !== 'object' || rawInput === null || Array.isArray(rawInput)) throw badRequest('input must be a JSON object');
    const input = rawInput as Record<string, unknown>;
    recordId = typeof input.id === 'string' ? input.id : null;
    const value = await RUNNERS[kind]({ service, settings, caller, command: id }, input);
    if (recordId === null && typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string') recordId = (value as { id: string }).id;
    await writeAudit(service.db, { ...auditActor(caller), command: id, access: kindTraits(kind).access, outcome: 'executed', recordId, input: withoutSecrets(input) });
    return { denied: [], value };
  } catch (error) {
    const input = typeof rawInput === 'object' && rawInput !== null && !Array.isArray(rawInput) ? withoutSecrets(rawInput as Record<string, unknown>) : undefined;
    const base = { ...auditActor(caller), command: id, access: kindTraits(kind).access, recordId, input };
    await writeAudit(service.db, error instanceof HttpError ? { ...base, outcome: 'refused', status: error.status, error: textWithoutSecrets(error.message) } : { ...base, outcome: 'failed', error: 'internal error' });
    throw error;
  }
}

interface Call {
  readonly service: RecordService;
  readonly settings: WebhookSettings;
  readonly caller: Caller;
  readonly command: string;
}

const RUNNERS: Record<ServiceKind, (call: Call, input: Readonly<Record<string, unknown>>) => Promise<unknown>> = {
  async webhook_create(call, input) {
    onlyKeys(call, input, ['url', 'models', 'commands', 'as_role', 'secret', 'secrets']);
    const settings = await readSettings(call, input, undefined);
    const secrets = readSecrets(input) ?? [generateSecret()];
    const now = new Date(call.service.clock.now()).toISOString();
    const webhook: Webhook = {
      id: newId(call.service.clock.now()),
      url: settings.url!,
      models: settings.models ?? null,
      commands: settings.commands ?? null,
      asRole: settings.asRole!,
      secrets,
      createdAt: now,
      updatedAt: now,
      createdBy: auditActor(call.caller).username,
    };
    await call.service.db(WEBHOOKS_TABLE).insert(webhookRow(webhook));
    // The only answer that shows the secrets: the receiver needs them to verify.
    return { ...infoOf(webhook), secrets };
  },

  async webhook_list(call, input) {
    onlyKeys(call, input, []);
    return (await allWebhooks(call.service.db)).map(infoOf);
  },

  async webhook_get(call, input) {
    onlyKeys(call, input, ['id']);
    return infoOf(await existing(call.service.db, input));
  },

  async webhook_update(call, input) {
    const changeable = ['url', 'models', 'commands', 'as_role', 'secret', 'secrets', 'rotate'];
    onlyKeys(call, input, ['id', ...changeable]);
    const webhook = await existing(call.service.db, input);
    if (!changeable.some((key) => input[key] !== undefined)) throw badRequest(`${call.command} has nothing to change: give one or more of ${changeable.join(', ')}`);
    const settings = await readSettings(call, input, webhook);
    const rotated = rotation(call, input, webhook);
    const secrets = rotated?.secrets ?? readSecrets(input);
    const updated: Webhook = {
      ...webhook,
      ...(settings.url !== undefined ? { url: settings.url } : {}),
      ...(settings.models !== undefined ? { models: settings.models } : {}),
      ...(settings.commands !== undefined ? { commands: settings.commands } : {}),
      ...(settings.asRole !== undefined ? { asRole: settings.asRole } : {}),
      ...(secrets ? { secrets } : {}),
      updatedAt: new Date(call.service.clock.now()).toISOString(),
    };
    await call.service.db(WEBHOOKS_TABLE).where({ id: webhook.id }).update(webhookRow(updated));
    // A secret the server made is answered this once, as at create.
    return rotated?.added ? { ...infoOf(updated), new_secret: rotated.added } : infoOf(updated);
  },

  async webhook_delete(call, input) {
    onlyKeys(call, input, ['id']);
    const webhook = await existing(call.service.db, input);
    await call.service.db.transaction((trx) => deleteWebhook(trx, webhook.id));
    return { id: webhook.id };
  },

  async webhook_deliveries(call, input) {
    onlyKeys(call, input, ['id', 'status', 'event_id', 'limit', 'offset']);
    const webhook = await existing(call.service.db, input);
    const status = input.status;
    if (status !== undefined && status !== 'pending' && status !== 'delivered' && status !== 'dead') throw badRequest(`${call.command} status must be pending, delivered or dead`);
    const eventId = optionalString(call, input, 'event_id');
    const limit = wholeNumber(call, input, 'limit', 1, 1000) ?? 100;
    const offset = wholeNumber(call, input, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const selected = () => {
      const query = call.service.db<DeliveryRow>(DELIVERIES_TABLE).where({ webhook_id: webhook.id });
      if (status !== undefined) query.andWhere({ status });
      if (eventId !== undefined) query.andWhere({ event_id: eventId });
      return query;
    };
    const counted = (await selected().count({ n: '*' }).first()) as { n: unknown } | undefined;
    const rows = (await selected()
      .join(EVENTS_TABLE, (on) =>
        on
          .on(`${EVENTS_TABLE}.model`, `${DELIVERIES_TABLE}.model`)
          .andOn(`${EVENTS_TABLE}.record_id`, `${DELIVERIES_TABLE}.record_id`)
          .andOn(`${EVENTS_TABLE}.record_seq`, `${DELIVERIES_TABLE}.record_seq`),
      )
      .select(`${DELIVERIES_TABLE}.*`, `${EVENTS_TABLE}.command as command`)
      .orderBy(`${DELIVERIES_TABLE}.event_id`, 'desc')
      .limit(limit)
      .offset(offset)) as (DeliveryRow & { command: string })[];
    return {
      rows: rows.map((row): WebhookDeliveryInfo => ({
        event_id: row.event_id,
        type: row.command,
        record_id: row.record_id,
        record_seq: Number(row.record_seq),
        status: row.status,
        attempts: Number(row.attempts),
        last_attempt_at: row.last_at,
        last_status: row.last_status === null ? null : Number(row.last_status),
        last_error: row.last_error,
        next_attempt_at: row.status === 'pending' ? row.next_at : null,
        delivered_at: row.delivered_at,
      })),
      total: Number(counted?.n ?? 0),
    };
  },

  async webhook_redeliver(call, input) {
    onlyKeys(call, input, ['id', 'event_id', 'dead']);
    const webhook = await existing(call.service.db, input);
    const eventId = optionalString(call, input, 'event_id');
    const dead = input.dead;
    if (dead !== undefined && dead !== true) throw badRequest(`${call.command} dead must be true (or left out)`);
    if ((eventId === undefined) === (dead === undefined)) throw badRequest(`${call.command} takes event_id (one event) or dead: true (every dead one)`);
    const now = new Date(call.service.clock.now()).toISOString();
    // Sent again from the start: a new day of retries, due at once; the record's order still holds.
    const again = { status: 'pending', first_at: now, next_at: now, lease_until: null, leased_by: null, delivered_at: null };
    const query = call.service.db(DELIVERIES_TABLE).where({ webhook_id: webhook.id });
    if (eventId !== undefined) {
      const found = await call.service.db(DELIVERIES_TABLE).where({ webhook_id: webhook.id, event_id: eventId }).first('id');
      if (!found) throw badRequest(`${call.command} event_id: no event ${eventId} was sent to webhook ${webhook.id}`);
      query.andWhere({ event_id: eventId });
    } else {
      query.andWhere({ status: 'dead' });
    }
    return { redelivered: Number(await query.update(again)) };
  },
};

function infoOf(webhook: Webhook): WebhookInfo {
  return {
    id: webhook.id,
    url: webhook.url,
    models: webhook.models,
    commands: webhook.commands,
    as_role: webhook.asRole,
    secret_count: webhook.secrets.length,
    created_at: webhook.createdAt,
    updated_at: webhook.updatedAt,
    created_by: webhook.createdBy,
  };
}

function onlyKeys(call: Call, input: Readonly<Record<string, unknown>>, allowed: readonly string[]): void {
  const unknown = Object.keys(input).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw badRequest(`${call.command} takes no ${unknown} (it takes ${allowed.length > 0 ? allowed.join(', ') : 'nothing'})`);
}

async function existing(db: Knex, input: Readonly<Record<string, unknown>>): Promise<Webhook> {
  if (typeof input.id !== 'string' || input.id === '') throw badRequest('id is required: the webhook\'s id');
  const webhook = await findWebhook(db, input.id);
  if (!webhook) throw badRequest(`webhook ${input.id} not found`);
  return webhook;
}

function optionalString(call: Call, input: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = input[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw badRequest(`${call.command} ${key} must be a non-empty string`);
  return value;
}

function wholeNumber(call: Call, input: Readonly<Record<string, unknown>>, key: string, min: number, max: number): number | undefined {
  const value = input[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw badRequest(`${call.command} ${key} must be a whole number from ${min} to ${max}`);
  return value;
}

/** The settings the input gives (undefined: not given); `create` (no `current` webhook) requires `url` and `as_role`. */
async function readSettings(
  call: Call,
  input: Readonly<Record<string, unknown>>,
  current: Webhook | undefined,
): Promise<{ url?: string; models?: string[] | null; commands?: string[] | null; asRole?: string }> {
  const { registry } = call.service;
  const settings: { url?: string; models?: string[] | null; commands?: string[] | null; asRole?: string } = {};
  const creating = current === undefined;
  if (input.url !== undefined || creating) {
    if (input.url === undefined || input.url === '') throw badRequest('url is required: the http or https URL events are sent to');
    if (typeof input.url !== 'string') throw badRequest('url must be a string: the http or https URL events are sent to');
    const problem = await webhookUrlProblem(input.url, 'url', call.settings.allowPrivate);
    if (problem) throw badRequest(problem);
    settings.url = webhookUrl(input.url);
  }
  if (input.as_role !== undefined || creating) {
    const role = input.as_role;
    if (role === undefined || role === '') throw badRequest('as_role is required: the role whose field rights shape what is sent');
    if (typeof role !== 'string') throw badRequest('as_role must be a string: the role whose field rights shape what is sent');
    if (role !== ADMIN_ROLE && !Object.hasOwn(registry.roles, role)) throw badRequest(`as_role: no role named ${role} (the roles: ${[ADMIN_ROLE, ...Object.keys(registry.roles).filter((name) => name !== ADMIN_ROLE)].join(', ')})`);
    settings.asRole = role;
  }
  const models = names(input, 'models', 'model names');
  if (models) {
    models.forEach((model, index) => {
      if (!Object.hasOwn(registry.models, model)) throw badRequest(`models[${index}]: no model named ${model}`);
    });
  }
  if (models !== undefined) settings.models = models;
  const commands = names(input, 'commands', 'command names (create, update, an action, …)');
  // The commands must be of the models the webhook will send: those given, else its own; and its
  // own commands, when only the models change, must still be of them.
  const kept = commands === undefined && models !== undefined ? (current?.commands ?? null) : null;
  const checked = commands ?? kept;
  if (checked) {
    const chosen = models !== undefined ? models : (current?.models ?? null);
    const writes = Object.values(registry.commands).filter((command) => kindTraits(command.kind).access === 'write' && (!chosen || chosen.includes(command.model)));
    checked.forEach((name, index) => {
      if (writes.some((command) => command.name === name)) return;
      const named = kept ? `the webhook's commands[${index}]` : `commands[${index}]`;
      throw badRequest(`${named}: no ${chosen ? `model of ${chosen.join(', ')}` : 'model'} has a command ${name} that changes records${kept ? ' (give commands with the models)' : ''}`);
    });
  }
  if (commands !== undefined) settings.commands = commands;
  return settings;
}

/** An optional list of distinct names: null or absent for all. */
function names(input: Readonly<Record<string, unknown>>, key: string, what: string): string[] | null | undefined {
  const value = input[key];
  if (value === undefined || value === null) return value;
  if (!Array.isArray(value)) throw badRequest(`${key} must be a list of ${what}, or null for all`);
  if (value.length === 0) throw badRequest(`${key} must name at least one (leave it out, or null, for all)`);
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item === '') throw badRequest(`${key}[${index}] must be a non-empty string`);
    if (value.indexOf(item) !== index) throw badRequest(`${key}[${index}]: ${item} is named twice`);
  });
  return value as string[];
}

/**
 * `rotate`, for who cannot give the current secret back (the web app: the server never answers
 * it): `add` signs with a new secret besides the current one, `drop_old` keeps only the newer.
 */
function rotation(call: Call, input: Readonly<Record<string, unknown>>, webhook: Webhook): { secrets: string[]; added?: string } | undefined {
  const rotate = input.rotate;
  if (rotate === undefined) return undefined;
  if (input.secret !== undefined || input.secrets !== undefined) throw badRequest(`${call.command} takes rotate or secret(s), not both`);
  if (rotate === 'add') {
    if (webhook.secrets.length !== 1) throw badRequest('rotate: add needs one secret, and the webhook has two: drop the old one first (rotate: drop_old)');
    const added = generateSecret();
    return { secrets: [webhook.secrets[0]!, added], added };
  }
  if (rotate === 'drop_old') {
    if (webhook.secrets.length !== 2) throw badRequest('rotate: drop_old needs two secrets, and the webhook has one');
    return { secrets: [webhook.secrets[1]!] };
  }
  throw badRequest('rotate must be add (a new secret besides the current one) or drop_old (keep only the newer one)');
}

/** `secret` or `secrets` (one or two, for rotation); undefined when neither is given. */
function readSecrets(input: Readonly<Record<string, unknown>>): string[] | undefined {
  if (input.secret !== undefined && input.secrets !== undefined) throw badRequest('give secret or secrets, not both');
  if (input.secret !== undefined) {
    if (typeof input.secret !== 'string') throw badRequest('secret must be a string: whsec_ and the base64 of 24 to 64 random bytes');
    const problem = secretProblem(input.secret, 'secret');
    if (problem) throw badRequest(problem);
    return [input.secret];
  }
  if (input.secrets === undefined) return undefined;
  const secrets = input.secrets;
  if (!Array.isArray(secrets) || secrets.length < 1 || secrets.length > 2) throw badRequest('secrets must be a list of one or two secrets (the old and the new while rotating)');
  secrets.forEach((secret, index) => {
    if (typeof secret !== 'string') throw badRequest(`secrets[${index}] must be a string: whsec_ and the base64 of 24 to 64 random bytes`);
    const problem = secretProblem(secret, `secrets[${index}]`);
    if (problem) throw badRequest(problem);
  });
  if (secrets.length === 2 && secretKey(secrets[0] as string).equals(secretKey(secrets[1] as string))) throw badRequest('secrets[1] is the same as secrets[0]');
  return secrets as string[];
}
