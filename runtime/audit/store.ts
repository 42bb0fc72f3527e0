/**
 * The audit trail's store: every executed command, refusal, proposal, approval, rejection and dry
 * run, with who did it (a person, or an agent token together with the person who created it). For
 * agent calls it never holds a clear personal value: inputs are stored as the agent sees them
 * (view/caller-view.ts). Entries of a write commit with it; the others are written in groups
 * (`queueAudit`). What a command's outcome writes is events.ts's; admins read it through trail.ts.
 */
import type { Knex } from 'knex';
import { addColumnsIfMissing, createTableIfMissing } from '../db/system-tables.ts';
import type { AuditOutcome, AuditTrailRow } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import { READING_KINDS, type CommandAccess } from '../command-kinds.ts';
import { rowsInsertSql, runStatement } from '../db/statements.ts';
import { newId } from '../ids.ts';
import { countRowsWritten } from '../metrics.ts';

export const AUDIT_TABLE = 'rms_audit';

// Declared with the API's shapes: `GET /api/audit` answers it.
export type { AuditOutcome };

export interface AuditEntry {
  readonly actor: 'person' | 'agent';
  /** The person; for an agent, the person who created its token. */
  readonly userId: string;
  readonly username: string;
  readonly agentTokenId?: string | null;
  readonly agentLabel?: string | null;
  readonly command: string;
  /** Whether the call reads or changes records (proposals, approvals and rejections are about changes). */
  readonly access: AuditAccess;
  readonly recordId?: string | null;
  readonly outcome: AuditOutcome;
  readonly planId?: string | null;
  readonly status?: number | null;
  readonly error?: string | null;
  /** Input of the call (masked for agents); omitted for reads without input. */
  readonly input?: unknown;
  /** The history entry of the change the call made (see history/store.ts). */
  readonly changeId?: string | null;
  /** A dry run (`?dry_run=true`): what would have happened; nothing was changed. */
  readonly dryRun?: boolean;
  /** The request that made the call (`X-Request-Id`), as its log line names it. */
  readonly requestId?: string | null;
}

export type AuditAccess = CommandAccess;

export async function ensureAuditTables(db: Knex): Promise<void> {
  await createTableIfMissing(db, AUDIT_TABLE, (table) => {
    table.string('id', 64).primary();
    table.string('at', 32).notNullable();
    table.string('actor', 16).notNullable();
    table.string('user_id', 64).notNullable();
    table.string('username', 200).notNullable();
    table.string('agent_token_id', 64).nullable();
    table.string('agent_label', 200).nullable();
    table.string('command', 200).notNullable();
    table.string('record_id', 64).nullable();
    table.string('outcome', 16).notNullable();
    table.string('plan_id', 64).nullable();
    table.integer('status').nullable();
    table.text('error').nullable();
    table.text('input').nullable();
    table.index(['at']);
    table.index(['command']);
    table.index(['record_id']);
    table.string('access', 8).nullable();
    table.string('change_id', 64).nullable();
    table.boolean('dry_run').nullable();
    table.string('request_id', 128).nullable();
  });
  // Reads and changes told apart (the web app shows changes by default); rows from before are told apart by their command.
  const added = await addColumnsIfMissing(db, AUDIT_TABLE, {
    access: (table) => table.string('access', 8).nullable(),
    change_id: (table) => table.string('change_id', 64).nullable(),
    dry_run: (table) => table.boolean('dry_run').nullable(),
    request_id: (table) => table.string('request_id', 128).nullable(),
  });
  if (added.includes('access')) {
    const reads = READING_KINDS.map((kind) => `command like '%.${kind}'`).join(' or ');
    await db(AUDIT_TABLE)
      .whereNull('access')
      .update({ access: db.raw(`case when ${reads} then 'read' else 'write' end`) });
  }
}

/** The access of a row stored before rows had one, from its command's name. */
export function accessOfCommandName(command: string): AuditAccess {
  const name = command.slice(command.lastIndexOf('.') + 1);
  return (READING_KINDS as readonly string[]).includes(name) ? 'read' : 'write';
}

/** The columns of an audit row, in the order `auditRow` gives their values. */
const AUDIT_COLUMNS = [
  'id',
  'at',
  'actor',
  'user_id',
  'username',
  'agent_token_id',
  'agent_label',
  'command',
  'record_id',
  'outcome',
  'plan_id',
  'status',
  'error',
  'input',
  'access',
  'change_id',
  'dry_run',
  'request_id',
] as const satisfies readonly (keyof AuditTrailRow)[];

/** Rows per INSERT: well below the bound parameters SQLite (32766) and PostgreSQL (65535) accept. */
const MAX_ROWS_PER_INSERT = 100;

