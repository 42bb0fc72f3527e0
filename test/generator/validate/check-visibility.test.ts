/**
 * What a field shows, against the fields it comes from (generator/validate/check-visibility.ts):
 * a computed field worked out from a personal field, one hidden from agents or one only some roles
 * read must be kept as well; a governed select's state is named in its actions' refusals, so it
 * cannot be kept from who runs them. Each refusal one line at the field's line; what is kept
 * enough builds.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { oneModule, removeModuleTrees } from '../../helpers/module-trees.ts';
import { loadProject } from '../../../generator/pipeline.ts';
import { expectRefusal, F, type RefusalCase } from './cases.ts';

afterAll(removeModuleTrees);

const ROLES = "{ clerk: { m: '*' }, boss: { m: '*' } }";

const cases: RefusalCase[] = [
  {
    name: 'computed from a personal field, shown in clear',
    model: `{ fields: {
      full_name: { kind: 'text', personal: true },
      shout: { kind: 'text', computed: (c) => (c.full_name ?? '').toUpperCase() },
      initial: { kind: 'text', computed: (c) => c['full_name']?.slice(0, 1) ?? null },
    } }`,
    lines: (at) => [
      `${F}:${at('shout:')}: model m, field shout: computed from personal field full_name: agents would read in clear what they see of full_name only masked (add personal: true (or agents: 'hidden'))`,
      `${F}:${at('initial:')}: model m, field initial: computed from personal field full_name: agents would read in clear what they see of full_name only masked (add personal: true (or agents: 'hidden'))`,
    ],
  },
  {
    name: 'computed from a field hidden from agents, or one only some roles read',
    roles: ROLES,
    model: `{ fields: {
      secret: { kind: 'text', agents: 'hidden' },
      salary: { kind: 'number', read: ['boss'] },
      secret_len: { kind: 'number', computed: (c) => c.secret?.length ?? 0 },
      band: { kind: 'text', computed: (c) => String(c.salary) },
      band_for_both: { kind: 'text', read: ['boss', 'clerk'], computed: (c) => String(c.salary) },
    } }`,
    lines: (at) => [
      `${F}:${at('secret_len:')}: model m, field secret_len: computed from secret, which is hidden from agents: they would read what it holds (add agents: 'hidden')`,
      `${F}:${at('band:')}: model m, field band: computed from salary, which only boss may read: every role would read what it holds (give it read: ['boss'] or fewer roles)`,
      `${F}:${at('band_for_both:')}: model m, field band_for_both: computed from salary, which only boss may read: clerk would read what it holds (give it read: ['boss'] or fewer roles)`,
    ],
  },
  {
    name: "a line's computed field from a personal field of its line",
    model: `{ fields: { title: { kind: 'text' } }, lines: { items: { fields: {
      note: { kind: 'text', personal: true },
      loud: { kind: 'text', computed: (l) => l.note ?? '' },
    } } } }`,
    lines: (at) => [
      `${F}:${at('loud:')}: model m, lines items, field loud: computed from personal field note: agents would read in clear what they see of note only masked (add personal: true (or agents: 'hidden'))`,
    ],
  },
  {
    name: 'a governed select that is personal, hidden from agents or read by some roles only',
    roles: ROLES,
    model: `{ fields: {
      stage: { kind: 'select', options: ['new', 'done'], governed: true, personal: true },
      phase: { kind: 'select', options: ['a', 'b'], governed: true, agents: 'hidden', read: ['boss'] },
    }, actions: { finish: { description: 'Finish', field: 'stage', from: 'new', to: 'done' } } }`,
    lines: (at) => [
      `${F}:${at('stage:')}: model m, field stage: a governed field's state is named in the refusals of its actions and locked states, so it cannot be kept from who runs them (personal) (remove personal)`,
      `${F}:${at('phase:')}: model m, field phase: a governed field's state is named in the refusals of its actions and locked states, so it cannot be kept from who runs them (agents: 'hidden', read) (remove agents: 'hidden' and read)`,
    ],
  },
];

describe('what a field shows is kept as what it comes from', () => {
  it.each(cases)('$name', expectRefusal);

  it('builds a computed field kept as its sources are, and one from fields anyone reads', async () => {
    const dir = oneModule(`export default { models: { m: { fields: {
      full_name: { kind: 'text', personal: true },
      secret: { kind: 'text', agents: 'hidden' },
      salary: { kind: 'number', read: ['boss'] },
      price: { kind: 'number' },
      shout: { kind: 'text', personal: true, computed: (c) => (c.full_name ?? '').toUpperCase() },
      hidden_shout: { kind: 'text', agents: 'hidden', computed: (c) => (c.full_name ?? '') + (c.secret ?? '') },
      band: { kind: 'text', read: ['boss'], computed: (c) => String(c.salary) },
      double: { kind: 'number', computed: (c) => (c.price ?? 0) * 2 },
    } } }, roles: ${ROLES} };`);
    const [model] = (await loadProject(`${dir}/modules`)).modules[0]!.models;
    expect(model!.fields.filter((field) => field.computed).map((field) => field.name)).toEqual(['shout', 'hidden_shout', 'band', 'double']);
  });
});
