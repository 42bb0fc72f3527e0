/** English phrases from labels, for descriptions people and agents read (the generator's and the runtime's). */

/** A label used inside a sentence: `Lead` → `lead`, but `VAT rate` stays. */
export function inSentence(label: string): string {
  const second = label.charAt(1);
  return second !== '' && second === second.toUpperCase() && second !== second.toLowerCase() ? label : label.charAt(0).toLowerCase() + label.slice(1);
}

/** `lead` → `a lead`, `invoice` → `an invoice`. */
export function withArticle(phrase: string): string {
  return `${/^[aeiou]/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
}

/** English plural of a phrase's last word: `lead` → `leads`, `party` → `parties`, `tax` → `taxes`. */
export function plural(phrase: string): string {
  if (/[^aeiou]y$/i.test(phrase)) return `${phrase.slice(0, -1)}ies`;
  if (/(?:s|x|z|ch|sh)$/i.test(phrase)) return `${phrase}es`;
  return `${phrase}s`;
}
