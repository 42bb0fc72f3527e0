/**
 * Reading a field's `pattern` for the seed: what cannot be made by drawing characters one after
 * another (backreferences, lookarounds, word boundaries, anchors inside the pattern, a class that
 * allows nothing …) is refused with a line naming it.
 */
import { describe, expect, it } from 'vitest';
import { PatternUnsupportedError, parsePattern } from '../../../runtime/seed/pattern-parser.ts';

describe('parsePattern', () => {
  it.each([
    ['(a)\\1', 'a backreference (\\1)'],
    ['(?<x>a)\\k<x>', 'a backreference (\\k)'],
    ['(?=a)a', 'a lookahead (?='],
    ['(?!b)a', 'a lookahead (?!'],
    ['(?<=a)b', 'a lookbehind (?<='],
    ['(?<!a)b', 'a lookbehind (?<!'],
    ['\\bword\\b', 'a word boundary (\\b)'],
    ['\\p{L}+', 'a Unicode property (\\p)'],
    ['a^b', 'an anchor (^) inside the pattern'],
    ['a$b', 'an anchor ($) inside the pattern'],
    ['(^a)', 'an anchor (^) inside the pattern'],
    ['[^\\s\\S]', 'a class that excludes every character'],
    ['[\\u0000-\\u{10FFFF}]', 'a range as wide as \u0000-\u{10FFFF}'],
    ['\\cJ', 'a control character (\\c)'],
    ['a\\0', 'a NUL character (\\0)'],
  ])('refuses %s with a line naming %s', (pattern, what) => {
    expect(() => parsePattern(pattern)).toThrow(new PatternUnsupportedError(`cannot make text for the pattern ${pattern}: ${what} is not supported`));
  });
});
