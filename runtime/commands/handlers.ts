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
import { changedSince, findChange, readHistory, type EntryChange, type FieldChange, type HistoryEntry } from '../history/store.ts';
import { newId } from '../ids.ts';
import type { TokenFor } from '../masking/bindings.ts';
import { encodeCursor } from '../query/cursor.ts';
import type { CompiledList } from '../query/compiled-list.ts';
import type { FieldMeta, StoredLine, StoredRecord } from '../registry.ts';
import { changeIsVisible } from '../view/caller-view.ts';
import type { CommandContext } from './types.ts';
import { changeMany, createMany, revertBatch } from './bulk.ts';
import type { Handler, RecordChange, RevertOf, RunResult } from './results.ts';
import {
  checkNotLocked,
  computeAndCheck,
  linesBefore,
  linesChange,
  linesOfRecord,
  linesOfRecords,
  linesWrite,
  newLines,
  newRecordValues,
  replacedLines,
  sameValue,
  setValue,
  withLines,
  writeLines,
  recordNotFound,
  writeTime,
  type LinesChange,
  type LinesOf,
} from './documents.ts';
import { checkActionFrom } from './workflow.ts';

export type { RecordChange, RevertOf, RunResult };
export { recordNotFound };

export const handlers: Record<CommandKind, Handler> = {
  async get(ctx, db, prepared) {
    const id = prepared.input.id as string;
    const model = ctx.command.model;
    const record = await model.queries.find(db, id);
    if (!record) throw recordNotFound(ctx, id);
    if (model.lines.size === 0) return { shape: 'record', record };
    return { shape: 'record', record: withLines(record, await linesOfRecord(db, model, id)) };
  },

  async list(ctx, db, prepared) {
    const { records, next } = await page(ctx, db, prepared.list!);
    return { shape: 'list', records: await withIncludedLines(ctx, db, records, prepared.input), ...(next ? { next } : {}) };
  },

  async search(ctx, db, prepared) {
    const list = prepared.list!;
    // The count and the page must see one state of the table. On PostgreSQL `db` is a repeatable
    // read transaction (see run.ts). On SQLite it is the database itself: both statements then run
    // on the read-only connection, synchronously, one right after the other in this same turn of
    // the event loop (neither function awaits before its statement runs), so no write of this
    // process can commit between them; and SQLite serves one instance only.
    const [total, { records, next }] = await Promise.all([ctx.command.model.queries.count(db, list), page(ctx, db, list)]);
    return { shape: 'search', records: await withIncludedLines(ctx, db, records, prepared.input), total, ...(next ? { next } : {}) };
  },

  async create(ctx, db, prepared) {
    const model = ctx.command.model;
    const time = writeTime();
    const id = newId();
    const drafted = newRecordValues(model, prepared.input, time);
    const { record, lines } = computeAndCheck(model, { id, ...drafted }, newLines(model, prepared.input, time));
    await checkRefs(ctx, db, record);
    await checkLineRefs(ctx, db, lines);
    await model.queries.insert(db, record as StoredRecord);
    const linesChanged: Record<string, LinesChange> = {};
    for (const [name, list] of model.lines) {
      const added = lines[name] ?? [];
      if (added.length === 0) continue;
      await writeLines(db, list, id, { insert: added.map((line, position) => ({ line, position })), update: [], remove: [] });
      linesChanged[name] = { added, removed: [], changed: [] };
    }
    const after: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(record)) if (name !== 'id' && value !== null && value !== undefined) after[name] = value;
    const change: RecordChange = { recordId: id, givenFields: Object.keys(after), before: {}, after, kept: {}, ...(Object.keys(linesChanged).length > 0 ? { lines: linesChanged } : {}) };
    return { shape: 'record', record: withLines(record as StoredRecord, lines), change };
  },

  async update(ctx, db, prepared) {
    const model = ctx.command.model;
    const { id, ...given } = prepared.input;
    const recordId = id as string;
    const current = await lockRecord(ctx, db, recordId);
    checkNotLocked(ctx, current);
    for (const name of prepared.actions) checkActionFrom(model.meta, model.actions.get(name)!, current);
    const changes: Record<string, unknown> = {};
    const givenLines: Record<string, Record<string, unknown>[]> = {};
    for (const [name, value] of Object.entries(given)) {
      if (model.lines.has(name)) givenLines[name] = value as Record<string, unknown>[];
      else changes[name] = value;
    }
    // A governed field's change runs its action: what the action sets, it sets here too (unless the update gives it).
    const time = writeTime();
    for (const name of prepared.actions) {
      for (const [field, set] of Object.entries(model.actions.get(name)!.set)) if (!(field in changes)) changes[field] = setValue(set, given, time);
    }
    return writeChanges(ctx, db, current, changes, givenLines);
  },

  async delete(ctx, db, prepared) {
    const model = ctx.command.model;
    const recordId = prepared.input.id as string;
    const current = await lockRecord(ctx, db, recordId);
    checkNotLocked(ctx, current);
    const referrer = await model.queries.firstReferrer(db, recordId);
    if (referrer) throw badRequest(`${model.meta.name} ${recordId} is referred to by ${referrer.model} ${referrer.id}`);
    const lines = model.lines.size > 0 ? await linesOfRecord(db, model, recordId) : {};
    const linesChanged: Record<string, LinesChange> = {};
    for (const [name, list] of model.lines) {
      if ((lines[name] ?? []).length === 0) continue;
      linesChanged[name] = { added: [], removed: lines[name]!, changed: [] };
      await list.queries.removeAll(db, recordId);
    }
    await model.queries.remove(db, recordId);
    const { id: _id, ...before } = current;
    return { shape: 'deleted', recordId, change: { recordId, givenFields: [], before, after: {}, kept: {}, ...(Object.keys(linesChanged).length > 0 ? { lines: linesChanged } : {}) } };
  },

  async history(ctx, db, prepared) {
    const { id, limit, offset } = prepared.input as { id: string; limit?: number; offset?: number };
    const model = ctx.command.model;
    // A caller who does not read every field sees only the entries that changed one it reads.
    const visible = ctx.fields.denied.length > 0 ? (changes: Readonly<Record<string, EntryChange>>) => changeIsVisible(ctx.fields, changes) : undefined;
    const { entries, total } = await readHistory(db, model.meta.name, id, { limit, offset }, visible);
    // A record that never existed has no history; one that exists may have none yet (made before history was kept).
    if (total === 0 && !(await model.queries.find(db, id))) throw recordNotFound(ctx, id);
    return { shape: 'history', entries, total };
  },

  /**
   * Puts back what an update changed — its non-governed fields' `from` values, and its line
   * lists as they were — as one update, when none of it changed since: neither by a later entry of
   * the record's history nor otherwise (the record and lines hold what the change wrote). A change
   * that shows the caller nothing (it changed only fields the caller may not read) does not exist
   * for it; one that changed some such field is not reverted, and the refusal does not say which.
   */
  async revert(ctx, db, prepared) {
    const model = ctx.command.model;
    const { id: recordId, change_id: changeId } = prepared.input as { id: string; change_id: string };
    const entry = await findChange(db, changeId);
    if (!entry || entry.model !== model.meta.name || entry.recordId !== recordId || !changeIsVisible(ctx.fields, entry.changes)) {
      throw badRequest(`change ${changeId} not found`);
    }
    const fields = Object.keys(entry.changes).filter((name) => {
      const field = model.fields.get(name);
      return field !== undefined && !field.governed && !field.computed;
    });
    const lists = Object.keys(entry.changes).filter((name) => model.lines.has(name));
    // Writing a field one may not read is refused to an update; a revert may not do it either.
    const unreadable = fields.some((name) => !ctx.fields.readableNames.has(name)) || lists.some((name) => ctx.fields.lines[name]!.denied.length > 0);
    if (entry.kind !== 'update' || (fields.length === 0 && lists.length === 0) || unreadable) throw badRequest(`change ${changeId} cannot be reverted`);
    const current = await lockRecord(ctx, db, recordId);
    checkNotLocked(ctx, current);
    const conflict = new HttpError(409, `${model.meta.name} ${recordId} changed since change ${changeId}`);
    if (fields.some((name) => !sameValue(current[name], (entry.changes[name] as FieldChange).to))) throw conflict;
    if (await changedSince(db, entry, [...fields, ...lists])) throw conflict;
    const changes: Record<string, unknown> = {};
    const restored: Record<string, { value: string; tokens: readonly TokenFor[] }> = {};
    for (const name of fields) {
      const from = (entry.changes[name] as FieldChange).from;
      changes[name] = from;
      const tokens = entry.fromTokens[name];
      if (typeof from === 'string' && tokens && tokens.length > 0) restored[name] = { value: from, tokens };
    }
    const currentLines = lists.length > 0 ? await linesOfRecord(db, model, recordId) : {};
    const givenLines: Record<string, Record<string, unknown>[]> = {};
    for (const name of lists) givenLines[name] = linesBefore(entry.changes[name] as LinesChange, currentLines[name] ?? [], conflict);
    const result = await writeChanges(ctx, db, current, changes, givenLines, { restoreIds: true });
    return { ...result, reverts: { changeId, restored } };
  },

  create_many: (ctx, db, prepared) => createMany(ctx, db, prepared, handlers.create),
  update_many: (ctx, db, prepared) => changeMany(ctx, db, prepared, handlers.update),
  delete_many: (ctx, db, prepared) => changeMany(ctx, db, prepared, handlers.delete),
  revert_batch: (ctx, db, prepared) => revertBatch(ctx, db, prepared, handlers.revert),

  async action(ctx, db, prepared) {
    const model = ctx.command.model;
    const action = ctx.command.meta.action!;
    const { id, ...given } = prepared.input;
    const recordId = id as string;
    const time = writeTime();
    const changes: Record<string, unknown> = {};
    const inputs: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(given)) {
      if (model.fields.has(name)) changes[name] = value;
      else inputs[name] = value;
    }
    for (const [name, set] of Object.entries(action.set)) changes[name] = setValue(set, given, time);
    changes[action.field] = action.to;
    const current = await lockRecord(ctx, db, recordId);
    checkActionFrom(model.meta, action, current);
    const result = await writeChanges(ctx, db, current, changes, {});
    return Object.keys(inputs).length > 0 && result.change ? { ...result, change: { ...result.change, inputs } } : result;
  },
};

