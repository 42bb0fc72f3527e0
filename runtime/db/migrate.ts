/**
 * `rmsgen migrate`: brings the database to the registry's tables. A pipeline of three stages:
 *
 *   inspect (database + last applied snapshot) → plan (steps, or problems) → apply (in one transaction)
 *
 * It creates tables, adds columns and indexes, and makes harmless changes (dropping a column
 * that holds nothing, changing the kind of an empty column). It refuses every change that would
 * lose or invalidate data, naming each problem and how to resolve it, and then changes nothing.
 *
 * `serve` runs it in additive mode: it only creates tables and adds columns and indexes, and
 * leaves everything else (another release's columns, tables and indexes during a rolling deploy)
 * to a deliberate `rmsgen migrate`, naming each thing it left. See planMigration.
 *
 * What was applied is kept in `rms_schema` (one snapshot per table): SQLite cannot tell a `text`
 * column holding a select from one holding free text, so kind changes are found by comparing
 * snapshots, not column types. On PostgreSQL an advisory lock makes concurrent migrations
 * (several instances starting at once) run one after the other.
 */
import type { Knex } from 'knex';
import { dialectOf, type Dialect } from './connect.ts';
import type { ColumnMeta, ColumnType, FieldKind, ModelMeta, Registry, TableMeta } from '../registry.ts';

export const SCHEMA_TABLE = 'rms_schema';
/** Arbitrary, fixed: the key of the advisory lock migrations hold on PostgreSQL. */
const MIGRATION_LOCK_KEY = 727_376_701;

/** Creates the tables of a subsystem (auth, plans, masking …) if they are missing. */
export type SystemTableSetup = (db: Knex) => Promise<void>;

export interface FieldSnapshot {
  readonly kind: FieldKind;
  readonly options?: readonly string[];
  readonly target?: string;
}

export interface TableSnapshot {
  readonly version: 1;
  readonly model: string;
  readonly table: TableMeta;
  readonly fields: Readonly<Record<string, FieldSnapshot>>;
}

export type MigrationStep =
  | { readonly kind: 'create-table'; readonly model: ModelMeta; readonly recreate: boolean }
  | { readonly kind: 'add-column'; readonly model: ModelMeta; readonly column: ColumnMeta }
  | { readonly kind: 'drop-column'; readonly table: string; readonly column: string; readonly indexed: boolean }
  | { readonly kind: 'replace-column'; readonly model: ModelMeta; readonly column: ColumnMeta; readonly indexed: boolean }
  | { readonly kind: 'alter-not-null'; readonly table: string; readonly column: string; readonly notNull: boolean }
  | { readonly kind: 'rebuild-table'; readonly model: ModelMeta; readonly keep: readonly string[] }
  | { readonly kind: 'add-index'; readonly table: string; readonly column: string }
  | { readonly kind: 'drop-index'; readonly table: string; readonly column: string }
  | { readonly kind: 'drop-table'; readonly table: string }
  | { readonly kind: 'note'; readonly text: string };

/**
 * `full` (`rmsgen migrate`): every change the definitions ask for that loses no data.
 * `additive` (`serve` on start): only missing tables, columns and indexes; see planMigration.
 */
export type MigrationMode = 'full' | 'additive';

export interface PlanOptions {
  /** Default `full`. */
  readonly mode?: MigrationMode;
}

export interface MigrationPlan {
  readonly steps: readonly MigrationStep[];
  /** Refused changes; when any, nothing is applied. */
  readonly problems: readonly string[];
  /** Additive mode: what the full plan would change and this one leaves alone, one line each. */
  readonly leftInPlace: readonly string[];
  /** Snapshots to record once applied. */
  readonly snapshots: readonly TableSnapshot[];
  /** Tables whose snapshot is dropped (model removed). */
  readonly forgotten: readonly string[];
}

export class MigrationRefusedError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`migration refused; nothing was changed:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'MigrationRefusedError';
  }
}

export interface MigrateOptions extends PlanOptions {
  /** Subsystem tables to ensure in the same transaction (auth, plans …). */
  readonly systemTables?: readonly SystemTableSetup[];
}

export interface MigrationResult {
  /** One line per change, e.g. `created table lead`; empty when the schema was up to date. */
  readonly changes: readonly string[];
  /**
   * Additive mode: one line per thing left for `rmsgen migrate`, e.g.
   * `left in place for rmsgen migrate: column lead.foo (not in this version's definitions)`.
   */
  readonly leftInPlace: readonly string[];
}

