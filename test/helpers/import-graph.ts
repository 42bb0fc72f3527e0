/** The import graph of a source folder (type-only imports included), and circles in it: for tests of how modules depend on each other. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each source of `root` (relative to it) → the sources of `root` it imports or re-exports from. */
export function importGraph(root: string): Map<string, string[]> {
  const files = sources(root);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)].map((match) => resolve(dirname(file), match[1]!));
    graph.set(
      relative(root, file),
      targets.filter((target) => files.includes(target)).map((target) => relative(root, target)),
    );
  }
  return graph;
}

/** One circle of `graph`, as the path that closes it, or null. */
export function findCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}
