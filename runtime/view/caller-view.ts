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
 *   reads does not exist for it (history/store.ts pages by the same rule);
 * - an erased value (`{"erased": true}`, runtime/erased.ts) shows as erased to everyone.
 */
import type { Knex } from 'knex';
import type { HistoryEntryInfo, RecordValue } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { CommandKind } from '../command-kinds.ts';
import { takesValueParts, valueParts, withParts, withoutPrefix } from '../masking/value-parts.ts';
import { isLinesChange, type EntryChange, type FieldChange, type HistoryEntry } from '../history/store.ts';
import { bindingKey, bindingsOf, bindingsReadWith } from '../masking/bindings.ts';
import { maskKey, sharedTokens, type MaskRequest } from '../masking/shared-tokens.ts';
import { hashValue, maskedText, tokenOf } from '../masking/tables.ts';
import { isErased } from '../erased.ts';

export { maskedText };
import type { FieldMeta, MaskBinding, StoredLine, StoredRecord } from '../registry.ts';
import type { FieldRights, ModelRights } from '../rights.ts';

/**
 * What an agent's input shows of a personal value it sent in clear when no token was kept for it
 * (a refused, failed or tried call keeps no clear value, so no token stands for it).
 */
export const NOT_KEPT = '[personal value not kept]';

/**
 * What the caller wrote in this call, for an agent's write: by key — a field's name, or
 * `<lines>.<line id>.<field>` for a line's — the value it wrote and the token it knows it by.
 */
export interface OwnWrite {
  readonly values: Readonly<Record<string, unknown>>;
  readonly tokens: Readonly<Record<string, string>>;
}

type Projection = (record: StoredRecord) => RecordValue;
const projections = new WeakMap<ModelRights, Projection>();
const fieldProjections = new WeakMap<FieldRights, Projection>();

/**
 * A stored record (every field, and any line lists it carries) → its `id` and the fields the caller
 * reads, in declaration order; each line likewise. Compiled once per rights; the records the
 * queries read serve every caller.
 */
function projectionFor(rights: ModelRights): Projection {
  let projection = projections.get(rights);
  if (!projection) {
    const fields = fieldProjection(rights, rights.model.fields.length);
    const lines = Object.entries(rights.lines).map(([name, lineRights]) => [name, fieldProjection(lineRights, lineRights.list.fields.length)] as const);
    projection =
      lines.length === 0
        ? fields
        : (record) => {
            const visible = { ...fields(record) } as Record<string, unknown>;
            const values = record as Readonly<Record<string, unknown>>;
            for (const [name, line] of lines) {
              if (Array.isArray(values[name])) visible[name] = (values[name] as StoredRecord[]).map(line);
              else delete visible[name];
            }
            return visible as RecordValue;
          };
    projections.set(rights, projection);
  }
  return projection;
}

/** Its `id` and the readable fields of a record or line (the stored object itself when every one is). */
function fieldProjection(rights: FieldRights, all: number): Projection {
  let projection = fieldProjections.get(rights);
  if (!projection) {
    const names = rights.readable.map((field) => field.name);
    projection =
      names.length === all
        ? (record) => record as RecordValue
        : (record) => {
            const values = record as Readonly<Record<string, unknown>>;
            const visible: Record<string, unknown> = { id: record.id };
            for (const name of names) visible[name] = values[name];
            return visible as RecordValue;
          };
    fieldProjections.set(rights, projection);
  }
  return projection;
}

/**
 * The records as the caller sees them. `own`: what the caller wrote in this call, for an agent's
 * write: the values it gave show the tokens it knows them by, whether or not the write is kept (a
 * dry run) and whatever else holds the same value.
 */
export function recordsAsSeen(db: Knex, caller: Caller, rights: ModelRights, stored: readonly StoredRecord[], own?: OwnWrite): Promise<RecordValue[]> | RecordValue[] {
  const records = stored.map(projectionFor(rights));
  const masksLines = Object.values(rights.lines).some((line) => line.masked.length > 0);
  if (caller.kind !== 'agent' || (rights.masked.length === 0 && !masksLines) || records.length === 0) return records;
  return maskRecords(db, caller.tokenId, rights, records, own, bindingsReadWith(stored, caller.tokenId));
}

