/**
 * Names of referenced records: a ref holds an id; people see the target's title field.
 *
 * Every look-up is a read the audit trail records, so they are kept few: ids asked for by any
 * component during one render pass are queued and sent together, one `list` with `id in [...]`
 * per target model; answers are cached for the session, and titles the app already has (rows of a
 * list, a record it loaded or saved, options of a ref picker) are remembered so they are never
 * asked for.
 */
import { useEffect, useState } from 'preact/hooks';
import { run } from './api.ts';
import { can, recordTitle, useMeta, type AppMeta } from './meta.ts';
import type { ModelInfo, RecordValue } from './types.ts';

const cache = new Map<string, Map<string, string | null>>();
/** Ids waiting for the next flush, by model. */
const queued = new Map<string, Set<string>>();
/** Ids sent and not answered yet, by model: a second ask waits for the first answer. */
const inFlight = new Map<string, Map<string, Promise<void>>>();
let flushWaiters: (() => void)[] = [];
let flushTimer: ReturnType<typeof setTimeout> | undefined;
let flushMeta: AppMeta | undefined;

/** Server limit of values in one `in` condition. */
const IDS_PER_LIST = 1000;

function modelCache(model: string): Map<string, string | null> {
  let entries = cache.get(model);
  if (!entries) cache.set(model, (entries = new Map()));
  return entries;
}

export function rememberTitle(model: string, id: string, title: string | null): void {
  modelCache(model).set(id, title);
}

/** The titles of records the app has in hand (a list's rows, a search's answer). */
export function rememberTitles(model: ModelInfo, rows: readonly RecordValue[]): void {
  const entries = modelCache(model.name);
  for (const row of rows) entries.set(row.id, recordTitle(model, row));
}

export function forgetTitles(): void {
  cache.clear();
  queued.clear();
  inFlight.clear();
}

function send(meta: AppMeta, model: string, ids: readonly string[]): Promise<void> {
  const info = meta.model(model);
  const entries = modelCache(model);
  const pending = inFlight.get(model) ?? new Map<string, Promise<void>>();
  inFlight.set(model, pending);
  const request = (async () => {
    if (!info || !can(info, 'list')) {
      for (const id of ids) entries.set(id, null);
      return;
    }
    for (let at = 0; at < ids.length; at += IDS_PER_LIST) {
      const chunk = ids.slice(at, at + IDS_PER_LIST);
      try {
        const rows = await run<RecordValue[]>(model, 'list', { filter: [{ field: 'id', op: 'in', value: chunk }] });
        for (const id of chunk) entries.set(id, null);
        for (const row of rows) entries.set(row.id, recordTitle(info, row));
      } catch {
        // unknown: the ids are shown instead, and asked for again on the next page
      }
    }
  })().finally(() => {
    for (const id of ids) pending.delete(id);
  });
  for (const id of ids) pending.set(id, request);
  return request;
}

function flush(): void {
  flushTimer = undefined;
  const meta = flushMeta!;
  const waiters = flushWaiters;
  flushWaiters = [];
  const requests: Promise<void>[] = [];
  for (const [model, ids] of queued) requests.push(send(meta, model, [...ids]));
  queued.clear();
  void Promise.all(requests).then(() => {
    for (const waiter of waiters) waiter();
  });
}

/** Asks for the titles that are neither known nor on their way; resolves when all of them are known. */
function lookUp(meta: AppMeta, byModel: ReadonlyMap<string, readonly string[]>): Promise<void> {
  const waits: Promise<void>[] = [];
  let queuedAny = false;
  for (const [model, ids] of byModel) {
    const entries = modelCache(model);
    const pending = inFlight.get(model);
    for (const id of ids) {
      if (entries.has(id)) continue;
      const sent = pending?.get(id);
      if (sent) {
        waits.push(sent);
        continue;
      }
      const set = queued.get(model) ?? new Set<string>();
      set.add(id);
      queued.set(model, set);
      queuedAny = true;
    }
  }
  if (queuedAny) {
    flushMeta = meta;
    // Effects of one render pass run before a zero-delay timer: their ids go out together.
    flushTimer ??= setTimeout(flush, 0);
    waits.push(new Promise<void>((resolve) => flushWaiters.push(resolve)));
  }
  return Promise.all(waits).then(() => undefined);
}

/**
 * Titles of `refs` (pairs of target model and id); re-renders when they arrive. A missing entry
 * means "not known (yet)"; null means the record does not exist or cannot be read.
 */
export function useTitles(refs: readonly (readonly [string, string])[]): (model: string, id: string) => string | null | undefined {
  const meta = useMeta();
  const [, setVersion] = useState(0);
  const key = refs.map(([model, id]) => `${model}:${id}`).sort().join('|');
  useEffect(() => {
    let live = true;
    const byModel = new Map<string, string[]>();
    for (const [model, id] of refs) {
      if (modelCache(model).has(id)) continue;
      const list = byModel.get(model) ?? [];
      list.push(id);
      byModel.set(model, list);
    }
    if (byModel.size === 0) return;
    void lookUp(meta, byModel).then(() => {
      if (live) setVersion((version) => version + 1);
    });
    return () => {
      live = false;
    };
  }, [key]);
  return (model, id) => cache.get(model)?.get(id);
}
