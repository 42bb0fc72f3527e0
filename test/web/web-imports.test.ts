/**
 * How the web app's modules depend on each other: no import circle, between files or between
 * concerns (a component and the lib module of the same name, such as components/history.tsx and
 * lib/history.ts, are one concern), and the layers read downward only: app → pages → components →
 * lib.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', '..', 'web', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Each source (relative to web/src) → the sources of web/src it imports, type-only imports included. */
function importGraph(): Map<string, string[]> {
  const files = sources(SRC);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)].map((match) => resolve(dirname(file), match[1]!));
    graph.set(
      relative(SRC, file),
      targets.filter((target) => files.includes(target)).map((target) => relative(SRC, target)),
    );
  }
  return graph;
}

/** One circle of `graph`, as the path that closes it, or null. */
function findCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
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

/** `components/history.tsx` and `lib/history.ts` → `history`. */
const concernOf = (file: string) => file.replace(/^.*\//, '').replace(/\.tsx?$/, '');

const LAYERS = ['lib', 'components', 'pages', 'app'] as const;
const layerOf = (file: string) => LAYERS.indexOf((file.includes('/') ? file.slice(0, file.indexOf('/')) : 'app') as (typeof LAYERS)[number]);

describe('web app imports', () => {
  const graph = importGraph();

  it('reads the sources it checks', () => {
    expect(graph.get('components/history.tsx')).toEqual(expect.arrayContaining(['components/changes.tsx', 'lib/history.ts']));
  });

  it('has no import circle between files', () => {
    expect(findCircle(graph)).toBeNull();
  });

  it('has no import circle between concerns (a component and its lib module of the same name)', () => {
    const concerns = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = concernOf(file);
      const edges = concerns.get(from) ?? [];
      edges.push(...targets.map(concernOf).filter((to) => to !== from));
      concerns.set(from, edges);
    }
    expect(findCircle(concerns)).toBeNull();
  });

  it('reads downward only: lib imports no component or page, a component no page', () => {
    const upward = [...graph].flatMap(([file, targets]) => targets.filter((target) => layerOf(target) > layerOf(file)).map((target) => `${file} → ${target}`));
    expect(upward).toEqual([]);
  });
});
