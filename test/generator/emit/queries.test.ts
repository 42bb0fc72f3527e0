/**
 * The generated queries (`generated/<module>/<model>.queries.ts`), as the registry hands them to the
 * record service, against a real database migrated from that registry: what they store (checked in
 * the raw rows), what they read back (the runtime's conversions), compiled lists and counts,
 * updates, locks, referrers and deletes. Every expectation is derived from the registry, so that the
 * same tests run on the fixture modules' registry (test/fixtures/generated), on the project's own
 * generated/ (whatever modules/ holds: the demo, a module added there — every model is covered),
 * and on a generated fixture with self-references and names like the generated code's imports. On
 * SQLite always; on PostgreSQL too when `RMS_TEST_PG_URL` names a server.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { registry as project } from '../../../generated/registry.ts';
import { generate, loadProject } from '../../../generator/pipeline.ts';
import { writeOutput } from '../../../generator/write.ts';
import { openDatabase, type Dialect } from '../../../runtime/db/connect.ts';
import { migrate } from '../../../runtime/db/migrate.ts';
import { compileList, compileModelQuery } from '../../../runtime/query/list-query.ts';
import type { FieldMeta, ModelMeta, ModelQueries, Referrer, Registry, StoredRecord } from '../../../runtime/registry.ts';
import { insertLead, leadQueries, updateLead, type LeadChanges } from '../../fixtures/generated/crm/lead.queries.ts';
import type { Lead } from '../../fixtures/generated/crm/lead.schemas.ts';
import { findParty, partyQueries } from '../../fixtures/generated/crm/party.queries.ts';
import type { Party } from '../../fixtures/generated/crm/party.schemas.ts';
import { registry as fixtures } from '../../fixtures/generated/registry.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../../helpers/postgres.ts';
import { moduleTree, removeModuleTrees, UNUSUAL } from '../../helpers/module-trees.ts';

afterAll(removeModuleTrees);

const dialects: Dialect[] = testPostgresUrl() === undefined ? ['sqlite'] : ['sqlite', 'postgres'];

/** The registry generated from the unusual fixture definitions, loaded as the server loads the real one. */
async function unusualRegistry(): Promise<Registry> {
  const dir = moduleTree({ org: UNUSUAL });
  const out = join(dir, 'generated');
  writeOutput(out, generate(await loadProject(join(dir, 'modules')), out));
  return ((await import(pathToFileURL(join(out, 'registry.ts')).href)) as { registry: Registry }).registry;
}

type Values = Record<string, unknown> & StoredRecord;

/** A value of the field: two variants, so that an update changes every field. */
function sampleValue(field: FieldMeta, variant: 0 | 1, target: (model: string) => string): unknown {
  switch (field.kind) {
    case 'text':
      return variant === 0 ? `Ünïcode ${field.name}` : `${field.name} 'again'`;
    case 'longtext':
      return variant === 0 ? `line one\nline two of ${field.name}` : `${field.name}\n`;
    case 'number':
      return variant === 0 ? 42 : Number.MAX_SAFE_INTEGER;
    case 'money':
      return variant === 0 ? 123_456 : -1;
    case 'date':
      return variant === 0 ? '2024-02-29' : '1999-12-31';
    case 'bool':
      return variant === 0;
    case 'select':
      return variant === 0 ? field.options![0] : field.options!.at(-1);
    case 'ref':
      return target(field.target!);
    case 'decimal': {
      // The most decimals the scale holds, and a negative value.
      const scale = field.scale ?? 0;
      return Number((variant === 0 ? 12 + 10 ** -scale : -3 * 10 ** -scale).toFixed(scale));
    }
    case 'datetime':
      return variant === 0 ? '2026-11-26T14:30:00.000Z' : '1999-12-31T23:59:59.999Z';
    case 'email':
      return variant === 0 ? `${field.name}@example.org` : `ünï.${field.name}@example.net`;
    case 'url':
      return variant === 0 ? `https://example.org/${field.name}` : `http://example.net/${field.name}?q='x'`;
    case 'phone':
      return variant === 0 ? '+31 20 123 4567' : '(020) 765-4321';
    case 'multiselect':
      return variant === 0 ? field.options!.slice(0, 1) : [...field.options!];
    case 'file': {
      const file = { id: `01FILE${variant}`, name: `ünï ${field.name}.pdf`, size: 1234 + variant, type: 'application/pdf', sha256: 'a'.repeat(64) };
      return field.multiple ? (variant === 0 ? [file] : [file, { ...file, id: '01FILE9', name: 'second.png', type: 'image/png' }]) : file;
    }
  }
}

