/**
 * Text for `rmsgen seed` by what the field's name says it holds: emails, phone numbers, links,
 * codes with the model's prefix (`INV-0000001`), people's names (the record's person the same in
 * its name and its email), addresses, companies, sentences for a reason or a note, `<Label> <n>`
 * for a record's title: plausible in any business, never a business's own vocabulary. The word
 * lists change here.
 */
import type { FieldMeta, ModelMeta } from '../registry.ts';
import { hasToken } from './field-names.ts';
import { Random } from './random.ts';
import type { Context, Make } from './value-context.ts';

export function characters(text: string): number {
  return [...text].length;
}

export const EMAIL = /^(email|e|mail)$/;

/** What a text field holds, by its name (the first rule that fits), or personal: a person's name. */
type TextKind = 'email' | 'phone' | 'url' | 'code' | 'first name' | 'last name' | 'address' | 'city' | 'country' | 'postcode' | 'company' | 'colour' | 'sentence' | 'person' | 'title' | 'phrase';

const TEXT_KINDS: readonly (readonly [TextKind, RegExp])[] = [
  ['email', EMAIL],
  ['phone', /^(phone|mobile|tel|telephone|fax|cell)$/],
  ['url', /^(url|website|homepage|site|link|web)$/],
  ['first name', /^(first|given|forename)$/],
  ['last name', /^(last|surname|family)$/],
  ['address', /^(address|street|addr)$/],
  ['city', /^(city|town)$/],
  ['country', /^country$/],
  ['postcode', /^(zip|postcode|postal)$/],
  ['company', /^(company|organisation|organization|employer|supplier|vendor|business|firm)$/],
  ['colour', /^colou?r$/],
  ['sentence', /^(description|notes?|comments?|remarks?|summary|details?|reason|message|body|text|memo|instructions?|explanation|feedback|answer|question)$/],
  ['person', /^(fullname|contact|person|owner|tenant|customer|client|landlord|manager|agent|employee)$/],
];

function textKindOf(field: FieldMeta, model: ModelMeta): TextKind {
  if (CODE_FIELDS.includes(field.name) || /_(code|number|no|ref|reference|id|sku)$/.test(field.name)) return 'code';
  const byName = TEXT_KINDS.find(([, pattern]) => hasToken(field, pattern))?.[0];
  if (byName) return byName;
  if (field.personal) return 'person';
  return field.name === model.titleField || hasToken(field, /^(name|title)$/) ? 'title' : 'phrase';
}

/** Text by what the field holds: an email, a phone number, a code, a name, a sentence … */
export function textMaker(field: FieldMeta, context: Context): Make {
  const { model } = context;
  const kind = textKindOf(field, model);
  switch (kind) {
    case 'email':
      return (n) => emailOf(n, personOf(context, n));
    case 'phone':
      return (n, random) => `+1 555 ${String(n % 10_000).padStart(4, '0')} ${String(random.below(1000)).padStart(3, '0')}`;
    case 'url':
      return (n) => `https://www.example.com/${model.name}/${n}`;
    case 'code':
      return (n) => codeOf(field, model, n);
    case 'first name':
      return (_n, random) => pick(random, FIRST_NAMES);
    case 'last name':
      return (_n, random) => pick(random, LAST_NAMES);
    case 'address':
      return (_n, random) => `${random.below(200) + 1} ${pick(random, STREETS)}`;
    case 'city':
      return (_n, random) => pick(random, CITIES);
    case 'country':
      return (_n, random) => pick(random, COUNTRIES);
    case 'postcode':
      return (_n, random) => String(10_000 + random.below(90_000));
    case 'company':
      return (_n, random) => `${pick(random, COMPANY_WORDS)} ${pick(random, COMPANY_FORMS)}`;
    case 'colour':
      return (_n, random) => pick(random, COLOURS);
    case 'sentence':
      return (_n, random) => sentences(random, 1, 4, 9);
    case 'person':
      // The record's own person (whose email it has) for the first such field.
      if (field === context.personField) return (n) => personOf(context, n).join(' ');
      return (_n, random) => `${pick(random, FIRST_NAMES)} ${pick(random, LAST_NAMES)}`;
    case 'title':
      return (n) => `${model.label} ${n}`;
    case 'phrase':
      return (_n, random) => words(random, 2 + random.below(3), true);
  }
}

/** The first field of the model that `textMaker` makes a person's name of. */
export function personFieldOf(model: ModelMeta): FieldMeta | undefined {
  return model.fields.find((field) => field.kind === 'text' && textKindOf(field, model) === 'person');
}

