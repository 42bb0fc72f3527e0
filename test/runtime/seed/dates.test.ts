/**
 * The seed's dates by name, without a database: a deadline follows its start by weeks, so the
 * model's rule that it does holds without drawing the record again.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import { valuesMaker } from '../../../runtime/seed/values.ts';

const TODAY = '2026-06-15';
const parties = Array.from({ length: 30 }, (_, i) => `PARTY${String(i).padStart(3, '0')}`);
const targets = { party: parties, lead: ['LEAD1', 'LEAD2'], invoice: [], order: [] };
const order = registry.models.order!;

describe('dates by name', () => {
  it('a deadline follows its start by weeks (deliver_by after ordered_on), so the rule holds without redrawing', () => {
    const make = valuesMaker(order, 1, targets, TODAY);
    const values = Array.from({ length: 500 }, (_, i) => make(i + 1));
    const rule = registry.logic.order!;
    expect(values.filter((v) => typeof v.deliver_by === 'string' && v.deliver_by < (v.ordered_on as string))).toEqual([]);
    expect(values.filter((v) => rule.failedRules({ ...v, items: [] }).length > 0)).toEqual([]);
  });
});
