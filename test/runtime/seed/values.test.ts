/**
 * The seed's values, without a database: every record (and line) it makes is one the model's
 * create input takes — kinds, ranges, scales, lengths, patterns, line counts — on every fixture
 * model and on variants of `order` with other checks; defaults as a create gives them; a
 * required field, the title and a governed select never empty; lines as many as asked within the
 * list's bounds; the same seed and day giving the same values. (Uniques, workflows and dates by
 * name: unique-values.test.ts, workflows.test.ts, dates.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import type { FieldMeta, ModelMeta } from '../../../runtime/registry.ts';
import { patternRegExp } from '../../../runtime/kinds.ts';
import { recordMaker, type SeedRecord } from '../../../runtime/seed/records.ts';
import { SeedValuesError, type SeedValues } from '../../../runtime/seed/value-context.ts';
import { lineCountRange, linesMaker, valuesMaker } from '../../../runtime/seed/values.ts';
import { lineAmount } from '../../helpers/line-amount.ts';

const TODAY = '2026-06-15';
const parties = Array.from({ length: 30 }, (_, i) => `PARTY${String(i).padStart(3, '0')}`);
const targets = { party: parties, lead: ['LEAD1', 'LEAD2'], invoice: [], order: [] };
const order = registry.models.order!;

/** `order` with some fields changed (and others added). */
function orderWith(changes: Readonly<Record<string, Partial<FieldMeta>>>, extra: Partial<ModelMeta> = {}): ModelMeta {
  return { ...order, fields: order.fields.map((field) => (changes[field.name] ? { ...field, ...changes[field.name] } : field)), ...extra };
}

function records(model: ModelMeta, count: number, options: { seed?: number; lines?: { min: number; max: number } } = {}): SeedRecord[] {
  const make = recordMaker(model, registry.logic[model.name], { seed: options.seed ?? 1, targets, today: TODAY, ...(options.lines ? { lines: options.lines } : {}) });
  return Array.from({ length: count }, (_, i) => make(i + 1));
}

/** What a create of the record would send: no computed or governed fields, no empty values. */
function createInput(model: ModelMeta, record: SeedRecord): Record<string, unknown> {
  const given = (fields: readonly FieldMeta[], values: SeedValues): Record<string, unknown> =>
    Object.fromEntries(fields.filter((field) => !field.computed && !field.governed && values[field.name] !== null).map((field) => [field.name, values[field.name]]));
  const input = given(model.fields, record.values);
  for (const list of model.lines) input[list.name] = (record.lines[list.name] ?? []).map((line) => given(list.fields, line));
  return input;
}

/** The first error the model's create input gives each record (none: every record would be created as it is). */
function refusals(model: ModelMeta, made: readonly SeedRecord[], schemaOf: ModelMeta = model): string[] {
  const schema = registry.commands[`${schemaOf.name}.create`]!.input;
  return made.flatMap((record, i) => {
    const checked = schema.safeParse(createInput(model, record));
    return checked.success ? [] : [`record ${i + 1}: ${checked.error.issues[0]?.message}`];
  });
}

/** The decimals a number is written with. */
const decimals = (value: number) => String(value).split('.')[1]?.length ?? 0;
const column = (made: readonly SeedRecord[], field: string) => made.map((record) => record.values[field]);
const lineColumn = (made: readonly SeedRecord[], field: string) => made.flatMap((record) => (record.lines.items ?? []).map((line) => line[field]));

