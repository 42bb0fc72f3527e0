/**
 * The record as this caller sees it, decided in one place for everything that leaves the service:
 * a command's records, a record's history, a plan's input, an audit row's input (and so CSV, MCP
 * and the web app, which read those). Three rules, from the caller's rights (rights.ts):
 *
 * - a field the caller may not read is absent, and named in `denied` (`<model>.<field>`);
 * - for an agent, a personal field shows a masking token: the one it knows a value it wrote by
 *   (its own input, or its binding: masking/bindings.ts), else the value's shared token
 *   (masking/shared-tokens.ts); never a token that depends on whether a value it sent equals a
 *   stored one;
 * - a change shows only the fields the caller reads: a history entry that changed nothing it
 *   reads does not exist for it (history/store.ts pages by the same rule).
 */
import type { Knex } from 'knex';
import type { HistoryEntryInfo, RecordValue } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { HistoryEntry } from '../history/store.ts';
import { bindingKey, bindingsOf } from '../masking/bindings.ts';
import { maskKey, sharedTokens, type MaskRequest } from '../masking/shared-tokens.ts';
import { hashValue, tokenOf } from '../masking/tables.ts';
import type { FieldMeta, StoredRecord } from '../registry.ts';
import type { ModelRights } from '../rights.ts';

/**
 * What an agent's input shows of a personal value it sent in clear when no token was kept for it
 * (a refused, failed or tried call keeps no clear value, so no token stands for it).
 */
export const NOT_KEPT = '[personal value not kept]';

/** What the caller wrote in this call: the values, and the tokens it knows the personal ones by. */
export interface OwnWrite {
  readonly values: Readonly<Record<string, unknown>>;
  readonly tokens: Readonly<Record<string, string>>;
}

type Projection = (record: StoredRecord) => RecordValue;
const projections = new WeakMap<ModelRights, Projection>();

/**
 * A stored record (every field) → its `id` and the fields the caller reads, in declaration order.
 * Compiled once per rights; the records the queries read serve every caller.
 */
function projectionFor(rights: ModelRights): Projection {
  let projection = projections.get(rights);
  if (!projection) {
    const names = rights.readable.map((field) => field.name);
    // A caller who reads every field gets the stored record itself, already in that order.
    projection =
      names.length === rights.model.fields.length
        ? (record) => record as RecordValue
        : (record) => {
            const values = record as Readonly<Record<string, unknown>>;
            const visible: Record<string, unknown> = { id: record.id };
            for (const name of names) visible[name] = values[name];
            return visible as RecordValue;
          };
    projections.set(rights, projection);
  }
  return projection;
}

/**
 * The records as the caller sees them. `own`: what the caller wrote in this call, for an agent's
 * write: the fields it gave show the tokens it knows their values by, whether or not the write is
 * kept (a dry run) and whatever else holds the same value.
 */
export function recordsAsSeen(db: Knex, caller: Caller, rights: ModelRights, stored: readonly StoredRecord[], own?: OwnWrite): Promise<RecordValue[]> | RecordValue[] {
  const records = stored.map(projectionFor(rights));
  if (caller.kind !== 'agent' || rights.masked.length === 0 || records.length === 0) return records;
  return maskRecords(db, caller.tokenId, rights, records, own);
}

/**
 * Each personal field as the token the agent's own write or binding gives it, or else its shared
 * token (issued as needed).
 */
async function maskRecords(db: Knex, agentTokenId: string, rights: ModelRights, records: readonly RecordValue[], own: OwnWrite | undefined): Promise<RecordValue[]> {
  const masked = rights.masked;
  const out = records.map((record) => ({ ...record }) as Record<string, unknown>);
  const pending: { record: Record<string, unknown>; field: FieldMeta; value: string }[] = [];
  const unbound = out.filter((record) => masked.some((field) => typeof record[field.name] === 'string' && !ownToken(own, field.name, record[field.name])));
  const bound = unbound.length > 0 ? await bindingsOf(db, agentTokenId, rights.model.name, unbound.map((record) => String(record.id))) : new Map();
  for (const record of out) {
    for (const field of masked) {
      const value = record[field.name];
      if (typeof value !== 'string') continue;
      const mine = ownToken(own, field.name, value);
      if (mine !== undefined) {
        record[field.name] = mine;
        continue;
      }
      const binding = bound.get(bindingKey(String(record.id), field.name));
      if (binding && binding.label === field.maskLabel && binding.valueHash === hashValue(value)) {
        record[field.name] = tokenOf(binding.label, binding.n);
        continue;
      }
      pending.push({ record, field, value });
    }
  }
  if (pending.length > 0) {
    const tokens = await sharedTokens(db, agentTokenId, pending.map(({ field, value }): MaskRequest => ({ label: field.maskLabel!, value })));
    for (const { record, field, value } of pending) record[field.name] = tokens.get(maskKey(field.maskLabel!, value));
  }
  return out as RecordValue[];
}

