/**
 * Rolling deploys: `serve` migrates additively on start, so an older release that (re)starts after a
 * newer one migrated leaves the newer columns, tables and indexes alone, and says so; `rmsgen
 * migrate` stays the full tool. Two releases, old → new → old → new, on SQLite and (with
 * RMS_TEST_PG_URL) PostgreSQL: the fixture modules, and the fixture modules with a new field and
 * model generated into a temp folder; variants of their registry for what serve refuses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registry as v1 } from '../fixtures/generated/registry.ts';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import { openDatabase } from '../../runtime/db/connect.ts';
import { MigrationRefusedError, SCHEMA_TABLE, migrate, snapshotOf, type MigrationResult } from '../../runtime/db/migrate.ts';
import { tableModels } from '../../runtime/db/migrate/table-models.ts';
import type { ColumnMeta, FieldMeta, ModelMeta, Registry } from '../../runtime/registry.ts';
import { startServer, type RunningServer } from '../../runtime/server.ts';
import { SYSTEM_TABLES } from '../../runtime/system-table-list.ts';
import { moduleTree, removeModuleTrees } from '../helpers/module-trees.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../helpers/postgres.ts';

const PASSWORD = 'rolling-deploy-password';
const dir = mkdtempSync(join(tmpdir(), 'rmsgen-rolling-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------
// The releases

function field(name: string, patch: Partial<FieldMeta> = {}): FieldMeta {
  return { name, kind: 'number', label: name, description: '', required: false, personal: false, governed: false, hiddenFromAgents: false, computed: false, ...patch };
}

function withModel(base: Registry, name: string, change: (model: ModelMeta) => ModelMeta): Registry {
  return { ...base, models: { ...base.models, [name]: change(base.models[name]!) } };
}

function changeField(base: Registry, model: string, name: string, fieldPatch: Partial<FieldMeta>, columnPatch: Partial<ColumnMeta> = {}): Registry {
  return withModel(base, model, (m) => ({
    ...m,
    fields: m.fields.map((f) => (f.name === name ? { ...f, ...fieldPatch } : f)),
    table: { ...m.table, columns: m.table.columns.map((c) => (c.name === name ? { ...c, ...columnPatch } : c)) },
  }));
}

function addField(base: Registry, model: string, added: FieldMeta, column: ColumnMeta): Registry {
  return withModel(base, model, (m) => ({ ...m, fields: [...m.fields, added], table: { ...m.table, columns: [...m.table.columns, column] } }));
}

const WIDGETS = `export default {
  dependsOn: ['crm'],
  models: {
    widget: {
      label: 'Widget',
      description: 'A thing attached to a lead (release 2).',
      title: 'name',
      fields: { name: { kind: 'text', required: true, label: 'Name' }, lead: { kind: 'ref', to: 'lead', label: 'Lead' } },
    },
  },
};`;

/**
 * v2 = v1 + optional `lead.foo`, an index on `lead.probability`, and a model `widget` (ref to lead),
 * with commands. Generated from the fixture modules with those changes, as a release is: the server
 * reads and writes records through the generated queries the registry hands it.
 */
async function release2(): Promise<Registry> {
  const project = moduleTree({ widgets: WIDGETS }, { copyFixtures: true });
  const crm = join(project, 'modules/crm/module.ts');
  const lostReason = "lost_reason: { kind: 'text', label: 'Lost reason' },";
  const source = readFileSync(crm, 'utf8');
  expect(source).toContain(lostReason);
  writeFileSync(crm, source.replace(lostReason, `${lostReason}\n        foo: { kind: 'number', label: 'Foo' },`));
  const out = join(project, 'generated');
  writeOutput(out, generate(await loadProject(join(project, 'modules')), out));
  const { registry } = (await import(pathToFileURL(join(out, 'registry.ts')).href)) as { registry: Registry };
  // Definitions give indexes to refs and governed selects only; this one is the release's own design.
  return withModel(registry, 'lead', (lead) => ({ ...lead, table: { ...lead.table, indexes: [...lead.table.indexes, 'probability'] } }));
}

