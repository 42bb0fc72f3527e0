/**
 * Names of referenced records: a ref holds an id; people see the target's title field. Ids are
 * looked up in batches (one `list` with `id in [...]` per model) and cached for the session.
 */
import { useEffect, useState } from 'preact/hooks';
import { run } from './api.ts';
import { can, recordTitle, useMeta, type AppMeta } from './meta.ts';
import type { RecordValue } from './types.ts';

const cache = new Map<string, Map<string, string | null>>();
const inFlight = new Map<string, Promise<void>>();

function modelCache(model: string): Map<string, string | null> {
  let entries = cache.get(model);
  if (!entries) cache.set(model, (entries = new Map()));
  return entries;
}

export function rememberTitle(model: string, id: string, title: string | null): void {
  modelCache(model).set(id, title);
}

export function forgetTitles(): void {
  cache.clear();
}

async function load(meta: AppMeta, model: string, ids: readonly string[]): Promise<void> {
  const info = meta.model(model);
  if (!info || !can(info, 'list')) return;
  const entries = modelCache(model);
  const missing = [...new Set(ids)].filter((id) => !entries.has(id));
  for (let at = 0; at < missing.length; at += 500) {
    const chunk = missing.slice(at, at + 500);
    const key = `${model}:${chunk.join(',')}`;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = run<RecordValue[]>(model, 'list', { filter: [{ field: 'id', op: 'in', value: chunk }] })
        .then((rows) => {
          for (const id of chunk) entries.set(id, null);
          for (const row of rows) entries.set(row.id, recordTitle(info, row));
        })
        .catch(() => {
          // unknown: the ids are shown instead
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    await pending;
  }
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
    void Promise.all([...byModel].map(([model, ids]) => load(meta, model, ids))).then(() => {
      if (live) setVersion((version) => version + 1);
    });
    return () => {
      live = false;
    };
  }, [key]);
  return (model, id) => cache.get(model)?.get(id);
}
