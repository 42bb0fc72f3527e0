/**
 * Record history: one entry per change of a record — what each field was and became, which
 * command did it, who (a person, or an agent and the person who made its token), through which
 * approved plan. Written in the transaction of the change, on every path (REST, MCP, approved
 * plans), so there is no change without its entry and no entry without its change.
 *
 * Values are stored in clear, as in the record; masking applies when an agent reads them (see
 * view/caller-view.ts). For that, an entry also keeps which agent tokens stood for its values: the
 * token the writing agent knows a value it wrote by, and the tokens of agents whose bindings held
 * the value it replaced (see agents/masking.ts). Without them an agent reading the history of a
 * field it wrote would see its value under a shared token, and could compare it with others.
 *
 * One entry costs about 500 bytes on SQLite with its indexes for a lead's create or a two-field
 * update (measured: 4,000 entries, 1.98 MB; the changed values are stored as JSON, so wide records
 * cost more). `rmsgen history prune --before <date>` removes old entries, and so does the server
 * with `serve --retain-history-days` (runtime/retention/); an erasure takes a record's personal
 * values out of its entries (erase.ts).
 */
import type { Knex } from 'knex';
import type { AuditActor } from '../audit/store.ts';
import type { RecordChangeKind } from '../command-kinds.ts';
import { isErased, type ErasedMarker } from '../erased.ts';
import { addColumnsIfMissing, createTableIfMissing } from '../db/system-tables.ts';
import { rowsInsertSql, runWrite } from '../db/statements.ts';
import { newId } from '../ids.ts';
import { countRowsWritten } from '../metrics.ts';
import type { TokenFor } from '../masking/bindings.ts';
import type { StoredLine } from '../registry.ts';

export const HISTORY_TABLE = 'rms_history';

/** What a field was and became; null for empty. */
export interface FieldChange {
  readonly from: unknown;
  readonly to: unknown;
}

/**
 * What a change did to a line list, in JSON values: whole lines added and removed, the changed
 * fields of the others, and `order` (the lines' ids before and after) when the change put lines in
 * another order than adding at the end and leaving out would: a line moved, or one removed from
 * before another kept one. Without it a revert could not put the lines back where they were.
 */
export interface LinesChange {
  readonly added: readonly StoredLine[];
  readonly removed: readonly StoredLine[];
  readonly changed: readonly { readonly id: string; readonly changes: Readonly<Record<string, FieldChange>> }[];
  readonly order?: LinesOrder;
}

/** A line list's line ids in their order before and after a change. */
export interface LinesOrder {
  readonly from: readonly string[];
  readonly to: readonly string[];
}

/**
 * A personal field's change after an erasure: its name stays, its values are gone (see
 * runtime/erased.ts). A line's erased field holds the same marker in place of its value, or of its
 * `{from, to}` among a changed line's changes.
 */
export type ErasedChange = ErasedMarker;

/** A change of one entry: a field's, or a line list's, or an erased field's. */
export type EntryChange = FieldChange | LinesChange | ErasedChange;

export function isLinesChange(change: EntryChange): change is LinesChange {
  return typeof change === 'object' && change !== null && 'added' in change && 'removed' in change && 'changed' in change;
}

/** Whether an entry's changes hold an erased value anywhere (a field's, or a line's): what it changed can no longer be put back. */
export function holdsErased(changes: Readonly<Record<string, EntryChange>>): boolean {
  return Object.values(changes).some((change) => {
    if (isErased(change)) return true;
    if (!isLinesChange(change)) return false;
    return [...change.added, ...change.removed].some((line) => Object.values(line).some(isErased)) || change.changed.some(({ changes: lineChanges }) => Object.values(lineChanges).some(isErased));
  });
}

/** An agent token that stands for a value of the entry (see the file comment). */
export type { TokenFor };

export interface HistoryEntry {
  readonly changeId: string;
  /** ISO-8601 UTC with milliseconds. */
  readonly at: string;
  readonly model: string;
  readonly recordId: string;
  /** The command that made the change, e.g. `lead.update`. */
  readonly command: string;
  /** What the command did (an update that ran an action is an update; an erasure's entry names the fields it emptied). */
  readonly kind: RecordChangeKind;
  readonly by: AuditActor;
  readonly planId: string | null;
  /** The change a revert put back. */
  readonly reverts: string | null;
  /** The bulk command's batch the change was one record of (every entry of one bulk call shares it). */
  readonly batchId?: string | null;
  readonly changes: Readonly<Record<string, EntryChange>>;
  /** An action's inputs that are not fields of the record, as given. */
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** Field → the tokens agents know the `to` value by: the writing agent's, or on a revert those the value had before. */
  readonly toTokens: Readonly<Record<string, readonly TokenFor[]>>;
  /** Field → the tokens agents held (bound) for the `from` value. */
  readonly fromTokens: Readonly<Record<string, readonly TokenFor[]>>;
}

