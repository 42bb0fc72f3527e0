/**
 * Bulk commands (`create_many`, `update_many`, `delete_many`, `<action>_many`, `revert_batch`):
 * each record goes through the single-record command of its kind — the same handler (a create's
 * two steps, create-record.ts), with its rules, computed fields, line lists, refs, uniques, locks
 * and write rights — inside the bulk command's one transaction, so that a record that fails undoes
 * them all. run.ts then keeps a history entry and an audit row per record (sharing one batch id).
 * A refusal names the record: by its index in `records`, or by its id.
 */
import type { Knex } from 'knex';
import { HttpError, badRequest } from '../errors.ts';
import { findBatch } from '../history/store.ts';
import type { BatchItem, Handler, RunResult } from './results.ts';
import { draftRecord, storedRecord, type DraftedRecord } from './create-record.ts';
import { writeTime } from './documents.ts';
import { prepareCommand } from './prepare.ts';
import { withoutPrefix } from '../masking/value-parts.ts';
import { moreThanAllowed, namingRecord, singleContext } from './single.ts';
import type { CommandContext, PreparedCall, PreparedCommand } from './types.ts';

/**
 * `create_many`: each of `records` (validated as `create` validates its input) created as `create`
 * creates one (create-record.ts): drafted and checked in turn, then their rows stored a few
 * hundred a statement, then each one's lines. The first record refused, in their order, names the
 * refusal, as when each was created in turn.
 */
export async function createMany(ctx: CommandContext, db: Knex, prepared: PreparedCall): Promise<RunResult> {
  const single = singleContext(ctx, 'create');
  const records = prepared.input.records as Record<string, unknown>[];
  const drafts: DraftedRecord[] = [];
  for (const [index, input] of records.entries()) {
    try {
      drafts.push(await draftRecord(single, db, input, writeTime(ctx.service.clock), tokensOfPart(prepared, `records.${index}.`).agentTokens));
    } catch (error) {
      // A record before it that its row refuses (a unique value) was refused first. (A failure
      // that is no refusal may have ended the transaction: it is thrown as it is.)
      if (error instanceof HttpError) await storeRows(ctx, single, db, drafts);
      throw namingRecord(ctx, `records[${index}]`, error);
    }
  }
  await storeRows(ctx, single, db, drafts);
  const items: BatchItem[] = [];
  for (const [index, drafted] of drafts.entries()) {
    const one: PreparedCommand = { command: single.command.meta.id, input: records[index]!, actions: [], recordId: null, needsApproval: false, ...tokensOfPart(prepared, `records.${index}.`) };
    try {
      items.push({ ctx: single, prepared: one, result: await storedRecord(single, db, drafted) });
    } catch (error) {
      throw namingRecord(ctx, `records[${index}]`, error);
    }
  }
  return { shape: 'batch', items };
}

/**
 * The drafted records' rows, several a statement, in a savepoint: a statement the database
 * refuses does not say which record, so then they are stored one by one, and the first refused is
 * named by its index.
 */
async function storeRows(ctx: CommandContext, single: CommandContext, db: Knex, drafts: readonly DraftedRecord[]): Promise<void> {
  if (drafts.length === 0) return;
  const { queries } = single.command.model;
  const rows = drafts.map((drafted) => drafted.record);
  try {
    await db.transaction((savepoint) => queries.insertMany(savepoint, rows));
    return;
  } catch {
    // Rolled back to the savepoint: found below, record by record.
  }
  for (const [index, row] of rows.entries()) {
    try {
      await queries.insert(db, row);
    } catch (error) {
      throw namingRecord(ctx, `records[${index}]`, error);
    }
  }
}

/**
 * `update_many`, `delete_many`, `<action>_many`: the records `ids` or the filter selects (in id
 * order), refused as a whole when they are more than `max_affected`; then each updated (with `set`,
 * preparing the action a governed field's change runs from that record's state), deleted, or moved
 * by the action (with `input`; the action's from-state rule checked on each record) in turn.
 */