/**
 * Inspects, plans and applies in one transaction (after taking the lock on PostgreSQL), so the
 * checks see the data the changes are made to. Throws MigrationRefusedError, changing nothing.
 */
export async function migrate(db: Knex, registry: Registry, options: MigrateOptions = {}): Promise<MigrationResult> {
  const dialect = dialectOf(db);
  return db.transaction(async (trx) => {
    if (dialect === 'postgres') await trx.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
    for (const setup of options.systemTables ?? []) await setup(trx);
    await ensureSchemaTable(trx);
    const plan = await planMigration(trx, registry, { mode: options.mode ?? 'full' });
    if (plan.problems.length > 0) throw new MigrationRefusedError(plan.problems);
    const changes = await applyPlan(trx, dialect, plan);
    return { changes, leftInPlace: plan.leftInPlace };
  });
}

async function ensureSchemaTable(db: Knex): Promise<void> {
  if (await db.schema.hasTable(SCHEMA_TABLE)) return;
  await db.schema.createTable(SCHEMA_TABLE, (table) => {
    table.string('table_name', 200).primary();
    table.text('snapshot').notNullable();
    table.string('applied_at', 32).notNullable();
  });
}

export function snapshotOf(model: ModelMeta): TableSnapshot {
  const fields: Record<string, FieldSnapshot> = {};
  for (const field of model.fields) {
    fields[field.name] = { kind: field.kind, ...(field.options ? { options: [...field.options] } : {}), ...(field.target ? { target: field.target } : {}) };
  }
  return { version: 1, model: model.name, table: model.table, fields };
}

async function readSnapshots(db: Knex): Promise<Map<string, TableSnapshot>> {
  const snapshots = new Map<string, TableSnapshot>();
  if (!(await db.schema.hasTable(SCHEMA_TABLE))) return snapshots;
  const rows: { table_name: string; snapshot: string }[] = await db(SCHEMA_TABLE).select('table_name', 'snapshot');
  for (const row of rows) snapshots.set(row.table_name, JSON.parse(row.snapshot) as TableSnapshot);
  return snapshots;
}

/**
 * Stage 2: the steps that bring the database to `registry`, and the problems that forbid it. Reads only.
 *
 * In `additive` mode (what `serve` runs on start) the plan only creates missing tables and adds
 * missing columns and indexes. Whatever the full plan would drop, replace, rebuild or recreate is
 * left in place and named in `leftInPlace`; what this version cannot work with (a column it needs
 * of another kind, a new required column on a table with rows …) is still a problem. Its snapshots
 * keep the recorded design of what it leaves alone and add what it added, so a later run of either
 * mode, by this release or another, compares against what the database really holds.
 */
export async function planMigration(db: Knex, registry: Registry, options: PlanOptions = {}): Promise<MigrationPlan> {
  const dialect = dialectOf(db);
  const mode = options.mode ?? 'full';
  const applied = await readSnapshots(db);
  const steps: MigrationStep[] = [];
  const problems: string[] = [];
  const leftInPlace: string[] = [];
  const snapshots: TableSnapshot[] = [];
  const forgotten: string[] = [];
  const models = Object.values(registry.models);
  const tables = new Set(models.map((model) => model.table.name));

  for (const [table, snapshot] of applied) {
    if (tables.has(table)) continue;
    if (!(await db.schema.hasTable(table))) {
      forgotten.push(table);
      continue;
    }
    if (mode === 'additive') {
      leftInPlace.push(leftLine(`table ${table} (model ${snapshot.model} is not in this version's definitions)`));
      continue;
    }
    const rows = await countRows(db, table);
    if (rows > 0) {
      problems.push(
        `model ${snapshot.model} was removed, but its table ${table} holds ${rows} row(s): put the model back, or delete its records first and migrate again`,
      );
    } else {
      steps.push({ kind: 'drop-table', table });
      forgotten.push(table);
    }
  }

  for (const model of models) {
    const table = model.table.name;
    if (!(await db.schema.hasTable(table))) {
      steps.push({ kind: 'create-table', model, recreate: false });
      snapshots.push(snapshotOf(model));
      continue;
    }
    const planned = await planTable(db, dialect, mode, model, applied.get(table));
    steps.push(...planned.steps);
    problems.push(...planned.problems);
    leftInPlace.push(...planned.leftInPlace);
    snapshots.push(planned.snapshot);
  }
  return { steps, problems, leftInPlace, snapshots, forgotten };
}