export async function ensureHistoryTables(db: Knex): Promise<void> {
  await createTableIfMissing(db, HISTORY_TABLE, (table) => {
    /** The change id: time-ordered, so entries sort in the order they happened. */
    table.string('id', 64).primary();
    table.string('at', 32).notNullable();
    table.string('model', 100).notNullable();
    table.string('record_id', 64).notNullable();
    table.string('command', 200).notNullable();
    table.string('kind', 16).notNullable();
    table.string('actor', 16).notNullable();
    table.string('user_id', 64).notNullable();
    table.string('username', 200).notNullable();
    table.string('agent_token_id', 64).nullable();
    table.string('agent_label', 200).nullable();
    table.string('plan_id', 64).nullable();
    table.string('reverts', 64).nullable();
    table.text('changes').notNullable();
    /** JSON: `{"to": {field: [{agent, token}]}, "from": {field: [{agent, token}]}}`, or null when no agent token stands for a value. */
    table.text('tokens').nullable();
    /** JSON of an action's inputs that are not fields, or null. */
    table.text('inputs').nullable();
    table.index(['model', 'record_id', 'id'], 'rms_history_record');
    table.index(['at'], 'rms_history_at');
  });
  await addColumnsIfMissing(db, HISTORY_TABLE, {
    inputs: (table) => table.text('inputs').nullable(),
    batch_id: (table) => table.string('batch_id', 64).nullable().index('rms_history_batch'),
  });
}

