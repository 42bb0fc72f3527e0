/**
 * The generated zod input schemas give SPEC's error texts (`lead.title is required`, unknown
 * fields, real dates, safe integers, select options).
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { invoiceCreateInput, invoicePostInput } from '../../fixtures/generated/accounting/invoice.schemas.ts';
import { leadCreateInput, leadGetInput, leadListInput, leadLoseInput, leadUpdateInput } from '../../fixtures/generated/crm/lead.schemas.ts';
import { partyCreateInput } from '../../fixtures/generated/crm/party.schemas.ts';
import { orderCancelInput, orderCreateInput, orderDeliverInput, orderUpdateInput } from '../../fixtures/generated/sales/order.schemas.ts';

function firstError(schema: z.ZodType, input: unknown): string | undefined {
  const result = schema.safeParse(input);
  return result.success ? undefined : result.error.issues[0]?.message;
}

const INVOICE = { number: 'INV-1', party: 'p1', amount: 1234, issue_date: '2024-02-29' };
const LINE = { description: 'Chair', quantity: 2, unit_price: 4999 };
const ORDER = { number: 'AB-1234', customer: 'p1', items: [LINE] };

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
    // Records with depth: the new kinds, checks, line lists (each line's errors by its index), action inputs.
    ['valid order', orderCreateInput, ORDER, undefined],
    ['pattern', orderCreateInput, { ...ORDER, number: 'ab-1' }, 'order.number does not match the required pattern'],
    ['decimal places', orderCreateInput, { ...ORDER, discount_pct: 1.234 }, 'order.discount_pct has at most 2 decimal places'],
    ['decimal max', orderCreateInput, { ...ORDER, discount_pct: 100.01 }, 'order.discount_pct must be at most 100'],
    ['email', orderCreateInput, { ...ORDER, contact_email: 'ann at example.org' }, 'order.contact_email must be an email address'],
    ['url', orderCreateInput, { ...ORDER, website: 'ftp://example.org' }, 'order.website must be a URL'],
    ['datetime with an offset', orderCreateInput, { ...ORDER, delivered_at: '2026-11-26 14:30' }, 'order.delivered_at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    ['multiselect options', orderCreateInput, { ...ORDER, tags: ['rush', 'fast'] }, 'order.tags must list options of: rush, gift, export'],
    ['multiselect twice', orderCreateInput, { ...ORDER, tags: ['rush', 'rush'] }, 'order.tags lists rush twice'],
    ['a computed field is no input', orderCreateInput, { ...ORDER, total: 5 }, 'unknown field order.total'],
    ['a governed field is no input of create', orderCreateInput, { ...ORDER, status: 'done' }, 'unknown field order.status'],
    ['lines are required when the list needs one', orderCreateInput, { number: 'AB-1234', customer: 'p1' }, 'order.items needs at least 1 line'],
    ['at least one line', orderCreateInput, { ...ORDER, items: [] }, 'order.items needs at least 1 line'],
    ['at most 500 lines', orderCreateInput, { ...ORDER, items: Array.from({ length: 501 }, () => LINE) }, 'order.items has at most 500 lines'],
    ['lines are a list', orderCreateInput, { ...ORDER, items: { 0: LINE } }, 'order.items must be a list of lines'],
    ["a line's missing field, by its index", orderCreateInput, { ...ORDER, items: [LINE, LINE, { ...LINE, quantity: undefined }] }, 'order.items[2].quantity is required'],
    ["a line's check, by its index", orderCreateInput, { ...ORDER, items: [LINE, { ...LINE, quantity: 0 }] }, 'order.items[1].quantity must be at least 0.001'],
    ["a line's length", orderCreateInput, { ...ORDER, items: [{ ...LINE, description: 'x'.repeat(201) }] }, 'order.items[0].description must be at most 200 characters'],
    ["a line's unknown field", orderCreateInput, { ...ORDER, items: [{ ...LINE, colour: 'red' }] }, 'unknown field order.items[0].colour'],
    ['a line is an object', orderCreateInput, { ...ORDER, items: ['Chair'] }, 'order.items[0] must be an object'],
    ["a line's computed field is no input", orderCreateInput, { ...ORDER, items: [{ ...LINE, amount: 1 }] }, 'unknown field order.items[0].amount'],
    ['a new line has no id', orderCreateInput, { ...ORDER, items: [{ ...LINE, id: 'l1' }] }, 'unknown field order.items[0].id'],
    ['update: lines with the ids of lines kept, and new ones', orderUpdateInput, { id: 'o1', items: [{ ...LINE, id: 'l1' }, LINE] }, undefined],
    ['update: a line with an id gives only what changes', orderUpdateInput, { id: 'o1', items: [{ id: 'l1', quantity: 3 }] }, undefined],
    ["update: a line without an id is a new line, with what a line needs", orderUpdateInput, { id: 'o1', items: [{ quantity: 3 }] }, 'order.items[0].description is required'],
        ['update: a line id is an id', orderUpdateInput, { id: 'o1', items: [LINE, { ...LINE, id: 7 }] }, 'order.items[1].id must be a string'],
    ['update: the list may stay as it is', orderUpdateInput, { id: 'o1', number: 'AB-1235' }, undefined],
    ['update: an emptied list still needs its line', orderUpdateInput, { id: 'o1', items: [] }, 'order.items needs at least 1 line'],
    ['an action input that is no field, required', orderCancelInput, { id: 'o1' }, 'order.cancel.reason is required'],
    ['an action input that is no field', orderCancelInput, { id: 'o1', reason: 'Too late' }, undefined],
    ['an optional action input named like a field is that field', orderDeliverInput, { id: 'o1', delivered_at: 'soon' }, 'order.delivered_at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    ['an optional action input, absent', orderDeliverInput, { id: 'o1' }, undefined],
  ])('%s', (_, schema, input, expected) => {
    expect(firstError(schema, input)).toBe(expected);
  });

  it('parse to the values the service keeps: a datetime in UTC, a multiselect in its options\' order ([] empty), lines as given', () => {
    const parsed = orderCreateInput.parse({ ...ORDER, delivered_at: '2026-11-26T14:30:00+01:00', tags: ['export', 'rush'], items: [LINE, { ...LINE, note: null }] });
    expect(parsed).toMatchObject({ delivered_at: '2026-11-26T13:30:00.000Z', tags: ['rush', 'export'], items: [LINE, { ...LINE, note: null }] });
    expect(orderCreateInput.parse({ ...ORDER, tags: [] }).tags).toBeNull();
  });
});