/** The values of one audit row; its id (and, unless given, its time) are taken now, so rows sort in the order they happened. */
function auditRow(entry: AuditEntry, at = new Date().toISOString()): unknown[] {
  return [
    newId(),
    at,
    entry.actor,
    entry.userId,
    entry.username,
    entry.agentTokenId ?? null,
    entry.agentLabel ?? null,
    entry.command,
    entry.recordId ?? null,
    entry.outcome,
    entry.planId ?? null,
    entry.status ?? null,
    entry.error ?? null,
    entry.input === undefined ? null : JSON.stringify(entry.input),
    entry.access,
    entry.changeId ?? null,
    // 1 rather than true: better-sqlite3 binds no booleans, and PostgreSQL reads '1' as true.
    entry.dryRun === true ? 1 : null,
    entry.requestId ?? null,
  ];
}

/** `insert into rms_audit (…) values (?, …), …` for a number of rows. */
const insertSql = rowsInsertSql(AUDIT_TABLE, AUDIT_COLUMNS);

async function insertRows(db: Knex, rows: readonly unknown[][]): Promise<void> {
  countRowsWritten('audit', rows.length);
  // One text per row count, each run prepared (see runStatement).
  await runStatement(db, insertSql(rows.length), rows.flat());
}

/**
 * Writes one entry on `db` at once: inside a transaction (a write command, an approval) the entry
 * commits or rolls back with it. Outside one, `queueAudit` costs less.
 */
export async function writeAudit(db: Knex, entry: AuditEntry): Promise<void> {
  await insertRows(db, [auditRow(entry)]);
}

/** Rows of one insert of a bulk command's entries (a few distinct statement texts, each within the bound-value limits). */
const ENTRIES_PER_INSERT = 200;

/** Writes a bulk command's entries on `db` (its transaction), a few hundred rows a statement. */
export async function writeAuditEntries(db: Knex, entries: readonly AuditEntry[]): Promise<void> {
  // One time for the command's entries: they are written together, in one transaction.
  const at = new Date().toISOString();
  const rows = entries.map((entry) => auditRow(entry, at));
  for (let start = 0; start < rows.length; start += ENTRIES_PER_INSERT) await insertRows(db, rows.slice(start, start + ENTRIES_PER_INSERT));
}

interface AuditQueue {
  write(entry: AuditEntry): Promise<void>;
}

interface QueuedRow {
  readonly values: unknown[];
  readonly stored: () => void;
  readonly failed: (error: unknown) => void;
}

/**
 * Group commit for entries written outside a transaction (reads, refusals, proposals): a commit
 * costs far more than a row (on SQLite each one writes every touched page of the table and its
 * indexes to the WAL), so the entries queued during one turn of the event loop are stored by one
 * INSERT, and while it runs the next ones queue for the following one. Each caller still
 * awaits its own entry: a call is answered only once its entry is stored, exactly as with a
 * single INSERT, so nothing waits in memory beyond the requests in flight, and shutting down
 * (which lets requests in flight finish) never leaves an entry behind.
 */
function createAuditQueue(db: Knex): AuditQueue {
  const queued: QueuedRow[] = [];
  let scheduled = false;
  let flushing = false;

  async function flush(): Promise<void> {
    scheduled = false;
    flushing = true;
    try {
      while (queued.length > 0) await store(queued.splice(0, MAX_ROWS_PER_INSERT));
    } finally {
      flushing = false;
    }
  }

  async function store(batch: readonly QueuedRow[]): Promise<void> {
    try {
      await insertRows(db, batch.map((row) => row.values));
      for (const row of batch) row.stored();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.failed(error);
      // An INSERT stores all its rows or none: one row the database refuses must not fail the
      // calls of the others, so each is stored on its own and its call learns its own outcome.
      for (const row of batch) {
        try {
          await insertRows(db, [row.values]);
          row.stored();
        } catch (rowError) {
          row.failed(rowError);
        }
      }
    }
  }

  return {
    write(entry) {
      return new Promise<void>((stored, failed) => {
        queued.push({ values: auditRow(entry), stored, failed });
        if (scheduled || flushing) return;
        scheduled = true;
        // After this turn's I/O callbacks: every request read in this turn has queued its entry by then.
        setImmediate(flush);
      });
    },
  };
}

const queues = new WeakMap<Knex, AuditQueue>();

/**
 * Writes one entry outside any transaction, grouped with the entries of concurrent calls (see
 * `AuditQueue`); resolves once it is stored, rejects with the database's error otherwise.
 */
export function queueAudit(db: Knex, entry: AuditEntry): Promise<void> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = createAuditQueue(db)));
  return queue.write(entry);
}

/** Who did something, as the trail (and a record's history) names them. */
export type AuditActor = Pick<AuditEntry, 'actor' | 'userId' | 'username' | 'agentTokenId' | 'agentLabel' | 'requestId'>;

/** Who did it, as the trail names them: a person, or an agent token with the person who created it. */
export function auditActor(caller: Caller): AuditActor {
  return caller.kind === 'person'
    ? { actor: 'person', userId: caller.userId, username: caller.username, requestId: caller.requestId ?? null }
    : { actor: 'agent', userId: caller.creatorId, username: caller.creatorUsername, agentTokenId: caller.tokenId, agentLabel: caller.label, requestId: caller.requestId ?? null };
}