describe('seed values keep every check of the model', () => {
  it.each(Object.keys(registry.models))('every %s record is one its create input takes', (name) => {
    const model = registry.models[name]!;
    expect(refusals(model, records(model, 500))).toEqual([]);
  });

  it.each<[string, Record<string, Partial<FieldMeta>>, (made: SeedRecord[]) => void]>([
    ['number within min and max', { credit_limit: { kind: 'number', min: 3, max: 4 } }, (made) => expect(new Set(column(made, 'credit_limit').filter((v) => v !== null))).toEqual(new Set([3, 4]))],
    ['money within min and max', { credit_limit: { min: 100_00, max: 120_00 } }, (made) => expect(column(made, 'credit_limit').every((v) => v === null || ((v as number) >= 100_00 && (v as number) <= 120_00))).toBe(true)],
    ['money below the range its name gives', { credit_limit: { max: 10_00 } }, (made) => expect(column(made, 'credit_limit').every((v) => v === null || ((v as number) >= 0 && (v as number) <= 10_00))).toBe(true)],
    [
      'decimal within min and max, at its scale',
      { discount_pct: { scale: 1, min: 5, max: 6, default: undefined } },
      (made) => {
        const values = column(made, 'discount_pct').filter((v) => v !== null) as number[];
        expect(values.every((v) => v >= 5 && v <= 6 && decimals(v) <= 1)).toBe(true);
        expect(new Set(values).size).toBeGreaterThan(5);
      },
    ],
    ['decimal of scale 0 above its name\'s range', { discount_pct: { scale: 0, min: 500, max: undefined, default: undefined } }, (made) => expect(column(made, 'discount_pct').every((v) => v === null || (Number.isInteger(v) && (v as number) >= 500))).toBe(true)],
    ['date within min and max', { deliver_by: { min: '2026-01-01', max: '2026-01-31' } }, (made) => expect(column(made, 'deliver_by').every((v) => v === null || ((v as string) >= '2026-01-01' && (v as string) <= '2026-01-31'))).toBe(true)],
    [
      'datetime within min and max',
      { delivered_at: { min: '2026-03-01T00:00:00Z', max: '2026-03-02T00:00:00+01:00' } },
      (made) => expect(column(made, 'delivered_at').every((v) => v === null || ((v as string) >= '2026-03-01T00:00:00.000Z' && (v as string) <= '2026-03-01T23:00:00.000Z'))).toBe(true),
    ],
    ['text within its length', { website: { kind: 'text', length: 12 } }, (made) => expect(column(made, 'website').every((v) => v === null || (v as string).length <= 12)).toBe(true)],
    [
      'text matching its pattern',
      { website: { kind: 'text', pattern: '[A-Z]{3}/[0-9]{2}' } },
      (made) => expect(column(made, 'website').every((v) => v === null || /^[A-Z]{3}\/[0-9]{2}$/.test(v as string))).toBe(true),
    ],
    [
      'an email of a pattern its name\'s values do not match',
      { contact_email: { pattern: '[a-z]{3,8}@shop\\.example' } },
      (made) => expect(column(made, 'contact_email').every((v) => v === null || /^[a-z]{3,8}@shop\.example$/.test(v as string))).toBe(true),
    ],
    [
      'an email of a pattern its name\'s values match: as the name gives',
      { contact_email: { pattern: '.+@example\\.com' } },
      (made) => expect(column(made, 'contact_email').every((v) => v === null || /^[a-z]+\.[a-z]+\d+@example\.com$/.test((v as string).normalize('NFD').replace(/\p{M}/gu, '')))).toBe(true),
    ],
    [
      'a unique number of a pattern with a length',
      { number: { pattern: '[A-Z]{2}-[0-9]{4,}', length: 8 } },
      (made) => {
        const numbers = column(made, 'number') as string[];
        expect(numbers.every((v) => /^[A-Z]{2}-[0-9]{4,5}$/.test(v))).toBe(true);
        expect(new Set(numbers).size).toBe(made.length);
      },
    ],
    ['a phone of a pattern', { website: { kind: 'phone', pattern: '\\+44 [0-9]{4} [0-9]{6}' } }, (made) => expect(column(made, 'website').every((v) => v === null || /^\+44 \d{4} \d{6}$/.test(v as string))).toBe(true)],
  ])('%s', (_name, changes, check) => {
    const model = orderWith(changes);
    const made = records(model, 300);
    check(made);
    // The variant's own checks, as the command path would run them on a create.
    const schemaChecks = made.flatMap((record) => model.fields.flatMap((field) => fieldProblem(field, record.values[field.name])));
    expect(schemaChecks).toEqual([]);
  });

  it('line fields keep their checks too: a line field with a pattern and a length', () => {
    const items = order.lines[0]!;
    const model: ModelMeta = {
      ...order,
      lines: [{ ...items, fields: items.fields.map((field) => (field.name === 'description' ? { ...field, length: 15, pattern: '[A-Z][a-z ]+' } : field)) }],
    };
    const descriptions = lineColumn(records(model, 200), 'description') as string[];
    expect(descriptions.filter((value) => value.length > 15 || !/^[A-Z][a-z ]+$/.test(value))).toEqual([]);
  });

  it('refuses a pattern it cannot make, naming the field', () => {
    expect(() => valuesMaker(orderWith({ website: { kind: 'text', pattern: '(a)\\1' } }), 1, targets, TODAY)).toThrow(
      new SeedValuesError('order.website: cannot make text for the pattern (a)\\1: a backreference (\\1) is not supported'),
    );
    expect(() => valuesMaker(orderWith({ website: { kind: 'text', pattern: '[0-9]{20}', length: 10 } }), 1, targets, TODAY)).toThrow(
      new SeedValuesError('order.website: the shortest text of its pattern [0-9]{20} is longer than its length 10'),
    );
  });
});

