/**
 * A governed field's seeded states, without a database: only states its actions reach from the
 * first option (a longer way counts), and what the actions on the way write there and only there,
 * on days in order.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import type { ModelMeta } from '../../../runtime/registry.ts';
import { recordMaker } from '../../../runtime/seed/records.ts';
import type { SeedValues } from '../../../runtime/seed/value-context.ts';
import { valuesMaker } from '../../../runtime/seed/values.ts';

const TODAY = '2026-06-15';
const parties = Array.from({ length: 30 }, (_, i) => `PARTY${String(i).padStart(3, '0')}`);
const targets = { party: parties, lead: ['LEAD1', 'LEAD2'], invoice: [], order: [] };
const order = registry.models.order!;

describe('what actions write', () => {
  const make = recordMaker(order, registry.logic.order, { seed: 1, targets, today: TODAY });
  const made = Array.from({ length: 2000 }, (_, i) => make(i + 1));

  it('what actions write is there only where the state came through them, on days in order', () => {
    const byState = new Map<string, SeedValues[]>();
    for (const record of made) byState.set(record.values.status as string, [...(byState.get(record.values.status as string) ?? []), record.values]);
    expect([...byState.keys()].sort()).toEqual(['cancelled', 'confirmed', 'done', 'draft']);
    for (const [state, values] of byState) {
      // confirm sets confirmed_on; deliver takes delivered_at (optional); cancel is reached from draft, its shortest way.
      const confirmed = state === 'confirmed' || state === 'done';
      expect(values.every((v) => (v.confirmed_on !== null) === confirmed), state).toBe(true);
      if (state !== 'done') expect(values.every((v) => v.delivered_at === null), state).toBe(true);
    }
    const done = byState.get('done')!;
    const delivered = done.filter((v) => v.delivered_at !== null);
    // An optional input: given on most deliveries, not all.
    expect(delivered.length / done.length).toBeGreaterThan(0.75);
    expect(delivered.length).toBeLessThan(done.length);
    for (const v of [...byState.get('confirmed')!, ...done]) {
      expect(v.confirmed_on! >= v.ordered_on!, `${v.ordered_on} → ${v.confirmed_on}`).toBe(true);
      if (v.ordered_on! <= TODAY) expect(v.confirmed_on! <= TODAY).toBe(true);
    }
    for (const v of delivered) expect((v.delivered_at as string).slice(0, 10) >= (v.confirmed_on as string)).toBe(true);
  });
});

describe('governed states', () => {
  const lead = registry.models.lead!;

  it('an option no action reaches from the first is never seeded; one reached by a longer way is', () => {
    const model: ModelMeta = {
      ...lead,
      fields: lead.fields.map((field) => (field.name === 'stage' ? { ...field, options: ['new', 'qualified', 'won', 'lost', 'archived'] } : field)),
      actions: lead.actions.filter((action) => action.name !== 'lose'),
    };
    const make = valuesMaker(model, 1, {}, '2026-06-15');
    const stages = new Set(Array.from({ length: 300 }, (_, i) => make(i + 1).stage));
    expect(stages).toEqual(new Set(['new', 'qualified', 'won']));
  });

  it('a field an action requires is filled where the state came through that action, and only there', () => {
    const make = valuesMaker(lead, 1, {}, '2026-06-15');
    for (let n = 1; n <= 300; n++) {
      const values = make(n);
      expect(values.lost_reason !== null, `${values.stage}: ${values.lost_reason}`).toBe(values.stage === 'lost');
    }
  });
});
