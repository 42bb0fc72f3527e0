/**
 * Text that matches a field's `pattern`, for `rmsgen seed`. It knows the regular expressions
 * modules write for codes and numbers: literals, character classes and ranges (`[A-Z0-9_]`,
 * `[^ ]`), `\d \w \s` and their negations, `.`, escapes, groups (`(…)`, `(?:…)`, `(?<name>…)`),
 * alternation and the quantifiers `{n}` `{n,}` `{n,m}` `+` `*` `?` (lazy ones too). What cannot be
 * made by drawing characters one after another — backreferences, lookarounds, word boundaries,
 * Unicode properties, anchors inside the pattern — is refused with a line that names it.
 *
 * Characters are drawn from what the pattern allows; where it allows almost anything (`.`, a
 * negated class) from letters and digits first. Open repetitions (`+`, `{2,}`) and wide ones run
 * a few characters past their least, so values look like what people type.
 *
 * A unique field needs values that never repeat: `numbered` writes the record's number into the
 * pattern's last characters (the run of classes at its end: `[0-9]{4,}` of `[A-Z]{2}-[0-9]{4,}`,
 * as digits of the class's characters), and draws the rest when it has a fixed length (else keeps
 * it the same for every record), so two numbers never give the same text.
 */
import type { Random } from './random.ts';

/** A pattern `rmsgen seed` cannot make text for; the message says what in it. */
export class PatternUnsupportedError extends Error {}

type Node =
  /** One character of these (a literal is one of one), in code point order. */
  | { readonly type: 'chars'; readonly chars: readonly string[] }
  | { readonly type: 'group'; readonly branches: readonly Sequence[] }
  | { readonly type: 'repeat'; readonly node: Node; readonly min: number; readonly max: number };
type Sequence = readonly Node[];

/** Characters past its least that a repetition runs to at most when drawn. */
const EXTRA_REPEATS = 6;
/** Characters a bounded repetition at the end of a pattern gives a record's number, within its bounds. */
const NUMBERED_REPEATS = 8;
/** The widest class or range written out (a class is held as its characters). */
const MAX_CLASS = 0x10000;

const range = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));
const DIGITS = range(0x30, 0x39);
const WORD = [...DIGITS, ...range(0x41, 0x5a), ...range(0x61, 0x7a), '_'];
const ALPHANUMERIC_SET: ReadonlySet<string> = new Set(WORD.filter((char) => char !== '_'));
/** Printable ASCII: what `.` and negated classes draw from when letters and digits will not do. */
const PRINTABLE = range(0x20, 0x7e);

/** What `patternText` answers: the ways to make text that matches one pattern. */
export interface PatternText {
  /** A value drawn from `random`; the shortest value when the drawn one is longer than `maxLength`. */
  draw(random: Random, maxLength?: number): string;
  /** The length of the shortest value. */
  readonly shortest: number;
  /** How many records `numbered` tells apart (from 1): Infinity when the pattern ends in an open repetition. */
  readonly capacity: number;
  /** A value that holds `n` (1 to `capacity`): two numbers never give the same text. */
  numbered(n: number, random: Random): string;
}

/** Parses `pattern` (as a module writes it; the whole value must match) once; throws `PatternUnsupportedError`. */
export function patternText(pattern: string): PatternText {
  const branches = new Parser(pattern).parse();
  const top: Node = { type: 'group', branches };
  const shortestText = shortestOf(top);
  const plan = numberingPlan(branches);
  return {
    draw(random, maxLength) {
      const out: string[] = [];
      drawInto(top, random, out);
      const text = out.join('');
      return maxLength !== undefined && characters(text) > maxLength ? shortestText : text;
    },
    shortest: characters(shortestText),
    capacity: plan.capacity,
    numbered(n, random) {
      if (!(n >= 1 && n <= plan.capacity)) throw new RangeError(`pattern ${pattern} holds numbers 1 to ${plan.capacity}, not ${n}`);
      const out: string[] = [];
      for (const node of plan.prefix) {
        if (plan.prefixDrawn) drawInto(node, random, out);
        else out.push(shortestOf(node));
      }
      out.push(runText(plan.run, n));
      return out.join('');
    },
  };
}

