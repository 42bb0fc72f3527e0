/**
 * Steps 6–8 of the command path: run a prepared command — in one transaction for writes — with
 * everything that commits with it: an agent's written tokens, the record's history entry, masking
 * bindings, and the audit row; then the answer as the caller sees it (view/caller-view.ts).
 */
import type { Knex } from 'knex';
import type { RecordValue } from '../api-shapes.ts';
import { writeAuditEvent, writeAuditEvents, type AuditEvent } from '../audit/events.ts';
import { auditActor, type AuditActor } from '../audit/store.ts';
import type { Caller } from '../caller.ts';
import { kindTraits } from '../command-kinds.ts';
import { historyEntryOf, type ChangeToRecord } from '../history/record-change.ts';
import { historyInsertOf, writeHistoryEntries } from '../history/store.ts';
import { writtenTokensOf } from './bulk-input.ts';
import { historyAsSeen, NOT_KEPT, recordsAsSeen, type OwnWrite } from '../view/caller-view.ts';
import { newId } from '../ids.ts';
import { writeGroupsOf } from '../db/write-groups.ts';
import { batchAsSeen } from './batch-view.ts';
import { keepBindings } from './keep-bindings.ts';
import type { StoredLine } from '../registry.ts';
import { answersByPage, handlers, type RunResult } from './handlers.ts';
import { RecordPages } from '../view/record-pages.ts';
import { withPagesMapped } from '../query/list-pages.ts';
import { changeEventOf, writeEvents, writeHistoryAndEvent, type ChangeEvent } from '../webhooks/outbox.ts';
import type { BatchItem } from './results.ts';
import { storedForm, type CommandContext, type CommandEnvelope, type PreparedCall, type PreparedCommand } from './types.ts';

/** An approved plan being run: who proposed it, and which. */
export interface Proposal {
  readonly by: AuditActor;
  readonly planId: string;
}

export interface RunOptions {
  /** A transaction of the caller's to run in (an approval marks its plan in it); its failures are the caller's to audit. */
  readonly outer?: Knex;
  /** An approved plan: the agent that proposed it, which history names as the author (the values it wrote are bound to it). */
  readonly proposal?: Proposal;
}

/** Runs the command and answers its envelope; history, bindings and the audit row commit with a write. */
export async function runCommand(ctx: CommandContext, prepared: PreparedCall, options: RunOptions = {}): Promise<CommandEnvelope> {
  const { service } = ctx;
  const kind = ctx.command.meta.kind;
  const transactional = isTransactional(ctx, prepared);
  const deferAudit = transactional && !options.outer && kindTraits(kind).access === 'read';
  let afterCommit: (() => Promise<void>) | undefined;
  const body = async (db: Knex): Promise<CommandEnvelope> => {
    const done = await withWrittenTokens(ctx, db, prepared);
    const result = await handlers[kind](ctx, db, done);
    const own = writtenByLineId(done, result);
    let changeId: string | undefined;
    const batchId = result.shape === 'batch' ? await keepBatch(ctx, db, result.items, options.proposal) : undefined;
    if ('change' in result && result.change) {
      // History first: it reads the tokens bound to the values being replaced, which rebinding drops.
      changeId = await keepChange(ctx, db, result, own, options.proposal);
      await keepBindings(ctx, db, result, own, options.proposal?.by.agentTokenId ?? undefined);
    }
    const value = await present(ctx, result, db, ctx.caller.kind === 'agent' ? own : undefined, batchId);
    if (result.shape === 'batch') return envelope(ctx, result, value);
    const executed = { outcome: 'executed', prepared: storedForm(done), recordId: recordIdOf(result), changeId } as const;
    // A write's audit row commits with it; a read's joins the next group commit, outside any
    // transaction the read needed (a search's on PostgreSQL), which it would otherwise hold open.
    if (deferAudit) afterCommit = () => writeAuditEvent(ctx, executed, service.db);
    else await writeAuditEvent(ctx, executed, db);
    // What a handler leaves for after the commit (an erasure's checkpoint on SQLite).
    if ('afterCommit' in result && result.afterCommit) afterCommit = result.afterCommit;
    return envelope(ctx, result, value);
  };
  if (options.outer) return body(options.outer);
  if (!transactional) return body(service.db);
  const answer = await retryRaces(ctx, () => inTransaction(ctx, body));
  await afterCommit?.();
  return answer;
}

/**
 * What the command would answer, with nothing kept: it runs in a transaction that is rolled back
 * (an agent's written tokens with it), and its records are shown afterwards, as the caller would
 * see them. The dry run is audited with what it would have been.
 */
