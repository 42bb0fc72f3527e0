/**
 * `<model>.erase {id}` (GDPR article 17): forgets the personal data of one record, in one
 * transaction. Its personal fields, and its lines', become empty; the values they hold, held before
 * (its history) or were sent for it (audit inputs, plans) — the erased values — leave the service's
 * own tables: its history entries keep the fields' names with `{"erased": true}`, the audit trail
 * and plans of its model keep who did what with the marker where the values were, pending plans
 * that carried one are rejected, every agent's masking tokens of them are emptied, and the bindings
 * of the record and its lines go. Records that refer to it keep their refs; nothing else of it
 * changes (required fields may be left empty; its rules and computed fields are not run: the law's
 * erasure does not wait for a rule). What stays is said in docs/operations.md.
 *
 * A record already deleted can be erased too: its history, audit rows and plans still hold its
 * values. An id that was never a record's is `<model> <id> not found`.
 */
import type { Knex } from 'knex';
import { eraseFromAudit, collectAuditValues } from '../audit/erase.ts';
import { auditActor } from '../audit/store.ts';
import { searchDesign } from '../db/migrate/index-design.ts';
import { sqlIdentifier } from '../db/statements.ts';
import { erasedValueOf, ErasedValues, type PersonalKeys } from '../erased.ts';
import type { FieldMeta } from '../registry.ts';
import { applyHistoryErasure, forgetErasedTokens, planHistoryErasure } from '../history/erase.ts';
import type { LinesChange } from '../history/store.ts';
import { eraseFiles } from '../files/erase.ts';
import { eraseMaskedValues, forgetBindings, forgetBindingsOfValues } from '../masking/erase.ts';
import { collectPlanValues, eraseFromPlans } from '../plans/erase.ts';
import type { StoredLine } from '../registry.ts';
import { eraseFromEvents } from '../webhooks/erase.ts';
import { linesOfRecord } from './documents.ts';
import type { ErasedFields, ErasureResult } from './results.ts';
import type { CommandContext, CompiledModel, RecordService } from './types.ts';

/** The erased values, in the erasure's transaction: everything else that keeps a copy of records forgets them here. */
export interface Erasure {
  readonly service: RecordService;
  readonly model: string;
  readonly recordId: string;
  readonly values: ErasedValues;
}

/**
 * What else holds records' personal values, each forgetting them in the erasure's transaction
 * (answering how many of its rows changed). The seam for what comes later: an outbox of events
 * (pending deliveries carry records as their subscribers see them) adds its step here.
 */
const ERASURE_STEPS: readonly { readonly name: string; erase(db: Knex, erasure: Erasure): Promise<number> }[] = [
  { name: 'events', erase: eraseFromEvents },
  // After history and plans are rewritten: a file they no longer name is forgotten.
  { name: 'files', erase: eraseFiles },
];

/** Erases the record's personal data in `db` (the command's transaction); undefined when no record ever had this id. */
export async function eraseRecord(ctx: CommandContext, db: Knex, recordId: string): Promise<ErasureResult | undefined> {
  const model = ctx.command.model;
  const name = model.meta.name;
  const keys = personalKeys(model);
  const inputKeys = new Set(model.meta.actions.flatMap((action) => action.inputs.filter((input) => !input.field && input.personal).map((input) => input.name)));
  const commands = [...ctx.service.commands.values()].filter((command) => command.meta.model === name).map((command) => command.meta.id);

  const record = (await model.queries.lockForWrite(db, recordId)) as Readonly<Record<string, unknown>> | undefined;
  const lines = record && model.lines.size > 0 ? await linesOfRecord(db, model, recordId) : {};
  const personalFields = model.meta.fields.filter((field) => field.personal);
  const personalLineFields = Object.fromEntries(model.meta.lines.map((list) => [list.name, list.fields.filter((field) => field.personal)]));
  const values = new ErasedValues(erasedTexts([...personalFields, ...Object.values(personalLineFields).flat()]));
  const emptied = erasedFields(record, personalFields, values);
  const emptiedLines: Record<string, { line: StoredLine; position: number; changes: Record<string, unknown> }[]> = {};
  for (const [list, fields] of Object.entries(personalLineFields)) {
    (lines[list] ?? []).forEach((line, position) => {
      const changes = erasedFields(line, fields, values);
      if (Object.keys(changes).length > 0) (emptiedLines[list] ??= []).push({ line, position, changes });
    });
  }
  const history = await planHistoryErasure(db, name, recordId, keys, inputKeys, values);
  if (!record && history.entries === 0) return undefined;
  await collectAuditValues(db, commands, recordId, keys, values);
  await collectPlanValues(db, commands, recordId, keys, values);

  // Every value is known now: each store forgets them.
  if (Object.keys(emptied).length > 0) await model.queries.update(db, recordId, emptied);
  for (const [list, emptiedOfList] of Object.entries(emptiedLines)) {
    await model.lines.get(list)!.queries.update(db, recordId, emptiedOfList.map(({ line, position, changes }) => ({ id: line.id, changes, position })));
  }
  const historyEntries = await applyHistoryErasure(db, history);
  const auditRows = await eraseFromAudit(db, commands, recordId, keys, values);
  const plans = await eraseFromPlans(db, commands, recordId, keys, values, auditActor(ctx.caller), `${name} ${recordId} was erased`);
  const erasedTokens = await eraseMaskedValues(db, values);
  const maskTokens = erasedTokens.length;
  await forgetErasedTokens(db, erasedTokens);
  let bindings = await forgetBindings(db, name, [recordId]);
  for (const list of model.lines.keys()) {
    const lineIds = new Set([...(lines[list] ?? []).map((line) => line.id), ...history.lineIds]);
    bindings += await forgetBindings(db, `${name}.${list}`, [...lineIds]);
  }
  bindings += await forgetBindingsOfValues(db, values);
  for (const step of ERASURE_STEPS) await step.erase(db, { service: ctx.service, model: name, recordId, values });
  if (ctx.service.dialect === 'sqlite') await rebuildSearchTables(db, model);

  const fields = [...Object.keys(emptied), ...Object.entries(emptiedLines).flatMap(([list, emptiedOfList]) => [...new Set(emptiedOfList.flatMap(({ changes }) => Object.keys(changes)))].map((field) => `${list}.${field}`))];
  const change = erasureChange(recordId, emptied, emptiedLines);
  return {
    shape: 'erased',
    recordId,
    erased: {
      id: recordId,
      fields: ordered(model, fields),
      history_entries: historyEntries,
      audit_rows: auditRows,
      plans: plans.changed,
      plans_rejected: plans.rejected,
      mask_tokens: maskTokens,
      bindings,
    },
    ...(change ? { change } : {}),
    ...(ctx.service.dialect === 'sqlite' ? { afterCommit: () => checkpoint(ctx.service) } : {}),
  };
}

