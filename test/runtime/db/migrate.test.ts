/**
 * `migrate` against hand-built registries that differ from what was applied: harmless changes
 * are made, destructive ones are refused with an explanation and nothing changes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import { ensureAuthTables } from '../../../runtime/auth/index.ts';
import { openDatabase } from '../../../runtime/db/connect.ts';
import { MigrationRefusedError, SCHEMA_TABLE, migrate } from '../../../runtime/db/migrate.ts';
import type { ColumnMeta, FieldMeta, ModelMeta, Registry } from '../../../runtime/registry.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let open: Knex[] = [];
afterEach(async () => {
  await Promise.all(open.map((db) => db.destroy()));
  open = [];
});

let counter = 0;
async function freshDb(): Promise<Knex> {
  const db = openDatabase(`sqlite:${join(dir, `m${counter++}.sqlite`)}`);
  open.push(db);
  await migrate(db, registry, { systemTables: [ensureAuthTables] });
  return db;
}

function withModel(base: Registry, name: string, change: (model: ModelMeta) => ModelMeta): Registry {
  return { ...base, models: { ...base.models, [name]: change(base.models[name]!) } };
}

function field(name: string, patch: Partial<FieldMeta> = {}): FieldMeta {
  return { name, kind: 'number', label: name, description: '', required: false, personal: false, governed: false, hiddenFromAgents: false, computed: false, ...patch };
}

function addField(base: Registry, model: string, added: FieldMeta, column: ColumnMeta): Registry {
  return withModel(base, model, (m) => ({ ...m, fields: [...m.fields, added], table: { ...m.table, columns: [...m.table.columns, column] } }));
}

function removeField(base: Registry, model: string, name: string): Registry {
  return withModel(base, model, (m) => ({
    ...m,
    fields: m.fields.filter((f) => f.name !== name),
    table: { ...m.table, columns: m.table.columns.filter((c) => c.name !== name), indexes: m.table.indexes.filter((i) => i !== name) },
  }));
}

function changeField(base: Registry, model: string, name: string, fieldPatch: Partial<FieldMeta>, columnPatch: Partial<ColumnMeta> = {}): Registry {
  return withModel(base, model, (m) => ({
    ...m,
    fields: m.fields.map((f) => (f.name === name ? { ...f, ...fieldPatch } : f)),
    table: { ...m.table, columns: m.table.columns.map((c) => (c.name === name ? { ...c, ...columnPatch } : c)) },
  }));
}

async function columns(db: Knex, table: string): Promise<string[]> {
  return Object.keys(await db(table).columnInfo());
}

async function snapshotRows(db: Knex) {
  return db(SCHEMA_TABLE).select('table_name', 'snapshot').orderBy('table_name');
}

/** Runs a migration that must be refused; returns its problems after checking nothing changed. */
async function refusedMigration(db: Knex, next: Registry): Promise<readonly string[]> {
  const tablesBefore = await Promise.all(['party', 'lead', 'invoice'].map((t) => columns(db, t)));
  const snapshotsBefore = await snapshotRows(db);
  const error = await migrate(db, next).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MigrationRefusedError);
  expect(await Promise.all(['party', 'lead', 'invoice'].map((t) => columns(db, t)))).toEqual(tablesBefore);
  expect(await snapshotRows(db)).toEqual(snapshotsBefore);
  return (error as MigrationRefusedError).problems;
}

async function insertLead(db: Knex, values: Record<string, unknown> = {}) {
  await db('lead').insert({ id: `L${counter++}`, title: 'Deal', stage: 'new', ...values });
}

describe('a fresh database', () => {
  it('gets every table, index and snapshot, and a second run has nothing to do', async () => {
    const db = openDatabase(`sqlite:${join(dir, 'fresh.sqlite')}`);
    open.push(db);
    const { changes } = await migrate(db, registry, { systemTables: [ensureAuthTables] });
    expect(changes).toEqual(['created table party', 'created table lead', 'created table invoice', 'created table order', 'created table order__items']);
    expect(await columns(db, 'lead')).toEqual(registry.models.lead!.table.columns.map((c) => c.name));
    expect(await db.schema.hasTable('rms_people')).toBe(true);
    const indexes = await db('sqlite_master').where({ type: 'index', tbl_name: 'lead' }).pluck('name');
    expect(indexes).toEqual(expect.arrayContaining(['rms_idx_lead_party', 'rms_idx_lead_stage']));
    // A model's unique indexes over several fields, and a line table's index of its owners.
    expect(await db('sqlite_master').where({ type: 'index' }).whereIn('tbl_name', ['order', 'order__items']).pluck('name')).toEqual(
      expect.arrayContaining(['rms_uq_order_number', 'rms_uq_order_customer_number', 'rms_idx_order__items_owner']),
    );
    expect((await snapshotRows(db)).map((row) => row.table_name)).toEqual(['invoice', 'lead', 'order', 'order__items', 'party']);
    expect((await migrate(db, registry, { systemTables: [ensureAuthTables] })).changes).toEqual([]);
  });
});

