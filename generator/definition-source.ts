/**
 * A module file as written: where each part of its definition is (`models.order.rules.0` → its
 * line), and the source text of the functions it holds (`computed`, a rule's `check`), which the
 * generator copies into generated code. Loading runs the file, so the definition's functions
 * arrive as function objects; their text and place come from the file itself, found by the key
 * path they are loaded at.
 *
 * The walk follows what a module file commonly writes: object and array literals, `defineModule(…)`
 * and other calls around the definition, `as`/`satisfies`, spreads, and names of `const`s declared
 * in the file. A part it cannot follow (built by a function, imported) has no line; a function it
 * cannot find is refused with the fix (write it in place).
 */
import { readFileSync } from 'node:fs';
import { ts } from 'ts-morph';

/** A key path into the definition: property names, and indexes of list entries. */
export type DefinitionPath = readonly (string | number)[];

/**
 * A function of the module file. `text` is what generated code holds: the function as written
 * (a method `check(o) { … }` becomes `function (o) { … }`: `prefix` is what was put in front).
 */
export interface FunctionSource {
  readonly text: string;
  /** Characters at the start of `text` that are not in the file (`function ` for a method). */
  readonly prefix: number;
  /** Where the rest of `text` starts in the module file: 1-based line and column. */
  readonly line: number;
  readonly column: number;
  /** The module file's lines it is written on, whole (for excerpts under problems). */
  readonly writtenLines: readonly string[];
  /**
   * Names it uses that it does not declare and that are not JavaScript's globals (a variable of the
   * module file, an import), and `this`: code that would not work when copied out of the file.
   */
  readonly outsideNames: readonly string[];
}

/** The place of every part of a module file's definition that the walk could follow. */
export interface DefinitionSource {
  /** The line of the part at this path, else of its nearest part that has one; undefined when none has. */
  lineOf(path: DefinitionPath): number | undefined;
  /** The function written at this path (in place, or as a `const` of the file named there). */
  functionAt(path: DefinitionPath): FunctionSource | undefined;
}

/**
 * What a copied function may use besides its parameters and its own names: the standard objects
 * and functions of JavaScript, which exist wherever the generated code runs (server and browser).
 * Nothing that reaches out of the function (`fetch`, `process`, timers) or keeps state.
 */
export const JAVASCRIPT_GLOBALS: ReadonlySet<string> = new Set([
  'undefined', 'NaN', 'Infinity', 'globalThis',
  'Math', 'Number', 'String', 'Boolean', 'BigInt', 'Symbol', 'Date', 'JSON', 'RegExp', 'Intl',
  'Array', 'Object', 'Map', 'Set', 'WeakMap', 'WeakSet',
  'Error', 'TypeError', 'RangeError',
  'isNaN', 'isFinite', 'parseInt', 'parseFloat', 'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI',
]);

const key = (path: DefinitionPath): string => path.join('.');

/** Reads and walks a module file. A file that does not parse has no places (the loader reports its syntax). */
export function readDefinitionSource(file: string): DefinitionSource {
  const text = readFileSync(file, 'utf8');
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const lines = new Map<string, number>();
  const functions = new Map<string, FunctionSource>();
  const constants = topLevelConstants(sourceFile);
  const lineAt = (position: number) => sourceFile.getLineAndCharacterOfPosition(position).line + 1;

  const walk = (node: ts.Expression, path: DefinitionPath, seen: ReadonlySet<ts.Node>): void => {
    const expression = unwrap(node, constants, seen);
    if (expression === undefined) return;
    if (ts.isObjectLiteralExpression(expression)) {
      for (const property of expression.properties) {
        if (ts.isSpreadAssignment(property)) {
          walk(property.expression, path, new Set([...seen, expression]));
          continue;
        }
        const name = propertyName(property.name);
        if (name === undefined) continue;
        const at = [...path, name];
        lines.set(key(at), lineAt(property.getStart(sourceFile)));
        if (ts.isMethodDeclaration(property)) {
          functions.set(key(at), functionSource(sourceFile, property));
        } else if (ts.isPropertyAssignment(property)) {
          visitValue(property.initializer, at, new Set([...seen, expression]));
        } else if (ts.isShorthandPropertyAssignment(property)) {
          visitValue(property.name, at, new Set([...seen, expression]));
        }
      }
    } else if (ts.isArrayLiteralExpression(expression)) {
      expression.elements.forEach((element, index) => {
        const at = [...path, index];
        lines.set(key(at), lineAt(element.getStart(sourceFile)));
        visitValue(element, at, new Set([...seen, expression]));
      });
    }
  };

  const visitValue = (node: ts.Expression, path: DefinitionPath, seen: ReadonlySet<ts.Node>): void => {
    const expression = unwrap(node, constants, seen);
    if (expression !== undefined && (ts.isArrowFunction(expression) || ts.isFunctionExpression(expression))) {
      functions.set(key(path), functionSource(sourceFile, expression));
      return;
    }
    walk(node, path, seen);
  };

  const exported = sourceFile.statements.find((statement): statement is ts.ExportAssignment => ts.isExportAssignment(statement) && !statement.isExportEquals);
  if (exported) walk(exported.expression, [], new Set());

  return {
    lineOf(path) {
      for (let length = path.length; length > 0; length--) {
        const line = lines.get(key(path.slice(0, length)));
        if (line !== undefined) return line;
      }
      return undefined;
    },
    functionAt: (path) => functions.get(key(path)),
  };
}

