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
import { SERVICE_COMMANDS, noModelCommand, type CommandKind, type ServiceKind } from '../command-kinds.ts';
import { HttpError, badRequest } from '../errors.ts';
import { changedSince, findChange, holdsErased, isLinesChange, readHistory, type EntryChange, type FieldChange, type HistoryEntry } from '../history/store.ts';
import { newId } from '../ids.ts';
import { keepBindingsRead, type TokenFor } from '../masking/bindings.ts';
import { encodeCursor } from '../query/cursor.ts';
import { fileTextForAnswer } from '../query/values.ts';
import type { CompiledList } from '../query/compiled-list.ts';
import { ROWS_PER_PAGE } from '../query/list-pages.ts';
import type { StoredRecord } from '../registry.ts';
import { changeIsVisible } from '../view/caller-view.ts';
import type { CommandContext, CompiledModel, PreparedCall } from './types.ts';
import { changeMany, createMany, revertBatch } from './bulk.ts';
import { draftRecord, storedRecord } from './create-record.ts';
import type { Handler, KeptLineFields, RecordChange, RevertOf, RunResult } from './results.ts';
import {
  checkNotLocked,
  computeAndCheck,
  linesBefore,
  linesOfRecord,
  linesOfRecords,
  newLines,
  newRecordValues,
  sameValue,
  setValue,
  withLines,
  writeLines,
  recordNotFound,
  writeTime,
  type LinesChange,
} from './documents.ts';
import { attachFiles } from './attach-files.ts';
import { eraseRecord } from './erase.ts';
import { checkLineRefs, checkRefs, writeChanges } from './record-write.ts';
import { checkActionFrom } from './workflow.ts';

export type { KeptLineFields, RecordChange, RevertOf, RunResult };
export { recordNotFound };

