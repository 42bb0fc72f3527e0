/**
 * Printing helpers shared by the emitters: TypeScript literals laid out the way a person would
 * (inline when short, one entry per line otherwise, trailing commas), and raw expressions.
 */

/** The line width literals and imports are laid out for. */
export const WIDTH = 120;
const IDENTIFIER_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A TypeScript expression printed as is. */
export class Code {
  constructor(readonly text: string) {}
}

export function code(text: string): Code {
  return new Code(text);
}

/**
 * A call inside a value being printed, laid out like the rest of it: inline when it fits, else one
 * argument per line at the call's own indentation. `suffix` follows the closing parenthesis
 * (`.optional()`).
 */
export class Call {
  constructor(
    readonly callee: string,
    readonly args: readonly unknown[],
    readonly suffix = '',
  ) {}
}

export function quote(text: string): string {
  return `'${JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

function printKey(key: string): string {
  return IDENTIFIER_KEY.test(key) ? key : quote(key);
}

function entries(value: object): [string, unknown][] {
  return Object.entries(value).filter(([, entry]) => entry !== undefined);
}

/**
 * The one-line forms of the arrays and objects of one value being printed. A value laid out over
 * several lines asks for the one-line form of each part at each level; remembering them keeps
 * printing linear in the size of the value.
 */
type InlineCache = Map<object, string | undefined>;

/** One-line form, or undefined when the value contains a multi-line raw expression. */
function inline(value: unknown, cache?: InlineCache): string | undefined {
  if (value instanceof Code) return value.text.includes('\n') ? undefined : value.text;
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (typeof value !== 'object') throw new Error(`cannot print ${typeof value} as a literal`);
  if (cache?.has(value)) return cache.get(value);
  const printed = inlineComposite(value, cache);
  cache?.set(value, printed);
  return printed;
}

function inlineComposite(value: object, cache: InlineCache | undefined): string | undefined {
  if (value instanceof Call) {
    const parts = value.args.map((arg) => inline(arg, cache));
    return parts.some((part) => part === undefined) ? undefined : `${value.callee}(${parts.join(', ')})${value.suffix}`;
  }
  if (Array.isArray(value)) {
    const parts = value.map((entry) => inline(entry, cache));
    return parts.some((part) => part === undefined) ? undefined : `[${parts.join(', ')}]`;
  }
  const parts = entries(value).map(([key, entry]) => {
    if (entry instanceof Code && entry.text === key) return key;
    const printed = inline(entry, cache);
    return printed === undefined ? undefined : `${printKey(key)}: ${printed}`;
  });
  if (parts.some((part) => part === undefined)) return undefined;
  return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
}

/**
 * Prints a value as a TypeScript literal. `indent` is the nesting level of the line it starts
 * on, `prefix` the number of characters already on that line before it.
 */
export function literal(value: unknown, indent = 0, prefix = 0): string {
  return layout(value, indent, prefix, new Map());
}

function layout(value: unknown, indent: number, prefix: number, cache: InlineCache): string {
  const flat = inline(value, cache);
  if (flat !== undefined && indent * 2 + prefix + flat.length + 1 <= WIDTH) return flat;
  const pad = '  '.repeat(indent + 1);
  const close = '  '.repeat(indent);
  if (value instanceof Call) {
    return `${value.callee}(\n${value.args.map((arg) => `${pad}${layout(arg, indent + 1, 0, cache)},\n`).join('')}${close})${value.suffix}`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((entry) => `${pad}${layout(entry, indent + 1, 0, cache)},\n`).join('')}${close}]`;
  }
  if (value instanceof Code || typeof value !== 'object' || value === null) return flat ?? (value as Code).text;
  return `{\n${entries(value)
    .map(([key, entry]) =>
      entry instanceof Code && entry.text === key ? `${pad}${key},\n` : `${pad}${printKey(key)}: ${layout(entry, indent + 1, printKey(key).length + 2, cache)},\n`,
    )
    .join('')}${close}}`;
}

/** A call with its arguments inline when short, one per line otherwise. */
export function call(callee: string, args: readonly unknown[], indent = 0, prefix = 0): Code {
  const cache: InlineCache = new Map();
  const flat = args.map((arg) => inline(arg, cache));
  if (flat.every((part) => part !== undefined)) {
    const text = `${callee}(${flat.join(', ')})`;
    if (indent * 2 + prefix + text.length + 1 <= WIDTH) return code(text);
  }
  const pad = '  '.repeat(indent + 1);
  return code(`${callee}(\n${args.map((arg) => `${pad}${layout(arg, indent + 1, 0, cache)},\n`).join('')}${'  '.repeat(indent)})`);
}

/** A `//` comment: line breaks in its text (a label may hold anything) become spaces, so that none ends it early. */
export function lineComment(text: string): string {
  return `// ${text.replace(/[\r\n\u2028\u2029]+/g, ' ')}`;
}

/**
 * A doc comment of several sentences, its lines filled up to `width` characters. A `*\/` in the
 * text (a label may hold anything) is written `*\/` so that it cannot end the comment early.
 */
export function docComment(text: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replaceAll('*/', '*\\/').split(/\s+/).filter((part) => part !== '')) {
    if (line !== '' && line.length + 1 + word.length > width - 3) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return `/**\n${lines.map((text) => ` * ${text}`).join('\n')}\n */`;
}
