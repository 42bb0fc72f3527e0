/**
 * Plans after an erasure (see runtime/erased.ts). A plan keeps its input in clear (resolved when it
 * was proposed) and, once approved, the answer its approver saw: plans of the erased record's model
 * get `{"erased": true}` where its personal values were — under its personal fields' names in the
 * plans about the record, wherever a value equals one of them in the others. A pending plan that
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

/** Adds the personal values of the plans about the record (their inputs and answers) to `values`. */
export async function collectPlanValues(db: Knex, commands: readonly string[], recordId: string, keys: PersonalKeys, values: ErasedValues): Promise<void> {
  const rows = (await db(PLAN_TABLE).where({ record_id: recordId }).whereIn('command', [...commands]).select('input', 'result')) as Pick<PlanRow, 'input' | 'result'>[];
  for (const row of rows) {
    personalValuesOf((JSON.parse(row.input) as StoredInput).input, keys, (value) => values.add(value));
    if (row.result !== null) personalValuesOf((JSON.parse(row.result) as StoredResult).value, keys, (value) => values.add(value));
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
  const about = (await db(PLAN_TABLE).where({ record_id: recordId }).whereIn('command', [...commands]).select('id', 'command', 'record_id', 'input', 'result', 'error', 'status')) as PlanText[];
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
    rows.push(...others);
  }
  let changed = 0;
  let rejected = 0;
  for (const row of rows) {
    const tied = row.record_id === recordId;
    const input = JSON.parse(row.input) as StoredInput & Record<string, unknown>;
    const keyedInput = tied ? withPersonalErased(input.input, keys) : { value: input.input, changed: false };
    const redactedInput = values.redact(keyedInput.value);
    const inputChanged = keyedInput.changed || redactedInput.changed;
    let result = row.result;
    if (result !== null) {
      const parsed = JSON.parse(result) as StoredResult & Record<string, unknown>;
      const keyed = tied ? withPersonalErased(parsed.value, keys) : { value: parsed.value, changed: false };
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
