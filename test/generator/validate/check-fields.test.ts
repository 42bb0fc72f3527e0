/**
 * The checks across a model's parts (generator/validate/check-fields.ts) that records with depth
 * added: write rights naming roles, composite and partial unique indexes, locked states, the
 * fields rules name, refs of line fields. Each refusal one line at the module's line.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../../generator/pipeline.ts';
import { oneModule, removeModuleTrees } from '../../helpers/module-trees.ts';
import { expectRefusal, F, type RefusalCase } from './cases.ts';

afterAll(removeModuleTrees);

const STATUS = `status: { kind: 'select', options: ['draft', 'done'], governed: true }`;

const cases: RefusalCase[] = [
  {
    name: 'write naming an unknown role (as read does)',
    model: `{ fields: { limit: { kind: 'money', write: ['admin', 'acountant'] } } }`,
    roles: `{ accountant: { m: '*' } }`,
    lines: (at) => [`${F}:${at('limit:')}: model m, field limit: write names unknown role "acountant" (did you mean "accountant"?)`],
  },
  {
    name: 'unique naming unknown fields, a longtext, a field twice, an entry twice',
    model: `{ fields: { customer: { kind: 'text' }, notes: { kind: 'longtext' } }, unique: [
      ['customer', 'numbr'],
      ['notes'],
      ['customer', 'customer'],
      ['customer'],
      ['customer'],
    ] }`,
    lines: (at) => [
      `${F}:${at("['customer', 'numbr']")}: model m: unique[0] names unknown field "numbr" (known fields: customer, notes)`,
      `${F}:${at("['notes']")}: model m: unique[1]: unique is not for longtext fields (notes) (remove notes)`,
      `${F}:${at("['customer', 'customer']")}: model m: unique[2] names a field twice (remove one)`,
      `${F}:${at("['customer'],") + 1}: model m: unique[4] is declared twice (remove one)`,
    ],
  },
  {
    name: 'unique naming a personal field agents may write (with other fields too): its refusal would tell an agent whether a guess is held',
    model: `{ fields: { ssn: { kind: 'text', personal: true }, status: { kind: 'text' }, mail: { kind: 'email' }, code: { kind: 'text', personal: true, agents: 'hidden' } }, unique: [
      ['ssn', 'status'],
      ['mail'],
      ['code', 'status'],
    ] }`,
    lines: (at) => [
      `${F}:${at("['ssn', 'status']")}: model m: unique[0] names personal field ssn: a unique index on a personal field agents may write would tell an agent whether a value it wrote is held by another record (remove ssn, or add agents: 'hidden' to it)`,
      `${F}:${at("['mail']")}: model m: unique[1] names personal field mail: a unique index on a personal field agents may write would tell an agent whether a value it wrote is held by another record (remove mail, or add agents: 'hidden' to it)`,
    ],
  },
  {
    name: 'a partial unique whose where names an unknown field or a value its field cannot hold',
    model: `{ fields: { number: { kind: 'text' }, ${STATUS}, open: { kind: 'bool' } }, unique: [
      { fields: ['number'], where: { state: 'done' } },
      { fields: ['number'], where: { status: 'gone', open: 'yes' } },
    ] }`,
    lines: (at) => [
      `${F}:${at('state:')}: model m: unique[0]: where names unknown field "state" (did you mean "status"?)`,
      `${F}:${at("'gone'")}: model m: unique[1]: where status: "gone" is not a value of the field: m.status must be one of: draft, done (write a select value)`,
      `${F}:${at("'gone'")}: model m: unique[1]: where open: "yes" is not a value of the field: m.open must be true or false (write a bool value)`,
    ],
  },
  {
    name: 'locked_in without a governed field',
    model: `{ fields: { name: { kind: 'text' } }, locked_in: ['done'] }`,
    lines: (at) => [`${F}:${at('locked_in')}: model m: locked_in names states, but m has no governed field (add governed: true to a select field)`],
  },
  {
    name: 'locked_in with several governed fields must name one',
    model: `{ fields: { ${STATUS}, phase: { kind: 'select', options: ['a', 'b'], governed: true } }, locked_in: ['done'] }`,
    lines: (at) => [
      `${F}:${at('locked_in')}: model m: locked_in names states, but m has several governed fields (status, phase); say which: locked_in: { field: 'status', states: [...] }`,
    ],
  },
  {
    name: 'locked_in naming an unknown field, a field not governed, a state that is no option',
    model: `{ fields: { ${STATUS}, kind: { kind: 'select', options: ['a'] } }, locked_in: { field: 'stat', states: ['done'] } }`,
    lines: (at) => [`${F}:${at('locked_in')}: model m: locked_in names unknown field "stat" (did you mean "status"?)`],
  },
  {
    name: 'locked_in naming a select that is not governed',
    model: `{ fields: { ${STATUS}, kind: { kind: 'select', options: ['a'] } }, locked_in: { field: 'kind', states: ['a'] } }`,
    lines: (at) => [`${F}:${at('locked_in')}: model m: locked_in names field kind, which is not a governed select (name a governed select field)`],
  },
  {
    name: 'a locked_in state that is not an option',
    model: `{ fields: { ${STATUS} }, locked_in: ['done', 'archived'] }`,
    lines: (at) => [`${F}:${at('locked_in')}: model m: locked_in state "archived" is not an option of field status (options: draft, done)`],
  },
  {
    name: 'a rule naming an unknown field (a line list is a name it may use)',
    model: `{ fields: { deliver_by: { kind: 'date' } }, lines: { items: { fields: { n: { kind: 'number' } } } }, rules: [
      { fields: ['deliver_by', 'items'], message: 'x', check: (r) => true },
      { fields: ['delivr_by'], message: 'y', check: (r) => true },
    ] }`,
    lines: (at) => [`${F}:${at("['delivr_by']")}: model m: rules[1] names unknown field "delivr_by" (did you mean "deliver_by"?)`],
  },
];

describe('the checks refuse, one line each at the module line', () => {
  it.each(cases)('$name', expectRefusal);
});

describe('what the checks resolve', () => {
  it('the locked field: the only governed select, or the one named; uniques as declared', async () => {
    const dir = oneModule(`export default { models: {
      a: { fields: { ${STATUS}, number: { kind: 'text' } }, locked_in: ['done'], unique: [['status', 'number'], { fields: ['number'], where: { status: 'done' } }] },
      b: { fields: { ${STATUS}, phase: { kind: 'select', options: ['x', 'y'], governed: true } }, locked_in: { field: 'phase', states: ['y', 'y'] } },
    } };`);
    const [a, b] = (await loadProject(`${dir}/modules`)).modules[0]!.models;
    expect(a?.lockedIn).toEqual({ field: 'status', states: ['done'] });
    expect(a?.uniques).toEqual([
      { fields: ['status', 'number'], where: undefined },
      { fields: ['number'], where: { status: 'done' } },
    ]);
    expect(b?.lockedIn).toEqual({ field: 'phase', states: ['y'] });
  });
});
