/**
 * A `list` or `search` without a `limit`, read a page at a time: every record it selects, as its
 * one statement sees them (one snapshot, a search's count in it too), but never all of them in
 * memory at once: REST sends each page before the next is read (http/send.ts). Read whole, a
 * `lead.list {}` of 1,000,000 leads held 2.1 GB at its peak for its 337 MB answer, and kept the
 * event loop for the whole read (docs/performance.md, "A list without a limit").
 *
 * SQLite: a read-only connection of the statement's own (the shared one would refuse every other
 * read while the statement is open), in a read transaction. PostgreSQL: a cursor in a read-only
 * repeatable read transaction, on a pooled connection held until the last page. Inside a
 * transaction (or on an in-memory database) the rows are read at once, as one page.
 */
import type { Knex } from 'knex';
import { dialectOf, openSqliteReadConnection } from '../db/connect.ts';
import type BetterSqlite3 from 'better-sqlite3';
import { selectRows } from '../db/statements.ts';
import type { CompiledList, ListPages, SqlFragment } from './compiled-list.ts';
import { countStatement, listStatement } from './list-query.ts';

export type { ListPages };

/** Rows of a page: each page is shown to the caller and written out before the next is read. */
export const ROWS_PER_PAGE = 500;


/** Opens the pages of `list` (which has no `limit`): `select` and `count` are the model's statements, as `selectList` and `countList` take them. */
export async function openListPages(db: Knex, select: string, count: string, list: CompiledList, withTotal: boolean): Promise<ListPages<Record<string, unknown>>> {
  const dialect = dialectOf(db);
  const statement = listStatement(select, list, dialect);
  const counting = withTotal ? countStatement(count, list) : undefined;
  const connection = openSqliteReadConnection(db);
  if (connection) return sqlitePages(connection, statement, counting);
  if (dialect === 'postgres' && !db.isTransaction) return postgresPages(db, statement, counting);
  const total = counting && countOf(await selectRows<{ n: unknown }>(db, counting.sql, counting.bindings));
  const rows = await selectRows<Record<string, unknown>>(db, statement.sql, statement.bindings);
  return { total, pages: (async function* () { yield rows; })() };
}

/** The pages of `pages` with each row made into what `fromRow` makes of it. */
export function mapListPages<Row, Out>(opened: ListPages<Row>, fromRow: (row: Row) => Out): ListPages<Out> {
  return withPagesMapped(opened, (page) => page.map(fromRow));
}

/** The pages of `opened` with `map` applied to each page as it is read (ending them ends what they read). */
export function withPagesMapped<Row, Out>(opened: ListPages<Row>, map: (page: Row[]) => Out[] | Promise<Out[]>): ListPages<Out> {
  return {
    total: opened.total,
    pages: (async function* () {
      for await (const page of opened.pages) yield await map(page);
    })(),
  };
}

function sqlitePages(connection: BetterSqlite3.Database, statement: SqlFragment, counting: SqlFragment | undefined): ListPages<Record<string, unknown>> {
  let rows: IterableIterator<unknown> | undefined;
  const end = () => {
    rows?.return?.();
    if (connection.inTransaction) connection.exec('commit');
    connection.close();
  };
  let total: number | undefined;
  let first: Record<string, unknown>[];
  try {
    // The count and the rows in one snapshot, taken now, as a list's one statement takes it.
    connection.exec('begin');
    if (counting) total = countOf([connection.prepare(counting.sql).get(...counting.bindings)]);
    rows = connection.prepare(statement.sql).iterate(...statement.bindings);
    first = nextPage(rows);
  } catch (error) {
    end();
    throw error;
  }
  const open = rows;
  return {
    total,
    pages: (async function* () {
      try {
        for (let page = first; page.length > 0; page = nextPage(open)) {
          yield page;
          if (page.length < ROWS_PER_PAGE) break;
        }
      } finally {
        end();
      }
    })(),
  };
}

function nextPage(rows: IterableIterator<unknown>): Record<string, unknown>[] {
  const page: Record<string, unknown>[] = [];
  while (page.length < ROWS_PER_PAGE) {
    const next = rows.next();
    if (next.done) break;
    page.push(next.value as Record<string, unknown>);
  }
  return page;
}

/** The cursor's name: one per transaction, and each read has a transaction of its own. */
const CURSOR = 'rms_list_pages';

async function postgresPages(db: Knex, statement: SqlFragment, counting: SqlFragment | undefined): Promise<ListPages<Record<string, unknown>>> {
  const trx = await db.transaction({ isolationLevel: 'repeatable read', readOnly: true });
  const end = () => trx.rollback().catch(() => undefined);
  let total: number | undefined;
  const fetch = async () => ((await trx.raw(`fetch forward ${ROWS_PER_PAGE} from ${CURSOR}`)) as { rows: Record<string, unknown>[] }).rows;
  let first: Record<string, unknown>[];
  try {
    if (counting) total = countOf(((await trx.raw(counting.sql, counting.bindings as Knex.RawBinding[])) as { rows: { n: unknown }[] }).rows);
    await trx.raw(`declare ${CURSOR} no scroll cursor for ${statement.sql}`, statement.bindings as Knex.RawBinding[]);
    first = await fetch();
  } catch (error) {
    await end();
    throw error;
  }
  return {
    total,
    pages: (async function* () {
      try {
        for (let page = first; page.length > 0; page = await fetch()) {
          yield page;
          if (page.length < ROWS_PER_PAGE) break;
        }
      } finally {
        await end();
      }
    })(),
  };
}

function countOf(rows: readonly unknown[]): number {
  return Number((rows[0] as { n?: unknown } | undefined)?.n ?? 0);
}