/** The line `serve` logs for something the additive plan leaves to `rmsgen migrate`. */
function leftLine(item: string): string {
  return `left in place for rmsgen migrate: ${item}`;
}

interface TablePlan {
  readonly steps: readonly MigrationStep[];
  readonly problems: readonly string[];
  readonly leftInPlace: readonly string[];
  /** The snapshot to record for the table once the steps are applied. */
  readonly snapshot: TableSnapshot;
}

async function planTable(db: Knex, dialect: Dialect, mode: MigrationMode, model: ModelMeta, before: TableSnapshot | undefined): Promise<TablePlan> {
  const additive = mode === 'additive';
  const table = model.table.name;
  const actual = new Set(Object.keys(await db(table).columnInfo()));
  const rows = await countRows(db, table);
  const beforeColumns = new Map((before?.table.columns ?? []).map((column) => [column.name, column]));
  const beforeIndexes = new Set(before?.table.indexes ?? []);
  const wanted = new Map(model.table.columns.map((column) => [column.name, column]));
  const tableSteps: MigrationStep[] = [];
  const tableProblems: string[] = [];
  const leftInPlace: string[] = [];
  let needsRebuild = false;
  /** Additive mode: the new required column SQLite can only add by making the (empty) table again. */
  let rebuildFor: string | undefined;
  const keep: string[] = [];
  const added = new Set<string>();

  for (const column of model.table.columns) {
    const path = `${model.name}.${column.name}`;
    if (!actual.has(column.name)) {
      if (column.notNull && column.default === undefined) {
        if (rows > 0) {
          tableProblems.push(
            `${path} is new and required, but ${table} has ${rows} row(s) and the field has no default: add it as optional, fill it in, then make it required`,
          );
          continue;
        }
        // SQLite cannot add a NOT NULL column without a default; the table is empty, so recreate it.
        // PostgreSQL can add it to an empty table, which is all the additive plan needs.
        if (!additive) needsRebuild = true;
        else if (dialect === 'sqlite') rebuildFor ??= path;
      }
      tableSteps.push({ kind: 'add-column', model, column });
      added.add(column.name);
      continue;
    }
    keep.push(column.name);
    const previous = beforeColumns.get(column.name);
    if (!previous || column.name === 'id') continue;
    const field = model.fields.find((candidate) => candidate.name === column.name);
    const previousField = before?.fields[column.name];
    const filled = rows > 0 ? await countFilled(db, table, column.name) : 0;

    const kindChange = field && previousField ? describeKindChange(previousField, field) : undefined;
    const typeChanged = previous.type !== column.type;
    if (additive && (typeChanged || kindChange)) {
      // Serve never changes a kind: it runs when stored values stay valid for this version as they are.
      const usable = !typeChanged && previousField && field ? keepsValues(previousField, field) : false;
      const problem = usable
        ? filled > 0
          ? await incompatibility(db, table, path, column.name, previous.type, column.type, previousField, field, filled)
          : undefined
        : `${path} is ${describeStored(previous, previousField)} in the database, but ${describeStored(column, field)} in this version's definitions: serve only adds tables, columns and indexes; change the kind with rmsgen migrate, or serve the release the database was migrated for`;
      if (problem) {
        tableProblems.push(problem);
        continue;
      }
    } else if (typeChanged || kindChange) {
      if (filled > 0) {
        const problem = await incompatibility(db, table, path, column.name, previous.type, column.type, previousField, field, filled);
        if (problem) {
          tableProblems.push(problem);
          continue;
        }
      } else if (typeChanged) {
        if (column.notNull && column.default === undefined && rows > 0) {
          tableProblems.push(`${path} changed kind and is required, but ${rows} row(s) have no value for it: fill them in first`);
          continue;
        }
        tableSteps.push({ kind: 'replace-column', model, column, indexed: beforeIndexes.has(column.name) });
        keep.pop();
        continue;
      }
    } else if (field?.kind === 'select' && previousField?.options && field.options) {
      const removed = previousField.options.filter((option) => !field.options!.includes(option));
      if (additive) {
        for (const option of removed) leftInPlace.push(leftLine(`option ${option} of ${path} (not in this version's definitions)`));
      } else if (removed.length > 0 && filled > 0) {
        const used = await countUsing(db, table, column.name, removed);
        if (used.length > 0) {
          tableProblems.push(
            `${path}: option(s) ${used.map(([value, count]) => `${value} (used by ${count} row(s))`).join(', ')} were removed: keep them, or move those records to another option first`,
          );
          continue;
        }
      }
    }

    if (column.notNull !== previous.notNull) {
      if (additive) {
        // A column the database requires but this version may leave empty would fail its writes;
        // the other way round this version always gives a value, and the constraint can wait.
        if (previous.notNull) {
          tableProblems.push(
            `${path} is required in the database, but optional in this version's definitions: serve does not change constraints; make it optional with rmsgen migrate`,
          );
        } else {
          leftInPlace.push(leftLine(`column ${path} stays optional (required in this version's definitions)`));
        }
        continue;
      }
      if (column.notNull && rows > 0) {
        const empty = rows - filled;
        if (empty > 0) {
          tableProblems.push(`${path} became required, but ${empty} row(s) have no value: fill them in first, then migrate again`);
          continue;
        }
      }
      if (dialect === 'sqlite') needsRebuild = true;
      else tableSteps.push({ kind: 'alter-not-null', table, column: column.name, notNull: column.notNull });
    }
  }

  for (const name of actual) {
    if (wanted.has(name)) continue;
    if (additive) {
      const previous = beforeColumns.get(name);
      if (previous?.notNull && previous.default === undefined) {
        tableProblems.push(
          `${model.name}.${name} is required in the database and has no default, but is not in this version's definitions, so this version could not create ${model.name} records: serve the release that added it, or remove it with rmsgen migrate`,
        );
      } else {
        leftInPlace.push(leftLine(`column ${model.name}.${name} (not in this version's definitions)`));
      }
      continue;
    }
    const filled = rows > 0 ? await countFilled(db, table, name) : 0;
    if (filled > 0) {
      tableProblems.push(
        `${model.name}.${name} was removed, but ${filled} row(s) hold a value in it: put the field back, or empty it in every record first and migrate again`,
      );
      continue;
    }
    tableSteps.push({ kind: 'drop-column', table, column: name, indexed: beforeIndexes.has(name) });
  }

  const designed = snapshotOf(model);
  if (tableProblems.length > 0) return { steps: [], problems: tableProblems, leftInPlace, snapshot: designed };

  if (additive) {
    for (const index of beforeIndexes) {
      if (!model.table.indexes.includes(index) && wanted.has(index)) leftInPlace.push(leftLine(`index on ${model.name}.${index} (not in this version's definitions)`));
    }
    if (rebuildFor !== undefined) {
      // The table is empty: making it again is adding the column, unless it holds what we leave in place.
      if (leftInPlace.length > 0) {
        const left = leftInPlace.map((line) => line.slice(leftLine('').length)).join('; ');
        const problem = `${rebuildFor} is new and required without a default, which SQLite can only add by making the empty table ${table} again, but that would drop what this version leaves in place (${left}): add it with rmsgen migrate`;
        return { steps: [], problems: [problem], leftInPlace, snapshot: designed };
      }
      return { steps: [{ kind: 'create-table', model, recreate: true }], problems: [], leftInPlace, snapshot: designed };
    }
    const indexSteps: MigrationStep[] = model.table.indexes
      .filter((index) => !beforeIndexes.has(index) || !actual.has(index))
      .map((column) => ({ kind: 'add-index', table, column }));
    const addedIndexes = indexSteps.map((step) => (step as { column: string }).column);
    return { steps: [...tableSteps, ...indexSteps], problems: [], leftInPlace, snapshot: extendSnapshot(before, designed, added, addedIndexes, actual) };
  }

  const structural = tableSteps.length > 0 || needsRebuild;
  if (structural && rows === 0) {
    // An empty table is simply made again as designed.
    return { steps: [{ kind: 'create-table', model, recreate: true }], problems: [], leftInPlace, snapshot: designed };
  }
  if (needsRebuild) return { steps: [{ kind: 'rebuild-table', model, keep }], problems: [], leftInPlace, snapshot: designed };
  const steps = [...tableSteps];
  const replaced = new Set(tableSteps.filter((step) => step.kind === 'replace-column').map((step) => (step as { column: ColumnMeta }).column.name));
  for (const index of model.table.indexes) {
    if (!beforeIndexes.has(index) || !actual.has(index) || replaced.has(index)) steps.push({ kind: 'add-index', table, column: index });
  }
  for (const index of beforeIndexes) {
    if (!model.table.indexes.includes(index) && wanted.has(index)) steps.push({ kind: 'drop-index', table, column: index });
  }
  return { steps, problems: [], leftInPlace, snapshot: designed };
}

