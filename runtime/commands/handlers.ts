/**
 * What each command kind does to the database, given a prepared (validated) command. Dispatched
 * through a `Record<CommandKind, Handler>`. Records are read and written only through the model's
 * generated queries (`CompiledModel.queries`); handlers add what commands mean: the values a new
 * record starts with, and the checks. Handlers run inside the command's transaction for writes and
 * `search`; every check that depends on stored data (record exists, refs exist, current state,
 * references) is made here, inside that transaction, with row locks on PostgreSQL so that
 * concurrent commands cannot slip between check and write. They answer stored records (every
 * field): what the caller sees of them is view/caller-view.ts's.
 */
import type { Knex } from 'knex';
import type { CommandKind } from '../command-kinds.ts';
import { HttpError, badRequest } from '../errors.ts';
import { changedSince, findChange, readHistory, type HistoryEntry } from '../history/store.ts';
import { newId } from '../ids.ts';
import type { TokenFor } from '../masking/bindings.ts';
import { encodeCursor } from '../query/cursor.ts';
import type { CompiledList } from '../query/compiled-list.ts';
import type { StoredRecord } from '../registry.ts';
import { changeIsVisible } from '../view/caller-view.ts';
import type { CommandContext, PreparedCall } from './types.ts';
import { checkActionFrom } from './workflow.ts';

/**
 * What a write did to its record, in JSON values: what history, masking's bindings and the audit
 * trail are kept from. Field values are null when empty.
 */
export interface RecordChange {
  readonly recordId: string;
  /** Fields the input gave (set or emptied), whether or not their value changed; every field a create stored. */
  readonly givenFields: readonly string[];
  /** Before the write: the changed fields (update, action), every field (delete), nothing (create). */
  readonly before: Readonly<Record<string, unknown>>;
  /** After the write: every field a create set, the changed fields of an update or action, nothing for a delete. */
  readonly after: Readonly<Record<string, unknown>>;
  /** Fields the input gave that kept the value they had, with that value (update, action). */
  readonly kept: Readonly<Record<string, unknown>>;
}

/** A revert: the change it put back, and the tokens agents knew the values it put back by (bound again). */
export interface RevertOf {
  readonly changeId: string;
  readonly restored: Readonly<Record<string, { readonly value: string; readonly tokens: readonly TokenFor[] }>>;
}

export type RunResult =
  | { readonly shape: 'record'; readonly record: StoredRecord; readonly change?: RecordChange; readonly reverts?: RevertOf }
  | { readonly shape: 'history'; readonly entries: HistoryEntry[]; readonly total: number }
  /** `next`: keyset paging's cursor of the page's last row, when more rows follow. */
  | { readonly shape: 'list'; readonly records: StoredRecord[]; readonly next?: string }
  | { readonly shape: 'search'; readonly records: StoredRecord[]; readonly total: number; readonly next?: string }
  | { readonly shape: 'deleted'; readonly recordId: string; readonly change: RecordChange };

type Handler = (ctx: CommandContext, db: Knex, prepared: PreparedCall) => Promise<RunResult>;

