/**
 * The readers (generator/validate/read.ts) on what a field, a line list and a rule say on their
 * own: the new kinds' keys, checks (`min`/`max`, `length`, `pattern`, `scale`), defaults, computed
 * fields and their functions, line lists: each refusal one line at the module's line, with the
 * model, the field and the fix. And what they resolve once for the IR.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../../generator/pipeline.ts';
import { oneModule, removeModuleTrees } from '../../helpers/module-trees.ts';
import { expectRefusal, F, type RefusalCase } from './cases.ts';

afterAll(removeModuleTrees);

const fieldCases: RefusalCase[] = [
  {
    name: 'a computed field without a function',
    model: `{ fields: { total: { kind: 'money', computed: 5 }, label: { kind: 'text', computed: 'upper' } } }`,
    lines: (at) => [
      `${F}:${at('total:')}: model m, field total: computed must be a function of the record (got 5); e.g. computed: (record) => record.items.length`,
      `${F}:${at('label:')}: model m, field label: computed must be a function of the record (got "upper"); e.g. computed: (record) => record.items.length`,
    ],
  },
  {
    name: 'a computed field also required, defaulted or written by roles',
    model: `{ fields: {
      a: { kind: 'number', computed: (r) => 1, required: true, default: 2 },
      b: { kind: 'number', computed: (r) => 1, write: ['clerk'] },
    } }`,
    lines: (at) => [
      `${F}:${at('a:')}: model m, field a: a computed field cannot be required: its function sets it on every write (remove required, or remove computed)`,
      `${F}:${at('a:')}: model m, field a: a computed field cannot be given a default: its function sets it on every write (remove default, or remove computed)`,
      `${F}:${at('b:')}: model m, field b: a computed field cannot be written by roles: its function sets it on every write (remove write, or remove computed)`,
    ],
  },
  {
    name: 'a default of the wrong kind, today only on a date, now only on a datetime',
    model: `{ fields: {
      count: { kind: 'number', default: 'x' },
      flag: { kind: 'bool', default: 'yes' },
      day: { kind: 'date', default: 'now' },
      at: { kind: 'datetime', default: 'today' },
      size: { kind: 'number', default: 'today' },
      colour: { kind: 'select', options: ['red', 'blue'], default: 'green' },
      state: { kind: 'select', options: ['open', 'closed'], governed: true, default: 'closed' },
      tags: { kind: 'multiselect', options: ['a', 'b'], default: [] },
      pct: { kind: 'decimal', scale: 1, max: 10, default: 2.25 },
      max: { kind: 'money', max: 100, default: 101 },
      code: { kind: 'text', pattern: '[A-Z]+', default: 'abc' },
      owner: { kind: 'ref', to: 'm', default: 'x' },
    } }`,
    lines: (at) => [
      `${F}:${at('count:')}: model m, field count: default "x" is not a value of the field: m.count must be an integer (write a number value)`,
      `${F}:${at('flag:')}: model m, field flag: default "yes" is not a value of the field: m.flag must be true or false (write a bool value)`,
      `${F}:${at('day:')}: model m, field day: default 'now' is only for datetime fields (a date field's is 'today') (write a date value)`,
      `${F}:${at(' at:')}: model m, field at: default 'today' is only for date fields (a datetime field's is 'now') (write a datetime value)`,
      `${F}:${at('size:')}: model m, field size: default 'today' is only for date fields (write a number value)`,
      `${F}:${at('colour:')}: model m, field colour: default "green" is not a value of the field: m.colour must be one of: red, blue (write a select value)`,
      `${F}:${at('state:')}: model m, field state: default "closed": a governed select starts at its first option "open" (remove default, or make it the first option)`,
      `${F}:${at('tags:')}: model m, field tags: default a list is empty (remove default: a field without one starts empty)`,
      `${F}:${at('pct:')}: model m, field pct: default 2.25 is not a value of the field: m.pct has at most 1 decimal places (write a decimal value)`,
      `${F}:${at('max: {')}: model m, field max: default 101 is not a value of the field: m.max must be at most 100 (write a money value)`,
      `${F}:${at('code:')}: model m, field code: default "abc" is not a value of the field: m.code does not match the required pattern (write a text value)`,
      `${F}:${at('owner:')}: model m, field owner: default is not for ref fields: no record id is known when a module is written (remove default)`,
    ],
  },
  {
    name: 'min above max, and bounds that are no values of the field',
    model: `{ fields: {
      qty: { kind: 'number', min: 10, max: 1 },
      due: { kind: 'date', min: '2026-12-01', max: '2026-01-01' },
      at: { kind: 'datetime', min: '2026-01-01T01:00:00+02:00', max: '2025-12-31T22:00:00Z' },
      start: { kind: 'date', min: '2026-13-01' },
      pct: { kind: 'decimal', scale: 2, min: 0.001 },
      size: { kind: 'number', min: 1.5 },
    } }`,
    lines: (at) => [
      `${F}:${at('qty:')}: model m, field qty: min 10 is above max 1 (lower min or raise max)`,
      `${F}:${at('due:')}: model m, field due: min "2026-12-01" is above max "2026-01-01" (lower min or raise max)`,
      `${F}:${at(' at:')}: model m, field at: min "2025-12-31T23:00:00.000Z" is above max "2025-12-31T22:00:00.000Z" (lower min or raise max)`,
      `${F}:${at('start:')}: model m, field start: min "2026-13-01" is not a value of the field: m.start must be a real calendar date YYYY-MM-DD (write min as a date value)`,
      `${F}:${at('pct:')}: model m, field pct: min 0.001 is not a value of the field: m.pct has at most 2 decimal places (write min as a decimal value)`,
      `${F}:${at('size:')}: model m, field size: "min" must be an integer (got 1.5)`,
    ],
  },
  {
    name: 'scale outside 0–6, length below 1, a pattern that does not compile',
    model: `{ fields: {
      pct: { kind: 'decimal', scale: 7 },
      ratio: { kind: 'decimal', scale: -1 },
      code: { kind: 'text', length: 0 },
      ref_no: { kind: 'text', pattern: '[A-Z' },
    } }`,
    lines: (at) => [
      `${F}:${at('pct:')}: model m, field pct: "scale" must be a whole number from 0 to 6 (got 7)`,
      `${F}:${at('ratio:')}: model m, field ratio: "scale" must be a whole number from 0 to 6 (got -1)`,
      `${F}:${at('code:')}: model m, field code: "length" must be a whole number of 1 or more (got 0)`,
      `${F}:${at('ref_no:')}: model m, field ref_no: pattern "[A-Z" is not a valid regular expression (Invalid regular expression: /^(?:[A-Z)$/u: Unterminated character class); fix the expression (JavaScript syntax, with the u flag)`,
    ],
  },
  {
    name: 'a multiselect without options or with one twice',
    model: `{ fields: { none: { kind: 'multiselect', options: [] }, twice: { kind: 'multiselect', options: ['a', 'b', 'a'] } } }`,
    lines: (at) => [
      `${F}:${at('none:')}: model m, field none: multiselect has no options (add options: ['first', 'second'])`,
      `${F}:${at('none:')}: model m, field twice: multiselect option "a" is listed twice (remove one)`,
    ],
  },
  {
    name: "keys of other kinds, each with what it is for",
    model: `{ fields: {
      name: { kind: 'text', scale: 2, min: 1 },
      count: { kind: 'number', pattern: '[0-9]+', length: 3 },
      pct: { kind: 'decimal', options: ['a'] },
    } }`,
    lines: (at) => [
      `${F}:${at('name:')}: model m, field name: scale is only for decimal fields (make it kind: 'decimal', or remove scale)`,
      `${F}:${at('name:')}: model m, field name: min is only for number, money, decimal, date and datetime fields (remove min)`,
      `${F}:${at('count:')}: model m, field count: length is only for text, longtext, email, url and phone fields (remove length)`,
      `${F}:${at('count:')}: model m, field count: pattern is only for text, longtext, email, url and phone fields (remove pattern)`,
      `${F}:${at('pct:')}: model m, field pct: options are only for select and multiselect fields (make it kind: 'select' (or 'multiselect'), or remove options)`,
    ],
  },
  {
    name: 'an email field is personal unless it says not: unique would tell agents what exists',
    model: `{ fields: { email: { kind: 'email', unique: true }, office: { kind: 'email', unique: true, personal: false } } }`,
    lines: (at) => [
      `${F}:${at('email:')}: model m, field email: unique on a personal field agents may write would tell an agent whether a value it wrote is held by another record (remove unique, add agents: 'hidden', or say personal: false (email fields are personal unless they say so))`,
    ],
  },
  {
    name: 'a required personal field of a kind with no erased value (an erasure could not forget it); the other kinds may be, and lines likewise',
    model: `{ fields: {
      gender: { kind: 'select', options: ['f', 'm'], required: true, personal: true },
      langs: { kind: 'multiselect', options: ['en', 'fr'], required: true, personal: true },
      doctor: { kind: 'ref', to: 'm', required: true, personal: true },
      name: { kind: 'text', required: true, personal: true },
      born: { kind: 'date', required: true, personal: true },
      salary: { kind: 'money', required: true, personal: true },
      smoker: { kind: 'bool', required: true, personal: true },
      mood: { kind: 'select', options: ['ok'], personal: true },
    }, lines: { kids: { fields: { sex: { kind: 'select', options: ['f', 'm'], required: true, personal: true }, kid: { kind: 'text', required: true, personal: true } } } } }`,
    lines: (at) => [
      `${F}:${at('gender:')}: model m, field gender: a required personal select field could not be erased (<model>.erase): it cannot be left empty, and every value it takes is a real one (remove required, or say personal: false)`,
      `${F}:${at('langs:')}: model m, field langs: a required personal multiselect field could not be erased (<model>.erase): it cannot be left empty, and every value it takes is a real one (remove required, or say personal: false)`,
      `${F}:${at('doctor:')}: model m, field doctor: a required personal ref field could not be erased (<model>.erase): it cannot be left empty, and every value it takes is a real one (remove required, or say personal: false)`,
      `${F}:${at('sex:')}: model m, lines kids, field sex: a required personal select field could not be erased (<model>.erase): it cannot be left empty, and every value it takes is a real one (remove required, or say personal: false)`,
      // (A required ref of a model to itself goes round, too.)
      `${F}: model m: required refs go round (m.doctor → m): no record of it can be created first (make one of these refs optional)`,
    ],
  },
];

const functionCases: RefusalCase[] = [
  {
    name: 'a function using a variable of the module file',
    model: `{ fields: {
      price: { kind: 'money' },
      gross: { kind: 'money', computed: (r) => Math.round(r.price * RATE) },
    } }`,
    lines: (at) => [
      `${F}:${at('gross:')}: model m, field gross: computed uses "RATE" from outside the function: it is copied into generated code, where only its parameter and JavaScript's globals (Math, Number, String, Date, JSON, …) exist (write what it needs into the function (the value of "RATE"))`,
    ],
  },
  {
    name: 'a rule whose check uses this and an import',
    model: `{ fields: { name: { kind: 'text' } }, rules: [
      { fields: ['name'], message: 'must be known', check: (r) => known.includes(r.name) && this !== undefined },
    ] }`,
    lines: (at) => [
      `${F}:${at('check:')}: model m: rules[0].check uses "known", "this" from outside the function: it is copied into generated code, where only its parameter and JavaScript's globals (Math, Number, String, Date, JSON, …) exist (write what it needs into the function (the value of "known", "this"))`,
    ],
  },
  {
    name: 'a function made by a call, whose text is not in the file',
    model: `{ fields: { total: { kind: 'money', computed: [(r) => 1][0] } } }`,
    lines: (at) => [
      `${F}:${at('total:')}: model m, field total: the function of computed cannot be found in the module file (write it in place, e.g. computed: (record) => …, or as a const of the module file named there)`,
    ],
  },
];

const lineListCases: RefusalCase[] = [
  {
    name: 'a line list named like a field, or id; min above max',
    model: `{ fields: { items: { kind: 'text' } }, lines: {
      items: { fields: { x: { kind: 'text' } } },
      id: { fields: { y: { kind: 'text' } } },
      parts: { min: 5, max: 2, fields: { z: { kind: 'text' } } },
    } }`,
    lines: (at) => [
      `${F}:${at('items: { fields')}: model m, lines items: a line list named like field items: a record answers both under one name (rename the line list or the field)`,
      `${F}:${at('id: {')}: model m, lines id: "id" is the record's id (rename the line list or the field)`,
      `${F}:${at('parts:')}: model m, lines parts: min 5 is above max 2 (lower min or raise max)`,
    ],
  },
  {
    name: 'line fields: governed, unique, named like a column every line has, a ref to a line list',
    model: `{ fields: { name: { kind: 'text' } }, lines: { items: { max: 0, fields: {
      state: { kind: 'select', options: ['a', 'b'], governed: true },
      code: { kind: 'text', unique: true },
      position: { kind: 'number' },
      parent: { kind: 'ref', to: 'items' },
    } } } }`,
    lines: (at) => [
      `${F}:${at('items:')}: model m, lines items: "max" must be a whole number of 1 or more (got 0)`,
    ],
  },
  {
    name: 'line fields: governed, unique, named like a column every line has',
    model: `{ fields: { name: { kind: 'text' } }, lines: { items: { fields: {
      state: { kind: 'select', options: ['a', 'b'], governed: true },
      code: { kind: 'text', unique: true },
      position: { kind: 'number' },
      parent: { kind: 'ref', to: 'items' },
    } } } }`,
    lines: (at) => [
      `${F}:${at('state:')}: model m, lines items, field state: governed is not for line fields: lines change only with their record (remove governed)`,
      `${F}:${at('code:')}: model m, lines items, field code: unique is not for line fields (remove unique)`,
      `${F}:${at('position:')}: model m, lines items, field position: "position" is a column every line has (rename the field)`,
      `${F}:${at('parent:')}: model m, lines items, field parent: ref to the line list items: lines are not models (make items a model of its own to refer to its records)`,
    ],
  },
  {
    name: 'lines inside lines',
    model: `{ fields: {}, lines: { items: { fields: {}, lines: { parts: { fields: {} } } } } }`,
    lines: (at) => [
      `${F}:${at('lines: { parts')}: model m, lines items: lines inside lines are not supported (make items a model of its own with a ref to m, and give it the lines)`,
    ],
  },
];

const ruleCases: RefusalCase[] = [
  {
    name: 'a rule without message, check or fields',
    model: `{ fields: { name: { kind: 'text' } }, rules: [
      { fields: ['name'], check: (r) => true },
      { fields: ['name'], message: 'x' },
      { message: 'y', check: (r) => true },
      { fields: [], message: 'z', check: (r) => true },
      { fields: ['name'], message: 'w', check: true },
    ] }`,
    lines: (at) => [
      `${F}:${at("{ fields: ['name'], check")}: model m: missing "rules[0].message" (add message: '<what is wrong>', said after '<model>: ')`,
      `${F}:${at("message: 'x'")}: model m: missing "rules[1].check" (add check: (record) => <true when the record may be written>)`,
      `${F}:${at("{ message: 'y'")}: model m: missing "rules[2].fields" (add fields: ['<field>', ...], the fields the rule is about)`,
      `${F}:${at('fields: [],')}: model m: "rules[3].fields" must name at least one field (got a list)`,
      `${F}:${at('check: true')}: model m: "rules[4].check" must be a function (got true)`,
    ],
  },
];

describe('the readers refuse, one line each at the module line', () => {
  it.each(fieldCases)('fields: $name', expectRefusal);
  it.each(functionCases)('functions: $name', expectRefusal);
  it.each(lineListCases)('line lists: $name', expectRefusal);
  it.each(ruleCases)('rules: $name', expectRefusal);
});

describe('what the readers resolve once for the IR', () => {
  it('scale 2, a line list 0 to 1000, email and phone personal, bounds and defaults as the runtime keeps them', async () => {
    const dir = oneModule(`export default { models: { m: {
      fields: {
        pct: { kind: 'decimal', min: 0, default: 1.5 },
        at: { kind: 'datetime', min: '2026-01-01T01:00:00+01:00', default: '2026-06-01T12:00:00+02:00' },
        day: { kind: 'date', default: 'today' },
        tags: { kind: 'multiselect', options: ['a', 'b', 'c'], default: ['c', 'a'] },
        mail: { kind: 'email', label: 'E-mail' },
        phone: { kind: 'phone', personal: false, write: ['admin', 'clerk', 'clerk'] },
      },
      lines: { items: { fields: { n: { kind: 'number', required: true } } } },
    } }, roles: { clerk: { m: '*' } } };`);
    const [model] = (await loadProject(`${dir}/modules`)).modules[0]!.models;
    const byName = new Map(model!.fields.map((field) => [field.name, field]));
    expect(byName.get('pct')).toMatchObject({ kind: 'decimal', scale: 2, min: 0, max: undefined, default: { value: 1.5 } });
    expect(byName.get('at')).toMatchObject({ min: '2026-01-01T00:00:00.000Z', default: { value: '2026-06-01T10:00:00.000Z' } });
    expect(byName.get('day')).toMatchObject({ default: 'today' });
    // A multiselect's value is in the options' order.
    expect(byName.get('tags')).toMatchObject({ default: { value: ['a', 'c'] } });
    expect(byName.get('mail')).toMatchObject({ personal: true, maskLabel: 'E_MAIL' });
    expect(byName.get('phone')).toMatchObject({ personal: false, writeRoles: ['clerk'] });
    expect(model!.lines).toMatchObject([{ name: 'items', label: 'Items', description: '', min: 0, max: 1000 }]);
    expect(model!.lines[0]!.fields.map((field) => field.name)).toEqual(['n']);
  });

  it('a computed field keeps its function as written and where (a method as a function expression)', async () => {
    const dir = oneModule(`export default { models: { m: { fields: {
      a: { kind: 'number' },
      twice: { kind: 'number', computed: (r) => (r.a ?? 0) * 2 },
      thrice: {
        kind: 'number',
        computed(r) {
          return (r.a ?? 0) * 3;
        },
      },
    } } } };`);
    const [model] = (await loadProject(`${dir}/modules`)).modules[0]!.models;
    const [, twice, thrice] = model!.fields;
    expect(twice?.computed).toEqual({ text: '(r) => (r.a ?? 0) * 2', prefix: 0, line: 3, column: 42, writtenLines: ['      twice: { kind: \'number\', computed: (r) => (r.a ?? 0) * 2 },'] });
    expect(thrice?.computed).toMatchObject({ text: 'function (r) {\n          return (r.a ?? 0) * 3;\n        }', prefix: 9, line: 6, column: 17 });
  });
});
