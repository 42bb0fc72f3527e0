/**
 * `rmsgen seed`: fills a model's table with plausible records (values from `values.ts`, by each
 * field's kind and name) to try the service at size or to benchmark it: with their lines (1 to 10
 * per record and list unless told otherwise), their computed fields worked out by the model's
 * logic and their rules kept (records.ts). Records go straight into the tables, in large
 * transactions, as an operator's import would: not through the command path, so they have no
 * audit rows and no history. Refs point at records of their targets; a target with none is seeded
 * first. The first records of every model are made, checked against the model's create input and
 * its rules before anything is written, so a seed the module's checks would refuse writes nothing.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { duplicateOf, sqlIdentifier, sqlIdentifiers, uniqueFields, type UniqueFields } from '../db/statements.ts';
import { badRequest } from '../errors.ts';
import { createIndexSql } from '../db/migrate/apply.ts';
import { indexesOf, type IndexDesign } from '../db/migrate/index-design.ts';
import { LOGIC_TABLE, ensureLogicTables } from '../commands/recompute.ts';
import { newId } from '../ids.ts';
import { toDb } from '../query/values.ts';
import type { ColumnType, FieldMeta, ModelMeta, Registry, TableMeta } from '../registry.ts';
import { SeedRecordError, recordMaker, type SeedRecord } from './records.ts';
import { DEFAULT_LINES_PER_RECORD, SeedValuesError, seedableCount, todayUtc, type LinesPerRecord, type SeedTargets } from './values.ts';

export const MAX_SEED_COUNT = 10_000_000;

/** A seed that cannot be done as asked; nothing was written. */
export class SeedRefusedError extends Error {}

export interface SeedOptions {
  readonly model: string;
  readonly count: number;
  /** Picks the values: the same seed gives the same values (ids are new on every run). Default 1. */
  readonly seed?: number;
  /** The day (`YYYY-MM-DD`) dates are spread around, within a year either side. Default today (UTC). */
  readonly today?: string;
  /** Called after each transaction with the records written so far, of `total` (targets included). */
  readonly onProgress?: (done: number, total: number) => void;
  /** A line for the person running it, e.g. that a ref's target is seeded first. */
  readonly log?: (line: string) => void;
  /**
   * Seeding at least this many records, and at least as many as the table holds, drops the
   * table's ordered indexes and builds them again afterwards (default 50,000).
   */
  readonly rebuildIndexesFrom?: number;
  /** Lines per record in each line list, within the list's own min and max (default 1 to 10). */
  readonly lines?: LinesPerRecord;
}

export interface SeededModel {
  readonly model: string;
  readonly count: number;
  /** The lines written with the records, every list together (models with line lists only). */
  readonly lines?: number;
}

/** Seeding at least this many records, and at least as many as the table holds, builds its indexes afterwards. */
const BULK_LOAD = 50_000;

/** A table's indexes that are not unique and are kept in a database index (PostgreSQL's trigram index too, not SQLite's search tables). */
function orderedIndexes(db: Knex, table: TableMeta): IndexDesign[] {
  const dialect = dialectOf(db);
  return indexesOf(table, dialect).filter((index) => !index.unique && (index.method !== 'search' || dialect === 'postgres'));
}

/** Records per transaction: large enough that commits cost little, small enough to report progress. */
const RECORDS_PER_TRANSACTION = 20_000;
/** Records made and checked against the create input before anything is written. */
const CHECKED_FIRST = 20;
/** Bound parameters per SQLite statement (it allows 32,766). */
const SQLITE_PARAMETERS = 32_000;

/**
 * Seeds `count` records of the model (after any targets its refs need), then has the database
 * update its statistics so the planner sees the new sizes. Answers what was seeded, targets first.
 */
export async function seedRecords(db: Knex, registry: Registry, options: SeedOptions): Promise<SeededModel[]> {
  try {
    return await seed(db, registry, options);
  } catch (error) {
    if (error instanceof SeedValuesError || error instanceof SeedRecordError) throw new SeedRefusedError(error.message);
    throw error;
  }
}

