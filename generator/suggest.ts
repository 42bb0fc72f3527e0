/** "Did you mean" suggestions for names that are almost right. */

export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The closest candidate within a few edits, or undefined. Ties go to the earlier candidate. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = levenshtein(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The hint after an unknown name: `did you mean "party"?`, or the list of known names when
 * nothing is close (`known models: lead, party`).
 */
export function unknownNameHint(name: string, candidates: readonly string[], what: string): string {
  const suggestion = closest(name, candidates);
  if (suggestion !== undefined) return `did you mean "${suggestion}"?`;
  return candidates.length === 0 ? `there are no ${what}` : `known ${what}: ${candidates.join(', ')}`;
}