function characters(text: string): number {
  return [...text].length;
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

/** What a class draws from: its letters and digits when it has any (`.` gives `x7Q`, not `~|}`), else all of it. */
const drawable = new WeakMap<readonly string[], readonly string[]>();
function drawableOf(chars: readonly string[]): readonly string[] {
  let found = drawable.get(chars);
  if (!found) {
    const letters = chars.filter((char) => ALPHANUMERIC_SET.has(char));
    found = letters.length > 0 ? letters : chars;
    drawable.set(chars, found);
  }
  return found;
}

function drawInto(node: Node, random: Random, out: string[]): void {
  switch (node.type) {
    case 'chars': {
      const chars = drawableOf(node.chars);
      out.push(chars[random.below(chars.length)]!);
      return;
    }
    case 'group': {
      for (const item of node.branches[random.below(node.branches.length)]!) drawInto(item, random, out);
      return;
    }
    case 'repeat': {
      const count = node.min + random.below(Math.min(node.max - node.min, EXTRA_REPEATS) + 1);
      for (let i = 0; i < count; i++) drawInto(node.node, random, out);
    }
  }
}

/** The shortest text of a node: each repetition at its least, the shortest branch, each class's first character. */
function shortestOf(node: Node): string {
  switch (node.type) {
    case 'chars':
      return node.chars[0]!;
    case 'group':
      return node.branches.map((branch) => branch.map(shortestOf).join('')).reduce((best, text) => (characters(text) < characters(best) ? text : best));
    case 'repeat':
      return shortestOf(node.node).repeat(node.min);
  }
}

/** The length every text of the node has, or undefined when texts of several lengths match it. */
function fixedLength(node: Node): number | undefined {
  switch (node.type) {
    case 'chars':
      return 1;
    case 'repeat': {
      const each = fixedLength(node.node);
      return node.min === node.max && each !== undefined ? each * node.min : undefined;
    }
    case 'group': {
      const lengths = node.branches.map((branch) => branch.reduce<number | undefined>((sum, item) => {
        const length = fixedLength(item);
        return sum === undefined || length === undefined ? undefined : sum + length;
      }, 0));
      return lengths.every((length) => length === lengths[0]) ? lengths[0] : undefined;
    }
  }
}

/**
 * A part of the run at the end of the pattern that holds digits of a record's number: `count`
 * digits (or as many as the number needs, at least `count`, when open), each one of `digits` — the
 * characters of a class, or the texts of a group's branches when they all have one length.
 */
interface RunPart {
  readonly digits: readonly string[];
  readonly count: number;
  readonly open: boolean;
}

interface NumberingPlan {
  /** What comes before the run, as written. */
  readonly prefix: Sequence;
  /** Whether the prefix is drawn for each record (it has a fixed length) or the same for all. */
  readonly prefixDrawn: boolean;
  /** Left to right; an open part can only be the first. */
  readonly run: readonly RunPart[];
  readonly capacity: number;
}

/**
 * How record numbers go into the pattern: the branch whose end holds the most, its run being the
 * classes (and literals) at its end, each at a fixed count, back to and including the first open
 * repetition. Everything before the run keeps its place because the run's fixed parts end the text
 * and the open part, if any, is the run's first.
 */
function numberingPlan(branches: readonly Sequence[]): NumberingPlan {
  let best: NumberingPlan | undefined;
  // Branches of one length are one part too: `A|B` holds two numbers.
  const candidates = branches.length > 1 ? [...branches, [{ type: 'group', branches } as const]] : branches;
  for (const branch of candidates) {
    const run: RunPart[] = [];
    let start = branch.length;
    while (start > 0) {
      const item = branch[start - 1]!;
      const part = runPart(item);
      if (!part) break;
      run.unshift(part);
      start--;
      if (part.open) break;
    }
    const open = run.some((part) => part.open);
    let capacity = open ? Infinity : 1;
    if (!open) for (const part of run) capacity = Math.min(Number.MAX_SAFE_INTEGER, capacity * part.digits.length ** part.count);
    const prefix = branch.slice(0, start);
    const plan = { prefix, prefixDrawn: prefix.every((item) => fixedLength(item) !== undefined), run, capacity };
    if (!best || plan.capacity > best.capacity) best = plan;
  }
  return best!;
}

function runPart(node: Node): RunPart | undefined {
  const [item, min, max] = node.type === 'repeat' ? [node.node, node.min, node.max] : [node, 1, 1];
  const digits = digitsOf(item);
  // What may be left out (`( [A-Z][a-z]+)?`) is, in every numbered value: the run goes on before it.
  if (!digits) return min === 0 ? { digits: [''], count: 0, open: false } : undefined;
  // One digit repeated without bound would count in unary: not a part.
  if (max === Infinity) return digits.length < 2 ? undefined : { digits, count: min, open: true };
  return { digits, count: Math.max(min, Math.min(max, NUMBERED_REPEATS)), open: false };
}

/** The digits a run part of this node writes with: a class's characters, or a group's branch texts when they are all as long. */
function digitsOf(node: Node): readonly string[] | undefined {
  if (node.type === 'chars') return node.chars;
  if (node.type !== 'group' || fixedLength(node) === undefined) return undefined;
  const texts = [...new Set(node.branches.map((branch) => branch.map(shortestOf).join('')))];
  return texts;
}

/** `n` in the run: each fixed part a digit of its base (its characters), the open part whatever is left (from 1, so no number is lost). */
function runText(run: readonly RunPart[], n: number): string {
  const open = run[0]?.open === true;
  let value = open ? n : n - 1;
  const out: string[] = [];
  for (let i = run.length - 1; i >= 0; i--) {
    const part = run[i]!;
    const base = part.digits.length;
    const digits: string[] = [];
    if (part.open) {
      while (value > 0) {
        digits.push(part.digits[value % base]!);
        value = Math.floor(value / base);
      }
      while (digits.length < part.count) digits.push(part.digits[0]!);
    } else {
      for (let d = 0; d < part.count; d++) {
        digits.push(part.digits[value % base]!);
        value = Math.floor(value / base);
      }
    }
    out.push(digits.reverse().join(''));
  }
  return out.reverse().join('');
}