/** `const name = …` declared at the top of the file, by name. */
function topLevelConstants(sourceFile: ts.SourceFile): ReadonlyMap<string, ts.Expression> {
  const constants = new Map<string, ts.Expression>();
  for (const statement of sourceFile.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.initializer) constants.set(declaration.name.text, declaration.initializer);
    }
  }
  return constants;
}

/**
 * The expression a definition part is written as: through parentheses, `as`, `satisfies`, `!`,
 * a call around it (`defineModule({…})`: its first argument) and the name of a `const` of the
 * file. Undefined where it leads nowhere (or back to where it came from).
 */
function unwrap(node: ts.Expression, constants: ReadonlyMap<string, ts.Expression>, seen: ReadonlySet<ts.Node>): ts.Expression | undefined {
  let current: ts.Expression | undefined = node;
  const visited = new Set(seen);
  while (current !== undefined && !visited.has(current)) {
    visited.add(current);
    if (ts.isParenthesizedExpression(current) || ts.isAsExpression(current) || ts.isSatisfiesExpression(current) || ts.isNonNullExpression(current)) {
      current = current.expression;
    } else if (ts.isCallExpression(current)) {
      current = current.arguments[0];
    } else if (ts.isIdentifier(current)) {
      current = constants.get(current.text);
    } else {
      return current;
    }
  }
  return undefined;
}

function propertyName(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}

function functionSource(sourceFile: ts.SourceFile, node: ts.ArrowFunction | ts.FunctionExpression | ts.MethodDeclaration): FunctionSource {
  // A method `check(o) { … }` is copied as the function expression `function (o) { … }`.
  const prefix = ts.isMethodDeclaration(node) ? 'function ' : '';
  const start = ts.isMethodDeclaration(node) ? node.name.getEnd() : node.getStart(sourceFile);
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(start);
  const last = sourceFile.getLineAndCharacterOfPosition(node.getEnd()).line;
  return {
    text: `${prefix}${sourceFile.text.slice(start, node.getEnd())}`,
    prefix: prefix.length,
    line: line + 1,
    column: character + 1,
    writtenLines: sourceFile.text.split(/\r?\n/).slice(line, last + 1),
    outsideNames: outsideNames(node),
  };
}

/** The names a function uses without declaring them, other than JavaScript's globals; `this` too. */
function outsideNames(fn: ts.ArrowFunction | ts.FunctionExpression | ts.MethodDeclaration): string[] {
  const declared = new Set<string>();
  const used: string[] = [];
  const declare = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) declared.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) declare(element.name);
  };
  const visit = (node: ts.Node): void => {
    // Types are erased: what they name is the type checker's business (the generated file's check).
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return;
    if (ts.isParameter(node) || ts.isVariableDeclaration(node) || ts.isBindingElement(node)) declare(node.name);
    if ((ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name) declared.add(node.name.text);
    if (ts.isCatchClause(node) && node.variableDeclaration) declare(node.variableDeclaration.name);
    if (node.kind === ts.SyntaxKind.ThisKeyword) used.push('this');
    if (ts.isIdentifier(node) && isReference(node)) used.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(fn);
  return [...new Set(used.filter((name) => !declared.has(name) && !JAVASCRIPT_GLOBALS.has(name)))];
}

/** Whether an identifier names a value where it stands (not a property name, a label or a declared name). */
function isReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if ((ts.isPropertyAccessExpression(parent) || ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent)) && parent.name === node) return false;
  if (ts.isBindingElement(parent) && parent.propertyName === node) return false;
  if ((ts.isParameter(parent) || ts.isVariableDeclaration(parent) || ts.isBindingElement(parent) || ts.isFunctionDeclaration(parent) || ts.isFunctionExpression(parent) || ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) && parent.name === node) return false;
  if ((ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) && parent.label === node) return false;
  return true;
}

/**
 * Whether a function's text reads the field `name` of what it is given (`r.name`, `r['name']`).
 * Found in the text, so a name it only mentions counts too.
 */
export function readsField(text: string, name: string): boolean {
  return new RegExp(`(\\.\\s*${name}\\b|\\[\\s*['"\`]${name}['"\`]\\s*\\])`).test(text);
}
