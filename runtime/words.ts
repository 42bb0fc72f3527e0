/** English phrases from labels, for descriptions people and agents read (the generator's and the runtime's). */

/** A label used inside a sentence: `Lead` → `lead`, but `VAT rate` stays. */
export function inSentence(label: string): string {
  const second = label.charAt(1);
  return second !== '' && second === second.toUpperCase() && second !== second.toLowerCase() ? label : label.charAt(0).toLowerCase() + label.slice(1);
}

/** `lead` → `a lead`, `invoice` → `an invoice`, `unit` → `a unit`, `hour` → `an hour`, `SKU` → `an SKU`. */
export function withArticle(phrase: string): string {
  return `${startsWithVowelSound(phrase) ? 'an' : 'a'} ${phrase}`;
}

/** Letters whose English names start with a vowel sound: `an F`, `an MCP server`, but `a VAT rate`, `a URL`. */
const VOWEL_SOUND_LETTERS = new Set('AEFHILMNORSX');

/**
 * Whether a phrase is said starting with a vowel sound, which takes `an`. By its first word:
 * capitals (`SKU`) and single letters are read letter by letter; numbers as said (`an 8-hour
 * shift`, `an 11th`); words by their first letter, except a `u` said "you" (`unit`, `user`,
 * `utility`, but `umbrella`, `under`, and the prefix `un-` of `unable` and `uninvited`), `eu`
 * (`euro`), `one` (`one-off`), and a silent `h` (`hour`, `honest`, `heir`).
 */
export function startsWithVowelSound(phrase: string): boolean {
  const word = /^[^\s_/-]*/.exec(phrase.trim())?.[0] ?? '';
  if (word === '') return false;
  if (/^\d/.test(word)) return /^(8|1[18](?:[,.]?\d{3})*(?!\d))/.test(word);
  if (word.length === 1 || /^[A-Z][A-Z0-9]+s?$/.test(word)) return VOWEL_SOUND_LETTERS.has(word.charAt(0).toUpperCase());
  const lower = word.toLowerCase();
  if (/^(hour|honest|hono(u)?r|heir)/.test(lower)) return true;
  if (/^(eu|ewe|on(e|ce)(?!r)|unanim|ukrain)/.test(lower)) return false;
  if (/^uni(?![nmd])/.test(lower)) return false;
  if (/^u[bcdfgjklmpqrstvz][aeiouy]/.test(lower) && !/^up[aeiouy]/.test(lower)) return false;
  return /^[aeiouàáâäæèéêëìíîïòóôöœùúûü]/.test(lower);
}

/** English plural of a phrase's last word: `lead` → `leads`, `party` → `parties`, `tax` → `taxes`. */
export function plural(phrase: string): string {
  if (/[^aeiou]y$/i.test(phrase)) return `${phrase.slice(0, -1)}ies`;
  if (/(?:s|x|z|ch|sh)$/i.test(phrase)) return `${phrase}es`;
  return `${phrase}s`;
}

/**
 * How to write an amount of money, in words that every money field's description and the MCP
 * instructions share: amounts are integers in minor units, hundredths of the currency.
 */
export function minorUnitsSentence(currency: string | undefined): string {
  return `Integer, minor units: ${minorUnitsExample(currency)}.`;
}

/** `950.00 EUR is 95000`. */
export function minorUnitsExample(currency: string | undefined): string {
  return `950.00${currency === undefined ? '' : ` ${currency}`} is 95000`;
}