export async function tryCommand(ctx: CommandContext, prepared: PreparedCall): Promise<CommandEnvelope> {
  const { service } = ctx;
  let tried: { result: RunResult; own: OwnWrite | undefined } | undefined;
  await rolledBack(service.db, async (trx) => {
    const done = await withWrittenTokens(ctx, trx, prepared);
    const result = await handlers[ctx.command.meta.kind](ctx, trx, done);
    tried = { result, own: ctx.caller.kind === 'agent' ? writtenByLineId(done, result) : undefined };
  });
  const { result, own } = tried!;
  const value = await present(ctx, result, service.db, own, null, new Set(Object.values(prepared.agentTokens ?? {})));
  await writeAuditEvent(ctx, { outcome: 'executed', prepared: storedForm(prepared), recordId: recordIdOf(result) }, service.db, true);
  return envelope(ctx, result, value);
}

/**
 * What an agent wrote in a tried call (a dry run), as it is shown: the tokens it sent (`sent`)
 * stand; those issued for values it sent in clear went with the rollback, and their numbers will be
 * issued again for other values, so such a value shows as not kept (as the audit trail shows it),
 * never as a token that would later stand for another value.
 */
function notKeptWritten(own: OwnWrite, sent: ReadonlySet<string>): OwnWrite {
  return { values: own.values, tokens: Object.fromEntries(Object.entries(own.tokens).map(([key, token]) => [key, sent.has(token) ? token : NOT_KEPT])) };
}

