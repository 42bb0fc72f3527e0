/**
 * A seeded record as a create would leave it: computed fields worked out by the model's own logic
 * (the functions writes run) and stored as writes store them, rules kept by drawing the record's
 * values again, and a rule no draw keeps (or logic that throws) refused with a line that names it.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import type { ModelLogic, ModelMeta, RuleMeta } from '../../../runtime/registry.ts';
import { MAX_DRAWS, SeedRecordError, recordMaker } from '../../../runtime/seed/records.ts';
import { lineAmount } from '../../helpers/line-amount.ts';

const TODAY = '2026-06-15';
const targets = { party: Array.from({ length: 20 }, (_, i) => `PARTY${i}`) };
const order = registry.models.order!;
const orderLogic = registry.logic.order!;

/** The order's logic with other rules (computed fields as generated). */
function withRules(rules: readonly { readonly rule: RuleMeta; readonly check: (record: Readonly<Record<string, unknown>>) => boolean }[]): { model: ModelMeta; logic: ModelLogic } {
  return {
    model: { ...order, rules: rules.map(({ rule }) => rule) },
    logic: {
      version: orderLogic.version,
      compute: (record) => orderLogic.compute(record),
      failedRules: (record) => rules.filter(({ check }) => !check(record)).map(({ rule }) => rule),
    },
  };
}

describe('seeded records and the model\'s logic', () => {
  it('computed fields are what the model\'s functions give, lines first', () => {
    const make = recordMaker(order, orderLogic, { seed: 1, targets, today: TODAY });
    for (let n = 1; n <= 200; n++) {
      const { values, lines } = make(n);
      const items = lines.items!;
      expect(items.length).toBeGreaterThanOrEqual(1);
      for (const line of items) expect(line.amount).toBe(lineAmount(line));
      expect(values.total).toBe(items.reduce((sum, line) => sum + (line.amount as number), 0));
    }
  });

  it('computed values are stored as a write stores them: money rounded to a whole amount', () => {
    const logic: ModelLogic = {
      ...orderLogic,
      compute(record) {
        orderLogic.compute(record);
        record.total = (record.total as number) + 0.4;
      },
    };
    const { values } = recordMaker(order, logic, { seed: 1, targets, today: TODAY })(1);
    expect(Number.isInteger(values.total)).toBe(true);
  });

  it('a record whose values break a rule is drawn again, and every record kept keeps it', () => {
    const { model, logic } = withRules([
      { rule: { fields: ['discount_pct'], message: 'discount at most 50' }, check: (o) => (o.discount_pct as number) <= 50 },
      { rule: { fields: ['items'], message: 'at most 8 items' }, check: (o) => (o.items as unknown[]).length <= 8 },
    ]);
    const make = recordMaker(model, logic, { seed: 1, targets, today: TODAY });
    const made = Array.from({ length: 300 }, (_, i) => make(i + 1));
    expect(made.filter(({ values, lines }) => logic.failedRules({ ...values, ...lines }).length > 0)).toEqual([]);
    // The values still vary as before: only records that broke a rule were drawn again.
    expect(new Set(made.map(({ lines }) => lines.items!.length))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8]));
    const unchanged = recordMaker(order, orderLogic, { seed: 1, targets, today: TODAY });
    const same = made.filter(({ values }, i) => JSON.stringify(values) === JSON.stringify(unchanged(i + 1).values)).length;
    expect(same).toBeGreaterThan(30);
    expect(same).toBeLessThan(300);
  });

  it.each([
    ['a rule no draw keeps', [{ rule: { fields: ['number', 'customer'], message: 'never' }, check: () => false }], `cannot seed order: every one of ${MAX_DRAWS} draws of record 1's values breaks its rule "never" (number, customer)`],
    [
      'the first of the rules that fail',
      [
        { rule: { fields: ['total'], message: 'total under 1' }, check: (o: Readonly<Record<string, unknown>>) => (o.total as number) < 1 },
        { rule: { fields: ['number'], message: 'never' }, check: () => false },
      ],
      `cannot seed order: every one of ${MAX_DRAWS} draws of record 1's values breaks its rule "total under 1" (total)`,
    ],
    [
      'logic that throws',
      [{ rule: { fields: ['deliver_by'], message: 'throws' }, check: (o: Readonly<Record<string, unknown>>) => (o.nothing as string).length > 0 }],
      "cannot seed order: its computed fields or rules failed on record 1: Cannot read properties of undefined (reading 'length')",
    ],
  ])('refuses %s with a line naming it', (_name, rules, message) => {
    const { model, logic } = withRules(rules);
    expect(() => recordMaker(model, logic, { seed: 1, targets, today: TODAY })(1)).toThrow(new SeedRecordError(message));
  });

  it('a model without logic (or with none to run) is made without it', () => {
    const lead = registry.models.lead!;
    const record = recordMaker(lead, registry.logic.lead, { seed: 1, targets, today: TODAY })(3);
    expect(record.lines).toEqual({});
    expect(record.values.title).toBe('Lead 3');
  });
});