export const handlers: Record<CommandKind, Handler> = {
  async get(ctx, db, prepared) {
    const id = prepared.input.id as string;
    const model = ctx.command.model;
    const { caller } = ctx;
    if (caller.kind === 'agent' && ctx.fields.masked.length > 0 && model.queries.findForAgent) {
      // The agent's bindings on the record come with it: showing it masked reads nothing more.
      const read = await model.queries.findForAgent(db, id, caller.tokenId);
      if (!read) throw recordNotFound(ctx, id);
      const record = model.lines.size === 0 ? read.record : withLines(read.record, await linesOfRecord(db, model, id));
      keepBindingsRead(record, caller.tokenId, read.bindings);
      return { shape: 'record', record };
    }
    const record = await model.queries.find(db, id, ctx.answerIsJsonOnly ? fileTextForAnswer : undefined);
    if (!record) throw recordNotFound(ctx, id);
    if (model.lines.size === 0) return { shape: 'record', record };
    return { shape: 'record', record: withLines(record, await linesOfRecord(db, model, id)) };
  },

  async list(ctx, db, prepared) {
    if (answersByPage(ctx, prepared) && !db.isTransaction) {
      // One statement, one snapshot: a page's worth or fewer is answered whole, as before, without
      // the connection or transaction of its own that paging takes.
      const list = prepared.list!;
      const first = await ctx.command.model.queries.list(db, { ...list, limit: ROWS_PER_PAGE + 1 });
      if (first.length <= ROWS_PER_PAGE) return { shape: 'list', records: first };
      return { shape: 'pages', search: false, open: () => ctx.command.model.queries.listPages(db, list, false) };
    }
    const { records, next } = await page(ctx, db, prepared.list!);
    return { shape: 'list', records: await withIncludedLines(ctx, db, records, prepared.input), ...(next ? { next } : {}) };
  },

  async search(ctx, db, prepared) {
    const list = prepared.list!;
    if (answersByPage(ctx, prepared) && !db.isTransaction) {
      // On SQLite the count and a page's worth read in one turn (see below) answer a small search
      // whole; else the count and the rows in one snapshot of the pages' own (query/list-pages.ts).
      if (ctx.service.dialect === 'sqlite') {
        const [total, first] = await Promise.all([ctx.command.model.queries.count(db, list), ctx.command.model.queries.list(db, { ...list, limit: ROWS_PER_PAGE + 1 })]);
        if (first.length <= ROWS_PER_PAGE) return { shape: 'search', records: first, total };
      }
      return { shape: 'pages', search: true, open: () => ctx.command.model.queries.listPages(db, list, true) };
    }
    // The count and the page must see one state of the table. On PostgreSQL `db` is a repeatable
    // read transaction (see run.ts). On SQLite it is the database itself: both statements then run
    // on the read-only connection, synchronously, one right after the other in this same turn of
    // the event loop (neither function awaits before its statement runs), so no write of this
    // process can commit between them; and SQLite serves one instance only.
    const [total, { records, next }] = await Promise.all([ctx.command.model.queries.count(db, list), page(ctx, db, list)]);
    return { shape: 'search', records: await withIncludedLines(ctx, db, records, prepared.input), total, ...(next ? { next } : {}) };
  },

  async create(ctx, db, prepared) {
    const drafted = await draftRecord(ctx, db, prepared.input, writeTime(ctx.service.clock), prepared.agentTokens);
    await ctx.command.model.queries.insert(db, drafted.record);
    return storedRecord(ctx, db, drafted);
  },

  async update(ctx, db, prepared) {
    const model = ctx.command.model;
    const { id, ...given } = await attachFiles(ctx, db, prepared.input, prepared.agentTokens);
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
    const time = writeTime(ctx.service.clock);
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
    const { fields, lines: lineFields } = revertWrites(model, entry);
    const lists = Object.keys(lineFields);
    // Writing a field one may not read is refused to an update; a revert may not do it either.
    const unreadable = fields.some((name) => !ctx.fields.readableNames.has(name)) || lists.some((name) => ctx.fields.lines[name]!.denied.length > 0);
    // An erased value cannot be put back (commands/erase.ts).
    if (entry.kind !== 'update' || (fields.length === 0 && lists.length === 0) || unreadable || holdsErased(entry.changes)) throw badRequest(`change ${changeId} cannot be reverted`);
    // Nor one it may read but not write (it reads it: the refusal may name it).
    const unwritable = [
      ...fields.filter((name) => !ctx.fields.writableNames.has(name)).map((name) => `${model.meta.name}.${name}`),
      ...lists.flatMap((list) => lineFields[list]!.filter((name) => !ctx.fields.lines[list]!.writableNames.has(name)).map((name) => `${model.meta.name}.${list}.${name}`)),
    ];
    if (unwritable.length > 0) throw new HttpError(403, `${unwritable[0]} cannot be written by your role`);
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

  /** Forgets the record's personal data (commands/erase.ts); a record deleted since can be erased too. */
  async erase(ctx, db, prepared) {
    const id = prepared.input.id as string;
    const erased = await eraseRecord(ctx, db, id);
    if (!erased) throw recordNotFound(ctx, id);
    return erased;
  },

  create_many: (ctx, db, prepared) => createMany(ctx, db, prepared),
  update_many: (ctx, db, prepared) => changeMany(ctx, db, prepared, handlers.update),
  delete_many: (ctx, db, prepared) => changeMany(ctx, db, prepared, handlers.delete),
  revert_batch: (ctx, db, prepared) => revertBatch(ctx, db, prepared, handlers.revert),
  action_many: (ctx, db, prepared) => changeMany(ctx, db, prepared, handlers.action),

  async action(ctx, db, prepared) {
    const model = ctx.command.model;
    const action = ctx.command.meta.action!;
    const { id, ...given } = await attachFiles(ctx, db, prepared.input, prepared.agentTokens);
    const recordId = id as string;
    const time = writeTime(ctx.service.clock);
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

  // The service's own commands (webhook.*) run in runtime/webhooks/commands.ts: no model has one.
  ...(Object.fromEntries([...SERVICE_COMMANDS.values()].map((kind) => [kind, () => noModelCommand(kind)])) as unknown as Record<ServiceKind, Handler>),
};

/**
 * What a revert of an update writes: the fields it puts back (neither governed, which only actions
 * move, nor computed), and per line list it changed, the line fields it puts back — the changed
 * fields of the lines it changed, and those of the lines it brings back — without computed ones.
 */
export function revertWrites(model: CompiledModel, entry: HistoryEntry): { fields: string[]; lines: Record<string, string[]> } {
  const fields: string[] = [];
  const lines: Record<string, string[]> = {};
  for (const [name, change] of Object.entries(entry.changes)) {
    const field = model.fields.get(name);
    if (field && !field.governed && !field.computed) fields.push(name);
    const list = model.lines.get(name);
    if (!list || !isLinesChange(change)) continue;
    const written = new Set<string>();
    for (const { changes } of change.changed) for (const lineField of Object.keys(changes)) written.add(lineField);
    for (const line of change.removed) for (const [lineField, value] of Object.entries(line)) if (value !== null && value !== undefined) written.add(lineField);
    lines[name] = [...written].filter((lineField) => list.fields.get(lineField)?.computed === false);
  }
  return { fields, lines };
}

/**
 * The most records a `list` or `search` without a `limit` answers when it is read whole (over MCP,
 * whose tool result is one message, or with `include`): what one answer holds in memory at once.
 * Over REST without `include` it is sent a page at a time, whatever the number (`answersByPage`).
 */
export const MOST_READ_WHOLE = 10_000;

/**
 * Whether a `list` or `search` is answered a page at a time as it is read (REST, without a
 * `limit`): every record it selects, which may be more than memory holds at once. With `include`
 * it is read whole: a record's lines are read in the snapshot of its row only then.
 */
export function answersByPage(ctx: CommandContext, prepared: PreparedCall): boolean {
  if (!ctx.answerIsJsonOnly || prepared.list === undefined || prepared.list.limit !== undefined) return false;
  return ((prepared.input.include as readonly string[] | undefined) ?? []).length === 0;
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
  if (list.limit === undefined) {
    const records = await queries.list(db, { ...list, limit: MOST_READ_WHOLE + 1 });
    if (records.length > MOST_READ_WHOLE) throw badRequest(`${ctx.command.meta.id} without a limit answers at most ${MOST_READ_WHOLE} records at once here, and more match: give a limit (1 to 5000), with "after": "" to read the rest page by page`);
    return { records };
  }
  if (!list.keyset) return { records: await queries.list(db, list) };
  const records = await queries.list(db, { ...list, limit: list.limit + 1 });
  if (records.length <= list.limit) return { records };
  const shown = records.slice(0, list.limit);
  return { records: shown, next: encodeCursor(list.keyset.keys, shown[shown.length - 1] as Record<string, unknown>) };
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