/** One entry's insert: SQL written once, its values, and the change id it gives the entry. */
export interface HistoryInsert {
  readonly changeId: string;
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

/**
 * The insert of one entry, to run in the write's transaction, alone or as part of a statement (on
 * PostgreSQL the outbox sends it with the change's event, one round trip for both:
 * webhooks/outbox.ts). Counted as written when made.
 */
export function historyInsertOf(entry: Omit<HistoryEntry, 'changeId' | 'at'>): HistoryInsert {
  const row = historyRow(entry, new Date().toISOString());
  countRowsWritten('history', 1);
  return { changeId: row[0] as string, sql: historyInsertSql(1), bindings: row };
}

/** Rows of one multi-row insert of a bulk command's entries: within every database's limit of bound values. */
const ENTRIES_PER_INSERT = 500;

/**
 * Stores a bulk command's entries (in its transaction) a few hundred rows a statement, and returns
 * their change ids in order: one statement per record would be most of the command's time.
 */
export async function writeHistoryEntries(db: Knex, entries: readonly Omit<HistoryEntry, 'changeId' | 'at'>[]): Promise<string[]> {
  // One time for the command's entries: they are written together, in one transaction.
  const at = new Date().toISOString();
  countRowsWritten('history', entries.length);
  const ids: string[] = [];
  // Written once per row count (not built by knex per call: for a few hundred rows its builder cost more than the insert).
  for (let start = 0; start < entries.length; start += ENTRIES_PER_INSERT) {
    const chunk = entries.slice(start, start + ENTRIES_PER_INSERT);
    const bindings: unknown[] = [];
    for (const entry of chunk) {
      const row = historyRow(entry, at);
      ids.push(row[0] as string);
      for (const value of row) bindings.push(value);
    }
    await runWrite(db, historyInsertSql(chunk.length), bindings);
  }
  return ids;
}

/** The columns of a history row, in the order the insert binds them (`historyRow`'s). */
const HISTORY_COLUMNS = ['id', 'at', 'model', 'record_id', 'command', 'kind', 'actor', 'user_id', 'username', 'agent_token_id', 'agent_label', 'plan_id', 'reverts', 'batch_id', 'changes', 'inputs', 'tokens'] as const;

/** `insert into rms_history (…) values (?, …), …` for a number of rows. */
const historyInsertSql = rowsInsertSql(HISTORY_TABLE, HISTORY_COLUMNS);

/** The values of an entry's row, in `HISTORY_COLUMNS` order; its change id is taken now, so entries sort in the order they happened. */
function historyRow(entry: Omit<HistoryEntry, 'changeId' | 'at'>, at: string): unknown[] {
  const hasTokens = Object.keys(entry.toTokens).length > 0 || Object.keys(entry.fromTokens).length > 0;
  return [
    newId(),
    at,
    entry.model,
    entry.recordId,
    entry.command,
    entry.kind,
    entry.by.actor,
    entry.by.userId,
    entry.by.username,
    entry.by.agentTokenId ?? null,
    entry.by.agentLabel ?? null,
    entry.planId,
    entry.reverts,
    entry.batchId ?? null,
    JSON.stringify(entry.changes),
    entry.inputs ? JSON.stringify(entry.inputs) : null,
    hasTokens ? JSON.stringify({ to: entry.toTokens, from: entry.fromTokens }) : null,
  ];
}

interface HistoryRow {
  id: string;
  at: string;
  model: string;
  record_id: string;
  command: string;
  kind: HistoryEntry['kind'];
  actor: 'person' | 'agent';
  user_id: string;
  username: string;
  agent_token_id: string | null;
  agent_label: string | null;
  plan_id: string | null;
  reverts: string | null;
  changes: string;
  tokens: string | null;
  inputs?: string | null;
  batch_id?: string | null;
}

function entryOf(row: HistoryRow): HistoryEntry {
  const tokens = row.tokens === null ? { to: {}, from: {} } : (JSON.parse(row.tokens) as { to: HistoryEntry['toTokens']; from: HistoryEntry['fromTokens'] });
  return {
    changeId: row.id,
    at: row.at,
    model: row.model,
    recordId: row.record_id,
    command: row.command,
    kind: row.kind,
    by: {
      actor: row.actor,
      userId: row.user_id,
      username: row.username,
      agentTokenId: row.agent_token_id,
      agentLabel: row.agent_label,
    },
    planId: row.plan_id,
    reverts: row.reverts,
    ...(typeof row.batch_id === 'string' ? { batchId: row.batch_id } : {}),
    changes: JSON.parse(row.changes) as HistoryEntry['changes'],
    ...(typeof row.inputs === 'string' ? { inputs: JSON.parse(row.inputs) as Record<string, unknown> } : {}),
    toTokens: tokens.to,
    fromTokens: tokens.from,
  };
}

/**
 * A record's entries, newest first, one page of them, and how many there are. With `visible`
 * (the caller does not read every field), only entries that changed one of those fields count:
 * an entry that changed only withheld fields does not exist for the caller, in the page or the
 * total. Their changes are then read for the whole record first (a record's history is short next
 * to its table's), and the page's entries by id.
 */
export async function readHistory(
  db: Knex,
  model: string,
  recordId: string,
  page: { limit?: number; offset?: number },
  visible?: (changes: Readonly<Record<string, EntryChange>>) => boolean,
): Promise<{ entries: HistoryEntry[]; total: number }> {
  const newestFirst = () => db<HistoryRow>(HISTORY_TABLE).where({ model, record_id: recordId }).orderBy('id', 'desc');
  const offset = page.offset ?? 0;
  const end = page.limit === undefined ? undefined : offset + page.limit;
  if (visible) {
    const all = (await newestFirst().select('id', 'changes')) as Pick<HistoryRow, 'id' | 'changes'>[];
    const shown = all.filter((row) => visible(JSON.parse(row.changes) as Record<string, EntryChange>)).map((row) => row.id);
    const ids = shown.slice(offset, end);
    const rows = ids.length === 0 ? [] : ((await newestFirst().whereIn('id', ids)) as HistoryRow[]);
    return { entries: rows.map(entryOf), total: shown.length };
  }
  const counted = await db(HISTORY_TABLE).where({ model, record_id: recordId }).count({ n: '*' }).first();
  const query = newestFirst();
  if (page.limit !== undefined) query.limit(page.limit);
  if (page.offset !== undefined) query.offset(page.offset).limit(page.limit ?? Number.MAX_SAFE_INTEGER);
  const rows = (await query) as HistoryRow[];
  return { entries: rows.map(entryOf), total: Number((counted as { n: unknown } | undefined)?.n ?? 0) };
}

/** One entry by its change id, or undefined. */
export async function findChange(db: Knex, changeId: string): Promise<HistoryEntry | undefined> {
  const row = (await db<HistoryRow>(HISTORY_TABLE).where({ id: changeId }).first()) as HistoryRow | undefined;
  return row ? entryOf(row) : undefined;
}

/** The entries of a bulk command's batch, in the order they were written. */
export async function findBatch(db: Knex, batchId: string): Promise<HistoryEntry[]> {
  return ((await db<HistoryRow>(HISTORY_TABLE).where({ batch_id: batchId }).orderBy('id')) as HistoryRow[]).map(entryOf);
}

/** Whether a later entry of the record changed any of these fields. */
export async function changedSince(db: Knex, entry: HistoryEntry, fields: readonly string[]): Promise<boolean> {
  const later = (await db<HistoryRow>(HISTORY_TABLE)
    .where({ model: entry.model, record_id: entry.recordId })
    .andWhere('id', '>', entry.changeId)
    .select('changes')) as Pick<HistoryRow, 'changes'>[];
  return later.some((row) => {
    const changes = JSON.parse(row.changes) as Record<string, unknown>;
    return fields.some((field) => field in changes);
  });
}

/** Deletes the entries made before `beforeIso`; returns how many. */
export async function pruneHistory(db: Knex, beforeIso: string): Promise<number> {
  return Number(await db(HISTORY_TABLE).where('at', '<', beforeIso).delete());
}
