/**
 * The logic files (generator/emit/logic.ts): each model's computed fields and rules, copied from
 * the module file as written and typed with the model's record; `compute` works each line's
 * computed fields out before the record's, in declaration order; `failedRules` names the rules
 * the record fails; `version` names the computed fields' functions. And `logic.ts`, which the web
 * app bundles: nothing of the runtime (nor of Node) comes with it.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { emit } from '../../../generator/emit/index.ts';
import { inReadingOrder } from '../../../generator/emit/logic.ts';
import type { FieldIR } from '../../../generator/ir.ts';
import { loadProject } from '../../../generator/pipeline.ts';
import { orderLogic } from '../../fixtures/generated/sales/order.logic.ts';
import { partyLogic } from '../../fixtures/generated/crm/party.logic.ts';
import { FIXTURE_GENERATED_DIR } from '../../helpers/fixtures.ts';
import { oneModule, removeModuleTrees, ROOT } from '../../helpers/module-trees.ts';

afterAll(removeModuleTrees);

const LINE = { description: 'Chair', quantity: 2, unit_price: 4999, note: null };

describe("the fixtures' order logic", () => {
  it("computes each line's fields first, then the record's from its computed lines, in place", () => {
    const order: Record<string, unknown> = { number: 'AB-1234', ordered_on: '2026-11-26', deliver_by: null, items: [{ ...LINE }, { ...LINE, quantity: 0.5, unit_price: 333 }] };
    orderLogic.compute(order);
    expect(order.items).toEqual([
      { ...LINE, amount: 9998 },
      { ...LINE, quantity: 0.5, unit_price: 333, amount: 167 },
    ]);
    expect(order.total).toBe(10165);
    // Computed again from what the record holds now, not from what it held.
    (order.items as Record<string, unknown>[]).pop();
    orderLogic.compute(order);
    expect(order.total).toBe(9998);
  });

  it('failedRules names the rules the record fails, with their fields and messages', () => {
    const rule = { fields: ['deliver_by'], message: 'deliver by must be on or after the order date' };
    expect(orderLogic.failedRules({ ordered_on: '2026-11-26', deliver_by: '2026-11-25', items: [] })).toEqual([rule]);
    expect(orderLogic.failedRules({ ordered_on: '2026-11-26', deliver_by: '2026-11-26', items: [] })).toEqual([]);
    expect(orderLogic.failedRules({ ordered_on: '2026-11-26', deliver_by: null, items: [] })).toEqual([]);
  });

  it('a model without computed fields or rules computes nothing and fails none', () => {
    const party = { name: 'Ann' };
    partyLogic.compute(party);
    expect(party).toEqual({ name: 'Ann' });
    expect(partyLogic.failedRules(party)).toEqual([]);
    expect(partyLogic.version).toBe('');
  });
});

describe('the logic file', () => {
  it('holds each function as written in the module file, typed by the constant it is assigned to', async () => {
    const files = emit(await loadProject(join(ROOT, 'test/fixtures/modules')));
    const text = files.get('sales/order.logic.ts')!;
    expect(text).toContain('/** `order.items[].amount`, as written at modules/sales/module.ts:36. */\nconst computeItemsAmount: (line: OrderItemsLineValues) => number = (l) => Math.round((Math.round(l.quantity * 1000) * l.unit_price) / 1000);');
    expect(text).toContain('/** `order.total`, as written at modules/sales/module.ts:23. */\nconst computeTotal: (record: OrderValues) => number = (o) => o.items.reduce((s, l) => s + l.amount, 0);');
    // A required field reads as never empty; one with a default as possibly empty (a caller may write
    // null to it), as one without; lines as their values.
    expect(text).toContain('  readonly number: string;\n  readonly customer: string;\n  readonly ordered_on: string | null;\n  readonly deliver_by: string | null;');
    expect(text).toContain('  readonly items: readonly OrderItemsLineValues[];');
    expect(text).toContain("import type { ModelLogic } from '../../runtime/registry.ts';");
  });

  it("version changes with a computed field's function, not with a rule or a label", async () => {
    const module = (computed: string, rule: string, label: string) =>
      `export default { models: { m: { label: '${label}', fields: { a: { kind: 'number' }, b: { kind: 'number', computed: ${computed} } }, rules: [{ fields: ['a'], message: 'x', check: ${rule} }] } } };`;
    const versionOf = async (text: string) => {
      const files = emit(await loadProject(join(oneModule(text), 'modules')));
      return /version: '([0-9a-f]*)'/.exec(files.get('crm/m.logic.ts')!)?.[1];
    };
    const first = await versionOf(module('(r) => (r.a ?? 0) + 1', '(r) => true', 'M'));
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(await versionOf(module('(r) => (r.a ?? 0) + 1', '(r) => r.a !== 0', 'Other'))).toBe(first);
    expect(await versionOf(module('(r) => (r.a ?? 0) + 2', '(r) => true', 'M'))).not.toBe(first);
  });

  it('logic.ts bundles for the browser with nothing of the runtime or of Node', async () => {
    const result = await build({
      entryPoints: [join(FIXTURE_GENERATED_DIR, 'logic.ts')],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.every((input) => input.startsWith('test/fixtures/generated/') && input.endsWith('logic.ts')), inputs.join(', ')).toBe(true);
    expect(result.outputFiles[0]!.text.length).toBeLessThan(10_000);
  });
});

describe('the order computed fields are worked out in', () => {
  const field = (name: string, text?: string) => ({ name, ...(text === undefined ? {} : { computed: { text, prefix: 0, line: 1, column: 1, writtenLines: [] } }) }) as unknown as FieldIR;
  const order = (fields: FieldIR[]) => inReadingOrder(fields).map((one) => one.name);

  it('puts a computed field after the computed fields it reads, by dot or by quoted name, else keeps declaration order', () => {
    expect(order([field('title'), field('a', '(r) => r.b + 1'), field('b', "(r) => r['c'] * 2"), field('c', '(r) => r.title.length'), field('d', '(r) => 1')])).toEqual(['title', 'c', 'b', 'a', 'd']);
    // A name that only starts like another field's is no read of it.
    expect(order([field('a', '(r) => r.bb + 1'), field('b', '(r) => 2'), field('bb')])).toEqual(['bb', 'a', 'b']);
  });

  it('keeps declaration order for fields whose reads go round in a circle', () => {
    expect(order([field('a', '(r) => r.b'), field('b', '(r) => r.a'), field('c', '(r) => r.a')])).toEqual(['a', 'b', 'c']);
  });
});
