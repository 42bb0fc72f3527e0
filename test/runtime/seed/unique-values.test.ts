/**
 * The seed's unique values, without a database: a composite unique's field that can hold the
 * record's number holds it, a partial unique's too, a composite of refs and options counts records
 * in their combinations (and `seedableCount` says how many are left, as for a required unique
 * select), and another draw of a record keeps its unique values.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import type { FieldMeta, ModelMeta } from '../../../runtime/registry.ts';
import { seedableCount, valuesMaker } from '../../../runtime/seed/values.ts';

const TODAY = '2026-06-15';
const parties = Array.from({ length: 30 }, (_, i) => `PARTY${String(i).padStart(3, '0')}`);
const targets = { party: parties, lead: ['LEAD1', 'LEAD2'], invoice: [], order: [] };
const order = registry.models.order!;

/** `order` with some fields changed. */
function orderWith(changes: Readonly<Record<string, Partial<FieldMeta>>>): ModelMeta {
  return { ...order, fields: order.fields.map((field) => (changes[field.name] ? { ...field, ...changes[field.name] } : field)) };
}

describe('uniques', () => {
  const withoutNumberUnique = (model: ModelMeta): ModelMeta => ({ ...model, table: { ...model.table, indexes: model.table.indexes.filter((index) => typeof index === 'string' || index.fields.length !== 1) } });
  const lead = registry.models.lead!;

  it('a composite unique with a field that can hold the number: that field holds it', () => {
    const model = withoutNumberUnique({ ...order, uniques: [{ fields: ['customer', 'website'] }] });
    const made = Array.from({ length: 500 }, (_, i) => valuesMaker(model, 1, targets, TODAY)(i + 1));
    expect(new Set(made.map((v) => `${v.customer} ${v.website}`)).size).toBe(500);
    expect(made.every((v) => v.website !== null)).toBe(true);
  });

  it('a partial unique: its field holds the number in every record', () => {
    const model = withoutNumberUnique({ ...order, uniques: [{ fields: ['contact_email'], where: { status: 'draft' } }] });
    const made = Array.from({ length: 500 }, (_, i) => valuesMaker(model, 1, targets, TODAY)(i + 1));
    expect(new Set(made.map((v) => v.contact_email)).size).toBe(500);
  });

  it('a composite of refs and options counts records in their combinations, as many as there are', () => {
    const required = withoutNumberUnique({ ...orderWith({ tags: { required: true } }), uniques: [{ fields: ['customer', 'tags'] }] });
    // 30 parties × 7 non-empty sets of 3 tags.
    expect(seedableCount(required, 1, targets)).toEqual({ count: 210, fields: ['customer', 'tags'] });
    expect(seedableCount(required, 201, targets)).toEqual({ count: 10, fields: ['customer', 'tags'] });
    const made = Array.from({ length: 210 }, (_, i) => valuesMaker(required, 1, targets, TODAY)(i + 1));
    expect(new Set(made.map((v) => `${v.customer} ${JSON.stringify(v.tags)}`)).size).toBe(210);
    // With tags optional there is no limit: past the combinations, tags are empty (an empty value never collides).
    const optional = withoutNumberUnique({ ...order, uniques: [{ fields: ['customer', 'tags'] }] });
    expect(seedableCount(optional, 1, targets)).toBeUndefined();
    expect(valuesMaker(optional, 1, targets, TODAY)(211).tags).toBeNull();
  });

  it('a unique value holds the record\'s number in another draw of the record too; the rest changes', () => {
    const make = valuesMaker(order, 1, targets, TODAY);
    const [first, second] = [make(7, 0), make(7, 1)];
    // The number's digits hold the record's number; its letters are drawn.
    expect((second.number as string).slice(3)).toBe('0007');
    expect((first.number as string).slice(3)).toBe('0007');
    expect(second).not.toEqual(first);
  });

  it('a required unique select has one value per option, and seedableCount says how many are left', () => {
    const model: ModelMeta = {
      ...lead,
      fields: lead.fields.map((field) => (field.name === 'lost_reason' ? { ...field, kind: 'select', options: ['a', 'b', 'c'], required: true } : field)),
      table: { ...lead.table, indexes: [...lead.table.indexes, { fields: ['lost_reason'], unique: true }] },
    };
    expect(seedableCount(model, 1, {})).toEqual({ count: 3, fields: ['lost_reason'] });
    expect(seedableCount(model, 3, {})).toEqual({ count: 1, fields: ['lost_reason'] });
    expect(seedableCount(lead, 1, {})).toBeUndefined();
    const make = valuesMaker(model, 1, {});
    expect([1, 2, 3].map((n) => make(n).lost_reason)).toEqual(['a', 'b', 'c']);
  });
});
