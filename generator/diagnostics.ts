/**
 * Problems the TypeScript compiler finds in module files, located the way a person looks for them:
 * `modules/support/module.ts:4:48: ',' expected`, then the line itself with a caret under the spot.
 * Syntax errors explain why a module cannot be loaded; type errors are `rmsgen check`'s.
 */
import { readFileSync } from 'node:fs';
import { Project, ts } from 'ts-morph';
import type { Problem, ProblemCode } from './problems.ts';

/** The syntax errors of a module file (none when it parses). */
export function syntaxProblems(file: string, source: string): Problem[] {
  const text = readFileSync(file, 'utf8');
  const { diagnostics = [] } = ts.transpileModule(text, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, allowImportingTsExtensions: true, noEmit: true },
  });
  return diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error).map((diagnostic) => located(source, diagnostic, 'module-syntax-error'));
}

/**
 * The type errors of the module files (what `tsc --noEmit` would say about them, under a
 * service's settings: strict, but for `noImplicitAny`, since the functions of a definition take an
 * untyped record there and are checked in their typed copies, see check-logic.ts); problems in
 * other files (the generator's own) are not the module author's and are left out.
 */
export function typeProblems(modules: readonly { readonly file: string; readonly source: string }[]): Problem[] {
  if (modules.length === 0) return [];
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    noImplicitAny: false,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2022.d.ts'],
  };
  const program = programOf(options, modules.map((module) => module.file));
  const sources = new Map(modules.map((module) => [module.file, module.source]));
  const problems: Problem[] = [];
  for (const diagnostic of [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()]) {
    const source = diagnostic.file ? sources.get(diagnostic.file.fileName) : undefined;
    if (source === undefined || diagnostic.category !== ts.DiagnosticCategory.Error) continue;
    problems.push(located(source, diagnostic, 'module-type-error'));
  }
  return problems;
}

/**
 * A program over these files (and what they import), through ts-morph, which brings TypeScript's
 * lib files (`Math`, `Array`, …) itself: the TypeScript it bundles has none on disk. With
 * `inMemory`, the files are the texts given, and nothing is read from disk.
 */
export function programOf(options: ts.CompilerOptions, files: readonly string[], inMemory?: ReadonlyMap<string, string>): ts.Program {
  const project = new Project({ compilerOptions: options, skipAddingFilesFromTsConfig: true, useInMemoryFileSystem: inMemory !== undefined });
  if (inMemory) for (const [path, text] of inMemory) project.createSourceFile(path, text);
  else for (const file of files) project.addSourceFileAtPath(file);
  if (!inMemory) project.resolveSourceFileDependencies();
  return project.getProgram().compilerObject;
}

/** A diagnostic as a problem at its line and column, with the line and a caret. */
function located(source: string, diagnostic: ts.Diagnostic, code: ProblemCode): Problem {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
  if (!diagnostic.file || diagnostic.start === undefined) return { file: source, code, message: `${message} (TS${diagnostic.code})` };
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  const lineText = diagnostic.file.text.split(/\r?\n/)[line] ?? '';
  return {
    file: source,
    line: line + 1,
    column: character + 1,
    code,
    message: `${message} (TS${diagnostic.code})`,
    excerpt: `${lineText}\n${' '.repeat(character)}^`,
  };
}
