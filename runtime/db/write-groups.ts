/**
 * Group commit of commands' writes on SQLite. SQLite has one writer, and what a commit costs is the
 * pages it writes to the WAL: a lead's `create` changes about thirty B-trees (the record's table,
 * its indexes and its title's search table; the history, audit and event rows with theirs), a page
 * each, and every thousand pages SQLite copies them back into the database file with two fsyncs,
 * inside the commit that crosses the mark. Writes that arrive together mostly change the same pages
 * (the last page of each B-tree), so they share one commit: each runs in a savepoint of the group's
 * transaction, one after the other, and the transaction commits once none of its writes is left
 * running. Every write is answered only after the commit that holds it, so an acknowledged write
 * is as durable as one committed alone.
 *
 * A write that fails rolls back to its savepoint and answers its error at once: nothing of it is
 * kept, and the others are not touched, as if each had had its own transaction. An error after
 * which SQLite has rolled the whole transaction back (a full disk, an I/O error, a trigger's
 * `RAISE(ROLLBACK)`) takes the writes before it with it: they, and those that had not run yet,
 * answer that error, and none of them is acknowledged.
 *
 * PostgreSQL commits concurrent transactions side by side (its own group commit of the WAL
 * flushes), so there each write keeps a transaction of its own.
 */
import type { Knex } from 'knex';

/**
 * Writes one group takes at most. The first write of a group waits for the others to run, and the
 * writer connection serves nothing else meanwhile (the audit rows of reads, sessions, tokens): this
 * bounds both to the time of a few dozen writes.
 */
export const MAX_GROUP_WRITES = 32;

interface SqliteWriter {
  readonly inTransaction: boolean;
  prepare(sql: string): { run(): unknown };
}

const SAVEPOINT = 'SAVEPOINT rms_write';
const RELEASE = 'RELEASE SAVEPOINT rms_write';
const ROLLBACK_TO = 'ROLLBACK TO SAVEPOINT rms_write';

interface Group {
  /** Writes that joined; past MAX_GROUP_WRITES the next starts a group of its own. */
  joined: number;
  /** Joined and not yet done. */
  running: number;
  /** The savepoints run one after the other: the previous write's, settled. */
  previous: Promise<unknown>;
  /** Set when SQLite rolled back the transaction under the group: what every write of it answers. */
  lost?: { readonly error: unknown };
  readonly transaction: Promise<{ readonly trx: Knex.Transaction; readonly connection: SqliteWriter }>;
  /** Settles with the group's COMMIT (or its failure). */
  readonly committed: Promise<void>;
  readonly close: () => void;
  closing: boolean;
}

export interface WriteGroups {
  /** Runs `work` in a savepoint of the current group's transaction; resolves once that transaction has committed. */
  run<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
}

const groupsOf = new WeakMap<Knex, WriteGroups>();

/** The write groups of one SQLite database (one per knex instance: its pool is the one writer connection). */
export function writeGroupsOf(db: Knex): WriteGroups {
  let groups = groupsOf.get(db);
  if (!groups) groupsOf.set(db, (groups = createWriteGroups(db)));
  return groups;
}

function createWriteGroups(db: Knex): WriteGroups {
  let open: Group | undefined;

  function startGroup(): Group {
    let begun!: (value: { trx: Knex.Transaction; connection: SqliteWriter }) => void;
    let failed!: (error: unknown) => void;
    let close!: () => void;
    const transaction = new Promise<{ trx: Knex.Transaction; connection: SqliteWriter }>((resolve, reject) => {
      begun = resolve;
      failed = reject;
    });
    const closed = new Promise<void>((resolve) => (close = resolve));
    const group: Group = {
      joined: 0,
      running: 0,
      closing: false,
      previous: Promise.resolve(),
      transaction,
      close,
      committed: db.transaction(async (trx) => {
        const client = trx.client as { acquireConnection(): Promise<SqliteWriter> };
        begun({ trx, connection: await client.acquireConnection() });
        await closed;
        if (group.lost) throw group.lost.error;
      }),
    };
    // A transaction that never began (the pool closed, BEGIN failed) fails every write of the group.
    // The handler also keeps a failed commit from going unhandled when every write had failed already.
    group.committed.catch(failed);
    return group;
  }

  function leave(group: Group): void {
    group.running -= 1;
    if (group.running > 0) return;
    // better-sqlite3 runs statements synchronously: a write runs to its end without giving the
    // event loop a turn, so the writes of requests read in this same turn have not joined yet.
    // They have by the check phase (setImmediate), after this turn's I/O callbacks.
    setImmediate(() => {
      if (group.running > 0 || group.closing) return;
      group.closing = true;
      if (open === group) open = undefined;
      group.close();
    });
  }

  async function runInGroup<T>(group: Group, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const { trx, connection } = await group.transaction;
    if (group.lost) throw group.lost.error;
    // The writes of a group run one at a time, so one savepoint name serves them all; SQL of
    // our own rather than knex's nested transactions, which build a transaction object each
    // (a twentieth of a create's time in the profile) and name every savepoint anew.
    connection.prepare(SAVEPOINT).run();
    try {
      const value = await work(trx);
      connection.prepare(RELEASE).run();
      return value;
    } catch (error) {
      // A failed statement rolls back itself, and this its write; some errors roll back the whole
      // transaction, and with it the writes before this one.
      if (connection.inTransaction) {
        connection.prepare(ROLLBACK_TO).run();
        connection.prepare(RELEASE).run();
      } else group.lost = { error };
      throw error;
    }
  }

  return {
    async run<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
      let group = open;
      if (!group) group = open = startGroup();
      group.joined += 1;
      group.running += 1;
      if (group.joined >= MAX_GROUP_WRITES) open = undefined;
      const turn = group.previous.then(() => runInGroup(group, work));
      group.previous = turn.catch(() => undefined);
      let value: T;
      try {
        value = await turn;
      } finally {
        leave(group);
      }
      try {
        await group.committed;
      } catch (error) {
        // A later write's error rolled this one back with the transaction: that error, not ROLLBACK's.
        throw group.lost ? group.lost.error : error;
      }
      return value;
    },
  };
}
