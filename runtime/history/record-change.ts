/**
 * The history entry of a write, from what its handler says it changed (`RecordChange`): a create
 * lists every field it set (from null), a delete every field (to null), an update or action the
 * fields whose value changed — and the personal fields an agent wrote, changed or not: were a
 * write of the value a field already holds to leave no entry, an agent could tell by the history
 * whether a value it sent equals one it may only see masked. A write that changed nothing (and
 * wrote no such field) leaves no entry.
 *
 * For masking, the entry keeps which agent tokens stand for its personal values (see store.ts):
 * those bound to the value a field had, read before the write rebinds them, and those the writing
 * agent knows the value it wrote by.
 */
import type { Knex } from 'knex';
import type { AuditActor } from '../audit/store.ts';
import type { RecordChange } from '../commands/results.ts';
import { boundTokens, type TokenFor } from '../masking/bindings.ts';
import { ERASED, isErased } from '../erased.ts';
import { maskedText } from '../masking/tables.ts';
import { isLinesChange, type EntryChange, type FieldChange, type HistoryEntry, type LinesChange } from './store.ts';

export interface ChangeToRecord {
  readonly model: string;
  /** Personal fields of the model, by name. */
  readonly personal: ReadonlySet<string>;
  /** Personal fields of each line list, by list. */
  readonly linePersonal: Readonly<Record<string, ReadonlySet<string>>>;
  /** Each line list's fields in declaration order, and its lines' ids in the record's order after the write (how an entry lists them). */
  readonly lineOrder: Readonly<Record<string, { readonly fields: readonly string[]; readonly lines: readonly string[] }>>;
  /** The command whose change this is, as history names it (a revert is an update). */
  readonly command: string;
  readonly kind: HistoryEntry['kind'];
  readonly change: RecordChange;
  readonly by: AuditActor;
  readonly planId: string | null;
  readonly reverts: string | null;
  /** The batch of a bulk command the change is one record of. */
  readonly batchId?: string;
  /**
   * The writing agent's tokens for the personal values it gave, by field name or
   * `<lines>.<line id>.<field>`: fields among them are recorded even when unchanged.
   */
  readonly agentTokens?: Readonly<Record<string, string>>;
  /** A revert: the tokens agents knew the values it put back by. */
  readonly restoredTokens?: Readonly<Record<string, readonly TokenFor[]>>;
}

const NONE_RECORDED: ReadonlySet<string> = new Set();

/** The entry of the write, with the tokens bound to the values it replaces (read in `db`); undefined when there is nothing to record. */
export async function historyEntryOf(db: Knex, write: ChangeToRecord): Promise<Omit<HistoryEntry, 'changeId' | 'at'> | undefined> {
  const changes = changesOf(write.kind, write.change, write.agentTokens ? new Set(Object.keys(write.agentTokens)) : NONE_RECORDED, write.lineOrder);
  const fields = Object.keys(changes);
  if (fields.length === 0 && !write.change.inputs) return undefined;
  const personalFrom: Record<string, string> = {};
  for (const field of fields) {
    const change = changes[field]!;
    if (isLinesChange(change) || isErased(change)) continue;
    if (write.personal.has(field) && change.from !== null && change.from !== undefined) personalFrom[field] = maskedText(change.from);
  }
  // A create replaces no value: nothing to read (a bulk create makes thousands of entries).
  const fromTokens: Record<string, readonly TokenFor[]> = Object.keys(personalFrom).length === 0 ? {} : await boundTokens(db, write.model, write.change.recordId, personalFrom);
  const toTokens: Record<string, readonly TokenFor[]> = {};
  // A line's personal values: the tokens bound to what it held, and the writing agent's for what it wrote.
  for (const [list, change] of Object.entries(changes)) {
    if (!isLinesChange(change)) continue;
    const personal = write.linePersonal[list];
    if (!personal || personal.size === 0) continue;
    const held = [...change.removed.map((line) => ({ id: line.id, values: line as Readonly<Record<string, unknown>> })), ...change.changed.map(({ id, changes }) => ({ id, values: Object.fromEntries(Object.entries(changes).map(([field, { from }]) => [field, from])) }))];
    for (const { id, values } of held) {
      const strings: Record<string, string> = {};
      for (const field of personal) if (values[field] !== null && values[field] !== undefined) strings[field] = maskedText(values[field]);
      for (const [field, tokens] of Object.entries(await boundTokens(db, `${write.model}.${list}`, id, strings))) fromTokens[`${list}.${id}.${field}`] = tokens;
    }
  }
  for (const [key, token] of Object.entries(write.agentTokens ?? {})) {
    if (key.includes('.') && write.by.agentTokenId) toTokens[key] = [{ agent: write.by.agentTokenId, token }];
  }
  for (const field of fields) {
    const change = changes[field]!;
    if (isLinesChange(change) || isErased(change) || !write.personal.has(field) || change.to === null || change.to === undefined) continue;
    const restored = write.restoredTokens?.[field];
    const known = write.agentTokens?.[field];
    if (restored && restored.length > 0) toTokens[field] = restored;
    else if (known !== undefined && write.by.agentTokenId) toTokens[field] = [{ agent: write.by.agentTokenId, token: known }];
  }
  return {
    model: write.model,
    recordId: write.change.recordId,
    command: write.command,
    kind: write.kind,
    by: write.by,
    planId: write.planId,
    reverts: write.reverts,
    ...(write.batchId ? { batchId: write.batchId } : {}),
    changes,
    ...(write.change.inputs ? { inputs: write.change.inputs } : {}),
    toTokens,
    fromTokens,
  };
}