/**
 * The snapshot after an additive run: the recorded design of everything the run left alone (other
 * releases' columns, indexes and kinds), plus what it added as this version designs it, and the
 * select options it knows besides the recorded ones. Without a recorded snapshot, the design.
 */
function extendSnapshot(
  before: TableSnapshot | undefined,
  designed: TableSnapshot,
  added: ReadonlySet<string>,
  addedIndexes: readonly string[],
  actual: ReadonlySet<string>,
): TableSnapshot {
  if (!before) return designed;
  const present = (name: string) => actual.has(name) || added.has(name);
  const recorded = (name: string) => present(name) && !added.has(name);
  const columns = before.table.columns.filter((column) => recorded(column.name));
  for (const column of designed.table.columns) if (!columns.some((kept) => kept.name === column.name)) columns.push(column);
  const fields: Record<string, FieldSnapshot> = {};
  for (const column of columns) {
    const old = recorded(column.name) && before.table.columns.some((kept) => kept.name === column.name) ? before.fields[column.name] : undefined;
    const field = old ? withOptions(old, designed.fields[column.name]) : designed.fields[column.name];
    if (field) fields[column.name] = field;
  }
  const indexes = before.table.indexes.filter(recorded);
  for (const index of addedIndexes) if (!indexes.includes(index)) indexes.push(index);
  return { version: 1, model: before.model, table: { name: before.table.name, columns, indexes }, fields };
}

