/**
 * Writing a change of one record in a command's transaction (an update, an action, a revert): its
 * fields and line lists, with computed fields worked out, rules checked and refs checked (as a
 * create's), and what changed, for history, bindings and the audit trail (results.ts).
 */
import type { Knex } from 'knex';
import { badRequest } from '../errors.ts';
import type { FieldMeta, StoredLine, StoredRecord } from '../registry.ts';
import {
  computeAndCheck,
  linesChange,
  linesOfRecord,
  linesWrite,
  replacedLines,
  sameValue,
  withLines,
  writeLines,
  writeTime,
  type LinesChange,
  type LinesOf,
} from './documents.ts';
import type { KeptLineFields, RecordChange, RunResult } from './results.ts';
import type { CommandContext } from './types.ts';

/**
 * Writes an update of a record (an update, an action, a revert): its field changes and the line
 * lists given whole, with computed fields worked out and rules checked on the record as it will be;
 * answers the record with its lines and what changed. `restoreIds`: lines given with ids that are
 * no longer the record's are put back under those ids (a revert of their removal).
 */
export async function writeChanges(
  ctx: CommandContext,
  db: Knex,
  current: StoredRecord & Readonly<Record<string, unknown>>,
  changes: Record<string, unknown>,
  givenLines: Readonly<Record<string, Record<string, unknown>[]>>,
  options: { readonly restoreIds?: boolean } = {},
): Promise<Extract<RunResult, { shape: 'record' }>> {
  const model = ctx.command.model;
  const recordId = current.id;
  const time = writeTime(ctx.service.clock);
  const currentLines = model.lines.size > 0 ? await linesOfRecord(db, model, recordId) : {};
  const drafted: LinesOf = { ...currentLines };
  for (const [name, given] of Object.entries(givenLines)) {
    const list = model.lines.get(name)!;
    const known = options.restoreIds ? [...(currentLines[name] ?? []), ...given.filter((line) => typeof line.id === 'string' && !(currentLines[name] ?? []).some((kept) => kept.id === line.id)).map((line) => line as StoredLine)] : (currentLines[name] ?? []);
    drafted[name] = replacedLines(model, list, known, given, time);
  }
  const { record, lines } = computeAndCheck(model, { ...current, ...changes }, drafted);
  // Computed fields whose value the write changes are written with it.
  for (const field of model.meta.fields) if (field.computed && !sameValue(current[field.name], record[field.name])) changes[field.name] = record[field.name];
  await checkRefs(ctx, db, changes);
  if (Object.keys(changes).length > 0) await model.queries.update(db, recordId, changes);
  const linesChanged: Record<string, LinesChange> = {};
  const linesKept: Record<string, KeptLineFields[]> = {};
  for (const [name, list] of model.lines) {
    const before = currentLines[name] ?? [];
    const after = lines[name] ?? before;
    const kept = keptLineFields(before, after, givenLines[name]);
    if (kept.length > 0) linesKept[name] = kept;
    const write = linesWrite(list, before, after);
    if (write.insert.length + write.update.length + write.remove.length === 0) continue;
    await checkLineRefs(ctx, db, name, [...write.insert, ...write.update.map(({ changes: lineChanges, position }) => ({ line: lineChanges, position }))].sort((a, b) => a.position - b.position));
    await writeLines(db, list, recordId, write);
    const changed = linesChange(list, before, after);
    if (changed) linesChanged[name] = changed;
  }
  const change = changeOf(recordId, current, changes);
  return {
    shape: 'record',
    record: withLines({ ...current, ...changes } as StoredRecord, lines),
    change: {
      ...change,
      ...(Object.keys(linesChanged).length > 0 ? { lines: linesChanged } : {}),
      ...(Object.keys(linesKept).length > 0 ? { linesKept } : {}),
    },
  };
}

/** The fields the input gave lines it kept (elements with an id) that kept their values, with those values. */
function keptLineFields(before: readonly StoredLine[], after: readonly StoredLine[], given: readonly Record<string, unknown>[] | undefined): KeptLineFields[] {
  if (!given) return [];
  const was = new Map(before.map((line) => [line.id, line]));
  const now = new Map(after.map((line) => [line.id, line]));
  const kept: KeptLineFields[] = [];
  for (const element of given) {
    const id = element.id;
    const old = typeof id === 'string' ? was.get(id) : undefined;
    const line = typeof id === 'string' ? now.get(id) : undefined;
    if (!old || !line) continue;
    const values: Record<string, unknown> = {};
    for (const field of Object.keys(element)) if (field !== 'id' && sameValue(old[field], line[field])) values[field] = line[field] ?? null;
    if (Object.keys(values).length > 0) kept.push({ id: line.id, values });
  }
  return kept;
}

/** The change of an update or action: the written fields whose value differs from what was stored, and those that kept it. */
function changeOf(recordId: string, current: Readonly<Record<string, unknown>>, changes: Readonly<Record<string, unknown>>): RecordChange {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(changes)) {
    const was = current[name] ?? null;
    const now = value ?? null;
    if (sameValue(was, now)) {
      kept[name] = now;
      continue;
    }
    before[name] = was;
    after[name] = now;
  }
  return { recordId, givenFields: Object.keys(changes), before, after, kept };
}


/** Every non-empty ref value must name an existing record of its target (kept from deletion on PostgreSQL). */
export async function checkRefs(ctx: CommandContext, db: Knex, values: Readonly<Record<string, unknown>>): Promise<void> {
  const model = ctx.command.model;
  for (const [name, value] of Object.entries(values)) {
    // Only a ref holding an id reads anything: the rest need no turn of the event loop (a bulk create checks thousands).
    if (value === null || value === undefined) continue;
    const field = model.fields.get(name);
    if (field?.kind === 'ref') await checkRef(ctx, db, field, `${model.meta.name}.${name}`, value);
  }
}

/**
 * The refs of the lines a write stores (new lines whole, kept ones' changes), likewise, each named
 * by its place in the list as the input gave it (`order.items[2].product: no product with id …`).
 */
export async function checkLineRefs(ctx: CommandContext, db: Knex, name: string, lines: readonly { readonly line: Readonly<Record<string, unknown>>; readonly position: number }[]): Promise<void> {
  const model = ctx.command.model;
  const compiled = model.lines.get(name)!;
  for (const { line, position } of lines) {
    for (const [field, value] of Object.entries(line)) await checkRef(ctx, db, compiled.fields.get(field), `${model.meta.name}.${name}[${position}].${field}`, value);
  }
}

async function checkRef(ctx: CommandContext, db: Knex, field: FieldMeta | undefined, path: string, value: unknown): Promise<void> {
  if (value === null || value === undefined || field?.kind !== 'ref') return;
  const target = ctx.service.models.get(field.target!)!;
  if (!(await target.queries.lockForRef(db, value as string))) throw badRequest(`${path}: no ${target.meta.name} with id ${String(value)}`);
}