/** A personal value to show masked: where it is, what binds it, and the value. */
interface MaskSlot {
  readonly holder: Record<string, unknown>;
  readonly field: FieldMeta;
  /** What bindings call the holder: the model, or `<model>.<lines>` for a line. */
  readonly owner: string;
  readonly id: string;
  /** Its key in `OwnWrite`. */
  readonly key: string;
  readonly value: string;
}

/**
 * Each personal value (of the records and their lines) as the token the agent's own write or
 * binding gives it, or else its shared token (issued as needed).
 */
async function maskRecords(
  db: Knex,
  agentTokenId: string,
  rights: ModelRights,
  records: readonly RecordValue[],
  own: OwnWrite | undefined,
  readWithRecords: ReadonlyMap<string, MaskBinding> | undefined,
): Promise<RecordValue[]> {
  const slots: MaskSlot[] = [];
  const out = records.map((record) => {
    const copy = { ...record } as Record<string, unknown>;
    for (const field of rights.masked) {
      const value = copy[field.name];
      if (value !== null && value !== undefined) slots.push({ holder: copy, field, owner: rights.model.name, id: String(copy.id), key: field.name, value: maskedText(value) });
    }
    for (const [name, line] of Object.entries(rights.lines)) {
      if (line.masked.length === 0 || !Array.isArray(copy[name])) continue;
      copy[name] = (copy[name] as Record<string, unknown>[]).map((item) => {
        const lineCopy = { ...item };
        for (const field of line.masked) {
          const value = lineCopy[field.name];
          const id = String(lineCopy.id);
          if (value !== null && value !== undefined) slots.push({ holder: lineCopy, field, owner: `${rights.model.name}.${name}`, id, key: `${name}.${id}.${field.name}`, value: maskedText(value) });
        }
        return lineCopy;
      });
    }
    return copy;
  });
  const pending: MaskSlot[] = [];
  const needBindings = new Map<string, Set<string>>();
  for (const slot of slots) {
    const mine = own !== undefined && own.tokens[slot.key] !== undefined && maskedText(own.values[slot.key]) === slot.value ? own.tokens[slot.key] : undefined;
    if (mine !== undefined) slot.holder[slot.field.name] = mine;
    else {
      pending.push(slot);
      if (readWithRecords && slot.owner === rights.model.name) continue;
      const ids = needBindings.get(slot.owner) ?? new Set<string>();
      ids.add(slot.id);
      needBindings.set(slot.owner, ids);
    }
  }
  const bound = new Map<string, ReadonlyMap<string, MaskBinding>>();
  if (readWithRecords) bound.set(rights.model.name, readWithRecords);
  for (const [owner, ids] of needBindings) bound.set(owner, await bindingsOf(db, agentTokenId, owner, [...ids]));
  const shared: MaskSlot[] = [];
  for (const slot of pending) {
    const binding = bound.get(slot.owner)?.get(bindingKey(slot.id, slot.field.name));
    if (binding && binding.label === slot.field.maskLabel && binding.valueHash === hashValue(slot.value)) slot.holder[slot.field.name] = tokenOf(binding.label, binding.n);
    else shared.push(slot);
  }
  if (shared.length > 0) {
    const tokens = await sharedTokens(db, agentTokenId, shared.map(({ field, value }): MaskRequest => ({ label: field.maskLabel!, value })));
    for (const slot of shared) slot.holder[slot.field.name] = tokens.get(maskKey(slot.field.maskLabel!, slot.value));
  }
  return out as RecordValue[];
}

/** Whether an entry's changes show the caller anything (a field it reads, or a line field it reads). */
export function changeIsVisible(rights: ModelRights, changes: Readonly<Record<string, EntryChange>>): boolean {
  return Object.keys(visibleChanges(rights, changes)).length > 0;
}