export const handlers: Record<CommandKind, Handler> = {
  async get(ctx, db, prepared) {
    const id = prepared.input.id as string;
    const record = await ctx.command.model.queries.find(db, id);
    if (!record) throw recordNotFound(ctx, id);
    return { shape: 'record', record };
  },

  async list(ctx, db, prepared) {
    const { records, next } = await page(ctx, db, prepared.list!);
    return { shape: 'list', records, ...(next ? { next } : {}) };
  },

  async search(ctx, db, prepared) {
    const list = prepared.list!;
    // The count and the page must see one state of the table. On PostgreSQL `db` is a repeatable
    // read transaction (see run.ts). On SQLite it is the database itself: both statements then run
    // on the read-only connection, synchronously, one right after the other in this same turn of
    // the event loop (neither function awaits before its statement runs), so no write of this
    // process can commit between them; and SQLite serves one instance only.
    const [total, { records, next }] = await Promise.all([ctx.command.model.queries.count(db, list), page(ctx, db, list)]);
    return { shape: 'search', records, total, ...(next ? { next } : {}) };
  },

  async create(ctx, db, prepared) {
    const model = ctx.command.model;
    const values: Record<string, unknown> = { ...prepared.input };
    // A new record starts at the first option of each governed select.
    for (const field of model.governed) values[field.name] = field.options?.[0] ?? null;
    await checkRefs(ctx, db, values);
    const id = newId();
    const record: StoredRecord & Record<string, unknown> = { id };
    for (const field of model.meta.fields) record[field.name] = values[field.name] ?? null;
    await model.queries.insert(db, record);
    const after: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values)) if (value !== null && value !== undefined) after[name] = value;
    return { shape: 'record', record, change: { recordId: id, givenFields: Object.keys(after), before: {}, after, kept: {} } };
  },

  async update(ctx, db, prepared) {
    const model = ctx.command.model;
    const { id, ...changes } = prepared.input;
    const recordId = id as string;
    const current = await lockRecord(ctx, db, recordId);
    for (const name of prepared.actions) checkActionFrom(model.meta, model.actions.get(name)!, current);
    await checkRefs(ctx, db, changes);
    if (Object.keys(changes).length > 0) await model.queries.update(db, recordId, changes);
    return { shape: 'record', record: { ...current, ...changes }, change: changeOf(recordId, current, changes) };
  },

  async delete(ctx, db, prepared) {
    const model = ctx.command.model;
    const recordId = prepared.input.id as string;
    const current = await lockRecord(ctx, db, recordId);
    const referrer = await model.queries.firstReferrer(db, recordId);
    if (referrer) throw badRequest(`${model.meta.name} ${recordId} is referred to by ${referrer.model} ${referrer.id}`);
    await model.queries.remove(db, recordId);
    const { id: _id, ...before } = current;
    return { shape: 'deleted', recordId, change: { recordId, givenFields: [], before, after: {}, kept: {} } };
  },

  async history(ctx, db, prepared) {
    const { id, limit, offset } = prepared.input as { id: string; limit?: number; offset?: number };
    const model = ctx.command.model;
    // A caller who does not read every field sees only the entries that changed one it reads.
    const visible = ctx.fields.denied.length > 0 ? (fields: readonly string[]) => changeIsVisible(ctx.fields, fields) : undefined;
    const { entries, total } = await readHistory(db, model.meta.name, id, { limit, offset }, visible);
    // A record that never existed has no history; one that exists may have none yet (made before history was kept).
    if (total === 0 && !(await model.queries.find(db, id))) throw recordNotFound(ctx, id);
    return { shape: 'history', entries, total };
  },

  /**
   * Puts back the `from` values of an update's non-governed fields, as one update, when none of
   * them changed since: neither by a later entry of the record's history nor otherwise (the
   * record holds what the change wrote). A change that shows the caller nothing (it changed only
   * fields the caller may not read) does not exist for it; one that changed some such field is not
   * reverted, and the refusal does not say which.
   */
  async revert(ctx, db, prepared) {
    const model = ctx.command.model;
    const { id: recordId, change_id: changeId } = prepared.input as { id: string; change_id: string };
    const entry = await findChange(db, changeId);
    if (!entry || entry.model !== model.meta.name || entry.recordId !== recordId || !changeIsVisible(ctx.fields, Object.keys(entry.changes))) {
      throw badRequest(`change ${changeId} not found`);
    }
    const fields = Object.keys(entry.changes).filter((name) => {
      const field = model.fields.get(name);
      return field !== undefined && !field.governed;
    });
    // Writing a field one may not read is refused to an update; a revert may not do it either.
    if (entry.kind !== 'update' || fields.length === 0 || fields.some((name) => !ctx.fields.readableNames.has(name))) {
      throw badRequest(`change ${changeId} cannot be reverted`);
    }
    const current = await lockRecord(ctx, db, recordId);
    const conflict = new HttpError(409, `${model.meta.name} ${recordId} changed since change ${changeId}`);
    if (fields.some((name) => !sameValue(current[name], entry.changes[name]!.to))) throw conflict;
    if (await changedSince(db, entry, fields)) throw conflict;
    const changes: Record<string, unknown> = {};
    const restored: Record<string, { value: string; tokens: readonly TokenFor[] }> = {};
    for (const name of fields) {
      const from = entry.changes[name]!.from;
      changes[name] = from;
      const tokens = entry.fromTokens[name];
      if (typeof from === 'string' && tokens && tokens.length > 0) restored[name] = { value: from, tokens };
    }
    await checkRefs(ctx, db, changes);
    await model.queries.update(db, recordId, changes);
    return { shape: 'record', record: { ...current, ...changes } as StoredRecord, change: changeOf(recordId, current, changes), reverts: { changeId, restored } };
  },

  async action(ctx, db, prepared) {
    const model = ctx.command.model;
    const action = ctx.command.meta.action!;
    const { id, ...inputs } = prepared.input;
    const recordId = id as string;
    const changes = { ...inputs, [action.field]: action.to };
    const current = await lockRecord(ctx, db, recordId);
    checkActionFrom(model.meta, action, current);
    await checkRefs(ctx, db, inputs);
    await model.queries.update(db, recordId, changes);
    return { shape: 'record', record: { ...current, ...changes } as StoredRecord, change: changeOf(recordId, current, changes) };
  },
};

