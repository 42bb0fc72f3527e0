/**
 * A generated TypeScript file, built statement by statement and printed as plain text. The
 * emitters describe imports, constants, types, interfaces and functions; this lays them out the
 * one way every generated file reads: imports first, one blank line between paragraphs (after the
 * imports, around interfaces and functions, before each statement with a doc comment), two-space
 * indentation, single quotes, long imports one name per line. Printing is string concatenation:
 * no parser, no formatter, so a file costs what its text costs.
 */
import { quote, WIDTH } from './print.ts';

/** A name in an import: `z`, `Knex as KnexClient`, `type CompiledList`. */
export interface ImportedName {
  readonly name: string;
  readonly alias?: string;
  readonly isTypeOnly?: boolean;
}

export interface ImportDeclaration {
  readonly moduleSpecifier: string;
  readonly namedImports: readonly (string | ImportedName)[];
  /** `import type { … }`. */
  readonly isTypeOnly?: boolean;
}

interface Declared {
  readonly name: string;
  readonly isExported?: boolean;
  /** The doc comment's text; a text of several lines makes a doc comment of several lines. */
  readonly docs?: string;
}

/** `const name: type = initializer;` — the initializer printed as it is given. */
export interface ConstDeclaration extends Declared {
  readonly type?: string;
  readonly initializer: string;
}

export interface TypeAliasDeclaration extends Declared {
  readonly type: string;
}

export interface PropertySignature {
  readonly name: string;
  readonly type: string;
  readonly isReadonly?: boolean;
  readonly hasQuestionToken?: boolean;
  readonly docs?: string;
}

export interface InterfaceDeclaration extends Declared {
  readonly properties: readonly PropertySignature[];
  /**
   * Declared as `type Name = { … };` rather than an interface: an object type that is assignable to
   * an index signature type (`Record<string, unknown>`), which an interface is not.
   */
  readonly asTypeAlias?: boolean;
}

export interface Parameter {
  readonly name: string;
  readonly type: string;
  /** Its default value, as code. */
  readonly initializer?: string;
}

/** A function; each statement of its body is indented one level (every line of a multi-line one). */
export interface FunctionDeclaration extends Declared {
  readonly isAsync?: boolean;
  readonly parameters: readonly Parameter[];
  readonly returnType: string;
  readonly statements: readonly string[];
}

/** How a statement sits among its neighbours. */
type Layout = 'import' | 'comment' | 'plain' | 'paragraph';

interface Statement {
  readonly text: string;
  readonly layout: Layout;
  /** Starts with a doc comment: a blank line goes before it. */
  readonly documented: boolean;
}

export class SourceText {
  readonly #statements: Statement[] = [];

  /** A comment the file opens with, before its imports (a file-level doc comment). */
  addLeadingComment(text: string): void {
    if (this.#statements.length > 0) throw new Error('a leading comment must come first');
    this.#statements.push({ text, layout: 'comment', documented: false });
  }

  addImportDeclaration(declaration: ImportDeclaration): void {
    const names = declaration.namedImports.map((entry) => {
      if (typeof entry === 'string') return entry;
      const name = entry.alias === undefined ? entry.name : `${entry.name} as ${entry.alias}`;
      return entry.isTypeOnly ? `type ${name}` : name;
    });
    const head = declaration.isTypeOnly ? 'import type' : 'import';
    const from = quote(declaration.moduleSpecifier);
    const line = `${head} { ${names.join(', ')} } from ${from};`;
    // Longer than the line width: one name per line.
    const text = line.length <= WIDTH ? line : `${head} {\n${names.map((name) => `  ${name},\n`).join('')}} from ${from};`;
    this.#statements.push({ text, layout: 'import', documented: false });
  }

  /** `import name from './file.json' with { type: 'json' };`: a generated JSON document as a value. */
  addConst(declaration: ConstDeclaration): void {
    const type = declaration.type === undefined ? '' : `: ${declaration.type}`;
    this.#declare(declaration, 'plain', `const ${declaration.name}${type} = ${declaration.initializer};`);
  }

  addTypeAlias(declaration: TypeAliasDeclaration): void {
    this.#declare(declaration, 'plain', `type ${declaration.name} = ${declaration.type};`);
  }

  addInterface(declaration: InterfaceDeclaration): void {
    const members = declaration.properties.map((property) => {
      const doc = property.docs === undefined ? '' : `${indent(jsDoc(property.docs))}\n`;
      return `${doc}  ${property.isReadonly ? 'readonly ' : ''}${property.name}${property.hasQuestionToken ? '?' : ''}: ${property.type};\n`;
    });
    const head = declaration.asTypeAlias ? `type ${declaration.name} = {` : `interface ${declaration.name} {`;
    this.#declare(declaration, 'paragraph', `${head}\n${members.join('')}}${declaration.asTypeAlias ? ';' : ''}`);
  }

  addFunction(declaration: FunctionDeclaration): void {
    const parameters = declaration.parameters
      .map((parameter) => `${parameter.name}: ${parameter.type}${parameter.initializer === undefined ? '' : ` = ${parameter.initializer}`}`)
      .join(', ');
    const body = declaration.statements.map((statement) => `${indent(statement)}\n`).join('');
    const signature = `${declaration.isAsync ? 'async ' : ''}function ${declaration.name}(${parameters}): ${declaration.returnType}`;
    this.#declare(declaration, 'paragraph', `${signature} {\n${body}}`);
  }

  #declare(declaration: Declared, layout: Layout, text: string): void {
    const exported = declaration.isExported ? `export ${text}` : text;
    const documented = declaration.docs !== undefined;
    this.#statements.push({ text: documented ? `${jsDoc(declaration.docs!)}\n${exported}` : exported, layout, documented });
  }

  /** The file's text, without a final newline. */
  getText(): string {
    let text = '';
    this.#statements.forEach((statement, index) => {
      const previous = this.#statements[index - 1];
      if (previous !== undefined) text += blankLineBetween(previous, statement) ? '\n\n' : '\n';
      text += statement.text;
    });
    return text;
  }
}

function blankLineBetween(previous: Statement, next: Statement): boolean {
  if (previous.layout === 'import') return next.layout !== 'import';
  return next.documented || previous.layout === 'paragraph' || next.layout === 'paragraph';
}

/** Every non-empty line one level (two spaces) further in. */
function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
}

/**
 * A doc comment: `/** text *\/` on one line, or one ` * ` line per line of the text. A `*\/` in the
 * text (a description may hold anything) is written `*\/` so that it cannot end the comment early.
 */
export function jsDoc(text: string): string {
  const lines = text.replaceAll('*/', '*\\/').split(/\r?\n/);
  if (lines.length === 1) {
    const line = `/** ${lines[0]}`;
    return `${line}${line.endsWith(' ') ? '' : ' '}*/`;
  }
  // A text that starts with a line break does not start with an empty line.
  const shown = lines[0] === '' ? lines.slice(1) : lines;
  return `/**\n${shown.map((line) => (line === '' ? ' *\n' : ` * ${line}\n`)).join('')} */`;
}
