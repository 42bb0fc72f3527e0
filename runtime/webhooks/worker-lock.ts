/**
 * Which delivery workers are alive, on PostgreSQL (worker.ts). A lease alone cannot tell a killed
 * instance from a slow one, so a killed instance's claims used to wait out the whole lease. Each
 * worker therefore holds, for as long as it claims, a session-level advisory lock keyed by the
 * name it leases under, on a connection of its own (a pooled connection cannot hold a session
 * lock: the pool hands it to any query, and may close it). The database server releases the lock
 * when that connection ends — at once when the process is killed (its socket is closed by the
 * operating system), within about 25 s when its host vanishes (the TCP keepalives set below) — so
 * another worker's claim sees in `pg_locks` that the holder is gone and takes its leases over at
 * once. The lease stays the fallback for a worker that is alive but hung.
 *
 * If the connection drops while the process lives on, the worker stops claiming until it holds a
 * lock again, under a new name: its old leases are then free for others (what it had in flight
 * may be sent twice: delivery is at least once), and a server that has not yet noticed the old
 * connection's end cannot keep the worker waiting.
 */
import type { Knex } from 'knex';
import type Pg from 'pg';

/** Arbitrary, fixed: the key class of the workers' locks (migrations hold 727_376_701, masking 727_376_702). */
export const WORKER_LOCK_CLASS = 727_376_703;

/**
 * The lock keys of every worker holding its lock on this database, as `pg_locks` shows them (a
 * lock on the pair (class, key) is listed with objsubid 2 and the key as an oid). A lease's holder is
 * alive when `hashtext(leased_by)::oid` is among them.
 */
export const LIVE_WORKERS_SQL = `select objid from pg_locks
  where locktype = 'advisory' and classid = ${WORKER_LOCK_CLASS} and objsubid = 2 and granted
    and database = (select oid from pg_database where datname = current_database())`;

/** How long after a lost or refused lock session a worker tries again. */
const RETRY_MS = 1_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** How long `stop` waits for the lock to be let go before it cuts the session regardless. */
const UNLOCK_TIMEOUT_MS = 2_000;

export interface WorkerLock {
  /** The name this worker leases under while it holds its lock; undefined while it does not. */
  holder(): string | undefined;
  /** Resolves with the name once the lock is held (at once if it is); undefined once stopped. */
  whenHeld(): Promise<string | undefined>;
  /** Drops the lock session (the database releases the lock) and stops taking it again. */
  stop(): Promise<void>;
}

export interface WorkerLockOptions {
  readonly db: Knex;
  /** Each lock session's name is `<instance>/<n>`, n counting the sessions of this worker. */
  readonly instance: string;
  readonly logError: (error: unknown) => void;
}

export function holdWorkerLock(options: WorkerLockOptions): WorkerLock {
  const connectionString = connectionStringOf(options.db);
  let held: string | undefined;
  let stopping = false;
  let waiters: ((name: string | undefined) => void)[] = [];
  let interrupt: (() => void) | undefined;
  let session: Pg.Client | undefined;
  const settle = (name: string | undefined) => {
    for (const waiter of waiters.splice(0)) waiter(name);
  };

  const sessions = (async () => {
    const pg = (await import('pg')).default as typeof Pg;
    for (let number = 1; !stopping; number++) {
      const name = `${options.instance}/${number}`;
      const client = new pg.Client({ connectionString, application_name: WORKER_LOCK_APPLICATION, keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      // Resolved when the session ends, whichever way (an error, the server closing it, `stop`).
      const ended = new Promise<void>((resolve) => {
        client.on('error', (error) => {
          if (!stopping) options.logError(error);
          resolve();
        });
        client.on('end', () => resolve());
        interrupt = resolve;
      });
      try {
        session = client;
        // pg never settles `connect()` once `end()` was called during it (its 'end' handler skips the
        // connect callback when the client is ending): `stop` would wait for it for ever. The session's end settles it.
        const connected = client.connect();
        const endedFirst = ended.then(() => Promise.reject(new Error('the worker lock session ended before it was connected')));
        // Whichever loses the race settles unheard (a rejection nobody hears would stop the process).
        connected.catch(() => undefined);
        endedFirst.catch(() => undefined);
        await Promise.race([connected, endedFirst]);
        // The server notices a vanished host by TCP keepalives: in about 25 s, not the system's default hours.
        await client.query('set tcp_keepalives_idle = 10; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 3');
        const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1, hashtext($2)) as locked', [WORKER_LOCK_CLASS, name]);
        // Refused when another session has this key (a name whose hash another worker's has: rare): the next name is tried.
        if (rows[0]?.locked === true && !stopping) {
          held = name;
          settle(name);
          await ended;
        }
      } catch (error) {
        if (!stopping) options.logError(error);
      } finally {
        session = undefined;
        held = undefined;
        // Not waited for past the session's end: a client ended while connecting may never say it has.
        await Promise.race([client.end().catch(() => undefined), ended]);
      }
      if (!stopping) await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, RETRY_MS);
        interrupt = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    settle(undefined);
  })();

  return {
    holder: () => held,
    whenHeld: () => (held !== undefined || stopping ? Promise.resolve(held) : new Promise((resolve) => waiters.push(resolve))),
    async stop() {
      stopping = true;
      const name = held;
      held = undefined;
      // Let go of the lock before cutting the session: the server releases a session's locks only as
      // its backend exits, a moment after the client has gone, and a stopped worker's lock must be
      // free once `stop` resolves (another instance may take its leases at once). Bounded: a session
      // whose server is unreachable is cut anyway, and the server then releases the lock on its own.
      if (name !== undefined && session !== undefined) {
        const unlocked = session.query('select pg_advisory_unlock($1, hashtext($2))', [WORKER_LOCK_CLASS, name]).catch(() => undefined);
        await Promise.race([unlocked, new Promise((resolve) => setTimeout(resolve, UNLOCK_TIMEOUT_MS).unref())]);
      }
      interrupt?.();
      // The session is cut whatever it is doing: a connection being made is not waited for (the database may be unreachable).
      void session?.end().catch(() => undefined);
      await sessions;
      waiters = [];
    },
  };
}

/** How the lock's connection names itself (`application_name` in pg_stat_activity): beside the pool's `--pool-size`, one per instance. */
export const WORKER_LOCK_APPLICATION = 'rmsgen webhook worker lock';

/** The PostgreSQL connection string knex was opened with (db/connect.ts). */
function connectionStringOf(db: Knex): string {
  const connection = (db.client as { config: { connection?: { connectionString?: unknown } } }).config.connection;
  if (typeof connection?.connectionString !== 'string') throw new Error('the webhook worker lock needs the database connection string');
  return connection.connectionString;
}
