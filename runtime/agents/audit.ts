/**
 * The audit trail: every executed command, refusal, proposal, approval and rejection, with who
 * did it (a person, or an agent token together with the person who created it). For agent calls
 * it never holds a clear personal value: inputs are stored as the agent sees them (masked).
 *
 * Admins read it with the same filter/order/paging input as `search`: the trail is described as a
 * model (`auditModel`) so the one list compiler serves it.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../db/connect.ts';
import { newId } from '../ids.ts';
import type { ListInput } from '../kinds.ts';
import { applyWhere, compileList, compileModelQuery, type ModelQuery } from '../query/list-query.ts';
import type { FieldMeta, ModelMeta } from '../registry.ts';

export const AUDIT_TABLE = 'rms_audit';

export type AuditOutcome = 'executed' | 'refused' | 'failed' | 'proposed' | 'approved' | 'rejected';

export interface AuditEntry {
  readonly actor: 'person' | 'agent';
  /** The person; for an agent, the person who created its token. */
  readonly userId: string;
  readonly username: string;
  readonly agentTokenId?: string | null;
  readonly agentLabel?: string | null;
  readonly command: string;
  readonly recordId?: string | null;
  readonly outcome: AuditOutcome;
  readonly planId?: string | null;
  readonly status?: number | null;
  readonly error?: string | null;
  /** Input of the call (masked for agents); omitted for reads without input. */
  readonly input?: unknown;
}

export async function ensureAuditTables(db: Knex): Promise<void> {
  if (await db.schema.hasTable(AUDIT_TABLE)) return;
  await db.schema.createTable(AUDIT_TABLE, (table) => {
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
  });
}

export async function writeAudit(db: Knex, entry: AuditEntry): Promise<void> {
  await db(AUDIT_TABLE).insert({
    id: newId(),
    at: new Date().toISOString(),
    actor: entry.actor,
    user_id: entry.userId,
    username: entry.username,
    agent_token_id: entry.agentTokenId ?? null,
    agent_label: entry.agentLabel ?? null,
    command: entry.command,
    record_id: entry.recordId ?? null,
    outcome: entry.outcome,
    plan_id: entry.planId ?? null,
    status: entry.status ?? null,
    error: entry.error ?? null,
    input: entry.input === undefined ? null : JSON.stringify(entry.input),
  });
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
  ],
  actions: [],
  referencedBy: [],
};

const AUDIT_FIELDS = new Set(auditModel.fields.map((f) => f.name));
const queries = new Map<Dialect, ModelQuery>();

/** `search` over the trail: `{rows, total}`, newest first unless an order is given. */
export async function searchAudit(db: Knex, dialect: Dialect, input: ListInput): Promise<{ rows: Record<string, unknown>[]; total: number }> {
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
  const rows = (await select) as Record<string, unknown>[];
  return {
    rows: rows.map((row) => ({
      ...row,
      status: row.status === null || row.status === undefined ? null : Number(row.status),
      input: typeof row.input === 'string' ? JSON.parse(row.input) : null,
    })),
    total: Number(counted?.total ?? 0),
  };
}
