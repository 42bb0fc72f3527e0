/**
 * Reads a field's `pattern` into the pieces `rmsgen seed` draws text from (pattern.ts). It knows
 * the regular expressions modules write for codes and numbers: literals, character classes and
 * ranges (`[A-Z0-9_]`, `[^ ]`), `\d \w \s` and their negations, `.`, escapes, groups (`(…)`,
 * `(?:…)`, `(?<name>…)`), alternation and the quantifiers `{n}` `{n,}` `{n,m}` `+` `*` `?` (lazy
 * ones too). What cannot be made by drawing characters one after another — backreferences,
 * lookarounds, word boundaries, Unicode properties, anchors inside the pattern — is refused with a
 * line that names it. A class is held as its characters in rank order (digits, capitals, small
 * letters, the rest), the order a record's number is written in.
 */

/** A pattern `rmsgen seed` cannot make text for; the message says what in it. */
export class PatternUnsupportedError extends Error {}

export type Node =
  /** One character of these (a literal is one of one), in code point order. */
  | { readonly type: 'chars'; readonly chars: readonly string[] }
  | { readonly type: 'group'; readonly branches: readonly Sequence[] }
  | { readonly type: 'repeat'; readonly node: Node; readonly min: number; readonly max: number };
export type Sequence = readonly Node[];

/** The widest class or range written out (a class is held as its characters). */
const MAX_CLASS = 0x10000;

const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));
const DIGITS = range(0x30, 0x39);
export const WORD = [...DIGITS, ...range(0x41, 0x5a), ...range(0x61, 0x7a), '_'];

/** Printable ASCII: what `.` and negated classes draw from when letters and digits will not do. */
const PRINTABLE = range(0x20, 0x7e);

/** Parses `pattern` (as a module writes it; the whole value must match) into its branches; throws `PatternUnsupportedError`. */
export function parsePattern(pattern: string): Sequence[] {
  return new Parser(pattern).parse();
}

class Parser {
  private readonly chars: readonly string[];
  private at = 0;
  private depth = 0;

  constructor(private readonly pattern: string) {
    this.chars = [...pattern];
  }

  parse(): Sequence[] {
    const branches = this.alternation();
    if (this.at < this.chars.length) this.refuse(`an unmatched ${this.chars[this.at]}`);
    return branches;
  }

