/**
 * The type check of the module files' functions in their generated copies
 * (generator/check-logic.ts): `rmsgen build` refuses a misspelt field, a wrong type or a
 * possibly empty value at the function's place in the module file, with the line and a caret, and
 * writes nothing; `rmsgen check` says the same. Places in a copy map back to the module file on
 * any line of the function, a method's too.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { placeInModule } from '../../generator/check-logic.ts';
import { moduleTree, removeModuleTrees, rmsgenInProcess, snapshotFolder } from '../helpers/module-trees.ts';

afterAll(removeModuleTrees);

const SHOP = `import { defineModule } from '../../generator/define.ts';

export default defineModule({
  models: {
    cart: {
      fields: {
        name: { kind: 'text', required: true },
        total: { kind: 'money', computed: (c) => c.items.reduce((s, l) => s + l.amout, 0) },
        shout: {
          kind: 'text',
          computed(c) {
            return c.name.toUpperCase() + c.nme;
          },
        },
        count: { kind: 'number', computed: (c) => (c.name.length > 3 ? null : 1) },
        country: { kind: 'text', default: 'NL' },
        code: { kind: 'text', computed: (c) => c.country.toUpperCase() },
      },
      lines: { items: { fields: { amount: { kind: 'money', required: true } } } },
      rules: [{ fields: ['name'], message: 'needs a name', check: (c) => c.nam !== '' }],
    },
  },
});
`;

const LINES = [
  "modules/shop/module.ts:8:81: model cart, field total: computed: Property 'amout' does not exist on type 'CartItemsLineValues'. Did you mean 'amount'? (TS2551)",
  "            total: { kind: 'money', computed: (c) => c.items.reduce((s, l) => s + l.amout, 0) },",
  '                                                                                    ^',
  "modules/shop/module.ts:12:45: model cart, field shout: computed: Property 'nme' does not exist on type 'CartValues'. Did you mean 'name'? (TS2551)",
  '                return c.name.toUpperCase() + c.nme;',
  '                                                ^',
  "modules/shop/module.ts:15:51: model cart, field count: computed: Type 'number | null' is not assignable to type 'number'.   Type 'null' is not assignable to type 'number'. (TS2322)",
  "            count: { kind: 'number', computed: (c) => (c.name.length > 3 ? null : 1) },",
  '                                                      ^',
  // A default fills in a create that leaves the field out; a caller may still write null to it.
  "modules/shop/module.ts:17:48: model cart, field code: computed: 'c.country' is possibly 'null'. (TS18047)",
  "            code: { kind: 'text', computed: (c) => c.country.toUpperCase() },",
  '                                                   ^',
  "modules/shop/module.ts:20:76: model cart: rules[0].check: Property 'nam' does not exist on type 'CartValues'. Did you mean 'name'? (TS2551)",
  "          rules: [{ fields: ['name'], message: 'needs a name', check: (c) => c.nam !== '' }],",
  '                                                                               ^',
];

describe('functions that do not type-check against their model', () => {
  it('build: refused at their places in the module file, nothing written', { timeout: 120_000 }, async () => {
    const dir = moduleTree({ shop: SHOP });
    const before = snapshotFolder(join(dir, 'generated'));
    const result = await rmsgenInProcess(['build', '--modules', 'modules', '--out', 'generated'], dir);
    expect(result.stderr.trimEnd().split('\n')).toEqual(LINES);
    expect(result.status).toBe(1);
    expect(snapshotFolder(join(dir, 'generated'))).toEqual(before);
  });

  it('check: the same lines', { timeout: 120_000 }, async () => {
    const result = await rmsgenInProcess(['check', '--modules', 'modules'], moduleTree({ shop: SHOP }));
    expect(result.stderr.trimEnd().split('\n')).toEqual(LINES);
    expect(result.status).toBe(1);
  });

  it('the same functions, spelt right, build', { timeout: 120_000 }, async () => {
    const fixed = SHOP.replace('l.amout', 'l.amount').replace('c.nme', 'c.name').replace('? null : 1', '? 0 : 1').replace('c.nam ', 'c.name ').replace('c.country.toUpperCase()', "(c.country ?? '').toUpperCase()");
    const dir = moduleTree({ shop: fixed });
    const result = await rmsgenInProcess(['build', '--modules', 'modules', '--out', 'generated'], dir);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

describe('a place in a copy, in the module file', () => {
  const source = { text: 'function (c) {\n    return c.x;\n  }', prefix: 9, line: 11, column: 19, writtenLines: [] };

  it.each([
    ['in the prefix put in front of a method', 3, { line: 11, column: 19 }],
    ['on its first line, after the prefix', 10, { line: 11, column: 20 }],
    ['on a later line', source.text.indexOf('c.x'), { line: 12, column: 12 }],
    ['on its last line', source.text.lastIndexOf('}'), { line: 13, column: 3 }],
  ])('%s', (_, offset, place) => {
    expect(placeInModule(source, offset)).toEqual(place);
  });
});