export async function changeMany(ctx: CommandContext, db: Knex, prepared: PreparedCall, change: Handler): Promise<RunResult> {
  const kind = SINGLE_KIND[ctx.command.meta.kind as keyof typeof SINGLE_KIND];
  const single = singleContext(ctx, kind);
  const ids = await selectedIds(ctx, db, prepared);
  const set = (prepared.input.set as Record<string, unknown> | undefined) ?? {};
  const actionInput = (prepared.input.input as Record<string, unknown> | undefined) ?? {};
  const { meta } = single.command;
  // The agent's tokens of the values of `set` or `input`, as each record's single command keys them.
  const tokens = tokensOfPart(prepared, kind === 'update' ? 'set.' : 'input.');
  const items: BatchItem[] = [];
  for (const id of ids) {
    try {
      const one: PreparedCommand =
        kind === 'update'
          ? { ...(await prepareCommand(single, { input: { id, ...set } }, db)), ...tokens }
          : kind === 'action'
            ? { command: meta.id, input: { id, ...actionInput }, actions: [meta.action!.name], recordId: id, needsApproval: meta.needsApproval, ...tokens }
            : { command: meta.id, input: { id }, actions: [], recordId: id, needsApproval: meta.needsApproval };
      items.push({ ctx: single, prepared: one, result: (await change(single, db, one)) as BatchItem['result'] });
    } catch (error) {
      throw namingRecord(ctx, `record ${id}`, error);
    }
  }
  return { shape: 'batch', items };
}

/** The single-record command each record of a selection runs as. */
const SINGLE_KIND = { update_many: 'update', delete_many: 'delete', action_many: 'action' } as const;

/**
 * `revert_batch`: each entry of an `update_many`'s batch reverted as `<model>.revert` reverts it
 * (its checks: unchanged since, fields the caller reads), in the order they were written. A batch
 * of another model, of another command (create_many, delete_many), or one any of whose entries the
 * caller may not see, is refused as `revert` refuses such a change.
 */
export async function revertBatch(ctx: CommandContext, db: Knex, prepared: PreparedCall, revert: Handler): Promise<RunResult> {
  const single = singleContext(ctx, 'revert');
  const model = ctx.command.model.meta.name;
  const batchId = prepared.input.batch_id as string;
  const entries = await findBatch(db, batchId);
  if (entries.length === 0 || entries.some((entry) => entry.model !== model)) throw badRequest(`batch ${batchId} not found`);
  if (entries.some((entry) => entry.command !== `${model}.update_many`)) throw badRequest(`batch ${batchId} cannot be reverted`);
  const items: BatchItem[] = [];
  for (const entry of entries) {
    const one: PreparedCommand = { command: single.command.meta.id, input: { id: entry.recordId, change_id: entry.changeId }, actions: [], recordId: entry.recordId, needsApproval: true };
    try {
      items.push({ ctx: single, prepared: one, result: (await revert(single, db, one)) as BatchItem['result'] });
    } catch (error) {
      // An entry the caller may not see (it changed only fields withheld from it): the batch is not
      // found as a whole, without naming a change its history does not show it.
      if (error instanceof HttpError && error.message === `change ${entry.changeId} not found`) throw badRequest(`batch ${batchId} not found`);
      throw namingRecord(ctx, `record ${entry.recordId}`, error);
    }
  }
  return { shape: 'batch', items };
}

/** `{agentTokens}` of the part of the bulk input under `prefix`, keyed as its single command keys them; nothing when there are none. */
function tokensOfPart(prepared: PreparedCall, prefix: string): { agentTokens?: Record<string, string> } {
  const tokens = withoutPrefix(prepared.agentTokens, prefix);
  return Object.keys(tokens).length > 0 ? { agentTokens: tokens } : {};
}

/** The ids a selection names: its `ids` (each once), or the records its filter selects; no more than `max_affected`. */
async function selectedIds(ctx: CommandContext, db: Knex, prepared: PreparedCall): Promise<string[]> {
  const max = prepared.input.max_affected as number;
  const given = prepared.input.ids as readonly string[] | undefined;
  if (given) {
    // In id order, as a filter's are: two commands that lock the same records lock them in one
    // order, so neither waits on the other while holding what it waits for (a deadlock on PostgreSQL).
    const ids = [...new Set(given)].sort();
    if (ids.length > max) throw moreThanAllowed(ctx, ids.length, max);
    return ids;
  }
  const { queries } = ctx.command.model;
  const list = prepared.list!;
  // One statement selects them, one more than allowed at most: a record a concurrent write adds
  // between a count and a list could otherwise be changed past `max_affected` (on PostgreSQL,
  // where other instances write meanwhile). The message's count is read only when refusing.
  const selected = (await queries.list(db, { ...list, limit: max + 1 })).map((record) => record.id);
  if (selected.length > max) throw moreThanAllowed(ctx, Math.max(await queries.count(db, list), selected.length), max);
  return selected;
}