  private refuse(what: string): never {
    throw new PatternUnsupportedError(`cannot make text for the pattern ${this.pattern}: ${what} is not supported`);
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.at + offset];
  }

  private alternation(): Sequence[] {
    const branches = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      branches.push(this.sequence());
    }
    return branches;
  }

  private sequence(): Node[] {
    const items: Node[] = [];
    for (;;) {
      const char = this.peek();
      if (char === undefined || char === '|' || char === ')') return items;
      // The runtime anchors the pattern: an anchor at the very start or end of it changes nothing.
      if (char === '^') {
        if (this.depth > 0 || items.length > 0) this.refuse('an anchor (^) inside the pattern');
        this.at++;
        continue;
      }
      if (char === '$') {
        const next = this.peek(1);
        if (this.depth > 0 || (next !== undefined && next !== '|')) this.refuse('an anchor ($) inside the pattern');
        this.at++;
        continue;
      }
      const atom = this.atom();
      const node = this.quantified(atom);
      // A plain group of one branch is its items: `(?:AB)-1` is `AB-1`.
      if (node.type === 'group' && node.branches.length === 1) items.push(...node.branches[0]!);
      else items.push(node);
    }
  }

  private atom(): Node {
    const char = this.chars[this.at++]!;
    switch (char) {
      case '(':
        return this.group();
      case '[':
        return this.characterClass();
      case '.':
        return { type: 'chars', chars: complement([]) };
      case '\\':
        return { type: 'chars', chars: this.escape(false) };
      case '*':
      case '+':
      case '?':
      case '{':
        return this.refuse(`a quantifier (${char}) with nothing before it`);
      default:
        return { type: 'chars', chars: [char] };
    }
  }

  private group(): Node {
    if (this.peek() === '?') {
      const kind = this.peek(1);
      if (kind === ':') this.at += 2;
      else if (kind === '=' || kind === '!') this.refuse(`a lookahead (?${kind}`);
      else if (kind === '<' && (this.peek(2) === '=' || this.peek(2) === '!')) this.refuse(`a lookbehind (?<${this.peek(2)}`);
      else if (kind === '<') {
        const close = this.chars.indexOf('>', this.at);
        if (close < 0) this.refuse('an unclosed group name');
        this.at = close + 1;
      } else this.refuse(`a group modifier (?${kind ?? ''}`);
    }
    this.depth++;
    const branches = this.alternation();
    this.depth--;
    if (this.peek() !== ')') this.refuse('an unclosed group');
    this.at++;
    return { type: 'group', branches };
  }

  private characterClass(): Node {
    const negated = this.peek() === '^';
    if (negated) this.at++;
    const chars = new Set<string>();
    for (;;) {
      const char = this.peek();
      if (char === undefined) this.refuse('an unclosed class [');
      if (char === ']') {
        this.at++;
        break;
      }
      const from = this.classAtom();
      if (this.peek() === '-' && this.peek(1) !== undefined && this.peek(1) !== ']') {
        this.at++;
        const to = this.classAtom();
        if (from.length !== 1 || to.length !== 1) this.refuse('a range between character sets');
        const [low, high] = [from[0]!.codePointAt(0)!, to[0]!.codePointAt(0)!];
        if (high - low + 1 > MAX_CLASS) this.refuse(`a range as wide as ${from[0]}-${to[0]}`);
        for (const each of range(low, high)) chars.add(each);
      } else {
        for (const each of from) chars.add(each);
      }
    }
    const listed = [...chars].sort(byRank);
    const allowed = negated ? complement(listed) : listed;
    if (allowed.length === 0) this.refuse(negated ? 'a class that excludes every character' : 'an empty class []');
    return { type: 'chars', chars: allowed };
  }

  /** One character of a class, or the set an escape stands for. */
  private classAtom(): string[] {
    const char = this.chars[this.at++]!;
    return char === '\\' ? this.escape(true) : [char];
  }

  private escape(inClass: boolean): string[] {
    const char = this.chars[this.at++];
    switch (char) {
      case undefined:
        return this.refuse('a \\ at the end');
      case 'd':
        return DIGITS;
      case 'D':
        return complement(DIGITS);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return [' '];
      case 'S':
        return complement([' ']);
      case 'n':
        return ['\n'];
      case 't':
        return ['\t'];
      case 'r':
        return ['\r'];
      case 'f':
        return ['\f'];
      case 'v':
        return ['\v'];
      case 'b':
      case 'B':
        return this.refuse(inClass ? 'a backspace (\\b) in a class' : `a word boundary (\\${char})`);
      case 'k':
        return this.refuse('a backreference (\\k)');
      case 'p':
      case 'P':
        return this.refuse(`a Unicode property (\\${char})`);
      case 'c':
        return this.refuse('a control character (\\c)');
      case 'x': {
        const hex = this.chars.slice(this.at, this.at + 2).join('');
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) this.refuse('a \\x without two hex digits');
        this.at += 2;
        return [String.fromCodePoint(Number.parseInt(hex, 16))];
      }
      case 'u': {
        if (this.peek() === '{') {
          const close = this.chars.indexOf('}', this.at);
          const hex = this.chars.slice(this.at + 1, close).join('');
          if (close < 0 || !/^[0-9a-fA-F]{1,6}$/.test(hex)) this.refuse('a \\u{…} without hex digits');
          this.at = close + 1;
          return [String.fromCodePoint(Number.parseInt(hex, 16))];
        }
        const hex = this.chars.slice(this.at, this.at + 4).join('');
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.refuse('a \\u without four hex digits');
        this.at += 4;
        return [String.fromCodePoint(Number.parseInt(hex, 16))];
      }
      default:
        if (char === '0') return this.refuse('a NUL character (\\0)');
        if (/[1-9]/.test(char)) return this.refuse(`a backreference (\\${char})`);
        return [char];
    }
  }

  private quantified(node: Node): Node {
    let min: number;
    let max: number;
    const char = this.peek();
    if (char === '*') [min, max] = [0, Infinity];
    else if (char === '+') [min, max] = [1, Infinity];
    else if (char === '?') [min, max] = [0, 1];
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.chars.slice(this.at, this.at + 24).join(''));
      if (!match) return this.refuse('a { that is not a quantifier');
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
      if (max < min) this.refuse(`the quantifier ${match[0]}`);
      this.at += match[0].length - 1;
    } else return node;
    this.at++;
    if (this.peek() === '?') this.at++; // lazy: matches the same values
    return { type: 'repeat', node, min, max };
  }
}

/** Digits, then capitals, then small letters, then the rest by code point: the order a record's number is written in (`0` is its zero). */
function byRank(a: string, b: string): number {
  return rank(a) - rank(b);
}

function rank(char: string): number {
  const code = char.codePointAt(0)!;
  const group = code >= 0x30 && code <= 0x39 ? 0 : code >= 0x41 && code <= 0x5a ? 1 : code >= 0x61 && code <= 0x7a ? 2 : 3;
  return group * 0x110000 + code;
}

/**
 * The characters of `.` and of a negated class or escape: printable ASCII but those excluded. (A
 * pattern's `.` matches more; the seed writes what people type.)
 */
function complement(excluded: readonly string[]): string[] {
  const out = new Set(excluded);
  return PRINTABLE.filter((char) => !out.has(char)).sort(byRank);
}
