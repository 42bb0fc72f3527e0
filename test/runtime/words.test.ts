/** Table tests for the English of descriptions (runtime/words.ts): the article by sound, not by letter. */
import { describe, expect, it } from 'vitest';
import { startsWithVowelSound, withArticle } from '../../runtime/words.ts';

describe('withArticle', () => {
  it.each([
    // Vowel letters, vowel sounds.
    ['invoice', 'an invoice'],
    ['apartment', 'an apartment'],
    ['order line', 'an order line'],
    ['umbrella', 'an umbrella'],
    ['under-tenant', 'an under-tenant'],
    ['unable', 'an unable'],
    ['uninvited guest', 'an uninvited guest'],
    ['unimportant note', 'an unimportant note'],
    ['upper floor', 'an upper floor'],
    ['update', 'an update'],
    ['usher', 'an usher'],
    ['ultra plan', 'an ultra plan'],
    ['onerous clause', 'an onerous clause'],
    ['Élan', 'an Élan'],
    ['iPhone', 'an iPhone'],
    // A u said "you", eu, one: consonant sounds.
    ['unit', 'a unit'],
    ['Unit', 'a Unit'],
    ['user', 'a user'],
    ['uniform', 'a uniform'],
    ['union member', 'a union member'],
    ['unique code', 'a unique code'],
    ['universe', 'a universe'],
    ['utility bill', 'a utility bill'],
    ['usual', 'a usual'],
    ['urine test', 'a urine test'],
    ['ukulele', 'a ukulele'],
    ['Ukrainian supplier', 'a Ukrainian supplier'],
    ['unanimous vote', 'a unanimous vote'],
    ['euro account', 'a euro account'],
    ['European', 'a European'],
    ['ewe', 'a ewe'],
    ['one-off fee', 'a one-off fee'],
    ['once-a-year check', 'a once-a-year check'],
    // A silent h: a vowel sound.
    ['hour', 'an hour'],
    ['hourly rate', 'an hourly rate'],
    ['honest broker', 'an honest broker'],
    ['honorary member', 'an honorary member'],
    ['honour', 'an honour'],
    ['heir', 'an heir'],
    ['house', 'a house'],
    ['honey', 'a honey'],
    // Consonants.
    ['lead', 'a lead'],
    ['party', 'a party'],
    ['year', 'a year'],
    // Read letter by letter.
    ['SKU', 'an SKU'],
    ['FAQ entry', 'an FAQ entry'],
    ['MCP server', 'an MCP server'],
    ['HTML page', 'an HTML page'],
    ['ID', 'an ID'],
    ['X-ray', 'an X-ray'],
    ['x coordinate', 'an x coordinate'],
    ['VAT rate', 'a VAT rate'],
    ['URL', 'a URL'],
    ['KPI', 'a KPI'],
    ['B2B deal', 'a B2B deal'],
    // Numbers as said.
    ['8-hour shift', 'an 8-hour shift'],
    ['80 m² flat', 'an 80 m² flat'],
    ['11th floor', 'an 11th floor'],
    ['18 month lease', 'an 18 month lease'],
    ['11,000 EUR loan', 'an 11,000 EUR loan'],
    ['110 m² flat', 'a 110 m² flat'],
    ['1st floor', 'a 1st floor'],
    ['3-room flat', 'a 3-room flat'],
  ])('%s → %s', (phrase, expected) => expect(withArticle(phrase)).toBe(expected));

  it('an empty phrase takes a', () => expect(startsWithVowelSound('')).toBe(false));
});