/** A recorded select with the options this version adds to it. */
function withOptions(recorded: FieldSnapshot, designed: FieldSnapshot | undefined): FieldSnapshot {
  if (recorded.kind !== 'select' || designed?.kind !== 'select' || !recorded.options || !designed.options) return recorded;
  const extra = designed.options.filter((option) => !recorded.options!.includes(option));
  return extra.length === 0 ? recorded : { ...recorded, options: [...recorded.options, ...extra] };
}

/** Whether every value stored under `before` can be read and written as `after` (selects: when they are options). */
function keepsValues(before: FieldSnapshot, after: { kind: FieldKind }): boolean {
  const text = (kind: FieldKind) => kind === 'text' || kind === 'longtext';
  if (text(after.kind)) return text(before.kind) || before.kind === 'select';
  return after.kind === 'select' && text(before.kind);
}

function describeStored(column: ColumnMeta, field: { kind: FieldKind; target?: string } | undefined): string {
  const article = (word: string) => `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
  if (!field) return `${article(column.type)} column`;
  return field.kind === 'ref' ? `a ref to ${field.target}` : article(field.kind);
}

function describeKindChange(before: FieldSnapshot, after: { kind: FieldKind; target?: string }): string | undefined {
  if (before.kind !== after.kind) return `from ${before.kind} to ${after.kind}`;
  if (before.kind === 'ref' && before.target !== after.target) return `from a ref to ${before.target} to a ref to ${after.target}`;
  return undefined;
}

/** Whether stored values stay valid across a kind change; the problem text when they do not. */
async function incompatibility(
  db: Knex,
  table: string,
  path: string,
  column: string,
  beforeType: ColumnType,
  afterType: ColumnType,
  before: FieldSnapshot | undefined,
  after: { kind: FieldKind; options?: readonly string[]; target?: string } | undefined,
  filled: number,
): Promise<string | undefined> {
  const change = before && after ? describeKindChange(before, after) : `from column type ${beforeType} to ${afterType}`;
  const refused = `${path} changed kind ${change}, but ${filled} row(s) hold a value in it: keep the kind, or add a new field, copy the values over, and remove this one when it is empty`;
  if (beforeType !== afterType || !before || !after) return refused;
  const text = (kind: FieldKind) => kind === 'text' || kind === 'longtext';
  if (text(after.kind) && (text(before.kind) || before.kind === 'select')) return undefined;
  if (after.kind === 'select' && text(before.kind)) {
    const outside = await db(table)
      .select(column)
      .count({ n: '*' })
      .whereNotNull(column)
      .whereNotIn(column, [...(after.options ?? [])])
      .groupBy(column)
      .limit(5);
    if (outside.length === 0) return undefined;
    const values = outside.map((row) => `${String((row as Record<string, unknown>)[column])} (${Number((row as { n: unknown }).n)} row(s))`);
    return `${path} became a select, but some records hold other values: ${values.join(', ')}: make them options, or change those records first`;
  }
  return refused;
}

async function countRows(db: Knex, table: string): Promise<number> {
  const row = await db(table).count({ n: '*' }).first();
  return Number((row as { n: unknown } | undefined)?.n ?? 0);
}

async function countFilled(db: Knex, table: string, column: string): Promise<number> {
  const row = await db(table).count({ n: column }).first();
  return Number((row as { n: unknown } | undefined)?.n ?? 0);
}

async function countUsing(db: Knex, table: string, column: string, values: readonly string[]): Promise<[string, number][]> {
  const rows = await db(table).select(column).count({ n: '*' }).whereIn(column, [...values]).groupBy(column);
  return rows.map((row) => [String((row as Record<string, unknown>)[column]), Number((row as { n: unknown }).n)]);
}

/** Stage 3: applies the steps and records the snapshots. Returns one line per change. */
async function applyPlan(db: Knex, dialect: Dialect, plan: MigrationPlan): Promise<string[]> {
  const changes: string[] = [];
  for (const step of plan.steps) {
    switch (step.kind) {
      case 'create-table': {
        const table = step.model.table.name;
        if (step.recreate) await db.schema.dropTable(table);
        await createTable(db, dialect, step.model.table);
        changes.push(step.recreate ? `recreated empty table ${table} as designed` : `created table ${table}`);
        break;
      }
      case 'add-column':
        await db.schema.alterTable(step.model.table.name, (builder) => defineColumn(builder, dialect, step.column));
        changes.push(`added column ${step.model.name}.${step.column.name}`);
        break;
      case 'drop-column':
        if (step.indexed) await db.raw(`drop index if exists ${quote(indexName(step.table, step.column))}`);
        await db.raw(`alter table ${quote(step.table)} drop column ${quote(step.column)}`);
        changes.push(`dropped empty column ${step.table}.${step.column} (field removed)`);
        break;
      case 'replace-column': {
        const table = step.model.table.name;
        if (step.indexed) await db.raw(`drop index if exists ${quote(indexName(table, step.column.name))}`);
        await db.raw(`alter table ${quote(table)} drop column ${quote(step.column.name)}`);
        await db.schema.alterTable(table, (builder) => defineColumn(builder, dialect, step.column));
        changes.push(`changed the type of empty column ${step.model.name}.${step.column.name} to ${step.column.type}`);
        break;
      }
      case 'alter-not-null':
        await db.raw(`alter table ${quote(step.table)} alter column ${quote(step.column)} ${step.notNull ? 'set' : 'drop'} not null`);
        changes.push(`${step.table}.${step.column} is ${step.notNull ? 'now' : 'no longer'} NOT NULL`);
        break;
      case 'rebuild-table':
        await rebuildTable(db, dialect, step.model.table, step.keep);
        changes.push(`rebuilt table ${step.model.table.name} (column constraints changed; rows kept)`);
        break;
      case 'add-index':
        await db.raw(`create index if not exists ${quote(indexName(step.table, step.column))} on ${quote(step.table)} (${quote(step.column)})`);
        changes.push(`created index on ${step.table}.${step.column}`);
        break;
      case 'drop-index':
        await db.raw(`drop index if exists ${quote(indexName(step.table, step.column))}`);
        changes.push(`dropped index on ${step.table}.${step.column}`);
        break;
      case 'drop-table':
        await db.schema.dropTable(step.table);
        changes.push(`dropped empty table ${step.table} (model removed)`);
        break;
      case 'note':
        changes.push(step.text);
        break;
    }
  }
  const now = new Date().toISOString();
  for (const table of plan.forgotten) await db(SCHEMA_TABLE).where('table_name', table).delete();
  for (const snapshot of plan.snapshots) {
    const json = JSON.stringify(snapshot);
    const existing = (await db(SCHEMA_TABLE).first('snapshot').where('table_name', snapshot.table.name)) as { snapshot: string } | undefined;
    if (existing?.snapshot === json) continue;
    if (existing) await db(SCHEMA_TABLE).where('table_name', snapshot.table.name).update({ snapshot: json, applied_at: now });
    else await db(SCHEMA_TABLE).insert({ table_name: snapshot.table.name, snapshot: json, applied_at: now });
  }
  return changes;
}

export function indexName(table: string, column: string): string {
  return `rms_idx_${table}_${column}`;
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function createTable(db: Knex, dialect: Dialect, table: TableMeta, name: string = table.name): Promise<void> {
  await db.schema.createTable(name, (builder) => {
    for (const column of table.columns) defineColumn(builder, dialect, column);
  });
  for (const index of table.indexes) {
    await db.raw(`create index if not exists ${quote(indexName(table.name, index))} on ${quote(name)} (${quote(index)})`);
  }
}

function defineColumn(builder: Knex.CreateTableBuilder, dialect: Dialect, column: ColumnMeta): void {
  let definition: Knex.ColumnBuilder;
  switch (column.type) {
    case 'id':
      definition = builder.string(column.name, 64);
      break;
    case 'text':
      definition = builder.text(column.name);
      break;
    case 'integer':
      definition = builder.bigInteger(column.name);
      break;
    case 'date':
      // PostgreSQL checks dates itself; SQLite has no date type and keeps `YYYY-MM-DD` text, which sorts as dates do.
      definition = dialect === 'postgres' ? builder.date(column.name) : builder.text(column.name);
      break;
    case 'bool':
      definition = builder.boolean(column.name);
      break;
  }
  if (column.name === 'id') definition.primary();
  if (column.notNull) definition.notNullable();
  else definition.nullable();
  if (column.default !== undefined) definition.defaultTo(defaultValue(column.type, column.default) as Knex.Value);
}

function defaultValue(type: ColumnType, value: string): unknown {
  if (type === 'integer') return Number(value);
  if (type === 'bool') return value === 'true' || value === '1';
  return value;
}

/**
 * SQLite cannot change a column's constraints in place: make the table again under a new name,
 * copy the rows, swap. Runs inside the migration's transaction.
 */
async function rebuildTable(db: Knex, dialect: Dialect, table: TableMeta, keep: readonly string[]): Promise<void> {
  const temporary = `${table.name}__rms_rebuild`;
  if (await db.schema.hasTable(temporary)) await db.schema.dropTable(temporary);
  await db.schema.createTable(temporary, (builder) => {
    for (const column of table.columns) defineColumn(builder, dialect, column);
  });
  const columns = keep.map(quote).join(', ');
  await db.raw(`insert into ${quote(temporary)} (${columns}) select ${columns} from ${quote(table.name)}`);
  await db.schema.dropTable(table.name);
  await db.schema.renameTable(temporary, table.name);
  for (const index of table.indexes) {
    await db.raw(`create index if not exists ${quote(indexName(table.name, index))} on ${quote(table.name)} (${quote(index)})`);
  }
}
