/**
 * Deleting many rows without holding the database for long: a few hundred rows per statement, each
 * its own transaction, the batch size adjusted so that one takes about `targetMs` (SQLite has one
 * writer: a long delete would hold every write behind it), and a pause between batches in which
 * other writers go first.
 */
import type { Knex } from 'knex';

export interface BatchOptions {
  /** About how long one batch may take; the size follows. Default 50 ms. */
  readonly targetMs?: number;
  /** Rows of the first batch. Default 500. */
  readonly firstBatch?: number;
  /** Pause between batches. Default 5 ms. */
  readonly pauseMs?: number;
  /** Asked before each batch: false stops (the pruner lost its lease, or is closing). */
  readonly proceed?: () => boolean | Promise<boolean>;
}

const MIN_BATCH = 20;
const MAX_BATCH = 5_000;

/**
 * Deletes the rows of `table` that `where` selects, a batch at a time, by their key (`keys`: the
 * primary key's columns); answers how many.
 */
export async function deleteInBatches(db: Knex, table: string, keys: readonly string[], where: (query: Knex.QueryBuilder) => void, options: BatchOptions = {}): Promise<number> {
  return runInBatches(options, async (size) => {
    const selected = db(table).select(...keys).where(where).limit(size);
    const target = db(table);
    if (keys.length === 1) target.whereIn(keys[0]!, selected);
    else target.whereIn([...keys], selected);
    const removed = Number(await target.delete());
    return { seen: removed, removed };
  });
}

/**
 * Runs `batch` (given the rows to take) until it sees fewer rows than it was given, sizing each to
 * take about `targetMs` and pausing between them; answers the rows removed. For steps that select
 * and remove in statements of their own (webhooks/prune.ts).
 */
export async function runInBatches(options: BatchOptions, batch: (size: number) => Promise<{ readonly seen: number; readonly removed: number }>): Promise<number> {
  const targetMs = options.targetMs ?? 50;
  let size = options.firstBatch ?? 500;
  let removed = 0;
  for (let first = true; ; first = false) {
    if (!first) await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 5));
    if (options.proceed && !(await options.proceed())) return removed;
    const started = performance.now();
    const done = await batch(size);
    removed += done.removed;
    if (done.seen < size) return removed;
    const took = performance.now() - started;
    if (took > targetMs * 2) size = Math.max(MIN_BATCH, Math.floor(size / 2));
    else if (took < targetMs / 2) size = Math.min(MAX_BATCH, size * 2);
  }
}
