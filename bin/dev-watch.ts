/**
 * What `rmsgen dev` watches: folders (modules/, runtime/, web/src/) followed with one `fs.watch`
 * per directory, re-scanned on every event so that folders made later are followed too (a new
 * module), and snapshots of their files (content hashes: a few hundred small files) that say what
 * changed since the last build. Events only wake the caller up; the snapshots decide, so an
 * editor's swap files, a save that changed nothing and a burst of events for one save do not make
 * builds of their own.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Files and folders no build reads: editors' swap, backup and probe files, dot-folders, packages. */
export function isIgnored(name: string): boolean {
  return name.startsWith('.') || name.endsWith('~') || /\.(swp|swx|swo|tmp)$/i.test(name) || /^\d+$/.test(name) || name === 'node_modules';
}

/** `<path relative to base, with />` → the SHA-1 of its content, for every file under the roots. */
export type Snapshot = ReadonlyMap<string, string>;

export function snapshot(roots: readonly string[], base: string): Snapshot {
  const files = new Map<string, string>();
  for (const root of roots) {
    for (const dir of directories(root)) {
      for (const entry of list(dir)) {
        if (!entry.isFile() || isIgnored(entry.name)) continue;
        const path = join(dir, entry.name);
        try {
          files.set(relative(base, path).split(sep).join('/'), createHash('sha1').update(readFileSync(path)).digest('hex'));
        } catch {
          // Removed while we looked: the next snapshot says so.
        }
      }
    }
  }
  return files;
}

/** Files added, changed or removed between two snapshots, sorted. */
export function changedFiles(before: Snapshot, after: Snapshot): string[] {
  const changed = new Set<string>();
  for (const [file, stamp] of after) if (before.get(file) !== stamp) changed.add(file);
  for (const file of before.keys()) if (!after.has(file)) changed.add(file);
  return [...changed].sort();
}

export interface TreeWatcher {
  close(): void;
}

/** Calls `onEvent` on any change under the roots (missing roots are skipped). */
export function watchTrees(roots: readonly string[], onEvent: () => void): TreeWatcher {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;
  const rescan = (): void => {
    if (closed) return;
    const wanted = new Set(roots.flatMap((root) => directories(root)));
    for (const [dir, watcher] of watchers) {
      if (!wanted.has(dir)) {
        watcher.close();
        watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, { persistent: true }, (_event, name) => {
          if (name !== null && isIgnored(String(name))) return;
          rescan();
          onEvent();
        });
        // The folder went away: the next rescan drops it.
        watcher.on('error', () => {
          watcher.close();
          watchers.delete(dir);
        });
        watchers.set(dir, watcher);
      } catch {
        // Removed between the scan and the watch.
      }
    }
  };
  rescan();
  return {
    close() {
      closed = true;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

/** The folder and every folder under it that is not ignored; none when it does not exist. */
function directories(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    found.push(dir);
    for (const entry of list(dir)) if (entry.isDirectory() && !isIgnored(entry.name)) walk(join(dir, entry.name));
  };
  try {
    if (statSync(root).isDirectory()) walk(root);
  } catch {
    // Not there (yet).
  }
  return found;
}

function list(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
