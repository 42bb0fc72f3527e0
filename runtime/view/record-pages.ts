/**
 * A `list` or `search` without a `limit`, answered over REST as it is read (query/list-pages.ts):
 * the records as the caller sees them a page at a time, which http/send.ts writes out before the
 * next page is read. Nothing is read until `open` is called, so an answer that is never sent
 * holds no connection.
 */
import type { ListPages } from '../query/compiled-list.ts';

export class RecordPages {
  /**
   * `search`: the value is `{rows, total}` (a search's), else the array of records (a list's).
   * `open`: reads the first page (a search's count with it); the rows are each viewed already.
   */
  constructor(
    readonly search: boolean,
    readonly open: () => Promise<ListPages<unknown>>,
  ) {}

  /** Written out only by http/send.ts: anything else that serialises an answer reads it whole. */
  toJSON(): never {
    throw new Error('a paged answer is written out by sendAnswer (http/send.ts), not serialised whole');
  }
}
