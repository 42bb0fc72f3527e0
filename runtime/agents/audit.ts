/**
 * The audit trail: every executed command, refusal, proposal, approval and rejection, with who
 * did it (a person, or an agent token together with the person who created it). For agent calls
 * it never holds a clear personal value: inputs are stored as the agent sees them (masked).
 *
 * Admins read it with the same filter/order/paging input as `search`: the trail is described as a
 * model (`auditModel`) so the one list compiler serves it.
 */
import type { Knex } from 'knex';
import { addColumnsIfMissing, createTableIfMissing } from '../db/system-tables.ts';
import type { AuditAnswer, AuditOutcome, AuditTrailRow, CommandKind } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { AuditEvent, CommandContext, PreparedCommand } from '../commands/types.ts';
import { dialectOf, type Dialect } from '../db/connect.ts';
import { runPrepared, sqlIdentifier, sqlIdentifiers } from '../db/statements.ts';
import { newId } from '../ids.ts';
import type { ListInput } from '../kinds.ts';
import { applyWhere, compileList, compileModelQuery, type ModelQuery } from '../query/list-query.ts';
import type { FieldMeta, ModelMeta, Registry } from '../registry.ts';
import { inputAsWritten } from './masking.ts';

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
}

export type AuditAccess = 'read' | 'write';

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
  });
  // Reads and changes told apart (the web app shows changes by default); rows from before are told apart by their command.
  const added = await addColumnsIfMissing(db, AUDIT_TABLE, {
    access: (table) => table.string('access', 8).nullable(),
    change_id: (table) => table.string('change_id', 64).nullable(),
  });
  if (added.includes('access')) {
    await db(AUDIT_TABLE)
      .whereNull('access')
      .update({
        access: db.raw(`case when command like '%.get' or command like '%.list' or command like '%.search' then 'read' else 'write' end`),
      });
  }
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
] as const satisfies readonly (keyof AuditTrailRow)[];

/** Rows per INSERT: well below the bound parameters SQLite (32766) and PostgreSQL (65535) accept. */
const MAX_ROWS_PER_INSERT = 100;

/** The values of one audit row; its id and time are taken now, so rows sort in the order they happened. */
function auditRow(entry: AuditEntry): unknown[] {
  return [
    newId(),
    new Date().toISOString(),
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
  ];
}

const insertSqlByRows: string[] = [];

/** `insert into rms_audit (…) values (?, …), …` for `rows` rows, written once per row count. */
function insertSql(rows: number): string {
  let sql = insertSqlByRows[rows];
  if (sql === undefined) {
    const values = `(${AUDIT_COLUMNS.map(() => '?').join(', ')})`;
    sql = `insert into ${sqlIdentifier(AUDIT_TABLE)} (${sqlIdentifiers(AUDIT_COLUMNS)}) values ${Array.from({ length: rows }, () => values).join(', ')}`;
    insertSqlByRows[rows] = sql;
  }
  return sql;
}

async function insertRows(db: Knex, rows: readonly unknown[][]): Promise<void> {
  // One text per row count: on PostgreSQL each runs prepared (see runPrepared).
  if (dialectOf(db) === 'postgres') await runPrepared(db, insertSql(rows.length), rows.flat());
  else await db.raw(insertSql(rows.length), rows.flat() as Knex.RawBinding[]);
}

/**
 * Writes one entry on `db` at once: inside a transaction (a write command, an approval) the entry
 * commits or rolls back with it. Outside one, `queueAudit` costs less.
 */