/**
 * The records of a list or search page. With keyset paging one row more is read, to know whether
 * more follow; then the page's last row gives the cursor of the next one.
 */
async function page(ctx: CommandContext, db: Knex, list: CompiledList): Promise<{ records: StoredRecord[]; next?: string }> {
  const { queries } = ctx.command.model;
  if (!list.keyset || list.limit === undefined) return { records: await queries.list(db, list) };
  const records = await queries.list(db, { ...list, limit: list.limit + 1 });
  if (records.length <= list.limit) return { records };
  const shown = records.slice(0, list.limit);
  return { records: shown, next: encodeCursor(list.keyset.keys, shown[shown.length - 1] as Record<string, unknown>) };
}

/** The change of an update or action: the written fields whose value differs from what was stored, and those that kept it. */
function changeOf(recordId: string, current: Readonly<Record<string, unknown>>, changes: Readonly<Record<string, unknown>>): RecordChange {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(changes)) {
    const was = current[name] ?? null;
    const now = value ?? null;
    if (was === now) {
      kept[name] = now;
      continue;
    }
    before[name] = was;
    after[name] = now;
  }
  return { recordId, givenFields: Object.keys(changes), before, after, kept };
}

/** Stored values compared as JSON values (null for empty). */
function sameValue(a: unknown, b: unknown): boolean {
  return (a ?? null) === (b ?? null);
}

/** `lead X not found`: a record id that does not exist (400, since SPEC's 404 means an unknown command). */
export function recordNotFound(ctx: CommandContext, id: string) {
  return badRequest(`${ctx.command.model.meta.name} ${id} not found`);
}

/**
 * Reads the record (every field, as JSON values) for a check or a change, locking the row on
 * PostgreSQL until the transaction ends; 400 when there is no such record.
 */
async function lockRecord(ctx: CommandContext, db: Knex, id: string): Promise<StoredRecord & Readonly<Record<string, unknown>>> {
  const record = await ctx.command.model.queries.lockForWrite(db, id);
  if (!record) throw recordNotFound(ctx, id);
  return record as StoredRecord & Readonly<Record<string, unknown>>;
}

/** Every non-empty ref value must name an existing record of its target (kept from deletion on PostgreSQL). */
async function checkRefs(ctx: CommandContext, db: Knex, values: Readonly<Record<string, unknown>>): Promise<void> {
  const model = ctx.command.model;
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === undefined) continue;
    const field = model.fields.get(name);
    if (field?.kind !== 'ref') continue;
    const target = ctx.service.models.get(field.target!)!;
    if (!(await target.queries.lockForRef(db, value as string))) throw badRequest(`${model.meta.name}.${name}: no ${target.meta.name} with id ${String(value)}`);
  }
}
