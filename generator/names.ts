/** Small pure helpers that turn definition names into labels, identifiers and English phrases. */

/** Lower snake_case with single underscores between words: `lead`, `expected_revenue`, `q2_target`. */
export const IDENTIFIER = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** `expected_revenue` → `Expected revenue`. */
export function defaultLabel(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Token prefix of a personal field: upper-cased label, runs of spaces and hyphens as `_` (`Expected revenue` → `EXPECTED_REVENUE`). */
export function maskLabelOf(label: string): string {
  return label.trim().toUpperCase().replace(/[\s-]+/g, '_');
}

export const MASK_LABEL = /^[A-Z][A-Z0-9_]*$/;

/**
 * `lead_item` → `leadItem`. An underscore before a digit is kept (`q_2` → `q_2`) so that two
 * different snake_case names never give the same identifier.
 */
export function camelCase(name: string): string {
  return name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** `lead_item` → `LeadItem`. */
export function pascalCase(name: string): string {
  const camel = camelCase(name);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}

// English phrases from labels: shared with the runtime, which words tool descriptions too.
export { inSentence, minorUnitsSentence, plural, withArticle } from '../runtime/words.ts';
