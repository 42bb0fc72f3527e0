/**
 * Text fields in a btree index get the length an index row holds (runtime/kinds.ts,
 * `indexedTextMaxLength`), shared among the text fields of their largest index; other text fields
 * keep their kind's default. Printed and live schemas agree.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildInput, commandInput, printInput } from '../../../generator/emit/inputs.ts';
import { loadProject } from '../../../generator/pipeline.ts';
import { oneModule, removeModuleTrees } from '../../helpers/module-trees.ts';

afterAll(removeModuleTrees);

describe('the lengths of indexed text fields', () => {
  it('unique and indexed fields 500, a composite index shares 500 among its text fields, others the default', async () => {
    const dir = oneModule(`export default { models: { thing: {
      fields: {
        name: { kind: 'text', required: true },
        code: { kind: 'text', unique: true },
        tag: { kind: 'text', index: true },
        first: { kind: 'text' },
        last: { kind: 'text' },
        city: { kind: 'text' },
        rank: { kind: 'number' },
        note: { kind: 'longtext' },
      },
      indexes: [['first', 'last', 'rank'], ['last', 'city', 'first']],
    } } };`);
    const ir = await loadProject(`${dir}/modules`);
    const model = ir.modules[0]!.models[0]!;
    const create = model.commands.find((command) => command.kind === 'create')!;
    const input = commandInput(model, create);
    const printed = printInput(model, input).text;
    for (const [field, expected] of [
      ['name', "kinds.text('thing.name')"],
      ['code', "kinds.text('thing.code', { maxLength: 500 })"],
      ['tag', "kinds.text('thing.tag', { maxLength: 500 })"],
      ['first', "kinds.text('thing.first', { maxLength: 166 })"],
      ['last', "kinds.text('thing.last', { maxLength: 166 })"],
      ['city', "kinds.text('thing.city', { maxLength: 166 })"],
      ['note', "kinds.longtext('thing.note')"],
    ] as const) {
      expect(printed, field).toContain(`${field}: ${expected}`);
    }
    const live = buildInput(model, input);
    expect(live.safeParse({ name: 'n', first: 'f'.repeat(166) }).success).toBe(true);
    expect(live.safeParse({ name: 'n', first: 'f'.repeat(167) }).error?.issues[0]?.message).toBe('thing.first must be at most 166 characters');
    expect(live.safeParse({ name: 'n', code: 'c'.repeat(501) }).error?.issues[0]?.message).toBe('thing.code must be at most 500 characters');
    expect(live.safeParse({ name: 'n'.repeat(10_000), note: 'x'.repeat(20_000) }).success).toBe(true);
  });
});
