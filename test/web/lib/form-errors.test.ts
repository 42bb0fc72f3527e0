/** Table tests of web/src/lib/form-errors.ts: where a refusal of the server goes in a form. */
import { describe, expect, it } from 'vitest';
import { placeError } from '../../../web/src/lib/form-errors.ts';
import { order } from '../../helpers/web-models.ts';

describe('where the server’s refusals go', () => {
  it.each([
    ['order.items[2].quantity is required', undefined, { kind: 'line', list: 'items', index: 2, field: 'quantity', message: 'Quantity is required' }],
    ['order.items[1].quantity must be at least 0.001', undefined, { kind: 'line', list: 'items', index: 1, field: 'quantity', message: 'Quantity must be at least 0.001' }],
    ['order.items[0].id is not a line of this order', undefined, { kind: 'line', list: 'items', index: 0, message: 'Line 1: id is not a line of this order' }],
    ['order.items needs at least 1 line', undefined, { kind: 'list', list: 'items', message: 'Items needs at least 1 line' }],
    ['order.items has at most 500 lines', undefined, { kind: 'list', list: 'items', message: 'Items has at most 500 lines' }],
    ['order: deliver by must be on or after the order date', { error: 'x', fields: ['deliver_by'] }, { kind: 'rule', fields: ['deliver_by'], message: 'Deliver by must be on or after the order date' }],
    ['order.number must be unique', undefined, { kind: 'field', field: 'number', message: 'Number must be unique' }],
    ['order.total is computed', undefined, { kind: 'field', field: 'total', message: 'Total is computed' }],
    ['order.itemsx is odd', undefined, undefined],
    ['order is done and cannot be changed', undefined, undefined],
  ] as const)('%j → %o', (message, body, place) => expect(placeError(order, message, body)).toEqual(place));
});
