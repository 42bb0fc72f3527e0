/**
 * Stage 1: load. Finds `<modulesDir>/<name>/module.ts`, imports each one (the CLI runs under
 * tsx, so TypeScript imports work) and returns the raw, unchecked definitions. Nothing here
 * trusts the shape of what it loaded; that is validate's job.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ts } from 'ts-morph';
import { readDefinitionSource, type DefinitionSource } from './definition-source.ts';
import { syntaxProblems } from './diagnostics.ts';
import { RmsgenError } from './errors.ts';
import type { Problem } from './problems.ts';

export interface LoadedModule {
  /** The folder name, which is the module name. */
  readonly name: string;
  /** Absolute path of `module.ts`. */
  readonly file: string;
  /** Path as shown in errors and banners, e.g. `modules/crm/module.ts`. */
  readonly source: string;
  /** The default export, unchecked. */
  readonly definition: unknown;
  /** Object literal keys written twice in the file (JavaScript keeps only the last one silently). */
  readonly duplicateKeys: readonly { readonly line: number; readonly key: string }[];
  /** The file as written: the lines of its parts and the source of its functions (`computed`, `check`). */
  readonly written: DefinitionSource;
}

export interface LoadedModules {
  /** The modules folder's name as shown in banners, e.g. `modules`. */
  readonly dirName: string;
  /** Sorted by module name. */
  readonly modules: readonly LoadedModule[];
}

/**
 * How a module file is loaded: by URL, to its exports. The CLI imports it (once per process: a
 * module file imported again is the cached one); `rmsgen dev`'s builder (bin/dev-builder.ts)
 * loads each build's files afresh.
 */
export type ModuleImporter = (url: string) => Promise<Record<string, unknown>>;

const importOnce: ModuleImporter = (url) => import(url) as Promise<Record<string, unknown>>;

export async function loadModules(modulesDir: string, importModule: ModuleImporter = importOnce): Promise<LoadedModules> {
  const dir = resolve(modulesDir);
  const dirName = basename(dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new RmsgenError('load', [
      { file: modulesDir, code: 'modules-folder-not-found', message: 'modules folder not found', fix: 'create it, or pass --modules <dir>' },
    ]);
  }
  const problems: Problem[] = [];
  const modules: LoadedModule[] = [];
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !entry.name.startsWith('_'))
    .map((entry) => entry.name)
    .sort();
  for (const name of folders) {
    const file = join(dir, name, 'module.ts');
    const source = `${dirName}/${name}/module.ts`;
    if (!existsSync(file)) {
      problems.push({
        file: `${dirName}/${name}`,
        code: 'module-file-missing',
        message: 'folder has no module.ts',
        fix: 'add one that default-exports defineModule({...}), or rename the folder to start with _ to ignore it',
      });
      continue;
    }
    let exports: Record<string, unknown>;
    try {
      exports = await importModule(pathToFileURL(file).href);
    } catch (error) {
      // A syntax error: the compiler says where. Anything else failed while the module ran.
      const syntax = syntaxProblems(file, source);
      if (syntax.length > 0) problems.push(...syntax);
      else problems.push({ file: source, ...lineOf(error, file), code: 'module-not-loadable', message: `cannot be loaded: ${firstLine(error)}`, fix: 'fix the error in the module file' });
      continue;
    }
    if (!('default' in exports) || exports.default === undefined) {
      problems.push({ file: source, code: 'no-default-export', message: 'has no default export', fix: 'write `export default defineModule({...})`' });
      continue;
    }
    modules.push({ name, file, source, definition: exports.default, duplicateKeys: findDuplicateKeys(file), written: readDefinitionSource(file) });
  }
  if (problems.length > 0) throw new RmsgenError('load', problems);
  return { dirName, modules };
}

function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}

/** Where in the module file an error was thrown, from its stack (tsx maps it back to the TypeScript). */
function lineOf(error: unknown, file: string): { line?: number; column?: number } {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  const url = pathToFileURL(file).href;
  for (const frame of stack.split('\n')) {
    const match = /(file:\/\/[^\s)]+?|\/[^\s)]+?):(\d+):(\d+)\)?$/.exec(frame.trim());
    // A fresh load's URL carries a query (`?namespace=…`, see ModuleImporter).
    const location = match?.[1]?.replace(/\?.*$/, '');
    if (match && (location === url || location === file)) return { line: Number(match[2]), column: Number(match[3]) };
  }
  return {};
}

/** Object literals in the file that name a key twice; `{ a: 1, a: 2 }` loads as `{ a: 2 }` without a word. */
function findDuplicateKeys(file: string): { line: number; key: string }[] {
  const text = readFileSync(file, 'utf8');
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: { line: number; key: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const seen = new Set<string>();
      for (const property of node.properties) {
        if (!ts.isPropertyAssignment(property) && !ts.isShorthandPropertyAssignment(property) && !ts.isMethodDeclaration(property)) continue;
        const key = property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) || ts.isNumericLiteral(property.name)) ? property.name.text : undefined;
        if (key === undefined) continue;
        if (seen.has(key)) {
          found.push({ line: sourceFile.getLineAndCharacterOfPosition(property.getStart(sourceFile)).line + 1, key });
        }
        seen.add(key);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}