let v2: Registry;
beforeAll(async () => {
  v2 = await release2();
});
afterAll(removeModuleTrees);

// ---------------------------------------------------------------------------------------------
// Databases and servers

const pgServer = testPostgresUrl();
const dialects = pgServer ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

let counter = 0;
let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** An empty database: its URL, and a knex handle to look into it. */
async function emptyDatabase(dialect: 'sqlite' | 'postgres'): Promise<{ url: string; db: Knex }> {
  let url: string;
  if (dialect === 'postgres') {
    const database: TestDatabase = await createTestDatabase(pgServer!, 'rms_rolling');
    cleanups.push(() => database.drop());
    url = database.url;
  } else {
    url = `sqlite:${join(dir, `r${counter++}.sqlite`)}`;
  }
  const db = openDatabase(url);
  cleanups.push(() => db.destroy());
  return { url, db };
}

interface Started {
  readonly server: RunningServer;
  readonly lines: string[];
  readonly token: string;
}

/** `rmsgen serve` for a release: its log lines (without the last `listening on` line) and an admin token. */
async function serve(registry: Registry, url: string): Promise<Started> {
  const lines: string[] = [];
  const server = await startServer({ registry, dbUrl: url, port: 0, adminPassword: PASSWORD, log: (line) => lines.push(line) });
  cleanups.push(() => server.close());
  expect(lines.pop()).toBe(`listening on ${server.url}`);
  const res = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const { token } = (await res.json()) as { token: string };
  return { server, lines: lines.filter((line) => !line.startsWith('created person admin')), token };
}

async function call(started: Started, command: string, input: unknown): Promise<{ status: number; body: any }> {
  const [model, name] = command.split('.');
  const res = await fetch(`${started.server.url}/api/${model}/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${started.token}` },
    body: JSON.stringify(input),
  });
  return { status: res.status, body: await res.json() };
}

/** What `serve` runs on start, without starting a server. */
function serveMigration(db: Knex, registry: Registry): Promise<MigrationResult> {
  return migrate(db, registry, { systemTables: SYSTEM_TABLES, mode: 'additive' });
}

function fullMigration(db: Knex, registry: Registry): Promise<MigrationResult> {
  return migrate(db, registry, { systemTables: SYSTEM_TABLES });
}

// ---------------------------------------------------------------------------------------------
// Looking into the database

async function columns(db: Knex, table: string): Promise<string[]> {
  return Object.keys(await db(table).columnInfo()).sort();
}

function designed(registry: Registry, table: string): string[] {
  return registry.models[table]!.table.columns.map((c) => c.name).sort();
}

async function indexes(db: Knex, table: string): Promise<string[]> {
  const names: string[] =
    db.client.config.client === 'pg'
      ? await db('pg_indexes').where({ tablename: table }).pluck('indexname')
      : await db('sqlite_master').where({ type: 'index', tbl_name: table }).pluck('name');
  return names.filter((name) => name.startsWith('rms_idx_')).sort();
}

async function snapshots(db: Knex): Promise<Record<string, unknown>> {
  const rows: { table_name: string; snapshot: string }[] = await db(SCHEMA_TABLE).select('table_name', 'snapshot');
  return Object.fromEntries(rows.map((row) => [row.table_name, JSON.parse(row.snapshot)]));
}

/** The snapshot of every table a design has (each model's and each of its line lists'), by table. */
function designedSnapshots(design: Registry): Record<string, unknown> {
  return Object.fromEntries(tableModels(design).map((model) => [model.table.name, snapshotOf(model)]));
}

/** Everything a migration could change: tables, columns, indexes, snapshots, rows. */
async function state(db: Knex): Promise<unknown> {
  const out: Record<string, unknown> = { snapshots: await snapshots(db) };
  for (const table of ['party', 'lead', 'invoice', 'widget']) {
    if (!(await db.schema.hasTable(table))) continue;
    out[table] = { columns: await columns(db, table), indexes: await indexes(db, table), rows: await db(table).select().orderBy('id') };
  }
  return out;
}