/**
 * A record's history entries as the caller sees them: only the fields it reads, of the record and
 * of its lines (entries that changed none of them are left out); for an agent, personal values as
 * the tokens reads give it — the token it knows a value by (its own write, a binding the entry
 * kept), else the value's shared token — so its history tells it no more than reading the record
 * did.
 */
export async function historyAsSeen(db: Knex, caller: Caller, rights: ModelRights, entries: readonly HistoryEntry[]): Promise<HistoryEntryInfo[]> {
  const visible = entries
    .map((entry) => ({ entry, changes: visibleChanges(rights, entry.changes) }))
    .filter(({ changes }) => Object.keys(changes).length > 0);
  if (caller.kind !== 'agent') return visible.map(({ entry, changes }) => historyInfo(entry, changes));
  const agent = caller.tokenId;
  // Values the agent knows by a token of its own keep it; the rest get shared tokens, in one batch.
  const requests: MaskRequest[] = [];
  const resolvers: (() => void)[] = [];
  const own = (tokens: readonly { agent: string; token: string }[] | undefined) => tokens?.find((token) => token.agent === agent)?.token;
  const mask = (holder: Record<string, unknown>, key: string, field: FieldMeta, token: string | undefined) => {
    const value = holder[key];
    // An erased value shows as erased to everyone: no token stands for the marker.
    if (value === null || value === undefined || isErased(value)) return;
    if (token !== undefined) {
      holder[key] = token;
      return;
    }
    const text = maskedText(value);
    requests.push({ label: field.maskLabel!, value: text });
    resolvers.push(() => (holder[key] = tokens.get(maskKey(field.maskLabel!, text))));
  };
  let tokens = new Map<string, string>();
  const shown = visible.map(({ entry, changes }) => {
    const out: Record<string, EntryChange> = {};
    for (const [name, change] of Object.entries(changes)) {
      if (!isLinesChange(change)) {
        const field = rights.maskedNames.has(name) ? rights.masked.find((candidate) => candidate.name === name)! : undefined;
        const copy: Record<string, unknown> = { ...change };
        if (field) {
          mask(copy, 'from', field, own(entry.fromTokens[name]));
          mask(copy, 'to', field, own(entry.toTokens[name]));
        }
        out[name] = copy as unknown as FieldChange;
        continue;
      }
      const line = rights.lines[name]!;
      const maskedLine = new Map(line.masked.map((field) => [field.name, field]));
      const wholeLine = (item: StoredLine) => {
        const copy: Record<string, unknown> = { ...item };
        for (const [fieldName, field] of maskedLine) mask(copy, fieldName, field, own(entry.toTokens[`${name}.${item.id}.${fieldName}`]));
        return copy as StoredLine;
      };
      out[name] = {
        added: change.added.map(wholeLine),
        removed: change.removed.map(wholeLine),
        changed: change.changed.map(({ id, changes: lineChanges }) => ({
          id,
          changes: Object.fromEntries(
            Object.entries(lineChanges).map(([fieldName, fieldChange]) => {
              const copy: Record<string, unknown> = { ...fieldChange };
              const field = maskedLine.get(fieldName);
              if (field) {
                mask(copy, 'from', field, own(entry.fromTokens[`${name}.${id}.${fieldName}`]));
                mask(copy, 'to', field, own(entry.toTokens[`${name}.${id}.${fieldName}`]));
              }
              return [fieldName, copy as unknown as FieldChange];
            }),
          ),
        })),
        ...(change.order ? { order: change.order } : {}),
      };
    }
    return { entry, changes: out };
  });
  if (requests.length > 0) {
    tokens = await sharedTokens(db, agent, requests);
    for (const resolve of resolvers) resolve();
  }
  return shown.map(({ entry, changes }) => historyInfo(entry, changes));
}