/**
 * Writes an update of a record (an update, an action, a revert): its field changes and the line
 * lists given whole, with computed fields worked out and rules checked on the record as it will be;
 * answers the record with its lines and what changed. `restoreIds`: lines given with ids that are
 * no longer the record's are put back under those ids (a revert of their removal).
 */
async function writeChanges(
  ctx: CommandContext,
  db: Knex,
  current: StoredRecord & Readonly<Record<string, unknown>>,
  changes: Record<string, unknown>,
  givenLines: Readonly<Record<string, Record<string, unknown>[]>>,
  options: { readonly restoreIds?: boolean } = {},
): Promise<Extract<RunResult, { shape: 'record' }>> {
  const model = ctx.command.model;
  const recordId = current.id;
  const time = writeTime();
  const currentLines = model.lines.size > 0 ? await linesOfRecord(db, model, recordId) : {};
  const drafted: LinesOf = { ...currentLines };
  for (const [name, given] of Object.entries(givenLines)) {
    const list = model.lines.get(name)!;
    const known = options.restoreIds ? [...(currentLines[name] ?? []), ...given.filter((line) => typeof line.id === 'string' && !(currentLines[name] ?? []).some((kept) => kept.id === line.id)).map((line) => line as StoredLine)] : (currentLines[name] ?? []);
    drafted[name] = replacedLines(model, list, known, given, time);
  }
  const { record, lines } = computeAndCheck(model, { ...current, ...changes }, drafted);
  // Computed fields whose value the write changes are written with it.
  for (const field of model.meta.fields) if (field.computed && !sameValue(current[field.name], record[field.name])) changes[field.name] = record[field.name];
  await checkRefs(ctx, db, changes);
  if (Object.keys(changes).length > 0) await model.queries.update(db, recordId, changes);
  const linesChanged: Record<string, LinesChange> = {};
  for (const [name, list] of model.lines) {
    const before = currentLines[name] ?? [];
    const after = lines[name] ?? before;
    const write = linesWrite(list, before, after);
    if (write.insert.length + write.update.length + write.remove.length === 0) continue;
    await checkLineRefs(ctx, db, { [name]: [...write.insert.map(({ line }) => line), ...write.update.map(({ id, changes: lineChanges }) => ({ id, ...lineChanges }) as StoredLine)] });
    await writeLines(db, list, recordId, write);
    const changed = linesChange(list, before, after);
    if (changed) linesChanged[name] = changed;
  }
  const change = changeOf(recordId, current, changes);
  return {
    shape: 'record',
    record: withLines({ ...current, ...changes } as StoredRecord, lines),
    change: Object.keys(linesChanged).length > 0 ? { ...change, lines: linesChanged } : change,
  };
}

