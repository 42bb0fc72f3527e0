/**
 * The audit trail after an erasure (see runtime/erased.ts): the rows of the erased record's model
 * keep who did what and when, with `{"erased": true}` where its personal values were — in the rows
 * about the record itself, under its personal fields' names whatever the value; in the model's
 * other rows (a search's filter, a refused create), wherever a value equals one of them. Rows of
 * other models hold their own records' values and are left as they are.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { withPersonalErased, personalValuesOf, type ErasedValues, type PersonalKeys } from '../erased.ts';
import { AUDIT_TABLE } from './store.ts';

interface AuditRowText {
  readonly id: string;
  readonly input: string | null;
  readonly error: string | null;
}

/**
 * Adds the personal values people sent in the rows about the record to `values` (an agent's rows
 * hold its tokens, never a clear value: see store.ts).
 */
export async function collectAuditValues(db: Knex, commands: readonly string[], recordId: string, keys: PersonalKeys, values: ErasedValues): Promise<void> {
  const rows = (await db(AUDIT_TABLE).where({ record_id: recordId, actor: 'person' }).whereIn('command', [...commands]).whereNotNull('input').select('input')) as { input: string }[];
  for (const row of rows) personalValuesOf(JSON.parse(row.input), keys, (value) => values.add(value));
}

/** Rewrites the model's rows without the values (`commands`: every command id of the model); answers how many changed. */
export async function eraseFromAudit(db: Knex, commands: readonly string[], recordId: string, keys: PersonalKeys, values: ErasedValues): Promise<number> {
  let changed = 0;
  const about = (await db(AUDIT_TABLE).where({ record_id: recordId }).whereIn('command', [...commands]).select('id', 'input', 'error')) as AuditRowText[];
  for (const row of about) if (await rewrite(db, row, values, keys)) changed++;
  if (values.size === 0) return changed;
  const contains = dialectOf(db) === 'postgres' ? 'strpos(??, ?) > 0' : 'instr(??, ?) > 0';
  const others = (await db(AUDIT_TABLE)
    .whereIn('command', [...commands])
    .andWhere((query) => query.whereNull('record_id').orWhereNot('record_id', recordId))
    .andWhere((query) => {
      for (const needle of values.needles()) query.orWhereRaw(contains, ['input', needle]);
      for (const text of values.all()) query.orWhereRaw(contains, ['error', text]);
    })
    .select('id', 'input', 'error')) as AuditRowText[];
  for (const row of others) if (await rewrite(db, row, values)) changed++;
  return changed;
}

/** Stores the row without the values (and, with `keys`, without any value under a personal field's name); whether it changed. */
async function rewrite(db: Knex, row: AuditRowText, values: ErasedValues, keys?: PersonalKeys): Promise<boolean> {
  let input = row.input;
  if (input !== null) {
    const parsed: unknown = JSON.parse(input);
    const keyed = keys ? withPersonalErased(parsed, keys) : { value: parsed, changed: false };
    const redacted = values.redact(keyed.value);
    if (keyed.changed || redacted.changed) input = JSON.stringify(redacted.value);
  }
  const error = row.error === null ? null : values.redactText(row.error);
  if (input === row.input && error === row.error) return false;
  await db(AUDIT_TABLE).where({ id: row.id }).update({ input, error });
  return true;
}
