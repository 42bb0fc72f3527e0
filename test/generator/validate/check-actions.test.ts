/**
 * An action's inputs and sets (generator/validate/check-actions.ts): an input named like a field
 * is that field (same kind, its checks), others are values of their own; `set` writes fields that
 * are neither governed nor computed, to constants of their kind, today, now or an input. Each
 * refusal one line at the module's line; and what the IR holds of them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject } from '../../../generator/pipeline.ts';
import { FIXTURE_MODULES_DIR } from '../../helpers/fixtures.ts';
import { removeModuleTrees } from '../../helpers/module-trees.ts';
import { expectRefusal, F, type RefusalCase } from './cases.ts';

afterAll(removeModuleTrees);

const FIELDS = `fields: {
      status: { kind: 'select', options: ['draft', 'done'], governed: true },
      note: { kind: 'text' },
      closed_on: { kind: 'date' },
      closed_at: { kind: 'datetime' },
      total: { kind: 'money', computed: (r) => 0 },
    }, lines: { items: { fields: { n: { kind: 'number' } } } }`;

const action = (definition: string) => `{ ${FIELDS}, actions: { close: { from: 'draft', to: 'done', ${definition} } } }`;

const cases: RefusalCase[] = [
  {
    name: 'an input named like a field of another kind, or with checks of its own',
    model: action(`input: { note: { kind: 'number' }, closed_on: { kind: 'date', min: '2026-01-01', required: true } }`),
    lines: (at) => [
      `${F}:${at('close:')}: model m, action close, input note: named like field note, which is a text field, but is a number input: an input named like a field sets it (make it kind: 'text', or rename the input)`,
      `${F}:${at('close:')}: model m, action close, input closed_on: named like field closed_on, whose checks it takes: it may not say min (remove min (or say them on the field))`,
    ],
  },
  {
    name: 'an input of a governed or computed field, also required, named like a line list or id',
    model: action(`required: ['note'], input: { status: { kind: 'select', options: ['draft'] }, total: { kind: 'money' }, note: { kind: 'text' }, items: { kind: 'text' }, id: { kind: 'text' } }`),
    lines: (at) => [
      `${F}:${at('close:')}: model m, action close, input id: "id" is reserved for the record id every model has (rename the input)`,
      `${F}:${at('close:')}: model m, action close, input status: named like field status, whose checks it takes: it may not say options (remove options (or say them on the field))`,
      `${F}:${at('close:')}: model m, action close, input status: input "status" is a governed field, which only actions change (remove the input)`,
      `${F}:${at('close:')}: model m, action close, input total: input "total" is a computed field, which its function sets (remove the input)`,
      `${F}:${at('close:')}: model m, action close, input note: input "note" is also listed in required (remove it from required and say required: true on the input)`,
      `${F}:${at('close:')}: model m, action close, input items: named like the line list items: lines change only through create and update (rename the input)`,
    ],
  },
  {
    name: 'a required computed field',
    model: action(`required: ['total']`),
    lines: () => [`${F}: model m, action close: required input "total" is a computed field, which its function sets (remove it from required)`],
  },
  {
    name: 'set of an unknown, governed or computed field, or of one that is also an input',
    model: action(`input: { note: { kind: 'text' } }, set: { closd_on: 'today', status: 'done', total: 5, note: 'x' }`),
    lines: (at) => [
      `${F}:${at('close:')}: model m, action close: sets unknown field "closd_on" (did you mean "closed_on"?)`,
      `${F}:${at('close:')}: model m, action close: sets the governed field status, which actions change by moving it (from, to) (remove status from set)`,
      `${F}:${at('close:')}: model m, action close: sets the computed field total, which its function sets (remove total from set)`,
      `${F}:${at('close:')}: model m, action close: sets field note, which is also an input of the action (remove note from set, or the input)`,
    ],
  },
  {
    name: 'set to an input it does not take, an input of another kind, a value of another kind, today or now where they do not fit, null',
    model: action(`input: { reason: { kind: 'text' } }, set: {
        note: { input: 'reasn' },
        closed_on: { input: 'reason' },
        closed_at: 'today',
      } }, reopen: { from: 'done', to: 'draft', set: { closed_on: null, note: 5 }`),
    lines: (at) => [
      `${F}:${at("note: { input: 'reasn' }")}: model m, action close: sets note from input "reasn", which the action does not take (did you mean "reason"?)`,
      `${F}:${at("closed_on: { input: 'reason' }")}: model m, action close: sets closed_on (a date field) from input reason, which is a text input (make input reason kind: 'date')`,
      `${F}:${at("closed_at: 'today'")}: model m, action close: sets closed_at to "today", which is not a value of the field: m.closed_at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z (write a datetime value, or 'now')`,
      `${F}:${at('reopen:')}: model m, action reopen: sets closed_on to null (write a constant of the field, 'today' (a date) or 'now' (a datetime))`,
      `${F}:${at('reopen:')}: model m, action reopen: sets note to 5, which is not a value of the field: m.note must be a string (write a text value)`,
    ],
  },
];

describe('the checks of actions refuse, one line each at the module line', () => {
  it.each(cases)('$name', expectRefusal);
});

describe("what the IR holds of the fixtures' order actions", () => {
  it('inputs (a field or not, required or not), sets, required fields, a description made when none is written', async () => {
    const ir = await loadProject(FIXTURE_MODULES_DIR);
    const order = ir.modules.flatMap((module) => module.models).find((model) => model.name === 'order')!;
    const summary = order.actions.map((action) => ({
      name: action.name,
      description: action.description,
      required: action.required,
      inputs: action.inputs.map(({ input, field }) => [input.name, input.kind, input.required, field]),
      set: action.set,
    }));
    expect(summary).toEqual([
      { name: 'confirm', description: 'Confirm the order', required: [], inputs: [], set: [{ field: 'confirmed_on', to: 'today' }] },
      { name: 'cancel', description: 'Cancel the order', required: [], inputs: [['reason', 'text', true, false]], set: [] },
      { name: 'deliver', description: 'Deliver the order', required: [], inputs: [['delivered_at', 'datetime', false, true]], set: [] },
    ]);
    const lead = ir.modules.flatMap((module) => module.models).find((model) => model.name === 'lead')!;
    // `required: [field]` keeps working: a required input that is the field.
    expect(lead.actions.find((action) => action.name === 'lose')?.inputs.map(({ input, field }) => [input.name, input.kind, input.required, field])).toEqual([['lost_reason', 'text', true, true]]);
  });
});
