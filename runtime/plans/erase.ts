/**
 * Plans after an erasure (see runtime/erased.ts). A plan keeps its input in clear (resolved when it
 * was proposed) and, once approved, the answer its approver saw: plans of the erased record's model
 * get `{"erased": true}` where its personal values were — under its personal fields' names in the
 * plans about the record (a bulk command's among them when its `ids` name the record), wherever a
 * value equals one of them in the others. A pending plan that
 * carried one can no longer run as it was proposed: it is rejected, by the person erasing, with
 * the reason, and its audit row says so.
 */
import type { Knex } from 'knex';
import { writeAudit, type AuditActor } from '../audit/store.ts';
import { dialectOf } from '../db/connect.ts';
import { personalValuesOf, withPersonalErased, type ErasedValues, type PersonalKeys } from '../erased.ts';
import { decidePlan, PLAN_TABLE, type PlanRow } from './store.ts';

type PlanText = Pick<PlanRow, 'id' | 'command' | 'record_id' | 'input' | 'result' | 'error' | 'status'>;

/** The command input a plan stores (`PreparedCommand`), as far as erasing reads it. */
interface StoredInput {
  readonly input?: unknown;
}

/** The command's answer an approved plan stores (`CommandEnvelope`). */
interface StoredResult {
  readonly value?: unknown;
}

/** The parts of a bulk command's input that hold field values: `update_many`'s `set`, `<action>_many`'s `input`. */
const BULK_VALUE_PARTS = ['set', 'input'] as const;

/**
 * The model's plans about the record: those of a single-record command on it, and bulk commands
 * that name it among their `ids` (whose `set` or `input` would write it). A bulk command that
 * selects by `filter` names no record until it runs, and is not among them.
 */
async function plansAbout(db: Knex, commands: readonly string[], recordId: string): Promise<PlanText[]> {
  const contains = dialectOf(db) === 'postgres' ? 'strpos(??, ?) > 0' : 'instr(??, ?) > 0';
  const rows = (await db(PLAN_TABLE)
    .whereIn('command', [...commands])
    .andWhere((query) => query.where({ record_id: recordId }).orWhere((bulk) => bulk.whereNull('record_id').andWhereRaw(contains, ['input', recordId])))
    .select('id', 'command', 'record_id', 'input', 'result', 'error', 'status')) as PlanText[];
  return rows.filter((row) => row.record_id === recordId || namedAmongIds((JSON.parse(row.input) as StoredInput).input, recordId));
}

function namedAmongIds(input: unknown, recordId: string): boolean {
  const ids = typeof input === 'object' && input !== null ? (input as { ids?: unknown }).ids : undefined;
  return Array.isArray(ids) && ids.includes(recordId);
}

/** A plan's input about the record, its personal values (and its bulk parts') visited. */
function visitPersonalValues(input: unknown, keys: PersonalKeys, visit: (value: unknown) => void): void {
  personalValuesOf(input, keys, visit);
  if (typeof input !== 'object' || input === null) return;
  for (const part of BULK_VALUE_PARTS) personalValuesOf((input as Record<string, unknown>)[part], keys, visit);
}

/** A plan's input about the record with its personal values (and its bulk parts') as the marker. */
function withPersonalValuesErased(input: unknown, keys: PersonalKeys): { value: unknown; changed: boolean } {
  const top = withPersonalErased(input, keys);
  if (typeof top.value !== 'object' || top.value === null || Array.isArray(top.value)) return top;
  let changed = top.changed;
  const out: Record<string, unknown> = { ...(top.value as Record<string, unknown>) };
  for (const part of BULK_VALUE_PARTS) {
    if (!(part in out)) continue;
    const erased = withPersonalErased(out[part], keys);
    if (erased.changed) {
      out[part] = erased.value;
      changed = true;
    }
  }
  return { value: changed ? out : input, changed };
}

/** Adds the personal values of the plans about the record (their inputs and answers) to `values`. */
export async function collectPlanValues(db: Knex, commands: readonly string[], recordId: string, keys: PersonalKeys, values: ErasedValues): Promise<void> {
  for (const row of await plansAbout(db, commands, recordId)) {
    visitPersonalValues((JSON.parse(row.input) as StoredInput).input, keys, (value) => values.add(value));
    if (row.result !== null && row.record_id === recordId) personalValuesOf((JSON.parse(row.result) as StoredResult).value, keys, (value) => values.add(value));
  }
}

/** What erasing did to plans. */
export interface PlansErased {
  /** Plans whose input, answer or error changed. */
  readonly changed: number;
  /** Pending plans among them, rejected. */
  readonly rejected: number;
}

/**
 * Rewrites the model's plans without the values (`commands`: every command id of the model) and
 * rejects the pending ones that carried any, as `by`, with `reason`.
 */
export async function eraseFromPlans(db: Knex, commands: readonly string[], recordId: string, keys: PersonalKeys, values: ErasedValues, by: AuditActor, reason: string): Promise<PlansErased> {
  const about = await plansAbout(db, commands, recordId);
  const tiedIds = new Set(about.map((row) => row.id));
  const rows = [...about];
  if (values.size > 0) {
    const contains = dialectOf(db) === 'postgres' ? 'strpos(??, ?) > 0' : 'instr(??, ?) > 0';
    const others = (await db(PLAN_TABLE)
      .whereIn('command', [...commands])
      .andWhere((query) => query.whereNull('record_id').orWhereNot('record_id', recordId))
      .andWhere((query) => {
        for (const needle of values.needles()) query.orWhereRaw(contains, ['input', needle]).orWhereRaw(contains, ['result', needle]);
        for (const text of values.all()) query.orWhereRaw(contains, ['error', text]);
      })
      .select('id', 'command', 'record_id', 'input', 'result', 'error', 'status')) as PlanText[];
    rows.push(...others.filter((row) => !tiedIds.has(row.id)));
  }
  let changed = 0;
  let rejected = 0;
  for (const row of rows) {
    const tied = tiedIds.has(row.id);
    const input = JSON.parse(row.input) as StoredInput & Record<string, unknown>;
    const keyedInput = tied ? withPersonalValuesErased(input.input, keys) : { value: input.input, changed: false };
    const redactedInput = values.redact(keyedInput.value);
    const inputChanged = keyedInput.changed || redactedInput.changed;
    let result = row.result;
    if (result !== null) {
      const parsed = JSON.parse(result) as StoredResult & Record<string, unknown>;
      // A bulk command's answer lists every record it changed: only the values equal to the record's are taken out.
      const keyed = row.record_id === recordId ? withPersonalErased(parsed.value, keys) : { value: parsed.value, changed: false };
      const redacted = values.redact(keyed.value);
      if (keyed.changed || redacted.changed) result = JSON.stringify({ ...parsed, value: redacted.value });
    }
    const error = row.error === null ? null : values.redactText(row.error);
    if (!inputChanged && result === row.result && error === row.error) continue;
    changed++;
    await db(PLAN_TABLE)
      .where({ id: row.id })
      .update({ input: inputChanged ? JSON.stringify({ ...input, input: redactedInput.value }) : row.input, result, error });
    if (row.status !== 'pending' || !inputChanged) continue;
    if (await decidePlan(db, row.id, { status: 'rejected', decidedBy: by.userId, error: reason })) {
      rejected++;
      await writeAudit(db, { ...by, command: row.command, access: 'write', recordId: row.record_id, outcome: 'rejected', planId: row.id, error: reason });
    }
  }
  return { changed, rejected };
}