describe('changes that keep data', () => {
  it('adds a new optional column, keeping rows', async () => {
    const db = await freshDb();
    await insertLead(db, { probability: 5 });
    const next = addField(registry, 'lead', field('score'), { name: 'score', type: 'integer', notNull: false });
    expect((await migrate(db, next)).changes).toEqual(['added column lead.score']);
    expect(await db('lead').first('title', 'probability', 'score')).toEqual({ title: 'Deal', probability: 5, score: null });
    await db('lead').update({ score: 7 });
    expect((await migrate(db, next)).changes).toEqual([]);
  });

  it('adds a required column with a default to a table with rows; rows get the default', async () => {
    const db = await freshDb();
    await insertLead(db);
    const next = addField(
      registry,
      'lead',
      field('priority', { kind: 'select', options: ['normal', 'high'], governed: true, required: false }),
      { name: 'priority', type: 'text', notNull: true, default: 'normal' },
    );
    expect((await migrate(db, { ...next, models: { ...next.models, lead: { ...next.models.lead!, table: { ...next.models.lead!.table, indexes: [...next.models.lead!.table.indexes, 'priority'] } } } })).changes).toEqual([
      'added column lead.priority',
      'created index on lead.priority',
    ]);
    expect(await db('lead').first('priority')).toEqual({ priority: 'normal' });
  });

  it('adds a required column without a default to an empty table by making it again', async () => {
    const db = await freshDb();
    const next = addField(registry, 'lead', field('code', { kind: 'text', required: true }), { name: 'code', type: 'text', notNull: true });
    expect((await migrate(db, next)).changes).toEqual(['recreated empty table lead as designed']);
    expect(await columns(db, 'lead')).toContain('code');
  });

  it('drops the column of a removed field that holds nothing', async () => {
    const db = await freshDb();
    await insertLead(db);
    expect((await migrate(db, removeField(registry, 'lead', 'lost_reason'))).changes).toEqual(['dropped empty column lead.lost_reason (field removed)']);
    expect(await columns(db, 'lead')).not.toContain('lost_reason');
    expect(await db('lead').count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('drops an indexed column that holds nothing, with its index', async () => {
    const db = await freshDb();
    await insertLead(db);
    expect((await migrate(db, removeField(registry, 'lead', 'party'))).changes).toEqual(['dropped empty column lead.party (field removed)']);
    expect(await db('sqlite_master').where({ type: 'index', name: 'rms_idx_lead_party' }).pluck('name')).toEqual([]);
  });

  it('changes the kind of a column that holds nothing', async () => {
    const db = await freshDb();
    await insertLead(db);
    const next = changeField(registry, 'lead', 'probability', { kind: 'text' }, { type: 'text' });
    expect((await migrate(db, next)).changes).toEqual(['changed the type of empty column lead.probability to text']);
    await db('lead').update({ probability: 'high' });
    expect(await db('lead').first('probability')).toEqual({ probability: 'high' });
  });

  it('keeps values when text becomes longtext, or a select', async () => {
    const db = await freshDb();
    await insertLead(db, { lost_reason: 'price' });
    expect((await migrate(db, changeField(registry, 'lead', 'lost_reason', { kind: 'longtext' }))).changes).toEqual([]);
    const select = changeField(registry, 'lead', 'lost_reason', { kind: 'select', options: ['price', 'timing'] });
    expect((await migrate(db, select)).changes).toEqual([]);
    expect(await db('lead').first('lost_reason')).toEqual({ lost_reason: 'price' });
  });

  it('removes a select option no record uses', async () => {
    const db = await freshDb();
    await insertLead(db);
    const next = changeField(registry, 'lead', 'stage', { options: ['new', 'qualified', 'lost'] });
    expect((await migrate(db, next)).changes).toEqual([]);
    expect(JSON.parse((await db(SCHEMA_TABLE).first('snapshot').where('table_name', 'lead')).snapshot).fields.stage.options).toEqual(['new', 'qualified', 'lost']);
  });

  it('makes a required field optional on SQLite by rebuilding the table, keeping rows', async () => {
    const db = await freshDb();
    await insertLead(db, { probability: 3, notes: 'kept' });
    const next = changeField(registry, 'lead', 'title', { required: false }, { notNull: false });
    expect((await migrate(db, next)).changes).toEqual(['rebuilt table lead (column constraints changed; rows kept)']);
    expect(await db('lead').first('title', 'probability', 'notes')).toEqual({ title: 'Deal', probability: 3, notes: 'kept' });
    await db('lead').insert({ id: 'NO-TITLE', stage: 'new' });
    expect(await db('sqlite_master').where({ type: 'index', tbl_name: 'lead' }).pluck('name')).toEqual(
      expect.arrayContaining(['rms_idx_lead_party', 'rms_idx_lead_stage']),
    );
  });
});

describe('destructive changes are refused, changing nothing', () => {
  it('a removed field whose column holds data', async () => {
    const db = await freshDb();
    await insertLead(db, { notes: 'precious' });
    expect(await refusedMigration(db, removeField(registry, 'lead', 'notes'))).toEqual([
      'lead.notes was removed, but 1 row(s) hold a value in it: put the field back, or empty it in every record first and migrate again',
    ]);
    expect(await db('lead').first('notes')).toEqual({ notes: 'precious' });
  });

  it('a column whose kind changed while it holds data', async () => {
    const db = await freshDb();
    await insertLead(db, { probability: 40 });
    expect(await refusedMigration(db, changeField(registry, 'lead', 'probability', { kind: 'text' }, { type: 'text' }))).toEqual([
      'lead.probability changed kind from number to text, but 1 row(s) hold a value in it: keep the kind, or add a new field, copy the values over, and remove this one when it is empty',
    ]);
    expect(await refusedMigration(db, changeField(registry, 'lead', 'probability', { kind: 'money' }))).toEqual([
      'lead.probability changed kind from number to money, but 1 row(s) hold a value in it: keep the kind, or add a new field, copy the values over, and remove this one when it is empty',
    ]);
  });

  it('a ref whose target changed while it holds data', async () => {
    const db = await freshDb();
    await db('party').insert({ id: 'P1', name: 'p' });
    await insertLead(db, { party: 'P1' });
    const problems = await refusedMigration(db, changeField(registry, 'lead', 'party', { target: 'invoice' }));
    expect(problems).toEqual([expect.stringMatching(/^lead\.party changed kind from a ref to party to a ref to invoice, but 1 row\(s\) hold a value/)]);
  });

  it('text that becomes a select while records hold other values', async () => {
    const db = await freshDb();
    await insertLead(db, { lost_reason: 'price' });
    await insertLead(db, { lost_reason: 'weather' });
    const problems = await refusedMigration(db, changeField(registry, 'lead', 'lost_reason', { kind: 'select', options: ['price'] }));
    expect(problems).toEqual(['lead.lost_reason became a select, but some records hold other values: weather (1 row(s)): make them options, or change those records first']);
  });

  it('a select option removed while rows use it', async () => {
    const db = await freshDb();
    await insertLead(db, { stage: 'won' });
    expect(await refusedMigration(db, changeField(registry, 'lead', 'stage', { options: ['new', 'qualified', 'lost'] }))).toEqual([
      'lead.stage: option(s) won (used by 1 row(s)) were removed: keep them, or move those records to another option first',
    ]);
  });

  it("a decimal's scale, or a money field's currency, changed while rows hold values (they would read as other numbers); not while none do", async () => {
    const db = await freshDb();
    await db('party').insert({ id: 'P9', name: 'p' });
    await db('order').insert({ id: 'O1', number: 'N1', customer: 'P9', status: 'draft', discount_pct: 1250 });
    expect(await refusedMigration(db, changeField(registry, 'order', 'discount_pct', { scale: 1 }))).toEqual([
      'order.discount_pct changed kind from a decimal of scale 2 to a decimal of scale 1, but 1 row(s) hold a value in it: keep the kind, or add a new field, copy the values over, and remove this one when it is empty',
    ]);
    // A money field in euros (the fixture's has no currency: a currency first given says nothing new of the values).
    const inEuros = changeField(registry, 'lead', 'expected_revenue', { currency: 'EUR' });
    await migrate(db, inEuros);
    await insertLead(db, { expected_revenue: 120000 });
    expect(await refusedMigration(db, changeField(registry, 'lead', 'expected_revenue', { currency: 'JPY' }))).toEqual([
      'lead.expected_revenue changed kind from money in EUR to money in JPY, but 1 row(s) hold a value in it: keep the kind, or add a new field, copy the values over, and remove this one when it is empty',
    ]);
    // Empty, the column takes the new scale, and the snapshot records it.
    await db('order').update({ discount_pct: null });
    await migrate(db, changeField(registry, 'order', 'discount_pct', { scale: 1 }));
    const recorded = JSON.parse((await db(SCHEMA_TABLE).where('table_name', 'order').first()).snapshot);
    expect(recorded.fields.discount_pct).toMatchObject({ kind: 'decimal', scale: 1 });
  });

  it('a multiselect option removed while rows hold it; kept when none do', async () => {
    const db = await freshDb();
    await db('party').insert({ id: 'P8', name: 'p' });
    await db('order').insert({ id: 'O2', number: 'N2', customer: 'P8', status: 'draft', tags: JSON.stringify(['rush', 'export']) });
    await db('order').insert({ id: 'O3', number: 'N3', customer: 'P8', status: 'draft', tags: JSON.stringify(['export']) });
    expect(await refusedMigration(db, changeField(registry, 'order', 'tags', { options: ['rush', 'gift'] }))).toEqual([
      'order.tags: option(s) export (used by 2 row(s)) were removed: keep them, or move those records to another option first',
    ]);
    await migrate(db, changeField(registry, 'order', 'tags', { options: ['rush', 'export'] }));
  });

  it('a new required column without a default on a table with rows', async () => {
    const db = await freshDb();
    await insertLead(db);
    const next = addField(registry, 'lead', field('code', { kind: 'text', required: true }), { name: 'code', type: 'text', notNull: true });
    expect(await refusedMigration(db, next)).toEqual([
      'lead.code is new and required, but lead has 1 row(s) and the field has no default: add it as optional, fill it in, then make it required',
    ]);
  });

  it("a new required field whose module default is a write's, not a column's: rows already there get none, and the problem says why", async () => {
    const db = await freshDb();
    await insertLead(db);
    const next = addField(registry, 'lead', field('score', { kind: 'number', required: true, default: { value: 3 } }), { name: 'score', type: 'integer', notNull: true });
    expect(await refusedMigration(db, next)).toEqual([
      'lead.score is new and required, but lead has 1 row(s) and its default is given to records created from now on, not to rows already there: add it as optional, fill it in, then make it required',
    ]);
  });

  it('a field made required while rows have no value', async () => {
    const db = await freshDb();
    await insertLead(db);
    expect(await refusedMigration(db, changeField(registry, 'lead', 'probability', { required: true }, { notNull: true }))).toEqual([
      'lead.probability became required, but 1 row(s) have no value: fill them in first, then migrate again',
    ]);
  });

  it('a removed model whose table holds rows', async () => {
    const db = await freshDb();
    await db('party').insert({ id: 'P1', name: 'p' });
    await db('invoice').insert({ id: 'I1', number: '1', party: 'P1', amount: 1, issue_date: '2025-01-01', state: 'draft' });
    const { invoice: _invoice, ...models } = registry.models;
    const next: Registry = { ...registry, models, modules: registry.modules.filter((m) => m.name !== 'accounting') };
    expect(await refusedMigration(db, next)).toEqual([
      'model invoice was removed, but its table invoice holds 1 row(s): put the model back, or delete its records first and migrate again',
    ]);
    await db('invoice').delete();
    expect((await migrate(db, next)).changes).toEqual(['dropped empty table invoice (model removed)']);
    expect(await db.schema.hasTable('invoice')).toBe(false);
  });

  it('reports every problem at once and applies none of the harmless changes either', async () => {
    const db = await freshDb();
    await insertLead(db, { notes: 'n', probability: 1, stage: 'lost' });
    let next = removeField(registry, 'lead', 'notes');
    next = changeField(next, 'lead', 'probability', { kind: 'date' }, { type: 'date' });
    next = changeField(next, 'lead', 'stage', { options: ['new'] });
    next = addField(next, 'party', field('score'), { name: 'score', type: 'integer', notNull: false });
    const problems = await refusedMigration(db, next);
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/lead\.stage: option\(s\) lost[\s\S]*lead\.probability changed kind[\s\S]*lead\.notes was removed/);
    expect(await columns(db, 'party')).not.toContain('score');
  });
});