/** What the variant's own range, length and pattern say of a value (the generated schemas know only the fixtures' checks). */
function fieldProblem(field: FieldMeta, value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const problems: string[] = [];
  if (typeof value === 'number') {
    if (typeof field.min === 'number' && value < field.min) problems.push(`${field.name} ${value} < ${field.min}`);
    if (typeof field.max === 'number' && value > field.max) problems.push(`${field.name} ${value} > ${field.max}`);
  }
  if (typeof value === 'string' && field.kind !== 'datetime') {
    if (typeof field.min === 'string' && value < field.min) problems.push(`${field.name} ${value} < ${field.min}`);
    if (typeof field.max === 'string' && value > field.max) problems.push(`${field.name} ${value} > ${field.max}`);
    if (field.length !== undefined && [...value].length > field.length) problems.push(`${field.name} ${value} longer than ${field.length}`);
    if (field.pattern !== undefined && !patternRegExp(field.pattern).test(value)) problems.push(`${field.name} ${value} does not match ${field.pattern}`);
  }
  return problems;
}

describe('defaults', () => {
  const made = records(order, 2000);

  it('a field with a default holds it in about one record of four, as a create that left it out', () => {
    const share = (field: string, value: unknown) => column(made, field).filter((v) => v === value).length / made.length;
    expect(share('discount_pct', 0)).toBeGreaterThan(0.2);
    expect(share('discount_pct', 0)).toBeLessThan(0.32);
    expect(share('ordered_on', TODAY)).toBeGreaterThan(0.2);
    expect(share('ordered_on', TODAY)).toBeLessThan(0.32);
    // Never empty: a create that leaves them out gets the default.
    expect(column(made, 'discount_pct').includes(null)).toBe(false);
    expect(column(made, 'ordered_on').includes(null)).toBe(false);
  });
});

describe('lines', () => {
  const items = order.lines[0]!;

  it.each([
    ['by default, 1 to 10', { min: 0, max: 1000 }, undefined, [1, 10]],
    ['as asked', { min: 0, max: 1000 }, { min: 3, max: 3 }, [3, 3]],
    ['within the list\'s least', { min: 5, max: 1000 }, undefined, [5, 10]],
    ['within the list\'s most', { min: 0, max: 2 }, undefined, [1, 2]],
    ['none asked, but the list needs one', { min: 1, max: 500 }, { min: 0, max: 0 }, [1, 1]],
    ['more asked than the list takes', { min: 1, max: 4 }, { min: 10, max: 20 }, [4, 4]],
  ] as const)('%s', (_name, bounds, perRecord, [fewest, most]) => {
    const list = { ...items, ...bounds };
    expect(lineCountRange(list, perRecord ?? { min: 1, max: 10 })).toEqual([fewest, most]);
    const make = linesMaker({ ...order, lines: [list] }, list, 1, targets, TODAY, perRecord ?? undefined);
    const counts = Array.from({ length: 400 }, (_, i) => make(i + 1).length);
    expect(Math.min(...counts)).toBe(fewest);
    expect(Math.max(...counts)).toBe(most);
  });

  it('line fields by kind and name: a sentence for a description, whole quantities to 50 with up to 3 decimals, prices of a price', () => {
    const made = records(order, 200);
    const descriptions = lineColumn(made, 'description') as string[];
    expect(descriptions.every((text) => /^\p{Lu}[^.]+\.$/u.test(text))).toBe(true);
    const quantities = lineColumn(made, 'quantity') as number[];
    expect(quantities.every((q) => q >= 1 && q <= 50 && decimals(q) <= 3)).toBe(true);
    const prices = lineColumn(made, 'unit_price') as number[];
    expect(prices.every((p) => p >= 5_00 && p <= 2000_00 && p % 100 === 0)).toBe(true);
    // Computed: each line's amount and the record's total, as the model's logic gives them.
    for (const record of made) {
      const lines = record.lines.items!;
      for (const line of lines) expect(line.amount).toBe(lineAmount(line));
      expect(record.values.total).toBe(lines.reduce((sum, line) => sum + (line.amount as number), 0));
    }
  });
});

describe('the same seed and day', () => {
  it('give the same records and lines; another seed others', () => {
    expect(records(order, 50, { seed: 4 })).toEqual(records(order, 50, { seed: 4 }));
    expect(records(order, 50, { seed: 5 })).not.toEqual(records(order, 50, { seed: 4 }));
  });
});

describe('required values', () => {
  const lead = registry.models.lead!;

  it('never leaves a required field, the title or a governed select empty', () => {
    const make = valuesMaker(lead, 3, { party: ['P1', 'P2'] });
    for (let n = 1; n <= 500; n++) {
      const values = make(n);
      expect(values.title).toBe(`Lead ${n}`);
      expect(['new', 'qualified', 'won', 'lost']).toContain(values.stage);
      expect([null, 'P1', 'P2']).toContain(values.party);
    }
  });
});
