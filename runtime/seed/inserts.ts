/**
 * How `rmsgen seed` writes records and their lines: in transactions of many records, each table's
 * rows batched into as few statements as the database takes (one way for SQLite, another for
 * PostgreSQL), each value bound as its column stores it. The seed's speed at size is decided here.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { duplicateOf, rowsInsertSql, sqlIdentifier, sqlIdentifiers, uniqueFields, type UniqueFields } from '../db/statements.ts';
import { badRequest } from '../errors.ts';
import { newId } from '../ids.ts';
import { toDb } from '../query/values.ts';
import type { ColumnType, FieldMeta, ModelMeta, TableMeta } from '../registry.ts';
import type { SeedRecord } from './records.ts';

/** Records per transaction: large enough that commits cost little, small enough to report progress. */
const RECORDS_PER_TRANSACTION = 20_000;

/** Bound parameters per SQLite statement (it allows 32,766). */
const SQLITE_PARAMETERS = 32_000;

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
  /** SQLite's insert of a number of rows. */
  private readonly sqliteInsert: (rows: number) => string;
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
    table: TableMeta,
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
    this.sqliteInsert = rowsInsertSql(table.name, this.columns);
    if (this.dialect === 'postgres') {
      this.rowsPerStatement = PG_ROWS_PER_STATEMENT;
      const arrays = table.columns.map((column, i) => `$${i + 1}::${PG_ARRAY_TYPES[column.type]}`).join(', ');
      this.fullInsert = `insert into ${sqlIdentifier(table.name)} (${sqlIdentifiers(this.columns)}) select * from unnest(${arrays})`;
    } else {
      this.rowsPerStatement = Math.max(1, Math.min(1000, Math.floor(SQLITE_PARAMETERS / this.columns.length)));
      this.fullInsert = this.sqliteInsert(this.rowsPerStatement);
    }
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
      await this.onConnection<SqliteConnection>(trx, (connection) => {
        const statement = rows === this.rowsPerStatement ? (this.prepared.get(connection) ?? this.prepareFull(connection)) : connection.prepare(this.sqliteInsert(rows));
        statement.run(bindings);
      });
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
    await this.onConnection<{ query(text: string, values: unknown[]): Promise<unknown> }>(trx, (connection) => connection.query(this.fullInsert, values));
  }

  /**
   * Runs `write` on the transaction's own connection (knex hands it out), bypassing knex's
   * formatting; a duplicate of one of the model's uniques is the seed's 400, as the write path says it.
   */
  private async onConnection<Connection>(trx: Knex, write: (connection: Connection) => unknown): Promise<void> {
    const client = trx.client as { acquireConnection(): Promise<Connection>; releaseConnection(connection: unknown): unknown };
    const connection = await client.acquireConnection();
    try {
      await write(connection);
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
export async function insertRecords(db: Knex, model: ModelMeta, batch: Batch, progress: (written: number) => void): Promise<number> {
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
