/**
 * Text that matches a field's `pattern`, for `rmsgen seed`, from the pattern as pattern-parser.ts
 * reads it (and refuses what it cannot make).
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
import { WORD, parsePattern, type Node, type Sequence } from './pattern-parser.ts';
import type { Random } from './random.ts';

/** Characters past its least that a repetition runs to at most when drawn. */
const EXTRA_REPEATS = 6;
/** Characters a bounded repetition at the end of a pattern gives a record's number, within its bounds. */
const NUMBERED_REPEATS = 8;

const ALPHANUMERIC_SET: ReadonlySet<string> = new Set(WORD.filter((char) => char !== '_'));

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
  const branches = parsePattern(pattern);
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