async function seed(db: Knex, registry: Registry, options: SeedOptions): Promise<SeededModel[]> {
  const model = registry.models[options.model];
  if (!model) {
    throw new SeedRefusedError(`unknown model ${options.model}: the models are ${Object.keys(registry.models).join(', ')}`);
  }
  if (!Number.isInteger(options.count) || options.count < 1 || options.count > MAX_SEED_COUNT) {
    throw new SeedRefusedError(`count must be a whole number from 1 to ${MAX_SEED_COUNT.toLocaleString('en-US')}`);
  }
  const lines = options.lines ?? DEFAULT_LINES_PER_RECORD;
  if (!Number.isInteger(lines.min) || !Number.isInteger(lines.max) || lines.min < 0 || lines.min > lines.max) {
    throw new SeedRefusedError(`lines per record must be whole numbers from 0, the fewest not above the most, not ${lines.min} to ${lines.max}`);
  }
  const plan = await planSeeding(db, registry, model, options.count, options.log ?? (() => {}));
  const total = plan.reduce((sum, step) => sum + step.count, 0);
  const seed = options.seed ?? 1;
  const today = options.today ?? todayUtc();
  const makerOf = (stepModel: ModelMeta, targets: SeedTargets) => recordMaker(stepModel, registry.logic?.[stepModel.name], { seed, targets, today, lines });
  // Before anything is written: each step's first records, as a create would take them and with
  // their rules kept (targets still to be seeded stand in as one id).
  for (const step of plan) {
    const stepModel = registry.models[step.model] as ModelMeta;
    const targets = await targetIds(db, registry, stepModel, plan);
    const first = (await countRows(db, stepModel.table.name)) + 1;
    checkSeedable(stepModel, first, step.count, targets);
    checkFirstRecords(registry, stepModel, makerOf(stepModel, targets), first, Math.min(step.count, CHECKED_FIRST));
  }
  if (dialectOf(db) === 'sqlite') await db.raw('pragma cache_size = -262144');
  await ensureLogicTables(db);
  let done = 0;
  const seeded: SeededModel[] = [];
  for (const step of plan) {
    const stepModel = registry.models[step.model] as ModelMeta;
    const targets = await targetIds(db, registry, stepModel, []);
    const first = (await countRows(db, stepModel.table.name)) + 1;
    checkSeedable(stepModel, first, step.count, targets);
    // A bulk load into a table that grows several times over is faster with its ordered indexes
    // built once afterwards (a sort) than kept row by row; its line tables' too. Unique indexes
    // stay, so that a value repeated meanwhile is still refused; if the seed is stopped midway,
    // serve or migrate builds the missing indexes again.
    const bulk = step.count >= Math.max(options.rebuildIndexesFrom ?? BULK_LOAD, first - 1);
    const rebuilt = bulk ? [stepModel.table, ...stepModel.lines.map((list) => list.table)].flatMap((table) => orderedIndexes(db, table)) : [];
    for (const index of rebuilt) await db.raw(`drop index if exists ${sqlIdentifier(index.name)}`);
    const written = await insertRecords(db, stepModel, { first, count: step.count, make: makerOf(stepModel, targets) }, (records) => {
      options.onProgress?.(done + records, total);
    });
    if (rebuilt.length > 0) {
      options.log?.(`building ${rebuilt.length} indexes of ${stepModel.name}`);
      for (const index of rebuilt) await db.raw(createIndexSql(dialectOf(db), index));
    }
    await recordLogicVersion(db, registry, stepModel, first);
    done += step.count;
    seeded.push({ model: step.model, count: step.count, ...(stepModel.lines.length > 0 ? { lines: written } : {}) });
  }
  await analyze(db, plan.flatMap((step) => {
    const stepModel = registry.models[step.model] as ModelMeta;
    return [stepModel.table.name, ...stepModel.lines.map((list) => list.table.name)];
  }));
  return seeded;
}