/**
 * Field → from and to, of the fields the entry records; each line list changed. `alwaysRecorded`
 * (field names, and `<lines>.<line id>.<field>` for lines) are recorded even where unchanged. An
 * erasure's entry names the fields it emptied with the erased marker, and keeps none of their values.
 */
function changesOf(kind: HistoryEntry['kind'], change: RecordChange, alwaysRecorded: ReadonlySet<string>, lineOrder: ChangeToRecord['lineOrder']): Record<string, EntryChange> {
  const changes: Record<string, EntryChange> = {};
  if (kind === 'erase') {
    for (const field of Object.keys(change.after)) changes[field] = ERASED;
    for (const [list, linesChange] of Object.entries(change.lines ?? {})) {
      changes[list] = { added: [], removed: [], changed: linesChange.changed.map(({ id, changes: fields }) => ({ id, changes: Object.fromEntries(Object.keys(fields).map((field) => [field, ERASED as unknown as FieldChange])) })) };
    }
    return changes;
  }
  if (kind === 'create') {
    for (const [field, to] of Object.entries(change.after)) changes[field] = { from: null, to };
  } else if (kind === 'delete') {
    for (const [field, from] of Object.entries(change.before)) changes[field] = { from, to: null };
  } else {
    for (const [field, to] of Object.entries(change.after)) changes[field] = { from: change.before[field] ?? null, to } satisfies FieldChange;
    for (const [field, value] of Object.entries(change.kept)) if (alwaysRecorded.has(field)) changes[field] = { from: value, to: value } satisfies FieldChange;
  }
  // Line lists after the fields, as a record shows them.
  for (const [list, linesChange] of Object.entries(change.lines ?? {})) changes[list] = linesChange;
  if (kind !== 'create' && kind !== 'delete') {
    for (const [list, keptLines] of Object.entries(change.linesKept ?? {})) {
      const recorded = keptLines
        .map(({ id, values }) => ({ id, values: Object.entries(values).filter(([field]) => alwaysRecorded.has(`${list}.${id}.${field}`)) }))
        .filter(({ values }) => values.length > 0);
      if (recorded.length > 0) changes[list] = withKeptLineFields(change.lines?.[list], recorded, lineOrder[list]!);
    }
  }
  return changes;
}

/**
 * A line list's change with fields its kept lines kept recorded as changed (from and to the same
 * value); lines in the record's order and their fields in declaration order, as the others are.
 */
function withKeptLineFields(
  change: LinesChange | undefined,
  kept: readonly { id: string; values: readonly [string, unknown][] }[],
  order: ChangeToRecord['lineOrder'][string],
): LinesChange {
  const byLine = new Map<string, Record<string, FieldChange>>((change?.changed ?? []).map(({ id, changes }) => [id, { ...changes }]));
  for (const { id, values } of kept) {
    const changes = byLine.get(id) ?? byLine.set(id, {}).get(id)!;
    for (const [field, value] of values) changes[field] = { from: value, to: value };
  }
  const inOrder = <T>(items: Iterable<T>, key: (item: T) => string, keys: readonly string[]) => [...items].sort((a, b) => keys.indexOf(key(a)) - keys.indexOf(key(b)));
  const changed = inOrder(byLine, ([id]) => id, order.lines).map(([id, changes]) => ({
    id,
    changes: Object.fromEntries(inOrder(Object.entries(changes), ([field]) => field, order.fields)),
  }));
  return { added: change?.added ?? [], removed: change?.removed ?? [], changed, ...(change?.order ? { order: change.order } : {}) };
}
