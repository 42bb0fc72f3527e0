/**
 * The audit trail as admins read it (`GET /api/audit`): the input of `search` over the trail,
 * which is described as a model (`auditModel`) so that the one list compiler serves it, and each
 * row with the title of its record as it is now, read through the record's generated queries.
 */
import type { AuditAnswer, AuditTrailRow } from '../api-shapes.ts';
import type { RecordService } from '../commands/types.ts';
import type { Dialect } from '../db/connect.ts';
import { LIMITS, type ListInput } from '../kinds.ts';
import { applyWhere, compileList, compileModelQuery, type ModelQuery } from '../query/list-query.ts';
import type { FieldMeta, ModelMeta } from '../registry.ts';
import { accessOfCommandName, AUDIT_TABLE, type AuditAccess } from './store.ts';

function field(name: string, kind: FieldMeta['kind'], label: string, options?: readonly string[]): FieldMeta {
  return { name, kind, label, description: '', required: false, personal: false, governed: false, hiddenFromAgents: false, computed: false, ...(options ? { options } : {}) };
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
    field('at', 'datetime', 'At'),
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
    field('dry_run', 'bool', 'Dry run'),
    field('request_id', 'text', 'Request'),
  ],
  actions: [],
  referencedBy: [],
  lines: [],
  uniques: [],
  rules: [],
};

/** An audit row as the database gives it: `input` is JSON text; `status` is made a number below. */
type StoredAuditRow = Omit<AuditTrailRow, 'status' | 'input' | 'access' | 'record_title' | 'dry_run'> & {
  readonly status: unknown;
  readonly input: unknown;
  readonly access: AuditAccess | null;
  readonly dry_run: unknown;
};

const AUDIT_FIELDS = new Set(auditModel.fields.map((f) => f.name));
const queries = new Map<Dialect, ModelQuery>();

/** `search` over the trail: `{rows, total}`, newest first unless an order is given; each row with its record's title. */
export async function searchAudit(service: RecordService, input: ListInput): Promise<AuditAnswer> {
  const { db, dialect } = service;
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
  const titles = await recordTitles(service, rows);
  return {
    rows: rows.map((row) => ({
      ...row,
      status: row.status === null || row.status === undefined ? null : Number(row.status),
      input: typeof row.input === 'string' ? JSON.parse(row.input) : null,
      access: row.access ?? accessOfCommandName(row.command),
      change_id: row.change_id ?? null,
      dry_run: row.dry_run === true || row.dry_run === 1,
      request_id: row.request_id ?? null,
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
 * The titles of the records the rows name, as they are now (one query per model and thousand ids
 * on the page, through the model's generated queries): people read a trail of titles, not ids. A
 * title field that is personal is left out: the trail holds no clear personal value of an agent's
 * call, and shows none either.
 */
async function recordTitles(service: RecordService, rows: readonly StoredAuditRow[]): Promise<Map<string, string>> {
  const idsByModel = new Map<string, Set<string>>();
  for (const row of rows) {
    const model = modelOf(row.command);
    if (row.record_id === null || !service.models.has(model)) continue;
    const ids = idsByModel.get(model) ?? new Set<string>();
    ids.add(row.record_id);
    idsByModel.set(model, ids);
  }
  const titles = new Map<string, string>();
  for (const [name, ids] of idsByModel) {
    const model = service.models.get(name)!;
    const title = model.meta.titleField;
    if (model.personal.has(title)) continue;
    const wanted = [...ids];
    for (let i = 0; i < wanted.length; i += LIMITS.inValues) {
      const list = compileList(model.query, new Set<string>(), { filter: [{ field: 'id', op: 'in', value: wanted.slice(i, i + LIMITS.inValues) }] });
      for (const record of (await model.queries.list(service.db, list)) as Record<string, unknown>[]) {
        const value = record[title];
        if (value !== null && value !== undefined) titles.set(`${name}\u0000${String(record.id)}`, String(value));
      }
    }
  }
  return titles;
}