/** Refuses a seed of more records than the model's unique fields can give values of their own. */
function checkSeedable(model: ModelMeta, first: number, count: number, targets: SeedTargets): void {
  const limit = seedableCount(model, first, targets);
  if (!limit || limit.count >= count) return;
  const what = limit.fields.length === 1 ? `${model.name}.${limit.fields[0]} is unique and required` : `${model.name}: ${limit.fields.join(', ')} must be unique together`;
  const values = limit.fields.length === 1 ? 'a value of their own' : 'values of their own';
  throw new SeedRefusedError(`${what}: only ${limit.count} more ${model.name} records can have ${values}`);
}

/**
 * Makes the first records and checks each against the model's create input (the command path's
 * checks of kinds, ranges, lengths, patterns, lines): a record the seed makes is one a create
 * would take. The refusal quotes the check.
 */
function checkFirstRecords(registry: Registry, model: ModelMeta, make: (n: number) => SeedRecord, first: number, count: number): void {
  const schema = registry.commands[`${model.name}.create`]?.input;
  if (!schema) return;
  const given = (fields: readonly FieldMeta[], values: Readonly<Record<string, unknown>>) =>
    Object.fromEntries(fields.filter((field) => !field.computed && !field.governed && values[field.name] !== null).map((field) => [field.name, values[field.name]]));
  for (let n = first; n < first + count; n++) {
    const record = make(n);
    const input = given(model.fields, record.values);
    for (const list of model.lines) input[list.name] = (record.lines[list.name] ?? []).map((line) => given(list.fields, line));
    const checked = schema.safeParse(input);
    if (!checked.success) {
      throw new SeedRefusedError(`cannot seed ${model.name}: record ${n} it made is not one a create would take: ${checked.error.issues[0]?.message ?? 'invalid'}`);
    }
  }
}

/**
 * Records the version of the model's logic its seeded computed values were made with, when the
 * table held none before or the version recorded is this one: `serve` then knows they are
 * current. Values made by other functions before stay stale, for `rmsgen migrate` to recompute.
 */
async function recordLogicVersion(db: Knex, registry: Registry, model: ModelMeta, first: number): Promise<void> {
  const logic = registry.logic?.[model.name];
  const computes = model.fields.some((field) => field.computed) || model.lines.some((list) => list.fields.some((field) => field.computed));
  if (!logic || !computes) return;
  const recorded = (await db(LOGIC_TABLE).where({ model: model.name }).first('version')) as { version: string } | undefined;
  if (recorded || first > 1) return;
  await db(LOGIC_TABLE).insert({ model: model.name, version: logic.version });
}

/**
 * What to seed, in order: the ref targets that have no records yet (a tenth as many, but at least
 * ten, or as many as the model's records when they are fewer, so that refs spread over several;
 * their own empty targets before them), then the model. A ref to the model itself, or a cycle,
 * points only at records that existed before.
 */
async function planSeeding(db: Knex, registry: Registry, model: ModelMeta, count: number, log: (line: string) => void): Promise<SeededModel[]> {
  const plan: SeededModel[] = [];
  const visiting = new Set<string>();
  const visit = async (current: ModelMeta, currentCount: number): Promise<void> => {
    visiting.add(current.name);
    for (const field of current.fields) {
      const target = field.kind === 'ref' ? registry.models[field.target ?? ''] : undefined;
      if (!target || visiting.has(target.name) || plan.some((step) => step.model === target.name)) continue;
      if ((await countRows(db, target.table.name)) > 0) continue;
      const targetCount = Math.min(currentCount, Math.max(10, Math.ceil(currentCount / 10)));
      log(`${target.name} has no records for ${current.name}.${field.name} to point at: seeding ${targetCount.toLocaleString('en-US')} ${target.name} records first`);
      await visit(target, targetCount);
    }
    plan.push({ model: current.name, count: currentCount });
  };
  await visit(model, count);
  return plan;
}

