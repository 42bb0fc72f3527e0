/** Table tests of web/src/lib/meta.ts: a record's locked state. */
import { describe, expect, it } from 'vitest';
import { lockedState } from '../../../web/src/lib/meta.ts';
import { order, stored } from '../../helpers/web-models.ts';

describe('locked states', () => {
  it.each([
    ['draft', null],
    ['done', { field: 'status', state: 'done' }],
    ['cancelled', { field: 'status', state: 'cancelled' }],
  ])('an order that is %s: %o', (status, locked) => expect(lockedState(order, { ...stored, status })).toEqual(locked));

  it('a model without locked states, or a state the person may not read, is not locked', () => {
    expect(lockedState({ ...order, locked_in: undefined }, { ...stored, status: 'done' })).toBeNull();
    const { status: _, ...withoutStatus } = stored;
    expect(lockedState(order, withoutStatus)).toBeNull();
  });
});
