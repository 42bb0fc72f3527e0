/**
 * The type check of the module files' functions, in their generated copies (`<model>.logic.ts`),
 * before anything is written: each copy is typed with its model's record, so a misspelt field, a
 * value of the wrong type or a possibly empty one is a compiler error. An error inside a copy is
 * reported at the same place in the module file (`modules/sales/module.ts:23:57: model order,
 * field total: Property 'amout' does not exist…`), with that line and a caret under the spot.
 *
 * Only the logic files are compiled, in memory, without resolving their imports (they import only
 * the runtime's `ModelLogic` type, which the copies do not use): fast, and about the copies alone.
 * The rest of the generated code is the project's type check's (`tsc`, test/generator/typecheck.test.ts).
 */
import { ts } from 'ts-morph';
import type { FileMap } from './emit/index.ts';
import { declarationHead, logicFunctions, type LogicFunction } from './emit/logic.ts';
import { modelBase } from './emit/context.ts';
import type { LogicSource, ProjectIR } from './ir.ts';
import { programOf } from './diagnostics.ts';
import type { Problem } from './problems.ts';

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  noEmit: true,
  noResolve: true,
  strict: true,
  skipLibCheck: true,
  types: [],
  // What the functions may use: JavaScript's own objects (the closure check refuses anything else by name).
  lib: ['lib.es2022.d.ts', 'lib.es2024.string.d.ts'],
};

/** A copied function in a generated file: where its copy starts, and what it is. */
interface PlacedCopy {
  readonly fn: LogicFunction;
  readonly model: string;
  readonly source: string;
  /** Offset of the copy in the generated file's text. */
  readonly start: number;
}

/** The problems the compiler finds in the copied functions, at their places in the module files. */
export function logicProblems(ir: ProjectIR, files: FileMap): Problem[] {
  const copies = new Map<string, PlacedCopy[]>();
  const sources = new Map<string, string>();
  for (const module of ir.modules) {
    for (const model of module.models) {
      const functions = logicFunctions(model);
      if (functions.length === 0) continue;
      const path = `/generated/${modelBase(model)}.logic.ts`;
      const text = files.get(`${modelBase(model)}.logic.ts`);
      if (text === undefined) throw new Error(`bug: no logic file for model ${model.name}`);
      sources.set(path, text);
      copies.set(
        path,
        functions.map((fn) => {
          const head = declarationHead(fn);
          const at = text.indexOf(`${head}${fn.source.text}`);
          if (at < 0) throw new Error(`bug: ${path} does not hold ${fn.name} as copied`);
          return { fn, model: model.name, source: module.source, start: at + head.length };
        }),
      );
    }
  }
  if (sources.size === 0) return [];
  const program = programOf(COMPILER_OPTIONS, [...sources.keys()], sources);
  const problems: Problem[] = [];
  for (const diagnostic of [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()]) {
    if (diagnostic.category !== ts.DiagnosticCategory.Error || !diagnostic.file || diagnostic.start === undefined) continue;
    const placed = copies.get(diagnostic.file.fileName);
    const start = diagnostic.start;
    // Outside the copies: the generated code around them, which the project's type check covers (its import is not resolved here).
    const copy = placed?.find((candidate) => start >= candidate.start && start < candidate.start + candidate.fn.source.text.length);
    if (!copy) continue;
    problems.push(located(copy, start - copy.start, `${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')} (TS${diagnostic.code})`));
  }
  return problems;
}

/** A problem at an offset into a copied function, placed where that is in the module file. */
function located(copy: PlacedCopy, offset: number, message: string): Problem {
  const { line, column } = placeInModule(copy.fn.source, offset);
  const lineText = copy.fn.source.writtenLines[line - copy.fn.source.line] ?? '';
  const what = copy.fn.of;
  return {
    file: copy.source,
    line,
    column,
    model: copy.model,
    ...(what.lines === undefined ? {} : { lines: what.lines }),
    ...(what.field === undefined ? {} : { field: what.field }),
    code: 'logic-type-error',
    message: `${what.rule === undefined ? 'computed' : `rules[${what.rule}].check`}: ${message}`,
    excerpt: `${lineText}\n${' '.repeat(Math.max(0, column - 1))}^`,
  };
}

/** The module file's line and column (1-based) of an offset into a copied function's text. */
export function placeInModule(source: LogicSource, offset: number): { line: number; column: number } {
  if (offset < source.prefix) return { line: source.line, column: source.column };
  const before = source.text.slice(source.prefix, offset);
  const breaks = before.split('\n').length - 1;
  if (breaks === 0) return { line: source.line, column: source.column + before.length };
  return { line: source.line + breaks, column: before.length - before.lastIndexOf('\n') };
}