async function refused(run: Promise<unknown>): Promise<readonly string[]> {
  const error = await run.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MigrationRefusedError);
  return (error as MigrationRefusedError).problems;
}

const LEFT_BY_V1 = [
  "left in place for rmsgen migrate: table widget (model widget is not in this version's definitions)",
  "left in place for rmsgen migrate: column lead.foo (not in this version's definitions)",
  "left in place for rmsgen migrate: index on lead.probability (not in this version's definitions)",
];

const V1_LEAD_INDEXES = ['rms_idx_lead_party', 'rms_idx_lead_stage'];
const V2_LEAD_INDEXES = ['rms_idx_lead_party', 'rms_idx_lead_probability', 'rms_idx_lead_stage'];

// ---------------------------------------------------------------------------------------------

describe.each(dialects)('rolling deploys on %s', (dialect) => {
  it('v2 adds its column, model and index; v1 restarting leaves them in place and says so; v2 keeps working', async () => {
    const { url, db } = await emptyDatabase(dialect);
    const old = await serve(v1, url);
    expect(old.lines).toEqual([]);
    expect((await call(old, 'lead.create', { title: 'From v1' })).status).toBe(200);
    await old.server.close();

    // v2 starts: adds, leaves nothing, and names the index it added to a table that existed.
    const next = await serve(v2, url);
    expect(next.lines).toEqual(['created index on lead.probability']);
    expect(await columns(db, 'lead')).toEqual(designed(v2, 'lead'));
    expect(await columns(db, 'widget')).toEqual(designed(v2, 'widget'));
    expect(await indexes(db, 'lead')).toEqual(V2_LEAD_INDEXES);
    expect(await indexes(db, 'widget')).toEqual(['rms_idx_widget_lead']);
    expect(await snapshots(db)).toEqual(designedSnapshots(v2));
    const lead = await call(next, 'lead.create', { title: 'From v2', foo: 7 });
    expect(lead).toMatchObject({ status: 200, body: { value: { title: 'From v2', foo: 7 } } });
    const leadId = lead.body.value.id as string;
    expect(await call(next, 'widget.create', { name: 'W1', lead: leadId })).toMatchObject({ status: 200, body: { value: { name: 'W1', lead: leadId } } });

    // v1 (re)starts while v2 serves: nothing of v2's is touched; one line per thing left.
    const before = await state(db);
    const restarted = await serve(v1, url);
    expect(restarted.lines).toEqual(LEFT_BY_V1);
    expect(await state(db)).toEqual(before);
    expect(await columns(db, 'lead')).toEqual(designed(v2, 'lead'));
    expect(await db('widget').select('name', 'lead')).toEqual([{ name: 'W1', lead: leadId }]);
    expect(await db('lead').where({ id: leadId }).first('title', 'foo')).toEqual({ title: 'From v2', foo: dialect === 'postgres' ? '7' : 7 });
    expect((await call(restarted, 'lead.create', { title: 'From v1 again' })).status).toBe(200);

    // v2 keeps working next to it, and a v2 instance starting now has nothing to do.
    const lead2 = await call(next, 'lead.create', { title: 'From v2 again', foo: 8 });
    expect(lead2).toMatchObject({ status: 200, body: { value: { foo: 8 } } });
    expect((await call(next, 'widget.create', { name: 'W2', lead: lead2.body.value.id })).status).toBe(200);
    expect(await call(next, 'lead.get', { id: leadId })).toMatchObject({ status: 200, body: { value: { foo: 7 } } });
    const again = await serve(v2, url);
    expect(again.lines).toEqual([]);
    const quiet = await state(db);
    expect(await serveMigration(db, v2)).toEqual({ changes: [], leftInPlace: [] });

    // The full `rmsgen migrate` with v2 has nothing to do either.
    expect(await fullMigration(db, v2)).toEqual({ changes: [], leftInPlace: [] });
    expect(await state(db)).toEqual(quiet);
  });

  it('full migrate with v1 after v2 refuses while v2 columns and tables hold data, drops them once empty; v2 adds them again', async () => {
    const { url, db } = await emptyDatabase(dialect);
    await (await serve(v1, url)).server.close();
    await db('lead').insert({ id: 'L1', title: 'Kept', stage: 'new', probability: 40 });
    await (await serve(v2, url)).server.close();
    await db('lead').where({ id: 'L1' }).update({ foo: 3 });
    await db('widget').insert({ id: 'W1', name: 'w', lead: 'L1' });
    await (await serve(v1, url)).server.close();

    const before = await state(db);
    expect(await refused(fullMigration(db, v1))).toEqual([
      'model widget was removed, but its table widget holds 1 row(s): put the model back, or delete its records first and migrate again',
      'lead.foo was removed, but 1 row(s) hold a value in it: put the field back, or empty it in every record first and migrate again',
    ]);
    expect(await state(db)).toEqual(before);

    await db('widget').delete();
    await db('lead').update({ foo: null });
    expect(await fullMigration(db, v1)).toEqual({
      changes: ['dropped empty table widget (model removed)', 'dropped empty column lead.foo (field removed)', 'dropped index on lead.probability'],
      leftInPlace: [],
    });
    expect(await db.schema.hasTable('widget')).toBe(false);
    expect(await columns(db, 'lead')).toEqual(designed(v1, 'lead'));
    expect(await indexes(db, 'lead')).toEqual(V1_LEAD_INDEXES);
    expect(await snapshots(db)).toEqual(designedSnapshots(v1));
    expect(await db('lead').select('id', 'title', db.raw('cast(probability as text) as probability'))).toEqual([{ id: 'L1', title: 'Kept', probability: '40' }]);

    // …and v2, starting once more, adds them again.
    expect(await serveMigration(db, v2)).toEqual({
      changes: ['added column lead.foo', 'created index on lead.probability', 'created table widget'],
      leftInPlace: [],
    });
    expect(await indexes(db, 'lead')).toEqual(V2_LEAD_INDEXES);
    expect(await fullMigration(db, v2)).toEqual({ changes: [], leftInPlace: [] });
  });

  it('old → new → old → new with serve only, then a full migrate by each: every plan is right', async () => {
    const { db } = await emptyDatabase(dialect);
    await serveMigration(db, v1);
    await db('lead').insert({ id: 'L1', title: 'Kept', stage: 'new' });
    const afterV2 = await serveMigration(db, v2);
    expect(afterV2.changes).toEqual(['added column lead.foo', 'created index on lead.probability', 'created table widget']);
    const v2State = await state(db);
    for (let round = 0; round < 2; round++) {
      expect(await serveMigration(db, v1)).toEqual({ changes: [], leftInPlace: LEFT_BY_V1 });
      expect(await state(db)).toEqual(v2State);
      expect(await serveMigration(db, v2)).toEqual({ changes: [], leftInPlace: [] });
      expect(await state(db)).toEqual(v2State);
    }
    expect(await fullMigration(db, v2)).toEqual({ changes: [], leftInPlace: [] });
    expect(await fullMigration(db, v1)).toEqual({
      changes: ['dropped empty table widget (model removed)', 'dropped empty column lead.foo (field removed)', 'dropped index on lead.probability'],
      leftInPlace: [],
    });
    expect(await serveMigration(db, v1)).toEqual({ changes: [], leftInPlace: [] });
  });

  it('serve still refuses what this version cannot work with, and changes nothing', async () => {
    const { url, db } = await emptyDatabase(dialect);
    await (await serve(v1, url)).server.close();
    await db('lead').insert({ id: 'L1', title: 'Deal', stage: 'new', probability: 40 });
    const before = await state(db);

    // A column it needs whose kind differs, whether or not it holds values.
    const asText = changeField(v1, 'lead', 'probability', { kind: 'text' }, { type: 'text' });
    const kindProblem =
      "lead.probability is a number in the database, but a text in this version's definitions: serve only adds tables, columns and indexes; change the kind with rmsgen migrate, or serve the release the database was migrated for";
    const error = await startServer({ registry: asText, dbUrl: url, port: 0, adminPassword: PASSWORD, log: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationRefusedError);
    expect((error as MigrationRefusedError).problems).toEqual([kindProblem]);
    await db('lead').update({ probability: null });
    expect(await refused(serveMigration(db, asText))).toEqual([kindProblem]);
    expect(await refused(serveMigration(db, changeField(v1, 'lead', 'probability', { kind: 'money' })))).toEqual([
      "lead.probability is a number in the database, but a money in this version's definitions: serve only adds tables, columns and indexes; change the kind with rmsgen migrate, or serve the release the database was migrated for",
    ]);
    await db('lead').update({ probability: 40 });

    // A new required column without a default on a table with rows.
    const withCode = addField(v1, 'lead', field('code', { kind: 'text', required: true }), { name: 'code', type: 'text', notNull: true });
    expect(await refused(serveMigration(db, withCode))).toEqual([
      'lead.code is new and required, but lead has 1 row(s) and the field has no default: add it as optional, fill it in, then make it required',
    ]);

    // A field this version makes optional that the database still requires.
    expect(await refused(serveMigration(db, changeField(v1, 'lead', 'title', { required: false }, { notNull: false })))).toEqual([
      "lead.title is required in the database, but optional in this version's definitions: serve does not change constraints; make it optional with rmsgen migrate",
    ]);
    expect(await state(db)).toEqual(before);

    // The full migrate makes the kind change once the column is empty; afterwards v1 is the one refused.
    await db('lead').update({ probability: null });
    expect((await fullMigration(db, asText)).changes).toEqual(['changed the type of empty column lead.probability to text']);
    expect(await refused(serveMigration(db, v1))).toEqual([
      "lead.probability is a text in the database, but a number in this version's definitions: serve only adds tables, columns and indexes; change the kind with rmsgen migrate, or serve the release the database was migrated for",
    ]);
  });

  it('a required column without a default that a newer release added stops an older one (it could not create records)', async () => {
    const { db } = await emptyDatabase(dialect);
    await serveMigration(db, v1);
    const withCode = addField(v1, 'lead', field('code', { kind: 'text', required: true }), { name: 'code', type: 'text', notNull: true });
    // The table is empty, so serve can add it (SQLite: by making the empty table again, which loses nothing here).
    expect((await serveMigration(db, withCode)).changes).toEqual([dialect === 'sqlite' ? 'recreated empty table lead as designed' : 'added column lead.code']);
    expect(await columns(db, 'lead')).toEqual(designed(withCode, 'lead'));
    expect(await refused(serveMigration(db, v1))).toEqual([
      "lead.code is required in the database and has no default, but is not in this version's definitions, so this version could not create lead records: serve the release that added it, or remove it with rmsgen migrate",
    ]);
  });

  it('a new required column on an empty table that holds another release’s column: SQLite cannot add it without dropping that', async () => {
    const { db } = await emptyDatabase(dialect);
    await serveMigration(db, v2);
    const v1WithCode = addField(v1, 'lead', field('code', { kind: 'text', required: true }), { name: 'code', type: 'text', notNull: true });
    if (dialect === 'sqlite') {
      const before = await state(db);
      expect(await refused(serveMigration(db, v1WithCode))).toEqual([
        "lead.code is new and required without a default, which SQLite can only add by making the empty table lead again, but that would drop what this version leaves in place (column lead.foo (not in this version's definitions); index on lead.probability (not in this version's definitions)): add it with rmsgen migrate",
      ]);
      expect(await state(db)).toEqual(before);
    } else {
      expect(await serveMigration(db, v1WithCode)).toEqual({ changes: ['added column lead.code'], leftInPlace: LEFT_BY_V1 });
      expect(await columns(db, 'lead')).toEqual([...designed(v2, 'lead'), 'code'].sort());
    }
  });

  it('kinds: serve keeps the recorded kind, so an older release restarting causes no kind check for the newer one', async () => {
    const { db } = await emptyDatabase(dialect);
    await serveMigration(db, v1);
    await db('lead').insert({ id: 'L1', title: 'Deal', stage: 'new', lost_reason: 'price' });
    const asSelect = changeField(v1, 'lead', 'lost_reason', { kind: 'select', options: ['price', 'timing'] });
    // serve with the newer release checks the stored values fit (they do) but does not record the kind.
    expect(await serveMigration(db, asSelect)).toEqual({ changes: [], leftInPlace: [] });
    expect((await snapshots(db)).lead).toEqual(snapshotOf(v1.models.lead!));
    expect((await fullMigration(db, asSelect)).changes).toEqual([]);
    expect((await snapshots(db)).lead).toEqual(snapshotOf(asSelect.models.lead!));

    // The older release (text) starts: fine, and the recorded select stays.
    expect(await serveMigration(db, v1)).toEqual({ changes: [], leftInPlace: [] });
    expect((await snapshots(db)).lead).toEqual(snapshotOf(asSelect.models.lead!));
    await db('lead').insert({ id: 'L2', title: 'Other', stage: 'new', lost_reason: 'weather' });
    // The newer one restarting compares with the recorded select: no check, no refusal.
    expect(await serveMigration(db, asSelect)).toEqual({ changes: [], leftInPlace: [] });
    expect(await fullMigration(db, asSelect)).toEqual({ changes: [], leftInPlace: [] });
    // A deliberate full migrate back to text records it; from then on the select is checked for real.
    expect((await fullMigration(db, v1)).changes).toEqual([]);
    expect(await refused(serveMigration(db, asSelect))).toEqual([
      'lead.lost_reason became a select, but some records hold other values: weather (1 row(s)): make them options, or change those records first',
    ]);
  });

  it('select options: serve records the ones it adds, leaves the ones it lacks, and the full migrate still checks them', async () => {
    const { db } = await emptyDatabase(dialect);
    await serveMigration(db, v1);
    const parked = changeField(v1, 'lead', 'stage', { options: ['new', 'qualified', 'won', 'lost', 'parked'] });
    expect(await serveMigration(db, parked)).toEqual({ changes: [], leftInPlace: [] });
    expect((await snapshots(db)).lead).toEqual(snapshotOf(parked.models.lead!));
    await db('lead').insert({ id: 'L1', title: 'Deal', stage: 'parked' });
    expect(await serveMigration(db, v1)).toEqual({
      changes: [],
      leftInPlace: ["left in place for rmsgen migrate: option parked of lead.stage (not in this version's definitions)"],
    });
    expect(await refused(fullMigration(db, v1))).toEqual([
      'lead.stage: option(s) parked (used by 1 row(s)) were removed: keep them, or move those records to another option first',
    ]);
    await db('lead').update({ stage: 'new' });
    expect((await fullMigration(db, v1)).changes).toEqual([]);
    expect((await snapshots(db)).lead).toEqual(snapshotOf(v1.models.lead!));
  });

  it('a constraint a newer release relaxed is left for rmsgen migrate by an older one', async () => {
    const { db } = await emptyDatabase(dialect);
    await serveMigration(db, v1);
    await db('lead').insert({ id: 'L1', title: 'Deal', stage: 'new' });
    const optionalTitle = changeField(v1, 'lead', 'title', { required: false }, { notNull: false });
    expect((await fullMigration(db, optionalTitle)).changes).toEqual([
      dialect === 'sqlite' ? 'rebuilt table lead (column constraints changed; rows kept)' : 'lead.title is no longer NOT NULL',
    ]);
    const before = await state(db);
    expect(await serveMigration(db, v1)).toEqual({
      changes: [],
      leftInPlace: ["left in place for rmsgen migrate: column lead.title stays optional (required in this version's definitions)"],
    });
    expect(await state(db)).toEqual(before);
    await db('lead').insert({ id: 'L2', stage: 'new' });
    expect(await refused(fullMigration(db, v1))).toEqual(['lead.title became required, but 1 row(s) have no value: fill them in first, then migrate again']);
  });
});