const TARGETS = ['fixture modules', "the project's generated/", 'unusual fixture'] as const;

describe.each(dialects.flatMap((dialect) => TARGETS.map((registry) => `${registry} on ${dialect}`)))('generated queries: %s', (target) => {
  const dialect: Dialect = target.endsWith('postgres') ? 'postgres' : 'sqlite';
  let registry: Registry;
  let db: Knex;
  let database: TestDatabase | undefined;
  let models: ModelMeta[];
  let counter = 0;

  beforeAll(async () => {
    registry = target.startsWith('fixture modules') ? fixtures : target.startsWith('the project') ? project : await unusualRegistry();
    models = Object.values(registry.models);
    if (dialect === 'postgres') {
      database = await createTestDatabase(testPostgresUrl() as string, 'rms_queries');
      db = openDatabase(database.url);
    } else {
      db = openDatabase(`sqlite:${join(moduleTree({}), 'rms.sqlite')}`);
    }
    await migrate(db, registry);
  });

  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const queriesOf = (model: ModelMeta): ModelQueries => registry.queries[model.name]!;

  /** A record of the model with every field set; refs point at `<target>-base`, which need not exist (no foreign keys). */
  function sample(model: ModelMeta, variant: 0 | 1 = 0, id = `${model.name}-${counter++}`): Values {
    const record: Values = { id };
    for (const field of model.fields) record[field.name] = sampleValue(field, variant, (target) => `${target}-base`);
    // A unique field gets a value of its own per record (the database refuses a repeated one).
    for (const index of model.table.indexes) {
      if (typeof index === 'string' || !index.unique) continue;
      for (const name of index.fields) {
        const value = record[name];
        record[name] = typeof value === 'string' ? `${value} ${id}` : typeof value === 'number' ? counter++ : value;
      }
    }
    return record;
  }

  /** A row exactly as the driver returns it, without the generated code's conversions. */
  async function rawRow(model: ModelMeta, id: string): Promise<Record<string, unknown> | undefined> {
    return (await db(model.table.name).first('*').where('id', id)) as Record<string, unknown> | undefined;
  }

  /**
   * What the drivers return for a stored value: SQLite 1/0 and numbers, PostgreSQL booleans and
   * bigint strings; a decimal as its integer (the value × 10^scale), a multiselect as its JSON array.
   */
  function stored(field: FieldMeta, value: unknown): unknown {
    if (value === null) return null;
    if (field.kind === 'bool') return dialect === 'sqlite' ? (value ? 1 : 0) : value;
    if (field.kind === 'number' || field.kind === 'money') return dialect === 'sqlite' ? value : String(value);
    if (field.kind === 'decimal') {
      const integer = Math.round((value as number) * 10 ** (field.scale ?? 0));
      return dialect === 'sqlite' ? integer : String(integer);
    }
    if (field.kind === 'multiselect' || field.kind === 'file') return JSON.stringify(value);
    return value;
  }

  it('the registry has the queries of every model, on its table and columns', () => {
    expect(Object.keys(registry.queries)).toEqual(Object.keys(registry.models));
    for (const model of models) {
      expect(queriesOf(model).table, model.name).toBe(model.table.name);
      expect(queriesOf(model).columns, model.name).toEqual(model.table.columns.map((column) => column.name));
    }
  });

  it('insert stores every field as the runtime converts it; find and lockForWrite read the record back', async () => {
    for (const model of models) {
      const queries = queriesOf(model);
      const record = sample(model);
      await queries.insert(db, record);
      expect(await queries.find(db, record.id), model.name).toEqual(record);
      const raw = await rawRow(model, record.id);
      for (const field of model.fields) expect(raw?.[field.name], `${model.name}.${field.name}`).toEqual(stored(field, record[field.name]));
      expect(await db.transaction((trx) => queries.lockForWrite(trx, record.id)), model.name).toEqual(record);
      expect(await db.transaction((trx) => queries.lockForRef(trx, record.id)), model.name).toBe(true);

      expect(await queries.find(db, `${record.id}-missing`)).toBeUndefined();
      expect(await db.transaction((trx) => queries.lockForWrite(trx, `${record.id}-missing`))).toBeUndefined();
      expect(await db.transaction((trx) => queries.lockForRef(trx, `${record.id}-missing`))).toBe(false);
    }
  });

  it('update writes the given fields only, null empties them, and no changes write nothing', async () => {
    for (const model of models) {
      const queries = queriesOf(model);
      const record = sample(model);
      await queries.insert(db, record);
      const { id: _id, ...changes } = sample(model, 1, record.id);
      await queries.update(db, record.id, changes);
      const updated = { ...record, ...changes };
      expect(await queries.find(db, record.id), model.name).toEqual(updated);
      await queries.update(db, record.id, {});
      expect(await queries.find(db, record.id), model.name).toEqual(updated);

      const optional = model.fields.filter((field) => !field.required && !field.governed);
      const [first, ...others] = optional;
      if (!first) continue;
      await queries.update(db, record.id, { [first.name]: null });
      expect(await queries.find(db, record.id), model.name).toEqual({ ...updated, [first.name]: null });
      const raw = await rawRow(model, record.id);
      expect(raw?.[first.name], `${model.name}.${first.name}`).toBeNull();
      for (const field of others) expect(raw?.[field.name], `${model.name}.${field.name}`).toEqual(stored(field, updated[field.name]));
    }
  });

  it('list and count run a compiled filter, order and page after the model’s select', async () => {
    for (const model of models) {
      const queries = queriesOf(model);
      const ids = ['a', 'b', 'c'].map((letter) => `${model.name}-list-${letter}`);
      for (const id of ids) await queries.insert(db, sample(model, 0, id));
      const compile = (input: Parameters<typeof compileList>[2]) =>
        compileList(compileModelQuery(model, dialect), new Set(model.fields.map((field) => field.name)), input);
      const mine = { field: 'id', op: 'in' as const, value: ids };

      const page = compile({ filter: [mine], order: [{ field: 'id', dir: 'desc' }], limit: 2, offset: 1 });
      expect((await queries.list(db, page)).map((record) => record.id), model.name).toEqual([ids[1], ids[0]]);
      expect(await queries.count(db, page), model.name).toBe(3);
      // An offset without a limit (SQLite needs `limit -1` before it).
      expect((await queries.list(db, compile({ filter: [mine], offset: 1 }))).map((record) => record.id), model.name).toEqual(ids.slice(1));
      const [first] = await queries.list(db, compile({ filter: [mine], limit: 1 }));
      expect(first, model.name).toEqual(sample(model, 0, ids[0]));

      // `contains` folds case with the function only the pooled SQLite connection has: lists never run on the read-only one.
      const text = model.fields.find((field) => field.kind === 'text');
      if (text) {
        const contains = compile({ filter: [mine, { field: text.name, op: 'contains', value: 'üNÏCODE' }] });
        expect(await queries.count(db, contains), model.name).toBe(3);
        expect(await queries.list(db, contains), model.name).toHaveLength(3);
      }
    }
  });

  it('firstReferrer names the first record referring through each ref field, in referencedBy order, never the record itself', async () => {
    for (const model of models) {
      const queries = queriesOf(model);
      const referred = sample(model);
      await queries.insert(db, referred);
      expect(await queries.firstReferrer(db, referred.id), model.name).toBeUndefined();
      // Referrers added from the last ref field to the first: each becomes the first one found.
      let first: Referrer | undefined;
      for (const ref of [...model.referencedBy].reverse()) {
        const referringModel = registry.models[ref.model]!;
        if (ref.model === model.name) {
          await queries.update(db, referred.id, { [ref.field]: referred.id });
          expect(await queries.firstReferrer(db, referred.id), `${ref.model}.${ref.field} of itself`).toEqual(first);
        }
        const referring = { ...sample(referringModel), [ref.field]: referred.id };
        await queriesOf(referringModel).insert(db, referring);
        first = { model: ref.model, field: ref.field, id: referring.id };
        expect(await queries.firstReferrer(db, referred.id), `${ref.model}.${ref.field}`).toEqual(first);
      }
    }
  });

  it("line lists: insert at positions, linesOf per owner in order, update of fields and positions, remove, removeAll; only the owner's lines", async () => {
    for (const model of models) {
      for (const list of model.lines) {
        const lines = queriesOf(model).lines[list.name]!;
        expect(lines.table, list.name).toBe(list.table.name);
        expect(lines.columns, list.name).toEqual(list.table.columns.map((column) => column.name));
        const [a, b, none] = ['a', 'b', 'none'].map((letter) => `${model.name}-${list.name}-${letter}`) as [string, string, string];
        const line = (owner: string, n: number, variant: 0 | 1): Values => ({
          id: `${owner}-line-${n}`,
          ...Object.fromEntries(list.fields.map((field) => [field.name, sampleValue(field, variant, (target) => `${target}-base`)])),
        });
        const ofA = [line(a, 0, 0), line(a, 1, 1), line(a, 2, 0)] as const;
        const ofB = [line(b, 0, 1)];
        // Given out of order: the positions decide.
        await lines.insert(db, a, [2, 0, 1].map((position) => ({ line: ofA[position]!, position })));
        await lines.insert(db, b, [{ line: ofB[0]!, position: 0 }]);
        const read = await lines.linesOf(db, [a, b, none]);
        expect([...read.keys()], list.name).toEqual([a, b, none]);
        expect(read.get(a), list.name).toEqual(ofA);
        expect(read.get(b), list.name).toEqual(ofB);
        expect(read.get(none), list.name).toEqual([]);
        const raw = (await db(list.table.name).first('*').where('id', ofA[1].id)) as Record<string, unknown>;
        expect(raw.owner).toBe(a);
        expect(Number(raw.position)).toBe(1);
        for (const field of list.fields) expect(raw[field.name], `${list.name}.${field.name}`).toEqual(stored(field, ofA[1][field.name]));

        // The last line first, its fields changed; the others keep theirs.
        const changed = line(a, 2, 1);
        const { id: _id, ...changes } = changed;
        await lines.update(db, a, [
          { id: ofA[2].id, changes, position: 0 },
          { id: ofA[0].id, changes: {}, position: 1 },
          { id: ofA[1].id, changes: {}, position: 2 },
        ]);
        expect((await lines.linesOf(db, [a])).get(a), list.name).toEqual([changed, ofA[0], ofA[1]]);
        const optional = list.fields.find((field) => !field.required);
        if (optional) {
          await lines.update(db, a, [{ id: ofA[1].id, changes: { [optional.name]: null }, position: 2 }]);
          expect((await lines.linesOf(db, [a])).get(a)?.[2], list.name).toEqual({ ...ofA[1], [optional.name]: null });
          await lines.update(db, a, [{ id: ofA[1].id, changes: { [optional.name]: ofA[1][optional.name] }, position: 2 }]);
        }
        // Another record's lines are not touched through this one.
        await lines.update(db, b, [{ id: ofA[0].id, changes, position: 9 }]);
        await lines.remove(db, b, [ofA[0].id]);
        expect((await lines.linesOf(db, [a])).get(a), list.name).toEqual([changed, ofA[0], ofA[1]]);

        await lines.remove(db, a, [ofA[0].id]);
        expect((await lines.linesOf(db, [a])).get(a), list.name).toEqual([changed, ofA[1]]);
        await expect(
          db.transaction(async (trx) => {
            await lines.removeAll(trx, a);
            expect((await lines.linesOf(trx, [a])).get(a)).toEqual([]);
            throw new Error('abort');
          }),
        ).rejects.toThrow('abort');
        expect((await lines.linesOf(db, [a])).get(a), list.name).toEqual([changed, ofA[1]]);
        await lines.removeAll(db, a);
        expect((await lines.linesOf(db, [a, b])).get(a), list.name).toEqual([]);
        expect((await lines.linesOf(db, [a, b])).get(b), list.name).toEqual(ofB);
      }
    }
  });

  it('delete removes the row; inside a transaction that fails, nothing stays', async () => {
    for (const model of models) {
      const queries = queriesOf(model);
      const record = sample(model);
      await queries.insert(db, record);
      await queries.remove(db, record.id);
      expect(await queries.find(db, record.id), model.name).toBeUndefined();
      expect(await rawRow(model, record.id), model.name).toBeUndefined();

      const rolledBack = sample(model);
      await expect(
        db.transaction(async (trx) => {
          await queries.insert(trx, rolledBack);
          expect(await queries.find(trx, rolledBack.id)).toEqual(rolledBack);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await queries.find(db, rolledBack.id), model.name).toBeUndefined();
    }
  });
});

describe('generated query types', () => {
  it('read and write records typed with the record interface', () => {
    expectTypeOf(leadQueries).toEqualTypeOf<ModelQueries<Lead>>();
    // Fields some callers may not read are always present here.
    expectTypeOf(partyQueries).toEqualTypeOf<ModelQueries<Required<Party>>>();
    expectTypeOf(findParty).returns.resolves.toEqualTypeOf<Required<Party> | undefined>();
    expectTypeOf(insertLead).parameter(1).toEqualTypeOf<Lead>();
    expectTypeOf<LeadChanges['title']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<LeadChanges['hot']>().toEqualTypeOf<boolean | null | undefined>();
    // @ts-expect-error a new record gives every field
    void (() => insertLead({} as Knex, { id: 'x', title: 'Deal' }));
    // @ts-expect-error a governed select cannot be emptied
    void (() => updateLead({} as Knex, 'x', { stage: null }));
    // @ts-expect-error the id is not a field to change
    void (() => updateLead({} as Knex, 'x', { id: 'y' }));
  });
});
