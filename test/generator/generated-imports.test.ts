/**
 * Everything under generated/ is production code: each file is imported (or, for a JSON file read
 * when first wanted, located), directly or through other generated files, by generated/registry.ts, the one file the server's entry point loads and hands
 * to the runtime (which never imports generated/ itself). A generated file that nothing imports
 * would be decoration; this fails instead. The same holds of the fixture modules' generated code
 * (test/fixtures/generated), which the tests run against.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { FIXTURE_GENERATED_DIR } from '../helpers/fixtures.ts';
import { ROOT, snapshotFolder } from '../helpers/module-trees.ts';

const GENERATED = join(ROOT, 'generated');

/**
 * The relative module specifiers a file imports or re-exports (static and dynamic imports), and
 * the files it reads from beside itself (`new URL('./openapi.json', import.meta.url)`).
 */
function importsOf(path: string): string[] {
  const source = readFileSync(path, 'utf8');
  const { importedFiles } = ts.preProcessFile(source, true, true);
  const read = [...source.matchAll(/new URL\((['"])(\.[^'"]+)\1, import\.meta\.url\)/g)].map((match) => match[2]!);
  return [...importedFiles.map((file) => file.fileName), ...read].filter((name) => name.startsWith('.'));
}

/** Every `.ts` file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));
}

it.each([
  ['generated/', GENERATED],
  ['test/fixtures/generated/', FIXTURE_GENERATED_DIR],
])('every file under %s is imported from its registry.ts, directly or transitively', (_name, folder) => {
  const files = Object.keys(snapshotFolder(folder)).map((path) => path.split('\\').join(posix.sep));
  const reached = new Set<string>();
  const visit = (path: string): void => {
    if (reached.has(path)) return;
    reached.add(path);
    for (const specifier of importsOf(join(folder, path))) {
      const target = relative(folder, resolve(dirname(join(folder, path)), specifier)).split('\\').join(posix.sep);
      if (target.startsWith('..')) continue;
      expect(files, `${path} imports ${specifier}`).toContain(target);
      visit(target);
    }
  };
  visit('registry.ts');
  expect([...reached].sort()).toEqual([...files].sort());
});

it('the server entry point loads generated/registry.ts; the runtime imports nothing from generated/', () => {
  expect(importsOf(join(ROOT, 'bin/server-cli.ts'))).toContain('../generated/registry.ts');
  for (const path of sources(join(ROOT, 'runtime'))) {
    const intoGenerated = importsOf(path).filter((specifier) => resolve(dirname(path), specifier).startsWith(GENERATED));
    expect(intoGenerated, relative(ROOT, path)).toEqual([]);
  }
});
