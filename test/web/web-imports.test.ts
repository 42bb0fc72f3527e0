/**
 * How the web app's modules depend on each other: no import circle, between files or between
 * concerns (a component and the lib module of the same name, such as components/history.tsx and
 * lib/history.ts, are one concern), and the layers read downward only: app → pages → components →
 * lib.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCircle, importGraph } from '../helpers/import-graph.ts';

const SRC = resolve(import.meta.dirname, '..', '..', 'web', 'src');

/** `components/history.tsx` and `lib/history.ts` → `history`. */
const concernOf = (file: string) => file.replace(/^.*\//, '').replace(/\.tsx?$/, '');

const LAYERS = ['lib', 'components', 'pages', 'app'] as const;
const layerOf = (file: string) => LAYERS.indexOf((file.includes('/') ? file.slice(0, file.indexOf('/')) : 'app') as (typeof LAYERS)[number]);

describe('web app imports', () => {
  const graph = importGraph(SRC);

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