/** The changes of an entry the caller reads: fields it reads; of a line list, the line fields it reads (a change left with nothing shown goes). */
function visibleChanges(rights: ModelRights, changes: Readonly<Record<string, EntryChange>>): Record<string, EntryChange> {
  const visible: Record<string, EntryChange> = {};
  for (const [name, change] of Object.entries(changes)) {
    if (!isLinesChange(change)) {
      if (rights.readableNames.has(name)) visible[name] = change;
      continue;
    }
    const line = rights.lines[name];
    if (!line) continue;
    const project = (item: StoredLine): StoredLine => {
      const kept: Record<string, unknown> = { id: item.id };
      for (const field of line.readable) if (field.name in item) kept[field.name] = item[field.name];
      return kept as StoredLine;
    };
    const changed = change.changed
      .map(({ id, changes: lineChanges }) => ({ id, changes: Object.fromEntries(Object.entries(lineChanges).filter(([field]) => line.readableNames.has(field))) }))
      .filter(({ changes: lineChanges }) => Object.keys(lineChanges).length > 0);
    if (change.added.length + change.removed.length + changed.length === 0 && !change.order) continue;
    visible[name] = { added: change.added.map(project), removed: change.removed.map(project), changed, ...(change.order ? { order: change.order } : {}) };
  }
  return visible;
}

function historyInfo(entry: HistoryEntry, changes: Readonly<Record<string, EntryChange>>): HistoryEntryInfo {
  return {
    change_id: entry.changeId,
    at: entry.at,
    command: entry.command,
    by: { kind: entry.by.actor, username: entry.by.username, agent_label: entry.by.agentLabel ?? null },
    plan_id: entry.planId,
    ...(entry.reverts !== null ? { reverts: entry.reverts } : {}),
    ...(entry.batchId ? { batch_id: entry.batchId } : {}),
    changes: changes as HistoryEntryInfo['changes'],
    ...(entry.inputs ? { inputs: entry.inputs } : {}),
  };
}

/**
 * A command's input as the caller who sent it (or, for a plan, who may decide it) sees it: the
 * plan's and the audit trail's view. Keys that are not fields of the model (`id`, `filter`,
 * `change_id`, …) stay; fields the caller does not read are absent; for an agent, each personal
 * value is the token it knows the value by, or `NOT_KEPT` where none was kept. A bulk command's
 * records, `set` or `input` (`kind`) are each seen so (masking/value-parts.ts).
 */
export function inputAsSeen(
  caller: Caller,
  rights: ModelRights,
  input: Readonly<Record<string, unknown>>,
  agentTokens: Readonly<Record<string, string>> | undefined,
  kind?: CommandKind,
): Record<string, unknown> {
  if (kind !== undefined && takesValueParts(kind)) {
    const parts = valueParts(kind, input).map((part) => inputAsSeen(caller, rights, part.values, withoutPrefix(agentTokens, part.prefix)));
    return withParts(kind, input, parts);
  }
  const fields = new Set(rights.model.fields.map((field) => field.name));
  const agent = caller.kind === 'agent';
  const seen: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const line = rights.lines[key];
    if (line && Array.isArray(value)) {
      seen[key] = value.map((item: Record<string, unknown>, index) => {
        const shown: Record<string, unknown> = {};
        for (const [name, fieldValue] of Object.entries(item)) {
          if (name !== 'id' && !line.readableNames.has(name)) continue;
          shown[name] = agent && line.maskedNames.has(name) && fieldValue !== null && !isErased(fieldValue) ? (agentTokens?.[`${key}.${index}.${name}`] ?? NOT_KEPT) : fieldValue;
        }
        return shown;
      });
    } else if (!fields.has(key)) seen[key] = value;
    else if (!rights.readableNames.has(key)) continue;
    else if (agent && rights.maskedNames.has(key) && value !== null && value !== undefined && !isErased(value)) seen[key] = agentTokens?.[key] ?? NOT_KEPT;
    else seen[key] = value;
  }
  return seen;
}
