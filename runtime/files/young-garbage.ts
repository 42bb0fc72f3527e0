/**
 * Streams of file content, collected as they go. Every piece a socket or a file read hands over is
 * a fresh buffer outside V8's heap (64 kB), garbage as soon as it is written on; the small objects
 * that wrap them die young, so V8 frees the buffers only at a collection. Streaming allocates too
 * little of V8's own heap to cause one: only "external memory pressure" did, every 20–30 MB, by a
 * full mark-compact — a 200 MB upload raised the server's resident set by 30–35 MB and spent a
 * share of its time in those collections (bench --files, docs/performance.md).
 *
 * A young-generation collection (a scavenge, under a millisecond with a young generation of a few
 * MB) every few MB of content frees those buffers long before: the same upload raises the resident
 * set by some 7 MB, and is faster. Node offers no collection to call but through `--expose-gc`;
 * the flag is turned on only long enough to take the function from a context of its own, so that
 * no `gc` appears among the server's globals. A process started with `--expose-gc` uses its own.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How much content streams between two young collections. */
export const COLLECT_EVERY_BYTES = 4 * 2 ** 20;

type Collect = (options: { type: 'minor' | 'major' }) => void;

let collect: Collect | undefined;
function collector(): Collect {
  if (collect) return collect;
  const own = (globalThis as { gc?: Collect }).gc;
  if (own) return (collect = own);
  setFlagsFromString('--expose-gc');
  try {
    collect = runInNewContext('gc') as Collect;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

/**
 * Counts the bytes of one stream of content; `add` runs a young collection each time another
 * COLLECT_EVERY_BYTES have passed.
 */
export function youngGarbageCollector(): { add(bytes: number): void } {
  let sinceCollection = 0;
  const collectNow = collector();
  return {
    add(bytes) {
      sinceCollection += bytes;
      if (sinceCollection < COLLECT_EVERY_BYTES) return;
      sinceCollection = 0;
      collectNow({ type: 'minor' });
    },
  };
}
