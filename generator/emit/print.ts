/**
 * Printing helpers shared by the emitters: TypeScript literals laid out the way a person would
 * (inline when short, one entry per line otherwise, trailing commas), and raw expressions.
 */

const WIDTH = 120;
const IDENTIFIER_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A TypeScript expression printed as is. */
export class Code {
  constructor(readonly text: string) {}
}

export function code(text: string): Code {
  return new Code(text);
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

/** One-line form, or undefined when the value contains a multi-line raw expression. */
function inline(value: unknown): string | undefined {
  if (value instanceof Code) return value.text.includes('\n') ? undefined : value.text;
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) {
    const parts = value.map(inline);
    return parts.some((part) => part === undefined) ? undefined : `[${parts.join(', ')}]`;
  }
  if (typeof value === 'object') {
    const parts = entries(value).map(([key, entry]) => {
      if (entry instanceof Code && entry.text === key) return key;
      const printed = inline(entry);
      return printed === undefined ? undefined : `${printKey(key)}: ${printed}`;
    });
    if (parts.some((part) => part === undefined)) return undefined;
    return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
  }
  throw new Error(`cannot print ${typeof value} as a literal`);
}

/**
 * Prints a value as a TypeScript literal. `indent` is the nesting level of the line it starts
 * on, `prefix` the number of characters already on that line before it.
 */
export function literal(value: unknown, indent = 0, prefix = 0): string {
  const flat = inline(value);
  if (flat !== undefined && indent * 2 + prefix + flat.length + 1 <= WIDTH) return flat;
  const pad = '  '.repeat(indent + 1);
  const close = '  '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((entry) => `${pad}${literal(entry, indent + 1)},\n`).join('')}${close}]`;
  }
  if (value instanceof Code || typeof value !== 'object' || value === null) return flat ?? (value as Code).text;
  return `{\n${entries(value)
    .map(([key, entry]) =>
      entry instanceof Code && entry.text === key ? `${pad}${key},\n` : `${pad}${printKey(key)}: ${literal(entry, indent + 1, printKey(key).length + 2)},\n`,
    )
    .join('')}${close}}`;
}

/** A call with its arguments inline when short, one per line otherwise. */
export function call(callee: string, args: readonly unknown[], indent = 0, prefix = 0): Code {
  const flat = args.map(inline);
  if (flat.every((part) => part !== undefined)) {
    const text = `${callee}(${flat.join(', ')})`;
    if (indent * 2 + prefix + text.length + 1 <= WIDTH) return code(text);
  }
  const pad = '  '.repeat(indent + 1);
  return code(`${callee}(\n${args.map((arg) => `${pad}${literal(arg, indent + 1)},\n`).join('')}${'  '.repeat(indent)})`);
}

/** A doc comment of several sentences, its lines filled up to `width` characters. */
export function docComment(text: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
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

/** Import declarations longer than the line width, one name per line (the TypeScript formatter does not wrap). */
export function wrapLongImports(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const match = /^(import(?: type)?) \{ (.*) \} from (.*);$/.exec(line);
      if (!match || line.length <= WIDTH) return line;
      const [, head, names = '', from] = match;
      return `${head} {\n${names
        .split(', ')
        .map((name) => `  ${name},\n`)
        .join('')}} from ${from};`;
    })
    .join('\n');
}

/** A blank line before each top-level doc comment, so that each export reads as its own paragraph. */
export function separateStatements(text: string): string {
  const lines = text.split('\n');
  return lines
    .map((line, index) => (index > 0 && line.startsWith('/**') && lines[index - 1] !== '' ? `\n${line}` : line))
    .join('\n');
}
