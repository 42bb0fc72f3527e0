/**
 * What a command's handler answers (handlers.ts, bulk.ts): the stored records it read or wrote and
 * what each write changed, from which run.ts keeps history, bindings and the audit trail.
 */
import type { Knex } from 'knex';
import type { ErasureInfo } from '../api-shapes.ts';
import type { HistoryEntry } from '../history/store.ts';
import type { TokenFor } from '../masking/bindings.ts';
import type { ListPages } from '../query/compiled-list.ts';
import type { StoredRecord } from '../registry.ts';
import type { LinesChange } from './documents.ts';
import type { CommandContext, PreparedCall, PreparedCommand } from './types.ts';

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
  /** What the write did to each line list it changed. */
  readonly lines?: Readonly<Record<string, LinesChange>>;
  /**
   * Per line list, the fields the input gave kept lines (by id) that kept the value they had, with
   * that value: as `kept` for the record's fields (an agent's write of a personal one is recorded).
   */
  readonly linesKept?: Readonly<Record<string, readonly KeptLineFields[]>>;
  /** An action's inputs that are not fields of the record, as given. */
  readonly inputs?: Readonly<Record<string, unknown>>;
}

/**
 * The fields an erasure emptied, as a record change (commands/erase.ts): `after` holds what each
 * holds now (empty, or a required field's erased value, runtime/erased.ts); history names them with
 * the marker, never their values. An erasure has no action inputs and keeps no line values.
 */
export type ErasedFields = Omit<RecordChange, 'inputs' | 'linesKept'> & { readonly linesKept?: never };

/** What an erasure gives the command path: the answer, the history entry's change, and what to do once it committed. */
export interface ErasureResult {
  readonly shape: 'erased';
  readonly recordId: string;
  readonly erased: ErasureInfo;
  /** The fields it emptied; none when the record held nothing personal. */
  readonly change?: ErasedFields;
  /** After the transaction commits (SQLite: the write-ahead log's old pages, which held the values, are checkpointed away). */
  readonly afterCommit?: () => Promise<void>;
}

/** Fields an update gave a line it kept, whose values did not change, with those values. */
export interface KeptLineFields {
  readonly id: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/** A revert: the change it put back, and the tokens agents knew the values it put back by (bound again). */
export interface RevertOf {
  readonly changeId: string;
  readonly restored: Readonly<Record<string, { readonly value: string; readonly tokens: readonly TokenFor[] }>>;
}

export type RunResult =
  /** A bulk command: each record's single-record command and what it did, in the order of the input (or of ids). */
  | { readonly shape: 'batch'; readonly items: readonly BatchItem[] }
  | { readonly shape: 'record'; readonly record: StoredRecord; readonly change?: RecordChange; readonly reverts?: RevertOf }
  | { readonly shape: 'history'; readonly entries: HistoryEntry[]; readonly total: number }
  /** `next`: keyset paging's cursor of the page's last row, when more rows follow. */
  | { readonly shape: 'list'; readonly records: StoredRecord[]; readonly next?: string }
  | { readonly shape: 'search'; readonly records: StoredRecord[]; readonly total: number; readonly next?: string }
  /**
   * A list or search without a `limit`, over REST (`answersByPage`): `open` reads the records a
   * page at a time, with a search's count (query/list-pages.ts); nothing is read until it is called.
   */
  | { readonly shape: 'pages'; readonly search: boolean; readonly open: () => Promise<ListPages<StoredRecord>> }
  | { readonly shape: 'deleted'; readonly recordId: string; readonly change: RecordChange }
  | ErasureResult;

export type Handler = (ctx: CommandContext, db: Knex, prepared: PreparedCall) => Promise<RunResult>;

/**
 * One record of a bulk command: the single-record command it ran as (`lead.create` for
 * `lead.create_many`), its prepared input, and what it did.
 */
export interface BatchItem {
  readonly ctx: CommandContext;
  readonly prepared: PreparedCommand;
  readonly result: Extract<RunResult, { shape: 'record' | 'deleted' }>;
}
