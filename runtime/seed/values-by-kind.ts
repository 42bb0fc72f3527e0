/**
 * A field's value maker by its kind (text, number, money, date, select, ref …), each kind's by
 * name from its own module, and text kept within the field's `length` and `pattern` (text drawn
 * from the pattern when the name's value does not match it). A new field kind gets its seeded
 * values here.
 */
import { patternRegExp } from '../kinds.ts';
import type { FieldMeta } from '../registry.ts';
import { decimalMaker, moneyMaker, numberMaker } from './amounts.ts';
import { dateMaker, datetimeMaker } from './dates.ts';
import { PatternUnsupportedError } from './pattern-parser.ts';
import { patternText, type PatternText } from './pattern.ts';
import { characters, emailOf, personOf, sentences, textMaker } from './text-values.ts';
import { SeedValuesError, type Context, type Make } from './value-context.ts';

export function patternOf(field: FieldMeta, context: Context): PatternText {
  try {
    return patternText(field.pattern!);
  } catch (error) {
    if (error instanceof PatternUnsupportedError) throw new SeedValuesError(`${context.model.name}.${field.name}: ${error.message}`);
    throw error;
  }
}

export function valueMaker(field: FieldMeta, context: Context): Make {
  const make = baseValueMaker(field, context);
  if (!TEXT_FIELD_KINDS.has(field.kind)) return make;
  return fittedText(field, context, make);
}

const TEXT_FIELD_KINDS: ReadonlySet<FieldMeta['kind']> = new Set(['text', 'longtext', 'email', 'url', 'phone']);

/** A text maker kept within the field's `length` and `pattern`: a value longer is shortened, one that does not match is drawn from the pattern. */
function fittedText(field: FieldMeta, context: Context, make: Make): Make {
  const length = field.length;
  if (field.pattern === undefined) {
    if (length === undefined) return make;
    return (n, random, values) => fitLength(make(n, random, values) as string, length);
  }
  const pattern = patternRegExp(field.pattern);
  const text = patternOf(field, context);
  if (length !== undefined && text.shortest > length) {
    throw new SeedValuesError(`${context.model.name}.${field.name}: the shortest text of its pattern ${field.pattern} is longer than its length ${length}`);
  }
  return (n, random, values) => {
    const value = make(n, random, values) as string;
    const fitted = length === undefined ? value : fitLength(value, length);
    return pattern.test(fitted) ? fitted : text.draw(random, length);
  };
}

/** At most `length` characters: prose cut at a word (ending as it ended), anything else cut short. */
function fitLength(value: string, length: number): string {
  if (value.length <= length || characters(value) <= length) return value;
  const cut = [...value].slice(0, length).join('');
  const space = cut.lastIndexOf(' ');
  if (space <= 0) return cut;
  const words = cut.slice(0, space).replace(/[.,;:]+$/, '');
  return value.endsWith('.') && words.length < length ? `${words}.` : words;
}

function baseValueMaker(field: FieldMeta, context: Context): Make {
  switch (field.kind) {
    case 'text':
      return textMaker(field, context);
    case 'longtext':
      return (_n, random) => sentences(random, 1 + random.below(3), 6, 15);
    case 'number':
      return numberMaker(field, context);
    case 'money':
      return moneyMaker(field);
    case 'decimal':
      return decimalMaker(field);
    case 'date':
      return dateMaker(field, context);
    case 'datetime':
      return datetimeMaker(field, context);
    case 'bool':
      return (_n, random) => random.below(2) === 1;
    case 'select': {
      const options = field.options ?? [];
      return (_n, random) => (options.length === 0 ? null : (options[random.below(options.length)] as string));
    }
    case 'ref': {
      const ids = context.targets[field.target ?? ''] ?? [];
      return (_n, random) => (ids.length === 0 ? null : (ids[random.below(ids.length)] as string));
    }
    case 'email':
      return (n) => emailOf(n, personOf(context, n));
    case 'url':
      return (n) => `https://www.example.com/${field.name.replaceAll('_', '-')}/${n}`;
    case 'phone':
      return (n, random) => `+44 20 ${String(7000 + (n % 3000)).padStart(4, '0')} ${String(random.below(10_000)).padStart(4, '0')}`;
    case 'multiselect': {
      const options = field.options ?? [];
      return (_n, random) => {
        const chosen = options.filter(() => random.below(3) === 0);
        return chosen.length === 0 ? null : chosen;
      };
    }
    case 'file':
      // Seeds upload nothing: file fields start empty.
      return () => null;
  }
}