/**
 * The ids each ref field of the model (and of its lines) may point at, by target model (read once,
 * before seeding). A target the plan seeds and that has no records yet stands in as one made-up
 * id, for checking records before anything is written.
 */
async function targetIds(db: Knex, registry: Registry, model: ModelMeta, plan: readonly SeededModel[]): Promise<SeedTargets> {
  const targets: Record<string, string[]> = {};
  for (const field of [...model.fields, ...model.lines.flatMap((list) => list.fields)]) {
    const target = field.target;
    if (field.kind !== 'ref' || target === undefined || targets[target]) continue;
    const table = registry.models[target]?.table.name ?? target;
    const rows = (await db.raw(`select "id" from ${sqlIdentifier(table)} order by "id"`)) as unknown;
    const list = Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows;
    targets[target] = (list as { id: string }[]).map((row) => row.id);
    if (targets[target].length === 0 && plan.some((step) => step.model === target)) targets[target] = [newId()];
  }
  return targets;
}

async function countRows(db: Knex, table: string): Promise<number> {
  const result = (await db.raw(`select count(*) as "n" from ${sqlIdentifier(table)}`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number | string }[];
  return Number(rows[0]?.n ?? 0);
}

interface Batch {
  /** The number of the first record (1 for a table's first). */
  readonly first: number;
  readonly count: number;
  readonly make: (n: number) => SeedRecord;
}

/**
 * A table's rows, written as many to a statement as pay off, each value as its column stores it.
 * SQLite: multi-row `insert … values`, as many rows as it binds at once, prepared once per
 * connection and run on better-sqlite3 directly (through knex, each run parsed the statement of
 * thousands of parameters again and copied its bindings: a fifth of a seed's time, with much of
 * its garbage collection, in a profile of 20,000 orders of 10 lines). PostgreSQL: one array per
 * column, `insert … select * from unnest($1::text[], …)` — a statement of a few parameters
 * however many rows, which PostgreSQL parses in no time and pg sends as a few large values,
 * where 60,000 bound parameters cost more in building, sending and parsing than the rows do.
 */
class TableWriter {
  private readonly dialect: ReturnType<typeof dialectOf>;
  private readonly columns: readonly string[];
  private readonly convert: readonly ((value: unknown) => unknown)[];
  private readonly rowsPerStatement: number;
  private readonly fullInsert: string;
  /** SQLite: the values of the rows added, row after row. */
  private bindings: unknown[] = [];
  /** PostgreSQL: the values of the rows added, column by column. */
  private columnValues: unknown[][];
  private rows = 0;
  /** Rows written so far. */
  written = 0;
  /** PostgreSQL: the statement sent and not yet answered. */
  private inFlight: Promise<void> | undefined;
  /** SQLite: the full statement, by connection. */
  private readonly prepared = new WeakMap<SqliteConnection, SqliteStatement>();

  constructor(
    db: Knex,
    private readonly table: TableMeta,
    fields: readonly FieldMeta[],
    /** How many leading columns are not fields (`id`, or `id`, `owner`, `position`): bound as they are. */
    leading: number,
    private readonly unique?: UniqueFields,
  ) {
    this.dialect = dialectOf(db);
    this.columns = table.columns.map((column) => column.name);
    const byName = new Map(fields.map((field) => [field.name, field]));
    this.convert = this.columns.map((name, i) => (i < leading ? identity : converterOf(byName.get(name), this.dialect)));
    this.columnValues = this.columns.map(() => []);
    if (this.dialect === 'postgres') {
      this.rowsPerStatement = PG_ROWS_PER_STATEMENT;
      const arrays = table.columns.map((column, i) => `$${i + 1}::${PG_ARRAY_TYPES[column.type]}`).join(', ');
      this.fullInsert = `insert into ${sqlIdentifier(table.name)} (${sqlIdentifiers(this.columns)}) select * from unnest(${arrays})`;
    } else {
      this.rowsPerStatement = Math.max(1, Math.min(1000, Math.floor(SQLITE_PARAMETERS / this.columns.length)));
      this.fullInsert = this.sqliteInsert(this.rowsPerStatement);
    }
  }

  private sqliteInsert(rows: number): string {
    const row = `(${this.columns.map(() => '?').join(', ')})`;
    return `insert into ${sqlIdentifier(this.table.name)} (${sqlIdentifiers(this.columns)}) values ${Array.from({ length: rows }, () => row).join(', ')}`;
  }

  /**
   * Adds a row: its leading columns' values (`lead`), then each field's from `values` in column
   * order; writes a full statement's rows when it has them.
   */
  async add(trx: Knex, lead: readonly unknown[], values: Readonly<Record<string, unknown>>): Promise<void> {
    const { columns, convert } = this;
    if (this.dialect === 'postgres') {
      const out = this.columnValues;
      for (let i = 0; i < columns.length; i++) out[i]!.push(convert[i]!(i < lead.length ? lead[i] : values[columns[i]!]));
    } else {
      const out = this.bindings;
      for (let i = 0; i < columns.length; i++) out.push(convert[i]!(i < lead.length ? lead[i] : values[columns[i]!]));
    }
    if (++this.rows === this.rowsPerStatement) await this.flush(trx);
  }

  /** Writes the rows added and not yet written. */
  async flush(trx: Knex): Promise<void> {
    if (this.rows === 0) return;
    const rows = this.rows;
    this.rows = 0;
    if (this.dialect === 'postgres') {
      const values = this.columnValues;
      this.columnValues = this.columns.map(() => []);
      // One statement in flight while the next rows are made: seeding 20,000 orders of 10 lines
      // spent 44 % of its time idle, waiting for each insert before making the next rows.
      await this.settle();
      const sent = this.sendPostgres(trx, values);
      sent.catch(() => {}); // awaited (and its error thrown) by settle()
      this.inFlight = sent;
    } else {
      const bindings = this.bindings;
      this.bindings = [];
      const client = trx.client as { acquireConnection(): Promise<SqliteConnection>; releaseConnection(connection: unknown): unknown };
      const connection = await client.acquireConnection();
      try {
        const statement = rows === this.rowsPerStatement ? (this.prepared.get(connection) ?? this.prepareFull(connection)) : connection.prepare(this.sqliteInsert(rows));
        statement.run(bindings);
      } catch (error) {
        const refusal = this.unique && duplicateOf(error, this.unique);
        if (refusal) throw badRequest(refusal);
        throw error;
      } finally {
        await client.releaseConnection(connection);
      }
    }
    this.written += rows;
  }

  /** Waits for the statement in flight (PostgreSQL), throwing its error. */
  async settle(): Promise<void> {
    const sent = this.inFlight;
    this.inFlight = undefined;
    await sent;
  }

  /** PostgreSQL: the rows' column arrays, on the transaction's own connection (knex hands it out), without knex's formatting of the arrays. */
  private async sendPostgres(trx: Knex, values: unknown[][]): Promise<void> {
    const client = trx.client as { acquireConnection(): Promise<{ query(text: string, values: unknown[]): Promise<unknown> }>; releaseConnection(connection: unknown): unknown };
    const connection = await client.acquireConnection();
    try {
      await connection.query(this.fullInsert, values);
    } catch (error) {
      const refusal = this.unique && duplicateOf(error, this.unique);
      if (refusal) throw badRequest(refusal);
      throw error;
    } finally {
      await client.releaseConnection(connection);
    }
  }

  /** SQLite: the full statement, prepared on the connection and kept for its next runs. */
  private prepareFull(connection: SqliteConnection): SqliteStatement {
    const statement = connection.prepare(this.fullInsert);
    this.prepared.set(connection, statement);
    return statement;
  }
}

/** What the seed uses of a better-sqlite3 connection. */
interface SqliteStatement {
  run(bindings: readonly unknown[]): unknown;
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

/** Rows per PostgreSQL statement (values in arrays: no limit on parameters, only on memory). */
const PG_ROWS_PER_STATEMENT = 5000;
/** The array type each column's values are sent as (ids go into varchar(64) from text). */
const PG_ARRAY_TYPES: Record<ColumnType, string> = { id: 'text[]', text: 'text[]', integer: 'bigint[]', date: 'date[]', bool: 'boolean[]' };

const identity = (value: unknown) => value;

/** How a field's JSON value is bound: booleans, decimals and multiselects as their columns store them, the rest as they are. */
function converterOf(field: FieldMeta | undefined, dialect: ReturnType<typeof dialectOf>): (value: unknown) => unknown {
  if (field?.kind === 'bool') return (value) => toDb.bool(value as boolean | null, dialect);
  if (field?.kind === 'decimal') {
    const scale = field.scale ?? 2;
    return (value) => toDb.decimal(value as number | null, scale);
  }
  if (field?.kind === 'multiselect') return (value) => toDb.multiselect(value as string[] | null);
  return (value) => value ?? null;
}

/**
 * Inserts the records and their lines in transactions of `RECORDS_PER_TRANSACTION` records, each
 * table's rows as multi-row inserts of as many rows as the database binds at once. A unique field
 * the database finds repeated (a record that was there before holds a seeded value) stops the seed
 * with `<model>.<field> must be unique`; the transactions before it stay. Answers the lines written.
 */
async function insertRecords(db: Knex, model: ModelMeta, batch: Batch, progress: (written: number) => void): Promise<number> {
  const unique = uniqueFields(
    model.table.name,
    model.table.indexes.flatMap((index) => (typeof index !== 'string' && index.unique && index.fields.length === 1 && !index.where ? index.fields : [])),
    model.uniques ?? [],
  );
  const records = new TableWriter(db, model.table, model.fields, 1, unique);
  const lists = model.lines.map((list) => ({ name: list.name, writer: new TableWriter(db, list.table, list.fields, 3) }));
  let written = 0;
  while (written < batch.count) {
    const inTransaction = Math.min(RECORDS_PER_TRANSACTION, batch.count - written);
    await db.transaction(async (trx) => {
      for (let i = 0; i < inTransaction; i++) {
        const record = batch.make(batch.first + written + i);
        const id = newId();
        await records.add(trx, [id], record.values);
        for (const list of lists) {
          const lines = record.lines[list.name] ?? [];
          for (let position = 0; position < lines.length; position++) await list.writer.add(trx, [newId(), id, position], lines[position]!);
        }
      }
      await records.flush(trx);
      for (const list of lists) await list.writer.flush(trx);
      // Every statement answered before the commit; a refused record's error first, before the
      // lines' (which the database then refuses as part of an aborted transaction).
      const settled = await Promise.allSettled([records.settle(), ...lists.map((list) => list.writer.settle())]);
      const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
    });
    written += inTransaction;
    progress(written);
  }
  return lists.reduce((sum, list) => sum + list.writer.written, 0);
}

/**
 * Fresh planner statistics for the seeded tables (SQLite samples). PostgreSQL vacuums them too: a
 * bulk load leaves the visibility map empty, and until autovacuum gets round to the table every
 * index-only scan fetches each row from the heap. A count of 250,000 matching leads took 140–185 ms
 * right after seeding a million and 23 ms after `vacuum (analyze)`. (A page is marked only once its
 * rows' commits are flushed: on a server with synchronous_commit off, the last rows written may
 * wait for the next vacuum.)
 */
async function analyze(db: Knex, tables: readonly string[]): Promise<void> {
  if (dialectOf(db) === 'sqlite') {
    await db.raw('pragma analysis_limit = 1000');
    await db.raw('analyze');
    return;
  }
  // VACUUM cannot run in a transaction; `db` here is the pool, each statement on its own.
  for (const table of tables) await db.raw(`vacuum (analyze) ${sqlIdentifier(table)}`);
}