/** Runs `work` in a transaction that is then rolled back, whatever it did. */
export async function rolledBack(db: Knex, work: (trx: Knex) => Promise<void>): Promise<void> {
  try {
    await db.transaction(async (trx) => {
      await work(trx);
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
}

const ROLLBACK = Symbol('rolled back');

function isTransactional(ctx: CommandContext, prepared: PreparedCall): boolean {
  // PostgreSQL reads a search's count and page in one repeatable read transaction (see
  // transactionConfig); one answered a page at a time has a transaction of its own.
  const searchOnPostgres = ctx.command.meta.kind === 'search' && ctx.service.dialect === 'postgres' && !answersByPage(ctx, prepared);
  return kindTraits(ctx.command.meta.kind).transaction || searchOnPostgres;
}

/** An agent's call with the written tokens of the values it sent in clear, issued in `db` (the write's transaction). */
async function withWrittenTokens(ctx: CommandContext, db: Knex, prepared: PreparedCall): Promise<PreparedCall> {
  if (!prepared.clearPersonal || ctx.caller.kind !== 'agent') return prepared;
  const agentTokens = await writtenTokensOf(ctx, db, ctx.caller.tokenId, prepared);
  const { clearPersonal: _issued, ...rest } = prepared;
  return { ...rest, agentTokens };
}

/**
 * What the call wrote, keyed as bindings, history and the caller's view key personal values: a
 * field's name, or `<lines>.<line id>.<field>` (the input names lines by their index: after the
 * write, each has its id; the record's lines are in the input's order).
 */
function writtenByLineId(prepared: PreparedCommand, result: RunResult): OwnWrite {
  const input = prepared.input;
  const record = result.shape === 'record' ? (result.record as Readonly<Record<string, unknown>>) : undefined;
  const values: Record<string, unknown> = {};
  const tokens: Record<string, string> = {};
  for (const [key, token] of Object.entries(prepared.agentTokens ?? {})) {
    const [list, index, field] = key.split('.');
    if (index === undefined || field === undefined) {
      values[key] = input[key];
      tokens[key] = token;
      continue;
    }
    const line = (record?.[list!] as { id: string }[] | undefined)?.[Number(index)];
    if (!line) continue;
    const byId = `${list}.${line.id}.${field}`;
    values[byId] = ((input[list!] as Record<string, unknown>[])[Number(index)] ?? {})[field];
    tokens[byId] = token;
  }
  return { values, tokens };
}

function envelope(ctx: CommandContext, result: RunResult, value: unknown): CommandEnvelope {
  const next = 'next' in result ? result.next : undefined;
  return { denied: ctx.fields.denied, value, ...(next !== undefined ? { next } : {}) };
}

/**
 * The command's `value`, as the caller sees it. `triedWith`: for a dry run, the tokens the agent
 * sent (any other token of what it wrote was issued in the rolled-back transaction: `notKeptWritten`).
 */
async function present(ctx: CommandContext, result: RunResult, db: Knex, own: OwnWrite | undefined, batchId: string | null | undefined, triedWith?: ReadonlySet<string>): Promise<unknown> {
  const { caller, fields } = ctx;
  const shown = (write: OwnWrite) => (triedWith ? notKeptWritten(write, triedWith) : write);
  switch (result.shape) {
    case 'record':
      return ((await recordsAsSeen(db, caller, fields, [result.record], own && shown(own))) as RecordValue[])[0];
    case 'list':
      return recordsAsSeen(db, caller, fields, result.records);
    case 'search':
      return { rows: await recordsAsSeen(db, caller, fields, result.records), total: result.total };
    case 'pages':
      return new RecordPages(result.search, async () => withPagesMapped(await result.open(), (page) => recordsAsSeen(db, caller, fields, page)));
    case 'history':
      return { rows: await historyAsSeen(db, caller, fields, result.entries), total: result.total };
    case 'deleted':
      return { id: result.recordId };
    case 'batch':
      // An agent sees the values it gave by the tokens it knows them by, record by record.
      return batchAsSeen(db, caller, fields, result.items, batchId ?? null, own && result.items.map((item) => shown(writtenByLineId(item.prepared, item.result))));
    case 'erased':
      return result.erased;
  }
}

/**
 * A bulk command's records, each with the history entry (sharing the batch id), bindings and
 * audit row (of the bulk command, naming the record) a single write of it gets; answers the batch
 * id, or null when no record changed (no entry has it: there is no batch to find or revert).
 */
async function keepBatch(ctx: CommandContext, db: Knex, items: readonly BatchItem[], proposal: Proposal | undefined): Promise<string | null> {
  const batchId = newId();
  // What each record's write gave in the agent's tokens (an agent's approved plan): its history and bindings keep them.
  const owns = items.map((item) => writtenByLineId(item.prepared, item.result));
  // Entries first (they read the tokens bound to the values replaced, which rebinding drops), then
  // written together: a statement per record would be most of the command's time.
  const entries = [];
  for (const [index, item] of items.entries()) {
    const write = changeToRecord(item.ctx, item.result, owns[index]!, proposal, { batchId, command: ctx.command.meta.id });
    entries.push(write && (await historyEntryOf(db, write)));
  }
  const written = await writeHistoryEntries(db, entries.filter((entry) => entry !== undefined));
  const agentTokenId = proposal?.by.agentTokenId ?? undefined;
  const events: AuditEvent[] = [];
  const changed: { ctx: CommandContext; result: RunResult; changeId: string }[] = [];
  for (const [index, item] of items.entries()) {
    // A record just created has no bindings to drop, and a person's write binds nothing.
    if (agentTokenId !== undefined || item.ctx.command.meta.kind !== 'create') await keepBindings(item.ctx, db, item.result, owns[index]!, agentTokenId);
    const changeId = entries[index] ? written.shift() : undefined;
    events.push({ outcome: 'executed', prepared: item.prepared, recordId: recordIdOf(item.result), changeId });
    if (changeId) changed.push({ ctx: item.ctx, result: item.result, changeId });
  }
  await writeAuditEvents(ctx, events, db);
  await keepEvents(ctx, db, changed, proposal, batchId);
  return changed.length > 0 ? batchId : null;
}

/**
 * The outbox's event of each change that left a history entry, in the write's transaction
 * (webhooks/outbox.ts), named after the command called (a bulk command's, for its records).
 */
async function keepEvents(
  ctx: CommandContext,
  db: Knex,
  changes: readonly { readonly ctx: CommandContext; readonly result: RunResult; readonly changeId: string }[],
  proposal: Proposal | undefined,
  batchId: string | null,
): Promise<void> {
  const who = { by: proposal?.by ?? auditActor(ctx.caller), planId: proposal?.planId ?? null };
  const events: ChangeEvent[] = [];
  for (const change of changes) {
    const event = await changeEventOf(change.ctx, db, change.result, who, { command: ctx.command.meta.id, changeId: change.changeId, batchId });
    if (event) events.push(event);
  }
  await writeEvents(db, ctx.service, events, ctx.service.clock.now());
}

function recordIdOf(result: RunResult): string | null {
  if (result.shape === 'record') return result.record.id;
  return result.shape === 'deleted' || result.shape === 'erased' ? result.recordId : null;
}

/**
 * The history entry of a single write and the outbox's event of its change, in its transaction
 * (see history/record-change.ts, webhooks/outbox.ts: one round trip for both on PostgreSQL); answers
 * the entry's change id, or undefined when there is nothing to record (and then no event).
 */
async function keepChange(ctx: CommandContext, db: Knex, result: RunResult, own: OwnWrite, proposal: Proposal | undefined): Promise<string | undefined> {
  const write = changeToRecord(ctx, result, own, proposal);
  const entry = write && (await historyEntryOf(db, write));
  if (!entry) return undefined;
  const history = historyInsertOf(entry);
  const who = { by: proposal?.by ?? auditActor(ctx.caller), planId: proposal?.planId ?? null };
  const event = await changeEventOf(ctx, db, result, who, { command: ctx.command.meta.id, changeId: history.changeId, batchId: null });
  await writeHistoryAndEvent(db, ctx.service, history, event, ctx.service.clock.now());
  return history.changeId;
}

/** What the history entry of the write records; undefined for a command that changes no record. */
function changeToRecord(
  ctx: CommandContext,
  result: RunResult,
  own: OwnWrite,
  proposal: Proposal | undefined,
  batch?: { readonly batchId: string; readonly command: string },
): ChangeToRecord | undefined {
  const { meta, model } = ctx.command;
  const kind = kindTraits(meta.kind).change;
  if (!kind || !('change' in result) || !result.change) return undefined;
  const reverts = result.shape === 'record' ? result.reverts : undefined;
  return {
    model: model.meta.name,
    ...personalFieldsOf(model),
    lineOrder: Object.fromEntries([...model.lines].map(([name, list]) => [name, { fields: list.meta.fields.map((field) => field.name), lines: lineIdsAfter(result, name) }])),
    // A revert is an update (its entry says what it reverts).
    command: batch?.command ?? (kind === 'update' ? `${model.meta.name}.update` : meta.id),
    kind,
    change: result.change,
    by: proposal?.by ?? auditActor(ctx.caller),
    planId: proposal?.planId ?? null,
    reverts: reverts?.changeId ?? null,
    ...(batch ? { batchId: batch.batchId } : {}),
    ...(Object.keys(own.tokens).length > 0 ? { agentTokens: own.tokens } : {}),
    ...(reverts ? { restoredTokens: Object.fromEntries(Object.entries(reverts.restored).map(([field, { tokens }]) => [field, tokens])) } : {}),
  };
}

const personalFieldsByModel = new WeakMap<CommandContext['command']['model'], Pick<ChangeToRecord, 'personal' | 'linePersonal'>>();

/** A model's personal fields and those of its line lists, as history entries take them: made once per model (a bulk command's records share them). */
function personalFieldsOf(model: CommandContext['command']['model']): Pick<ChangeToRecord, 'personal' | 'linePersonal'> {
  let fields = personalFieldsByModel.get(model);
  if (fields === undefined) {
    fields = { personal: new Set(model.personal.keys()), linePersonal: Object.fromEntries([...model.lines].map(([name, list]) => [name, new Set(list.personal.keys())])) };
    personalFieldsByModel.set(model, fields);
  }
  return fields;
}

/** The ids of a line list's lines after the write, in order (none when the write answers no record). */
function lineIdsAfter(result: RunResult, list: string): string[] {
  if (result.shape !== 'record') return [];
  const lines = (result.record as Readonly<Record<string, unknown>>)[list] as readonly StoredLine[] | undefined;
  return lines?.map((line) => line.id) ?? [];
}

/** SQLSTATEs that mean "nothing was changed, run the transaction again": serialization failure, deadlock. */
const RETRYABLE_STATES = new Set(['40001', '40P01']);
const MAX_TRANSACTION_ATTEMPTS = 5;

/**
 * PostgreSQL may abort a transaction that raced another one (a `search` whose snapshot is older
 * than masking tokens another instance issued meanwhile, a deadlock). It was rolled back, so it
 * is run again, a bounded number of times — after a pause of a few milliseconds, random and
 * longer each time: run again at once, a deadlock's victim took the locks the other transaction
 * was about to take again, and two bulk commands deadlocked on every attempt (probe, 3 in 10).
 */
async function retryRaces<T>(ctx: CommandContext, attempt: () => Promise<T>): Promise<T> {
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt();
    } catch (error) {
      const state = String((error as { code?: unknown }).code);
      if (ctx.service.dialect !== 'postgres' || attempts >= MAX_TRANSACTION_ATTEMPTS || !RETRYABLE_STATES.has(state)) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempts * (5 + Math.random() * 20)));
    }
  }
}

/** A command's transaction: on SQLite a savepoint in the current group commit (db/write-groups.ts), on PostgreSQL its own. */
function inTransaction<T>(ctx: CommandContext, body: (db: Knex) => Promise<T>): Promise<T> {
  if (ctx.service.dialect === 'sqlite') return writeGroupsOf(ctx.service.db).run(body);
  return ctx.service.db.transaction(body, transactionConfig(ctx));
}

function transactionConfig(ctx: CommandContext): Knex.TransactionConfig | undefined {
  // `search` reads rows and their count: on PostgreSQL both must see one snapshot.
  if (ctx.command.meta.kind === 'search' && ctx.service.dialect === 'postgres') return { isolationLevel: 'repeatable read' };
  return undefined;
}
