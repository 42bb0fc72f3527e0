/**
 * The generated zod input schemas give SPEC's error texts (`lead.title is required`, unknown
 * fields, real dates, safe integers, select options).
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { invoiceCreateInput, invoicePostInput } from '../../fixtures/generated/accounting/invoice.schemas.ts';
import { leadCreateInput, leadGetInput, leadListInput, leadLoseInput, leadUpdateInput } from '../../fixtures/generated/crm/lead.schemas.ts';
import { partyCreateInput } from '../../fixtures/generated/crm/party.schemas.ts';

function firstError(schema: z.ZodType, input: unknown): string | undefined {
  const result = schema.safeParse(input);
  return result.success ? undefined : result.error.issues[0]?.message;
}

const INVOICE = { number: 'INV-1', party: 'p1', amount: 1234, issue_date: '2024-02-29' };

describe('generated input schemas', () => {
  it.each<[string, z.ZodType, unknown, string | undefined]>([
    ['required field missing', leadCreateInput, {}, 'lead.title is required'],
    ['required field empty', leadCreateInput, { title: '' }, 'lead.title is required'],
    ['required field null', leadCreateInput, { title: null }, 'lead.title is required'],
    ['valid minimal create', leadCreateInput, { title: 'Big deal' }, undefined],
    ['optional fields may be null', leadCreateInput, { title: 'x', party: null, hot: null, close_date: null }, undefined],
    ['unknown field', leadCreateInput, { title: 'x', colour: 'red' }, 'unknown field lead.colour'],
    ['governed field is not accepted on create', leadCreateInput, { title: 'x', stage: 'won' }, 'unknown field lead.stage'],
    ['not an object', leadCreateInput, 'x', 'input must be a JSON object'],
    ['wrong type of text', leadCreateInput, { title: 42 }, 'lead.title must be a string'],
    ['real calendar date', leadCreateInput, { title: 'x', close_date: '2023-02-29' }, 'lead.close_date must be a real calendar date YYYY-MM-DD'],
    ['leap day', leadCreateInput, { title: 'x', close_date: '2024-02-29' }, undefined],
    ['date format', leadCreateInput, { title: 'x', close_date: '29.02.2024' }, 'lead.close_date must be a real calendar date YYYY-MM-DD'],
    ['integer, not float', leadCreateInput, { title: 'x', probability: 1.5 }, 'lead.probability must be an integer'],
    // z.int() refuses unsafe integers itself (as not an integer), before kinds.ts's safe-integer bounds.
    ['safe integer', leadCreateInput, { title: 'x', probability: 2 ** 53 }, 'lead.probability must be an integer'],
    ['largest safe integer', leadCreateInput, { title: 'x', probability: Number.MAX_SAFE_INTEGER }, undefined],
    ['money in minor units', leadCreateInput, { title: 'x', expected_revenue: 12.34 }, 'lead.expected_revenue must be an integer amount in minor units (12.34 is 1234)'],
    ['bool', leadCreateInput, { title: 'x', hot: 'yes' }, 'lead.hot must be true or false'],
    ['ref must be an id', leadCreateInput, { title: 'x', party: 7 }, 'lead.party must be the id of a party'],
    ['select options', partyCreateInput, { name: 'Ann', kind: 'robot' }, 'party.kind must be one of: person, company'],
    ['select option accepted', partyCreateInput, { name: 'Ann', kind: 'company' }, undefined],
    ['update needs the id', leadUpdateInput, { title: 'x' }, 'id is required'],
    ['update of a required field cannot clear it', leadUpdateInput, { id: 'l1', title: null }, 'lead.title is required'],
    ['update may clear an optional field', leadUpdateInput, { id: 'l1', party: null }, undefined],
    ['update of a governed select is checked', leadUpdateInput, { id: 'l1', stage: 'done' }, 'lead.stage must be one of: new, qualified, won, lost'],
    ['update of a governed select', leadUpdateInput, { id: 'l1', stage: 'qualified' }, undefined],
    ['get needs the id', leadGetInput, {}, 'id is required'],
    ['get takes only the id', leadGetInput, { id: 'l1', title: 'x' }, 'unknown field lead.title'],
    ['action requires its fields', leadLoseInput, { id: 'l1' }, 'lead.lost_reason is required'],
    ['action with its fields', leadLoseInput, { id: 'l1', lost_reason: 'price' }, undefined],
    ['action takes only its fields', invoicePostInput, { id: 'i1', amount: 5 }, 'unknown field invoice.amount'],
    ['list limit', leadListInput, { limit: 0 }, 'limit must be an integer from 1 to 5000'],
    ['list operator', leadListInput, { filter: [{ field: 'title', op: 'like', value: 'x' }] }, 'unknown operator like'],
    ['required ref', invoiceCreateInput, { ...INVOICE, party: undefined }, 'invoice.party is required'],
    ['required money', invoiceCreateInput, { ...INVOICE, amount: 10.5 }, 'invoice.amount must be an integer amount in minor units (12.34 is 1234)'],
    ['valid invoice', invoiceCreateInput, INVOICE, undefined],
  ])('%s', (_, schema, input, expected) => {
    expect(firstError(schema, input)).toBe(expected);
  });
});