export async function writeAudit(db: Knex, entry: AuditEntry): Promise<void> {
  await insertRows(db, [auditRow(entry)]);
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

/**
 * Records what happened to a command. `executed`: inside the command's transaction (for writes),
 * so the entry commits with it; other outcomes: after the fact, on the database, where entries
 * join the next group commit (see `queueAudit`).
 */
export async function writeAuditEvent(ctx: CommandContext, event: AuditEvent, db: Knex): Promise<void> {
  const entry = auditEntry(ctx, event);
  if (db === ctx.service.db) await queueAudit(db, entry);
  else await writeAudit(db, entry);
}

/** Who did something, as the trail (and a record's history) names them. */
export type AuditActor = Pick<AuditEntry, 'actor' | 'userId' | 'username' | 'agentTokenId' | 'agentLabel'>;

/** Who did it, as the trail names them: a person, or an agent token with the person who created it. */
export function auditActor(caller: Caller): AuditActor {
  return caller.kind === 'person'
    ? { actor: 'person', userId: caller.userId, username: caller.username }
    : { actor: 'agent', userId: caller.creatorId, username: caller.creatorUsername, agentTokenId: caller.tokenId, agentLabel: caller.label };
}

function auditEntry(ctx: CommandContext, event: AuditEvent): AuditEntry {
  const base = { ...auditActor(ctx.caller), command: ctx.command.meta.id, access: accessOf(ctx.command.meta.kind) };
  const input = event.prepared ? auditInput(ctx, event.prepared) : undefined;
  const recordId = event.prepared?.recordId ?? null;
  switch (event.outcome) {
    case 'executed':
      return { ...base, outcome: 'executed', recordId: event.recordId ?? recordId, input, changeId: event.changeId ?? null };
    case 'proposed':
      return { ...base, outcome: 'proposed', recordId, planId: event.planId, input };
    case 'refused':
      return { ...base, outcome: 'refused', recordId, status: event.status, error: event.error, input };
    case 'failed':
      return { ...base, outcome: 'failed', recordId, status: 500, error: event.error, input };
  }
}

/** Reads are get, list, search and history; every other command changes records. */
export function accessOf(kind: CommandKind): AuditAccess {
  return kind === 'get' || kind === 'list' || kind === 'search' || kind === 'history' ? 'read' : 'write';
}

/**
 * Writes keep their input; reads keep only a list's filter/order/paging. An agent's input is kept
 * as the agent sees it: its personal values as the tokens it knows them by, never in clear.
 */
function auditInput(ctx: CommandContext, prepared: PreparedCommand): unknown {
  if (ctx.command.meta.kind === 'get') return undefined;
  return ctx.caller.kind === 'agent' ? inputAsWritten(prepared.input, prepared.written) : { ...prepared.input };
}

function field(name: string, kind: FieldMeta['kind'], label: string, options?: readonly string[]): FieldMeta {
  return { name, kind, label, description: '', required: false, personal: false, governed: false, hiddenFromAgents: false, ...(options ? { options } : {}) };
}

/** The audit trail described as a model, so `GET /api/audit` takes the input of `search`. */
export const auditModel: ModelMeta = {
  name: 'audit',
  module: 'rmsgen',
  label: 'Audit trail',
  description: 'Who ran which command on which record, and what came of it.',
  table: { name: AUDIT_TABLE, columns: [], indexes: [] },
  titleField: 'command',
  fields: [
    field('at', 'text', 'At'),
    field('actor', 'select', 'Actor', ['person', 'agent']),
    field('user_id', 'text', 'Person id'),
    field('username', 'text', 'Person'),
    field('agent_token_id', 'text', 'Agent token id'),
    field('agent_label', 'text', 'Agent'),
    field('command', 'text', 'Command'),
    field('record_id', 'text', 'Record'),
    field('outcome', 'select', 'Outcome', ['executed', 'refused', 'failed', 'proposed', 'approved', 'rejected']),
    field('plan_id', 'text', 'Plan'),
    field('status', 'number', 'Status'),
    field('error', 'text', 'Error'),
    field('input', 'longtext', 'Input'),
    field('access', 'select', 'Access', ['read', 'write']),
    field('change_id', 'text', 'Change'),
  ],
  actions: [],
  referencedBy: [],
};

/** An audit row as the database gives it: `input` is JSON text; `status` is made a number below. */
type StoredAuditRow = Omit<AuditTrailRow, 'status' | 'input' | 'access' | 'record_title'> & {
  readonly status: unknown;
  readonly input: unknown;
  readonly access: AuditAccess | null;
};

const AUDIT_FIELDS = new Set(auditModel.fields.map((f) => f.name));
const queries = new Map<Dialect, ModelQuery>();

/** `search` over the trail: `{rows, total}`, newest first unless an order is given; each row with its record's title. */
export async function searchAudit(db: Knex, dialect: Dialect, registry: Registry, input: ListInput): Promise<AuditAnswer> {
  let query = queries.get(dialect);
  if (!query) queries.set(dialect, (query = compileModelQuery(auditModel, dialect)));
  const order = input.order && input.order.length > 0 ? input.order : [{ field: 'id', dir: 'desc' as const }];
  const list = compileList(query, AUDIT_FIELDS, { ...input, order });
  const counted = await applyWhere(db(AUDIT_TABLE), list).count({ total: '*' }).first();
  const select = applyWhere(db(AUDIT_TABLE).select('*'), list).orderByRaw(list.orderBy);
  if (list.limit !== undefined) select.limit(list.limit);
  if (list.offset !== undefined) {
    if (list.limit === undefined) select.limit(Number.MAX_SAFE_INTEGER);
    select.offset(list.offset);
  }
  const rows = (await select) as StoredAuditRow[];
  const titles = await recordTitles(db, registry, rows);
  return {
    rows: rows.map((row) => ({
      ...row,
      status: row.status === null || row.status === undefined ? null : Number(row.status),
      input: typeof row.input === 'string' ? JSON.parse(row.input) : null,
      access: row.access ?? (/\.(get|list|search|history)$/.test(row.command) ? 'read' : 'write'),
      change_id: row.change_id ?? null,
      record_title: row.record_id === null ? null : (titles.get(`${modelOf(row.command)}\u0000${row.record_id}`) ?? null),
    })),
    total: Number(counted?.total ?? 0),
  };
}

/** `lead` of `lead.update`. */
function modelOf(command: string): string {
  return command.slice(0, Math.max(0, command.indexOf('.')));
}

/**
 * The titles of the records the rows name, as they are now (one query per model on the page):
 * people read a trail of titles, not ids. A title field that is personal is left out: the trail
 * holds no clear personal value of an agent's call, and shows none either.
 */
async function recordTitles(db: Knex, registry: Registry, rows: readonly StoredAuditRow[]): Promise<Map<string, string>> {
  const idsByModel = new Map<string, Set<string>>();
  for (const row of rows) {
    const model = modelOf(row.command);
    if (row.record_id === null || !Object.hasOwn(registry.models, model)) continue;
    const ids = idsByModel.get(model) ?? new Set<string>();
    ids.add(row.record_id);
    idsByModel.set(model, ids);
  }
  const titles = new Map<string, string>();
  for (const [name, ids] of idsByModel) {
    const model = registry.models[name]!;
    const title = model.titleField;
    if (model.fields.some((field) => field.name === title && field.personal)) continue;
    const found: Record<string, unknown>[] = await db(model.table.name).select('id', title).whereIn('id', [...ids]);
    for (const record of found) {
      const value = record[title];
      if (value !== null && value !== undefined) titles.set(`${name}\u0000${String(record.id)}`, String(value));
    }
  }
  return titles;
}