/** `list`/`search` with `include`: the records with the named line lists. */
async function withIncludedLines(ctx: CommandContext, db: Knex, records: StoredRecord[], input: Readonly<Record<string, unknown>>): Promise<StoredRecord[]> {
  const include = (input.include as readonly string[] | undefined) ?? [];
  if (include.length === 0 || records.length === 0) return records;
  const lines = await linesOfRecords(db, ctx.command.model, records.map((record) => record.id), include);
  return records.map((record) => withLines(record, lines.get(record.id) ?? {}));
}

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
    if (sameValue(was, now)) {
      kept[name] = now;
      continue;
    }
    before[name] = was;
    after[name] = now;
  }
  return { recordId, givenFields: Object.keys(changes), before, after, kept };
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
  for (const [name, value] of Object.entries(values)) await checkRef(ctx, db, model.fields.get(name), `${model.meta.name}.${name}`, value);
}

/** The refs of lines written, likewise (`order.items.product: no product with id …`). */
async function checkLineRefs(ctx: CommandContext, db: Knex, lines: Readonly<LinesOf>): Promise<void> {
  const model = ctx.command.model;
  for (const [name, list] of Object.entries(lines)) {
    const compiled = model.lines.get(name)!;
    for (const line of list) for (const [field, value] of Object.entries(line)) await checkRef(ctx, db, compiled.fields.get(field), `${model.meta.name}.${name}.${field}`, value);
  }
}

async function checkRef(ctx: CommandContext, db: Knex, field: FieldMeta | undefined, path: string, value: unknown): Promise<void> {
  if (value === null || value === undefined || field?.kind !== 'ref') return;
  const target = ctx.service.models.get(field.target!)!;
  if (!(await target.queries.lockForRef(db, value as string))) throw badRequest(`${path}: no ${target.meta.name} with id ${String(value)}`);
}