function ownToken(own: OwnWrite | undefined, field: string, value: unknown): string | undefined {
  if (own === undefined || own.values[field] !== value) return undefined;
  return own.tokens[field];
}

/** Whether a change of these fields shows anything to the caller. */
export function changeIsVisible(rights: ModelRights, fields: Iterable<string>): boolean {
  for (const field of fields) if (rights.readableNames.has(field)) return true;
  return false;
}

/**
 * A record's history entries as the caller sees them: only the fields it reads (entries that
 * changed none of them are left out); for an agent, personal values as the tokens reads give it —
 * the token it knows a value by (its own write, a binding the entry kept), else the value's shared
 * token — so its history tells it no more than reading the record did.
 */
export async function historyAsSeen(db: Knex, caller: Caller, rights: ModelRights, entries: readonly HistoryEntry[]): Promise<HistoryEntryInfo[]> {
  const visible = entries
    .map((entry) => ({ entry, changes: Object.fromEntries(Object.entries(entry.changes).filter(([field]) => rights.readableNames.has(field))) }))
    .filter(({ changes }) => Object.keys(changes).length > 0);
  if (caller.kind !== 'agent' || rights.masked.length === 0) return visible.map(({ entry, changes }) => historyInfo(entry, changes));
  const labels = new Map(rights.masked.map((field) => [field.name, field.maskLabel!]));
  // Values the agent knows by a token of its own keep it; the rest get shared tokens, in one batch.
  const requests: MaskRequest[] = [];
  const own = (tokens: readonly { agent: string; token: string }[] | undefined) => tokens?.find((token) => token.agent === caller.tokenId)?.token;
  const sides = visible.map(({ entry, changes }) => {
    const out: Record<string, { from: unknown; to: unknown }> = {};
    for (const [field, change] of Object.entries(changes)) {
      const label = labels.get(field);
      if (label === undefined) {
        out[field] = change;
        continue;
      }
      const side = (value: unknown, token: string | undefined): unknown => {
        if (typeof value !== 'string') return value;
        if (token !== undefined) return { token };
        requests.push({ label, value });
        return { label, value };
      };
      out[field] = { from: side(change.from, own(entry.fromTokens[field])), to: side(change.to, own(entry.toTokens[field])) };
    }
    return { entry, changes: out };
  });
  const tokens = requests.length > 0 ? await sharedTokens(db, caller.tokenId, requests) : new Map<string, string>();
  const resolve = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    if ('token' in value) return (value as { token: string }).token;
    const { label, value: clear } = value as { label: string; value: string };
    return tokens.get(maskKey(label, clear));
  };
  return sides.map(({ entry, changes }) =>
    historyInfo(entry, Object.fromEntries(Object.entries(changes).map(([field, change]) => [field, { from: resolve(change.from), to: resolve(change.to) }]))),
  );
}

function historyInfo(entry: HistoryEntry, changes: Readonly<Record<string, { from: unknown; to: unknown }>>): HistoryEntryInfo {
  return {
    change_id: entry.changeId,
    at: entry.at,
    command: entry.command,
    by: { kind: entry.by.actor, username: entry.by.username, agent_label: entry.by.agentLabel ?? null },
    plan_id: entry.planId,
    ...(entry.reverts !== null ? { reverts: entry.reverts } : {}),
    changes,
  };
}

/**
 * A command's input as the caller who sent it (or, for a plan, who may decide it) sees it: the
 * plan's and the audit trail's view. Keys that are not fields of the model (`id`, `filter`,
 * `change_id`, …) stay; fields the caller does not read are absent; for an agent, each personal
 * value is the token it knows the value by, or `NOT_KEPT` where none was kept.
 */
export function inputAsSeen(caller: Caller, rights: ModelRights, input: Readonly<Record<string, unknown>>, agentTokens: Readonly<Record<string, string>> | undefined): Record<string, unknown> {
  const fields = new Set(rights.model.fields.map((field) => field.name));
  const seen: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (!fields.has(key)) seen[key] = value;
    else if (!rights.readableNames.has(key)) continue;
    else if (caller.kind === 'agent' && rights.maskedNames.has(key) && typeof value === 'string') seen[key] = agentTokens?.[key] ?? NOT_KEPT;
    else seen[key] = value;
  }
  return seen;
}
