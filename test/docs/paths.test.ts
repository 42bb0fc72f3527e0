/**
 * The files README.md and docs/ name are there: a path under one of the project's folders
 * (`runtime/view/caller-view.ts`, `test/http/erase.test.ts`) must name a file or folder of this
 * checkout, so that moving or renaming one is a change the docs follow.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/fixtures.ts';

const FOLDERS = ['bench', 'bin', 'docs', 'generator', 'modules', 'runtime', 'scripts', 'templates', 'test', 'web'];
/** A path under one of them, ending in a file name with an extension. */
const PATH = new RegExp(`(?<![\\w./-])(?:${FOLDERS.join('|')})/[\\w./-]*\\.(?:ts|tsx|mjs|js|json|md|sh|lua|css)\\b`, 'g');

it('names only files that exist, in README.md and docs/', () => {
  const documents = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  const missing: string[] = [];
  let named = 0;
  for (const document of documents) {
    const text = readFileSync(join(ROOT, document), 'utf8');
    for (const [line, content] of text.split('\n').entries()) {
      for (const path of content.match(PATH) ?? []) {
        named++;
        if (!existsSync(join(ROOT, path))) missing.push(`${document}:${line + 1} ${path}`);
      }
    }
  }
  expect(named).toBeGreaterThan(50);
  expect(missing).toEqual([]);
});
