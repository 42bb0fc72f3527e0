/**
 * How the runtime's modules depend on each other: no import circle, and the layers read downward
 * only — the kind table, the API's shapes, the registry and the field kinds at the bottom; the
 * query layer and the database's statements above them; the command path above those; the
 * adapters (REST, MCP, the web app's serving) on top.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCircle, importGraph } from '../helpers/import-graph.ts';

const RUNTIME = resolve(import.meta.dirname, '..', '..', 'runtime');

/** Modules of the bottom layer: they import only each other (and the shapes of a compiled list). */
const BOTTOM = [
  'command-kinds.ts',
  'api-shapes.ts',
  ...['values', 'meta', 'commands', 'trails', 'auth-and-audit', 'webhooks'].map((part) => `shapes/${part}.ts`),
  'registry.ts',
  'kinds.ts',
  'value-checks.ts',
  'words.ts',
  'query/compiled-list.ts',
];

/** Folders (or files) and what they may not import, by the folders above them. */
const ABOVE: Readonly<Record<string, readonly string[]>> = {
  'query/': ['commands/', 'http/', 'mcp/', 'plans/', 'audit/', 'view/', 'history/', 'server.ts'],
  'db/': ['query/', 'commands/', 'http/', 'mcp/', 'plans/', 'audit/', 'view/', 'history/', 'masking/', 'server.ts'],
  'masking/': ['commands/', 'http/', 'mcp/', 'plans/', 'audit/', 'view/', 'history/', 'server.ts'],
  'view/': ['commands/', 'http/', 'mcp/', 'plans/', 'audit/', 'server.ts'],
  'commands/': ['http/', 'mcp/', 'server.ts'],
};

describe('runtime imports', () => {
  const graph = importGraph(RUNTIME);

  it('reads the sources it checks', () => {
    expect(graph.get('commands/pipeline.ts')).toEqual(expect.arrayContaining(['commands/prepare.ts', 'commands/run.ts']));
  });

  it('has no import circle', () => {
    expect(findCircle(graph)).toBeNull();
  });

  it('keeps the bottom layer to itself', () => {
    const upward = BOTTOM.flatMap((file) => (graph.get(file) ?? []).filter((target) => !BOTTOM.includes(target)).map((target) => `${file} → ${target}`));
    expect(upward).toEqual([]);
  });

  it('reads downward only: no layer imports one above it', () => {
    const upward = [...graph].flatMap(([file, targets]) => {
      const layer = Object.keys(ABOVE).find((prefix) => file.startsWith(prefix));
      if (!layer) return [];
      return targets.filter((target) => ABOVE[layer]!.some((above) => target.startsWith(above))).map((target) => `${file} → ${target}`);
    });
    expect(upward).toEqual([]);
  });

  it('keeps every module at 350 lines or fewer: a longer one has more than one job', () => {
    const long = [...graph.keys()].map((file) => [file, readFileSync(join(RUNTIME, file), 'utf8').split('\n').length - 1] as const).filter(([, lines]) => lines > 350);
    expect(long).toEqual([]);
  });
});
