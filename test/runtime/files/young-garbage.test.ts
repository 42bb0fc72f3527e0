/**
 * runtime/files/young-garbage.ts: a young-generation collection each time another
 * COLLECT_EVERY_BYTES of content has streamed, taken without leaving a `gc` among the globals.
 * Observed through the collections node itself reports (perf_hooks 'gc' entries).
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { COLLECT_EVERY_BYTES, youngGarbageCollector } from '../../../runtime/files/young-garbage.ts';

/** The young collections node reports while `run` goes on (and a moment after: entries come asynchronously). */
async function youngCollectionsDuring(run: () => void): Promise<number> {
  const seen: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => seen.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  try {
    run();
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    observer.disconnect();
  }
  return seen.filter((entry) => (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR).length;
}

describe('young collections while content streams', () => {
  it('collects once per COLLECT_EVERY_BYTES streamed, counted across pieces of any size', async () => {
    expect(COLLECT_EVERY_BYTES).toBe(4 * 2 ** 20);
    const garbage = youngGarbageCollector();
    // 40 MiB in pieces of 64 kB: ten collections. Nothing here allocates enough to cause one of its own.
    const collections = await youngCollectionsDuring(() => {
      for (let sent = 0; sent < 10 * COLLECT_EVERY_BYTES; sent += 65_536) garbage.add(65_536);
    });
    expect(collections).toBeGreaterThanOrEqual(10);
    expect(collections).toBeLessThan(14);
  });

  it('does not collect before COLLECT_EVERY_BYTES have passed, and each stream counts its own', async () => {
    const first = youngGarbageCollector();
    const second = youngGarbageCollector();
    const collections = await youngCollectionsDuring(() => {
      for (let i = 0; i < 100; i++) {
        first.add(COLLECT_EVERY_BYTES / 200);
        second.add(COLLECT_EVERY_BYTES / 200);
      }
    });
    // Half the threshold each: none forced (one of V8's own may come meanwhile, rarely).
    expect(collections).toBeLessThanOrEqual(1);
  });

  it('leaves no gc function among the globals', () => {
    youngGarbageCollector();
    expect('gc' in globalThis).toBe(process.execArgv.includes('--expose-gc'));
  });
});