/** Each personal field of the record (or line) that holds a value, with what it holds once erased; adds the values to `values`. */
function erasedFields(record: Readonly<Record<string, unknown>> | undefined, fields: readonly FieldMeta[], values: ErasedValues): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const field of fields) {
    const value = record?.[field.name];
    const erased = erasedValueOf(field);
    if (value === null || value === undefined || value === erased) continue;
    values.add(value);
    changes[field.name] = erased;
  }
  return changes;
}

/** The texts of the erased values of these fields (the required ones'): never a person's value to forget. */
function erasedTexts(fields: readonly FieldMeta[]): Set<string> {
  const texts = new Set<string>();
  for (const field of fields) {
    const erased = erasedValueOf(field);
    if (erased !== null) texts.add(typeof erased === 'string' ? erased : JSON.stringify(erased));
  }
  return texts;
}

/** The personal fields of a model and of its line lists. */
function personalKeys(model: CompiledModel): PersonalKeys {
  const lines: Record<string, ReadonlySet<string>> = {};
  for (const [name, list] of model.lines) if (list.personal.size > 0) lines[name] = new Set(list.personal.keys());
  return { fields: new Set(model.personal.keys()), lines };
}

/** `<field>` and `<lines>.<field>` names in the model's declaration order. */
function ordered(model: CompiledModel, names: readonly string[]): string[] {
  const order = [...model.meta.fields.map((field) => field.name), ...model.meta.lines.flatMap((list) => list.fields.map((field) => `${list.name}.${field.name}`))];
  return [...names].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

/** The erasure as a record change: the fields it emptied (their values are not kept: history writes the marker). */
function erasureChange(recordId: string, emptied: Readonly<Record<string, unknown>>, emptiedLines: Readonly<Record<string, readonly { line: StoredLine; changes: Record<string, unknown> }[]>>): ErasedFields | undefined {
  const lines: Record<string, LinesChange> = Object.fromEntries(
    Object.entries(emptiedLines).map(([list, emptiedOfList]) => [
      list,
      { added: [], removed: [], changed: emptiedOfList.map(({ line, changes }) => ({ id: line.id, changes: Object.fromEntries(Object.keys(changes).map((field) => [field, { from: null, to: null }])) })) },
    ]),
  );
  if (Object.keys(emptied).length === 0 && Object.keys(lines).length === 0) return undefined;
  return { recordId, givenFields: Object.keys(emptied), before: {}, after: { ...emptied }, kept: {}, ...(Object.keys(lines).length > 0 ? { lines } : {}) };
}

/**
 * SQLite's search tables (FTS5, trigrams of the lowered value) drop a value's rows when it changes,
 * but keep its trigrams in their index until a merge: rewritten whole, so that none stays.
 */
async function rebuildSearchTables(db: Knex, model: CompiledModel): Promise<void> {
  for (const field of model.meta.table.search ?? []) {
    if (!model.personal.has(field)) continue;
    const table = sqlIdentifier(searchDesign(model.meta.table.name, field, 'sqlite').name);
    await db.raw(`insert into ${table} (${table}) values ('optimize')`);
  }
}

/**
 * SQLite keeps the pages a transaction replaced in its write-ahead log until a checkpoint copies
 * the new ones back and the log starts over: until then the old pages, with the erased values,
 * are in the `-wal` file. A truncating checkpoint ends that at once (freed space in the database
 * file itself is overwritten: `secure_delete`, runtime/db/connect.ts).
 */
async function checkpoint(service: RecordService): Promise<void> {
  await service.db.raw('pragma wal_checkpoint(TRUNCATE)');
}