/** The person record `n` is about: first and last name, the same for its name and its email. */
export function personOf(context: Context, n: number): [string, string] {
  PERSON_RANDOM.reset(context.seed, n, -1);
  return [pick(PERSON_RANDOM, FIRST_NAMES), pick(PERSON_RANDOM, LAST_NAMES)];
}

/** Names of fields that are a record's code: their prefix is the model's (`INV-0000001` for invoice.number). */
const CODE_FIELDS: readonly string[] = ['code', 'number', 'reference', 'ref', 'sku'];

/** `INV-0000001` for invoice.number, `TAX-0000001` for party.tax_id. */
export function codeOf(field: FieldMeta, model: ModelMeta, n: number): string {
  return `${codePrefix(field, model)}-${String(n).padStart(7, '0')}`;
}

function codePrefix(field: FieldMeta, model: ModelMeta): string {
  const source = CODE_FIELDS.includes(field.name) ? model.name : field.name;
  return source.replace(/[^a-z]/gi, '').slice(0, 3).toUpperCase() || 'REC';
}

export function emailOf(n: number, [first, last]: readonly [string, string]): string {
  return `${first}.${last}${n}@example.com`.toLowerCase();
}

/** `count` words, the first capitalised when asked. */
function words(random: Random, count: number, capitalised = false): string {
  const out = [pick(random, capitalised ? CAPITALISED_WORDS : WORDS)];
  for (let w = 1; w < count; w++) out.push(pick(random, WORDS));
  return out.join(' ');
}

export function sentences(random: Random, count: number, shortest: number, longest: number): string {
  const out: string[] = [];
  for (let s = 0; s < count; s++) out.push(words(random, shortest + random.below(longest - shortest + 1), true), '.', s === count - 1 ? '' : ' ');
  // Joined, not concatenated: a flat string, which the driver binds without flattening a rope first.
  return out.join('');
}

function pick<T>(random: Random, list: readonly T[]): T {
  return list[random.below(list.length)] as T;
}

/** The stream of `personOf`, apart from the one the field makers share. */
const PERSON_RANDOM = new Random();

const FIRST_NAMES = ['Ada', 'Ben', 'Chloé', 'Dario', 'Elif', 'Femi', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kai', 'Lena', 'Malik', 'Nora', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tariq', 'Uma', 'Vera', 'Wei', 'Yara', 'Zoë'] as const;
const LAST_NAMES = ['Adams', 'Berg', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'García', 'Haddad', 'Ivanova', 'Jensen', 'Kowalski', 'Larsen', 'Müller', 'Nakamura', 'Okafor', 'Petrov', 'Quispe', 'Rossi', 'Schmidt', 'Tanaka', 'Usman', 'Varga', 'Weber', 'Yilmaz', 'Zhang'] as const;
const STREETS = ['Harbour Road', 'Mill Lane', 'Station Street', 'Königsallee', 'Rue du Marché', 'Via Roma', 'Oak Avenue', 'Canal Walk'] as const;
const CITIES = ['Lyon', 'Porto', 'Leeds', 'Utrecht', 'Graz', 'Malmö', 'Turin', 'Ghent', 'Cork', 'Brno'] as const;
const COUNTRIES = ['France', 'Portugal', 'United Kingdom', 'Netherlands', 'Austria', 'Sweden', 'Italy', 'Belgium', 'Ireland', 'Czechia'] as const;
const COMPANY_WORDS = ['Northwind', 'Bluebird', 'Harbourside', 'Greenfield', 'Redwood', 'Silverline', 'Oakridge', 'Brightwater'] as const;
const COMPANY_FORMS = ['Ltd', 'GmbH', 'SA', 'BV', 'AB', 'Inc.'] as const;
const COLOURS = ['red', 'blue', 'green', 'yellow', 'black', 'white', 'grey', 'orange'] as const;
/** Words of no trade in particular, for sentences and short phrases. */
const WORDS: readonly string[] = ['the', 'a', 'and', 'for', 'with', 'on', 'after', 'before', 'to', 'of', 'request', 'call', 'visit', 'check', 'update', 'follow', 'up', 'next', 'week', 'month', 'agreed', 'noted', 'sent', 'received', 'confirmed', 'pending', 'review', 'details', 'documents', 'schedule', 'meeting', 'question', 'change', 'date', 'team', 'asked', 'about', 'new', 'plan', 'reply', 'form', 'copy', 'report', 'done', 'open', 'first', 'second', 'later'] as const;
const CAPITALISED_WORDS = WORDS.map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`);
