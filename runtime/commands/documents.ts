/**
 * A record as a write leaves it — its fields and each line list's lines — worked out once, before
 * anything is written: defaults and an action's sets, the line lists a write replaces (lines kept
 * by id, added, removed, reordered), computed fields (each line's, then the record's) and the
 * model's rules. Every write path (create, update, actions, approved plans, reverts) goes through
 * here, in its transaction, so that no path stores a record its rules refuse or a computed value
 * its function would not give.
 */
import type { Knex } from 'knex';
import { HttpError, badRequest } from '../errors.ts';
import type { Clock } from '../clock.ts';
import { newId } from '../ids.ts';
import { decimalUnits } from '../value-checks.ts';
import { refuseUnstorableComputed } from './computed-checks.ts';
import type { ActionSet, FieldDefault, FieldMeta, StoredLine, StoredRecord } from '../registry.ts';
import type { LinesChange, LinesOrder } from '../history/store.ts';
import type { CommandContext, CompiledLineList, CompiledModel } from './types.ts';

/** Lines by list name, each list in order. */
export type LinesOf = Record<string, StoredLine[]>;

/** What a write does to one line list. */
export interface LinesWrite {
  readonly insert: { readonly line: StoredLine; readonly position: number }[];
  readonly update: { readonly id: string; readonly changes: Record<string, unknown>; readonly position: number }[];
  readonly remove: string[];
}

export type { LinesChange };

/** Today (UTC) and now, as a write gives them to `'today'` and `'now'` (one reading per write). */
export interface WriteTime {
  readonly today: string;
  readonly now: string;
}

export function writeTime(clock: Clock): WriteTime {
  const now = new Date(clock.now()).toISOString();
  return { today: now.slice(0, 10), now };
}

/** A default's value at this write. */
export function defaultValue(value: FieldDefault, time: WriteTime): unknown {
  if (value === 'today') return time.today;
  if (value === 'now') return time.now;
  return value.value;
}

/** What an action's `set` gives a field at this write. */
export function setValue(set: ActionSet, inputs: Readonly<Record<string, unknown>>, time: WriteTime): unknown {
  if (set === 'today') return time.today;
  if (set === 'now') return time.now;
  if ('input' in set) return inputs[set.input] ?? null;
  return set.value;
}

/** The fields of a new record: what the input gives, else each field's default, else empty; governed selects at their first option. */
export function newRecordValues(model: CompiledModel, input: Readonly<Record<string, unknown>>, time: WriteTime): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of model.meta.fields) {
    if (field.governed) values[field.name] = field.options?.[0] ?? null;
    else if (field.name in input) values[field.name] = input[field.name] ?? null;
    else if (field.default !== undefined) values[field.name] = defaultValue(field.default, time);
    else values[field.name] = null;
  }
  return values;
}

/** A new line's fields: as given, else its default, else empty. */
function newLine(list: CompiledLineList, given: Readonly<Record<string, unknown>>, time: WriteTime): StoredLine {
  const line: Record<string, unknown> = { id: newId() };
  for (const field of list.meta.fields) {
    if (field.name in given) line[field.name] = given[field.name] ?? null;
    else if (field.default !== undefined) line[field.name] = defaultValue(field.default, time);
    else line[field.name] = null;
  }
  return line as StoredLine;
}

/** `order.items needs at least 1 line`, `order.items has at most 500 lines`. */
function checkLineCount(model: CompiledModel, list: CompiledLineList, count: number): void {
  const path = `${model.meta.name}.${list.meta.name}`;
  if (count < list.meta.min) throw badRequest(`${path} needs at least ${list.meta.min} line${list.meta.min === 1 ? '' : 's'}`);
  if (count > list.meta.max) throw badRequest(`${path} has at most ${list.meta.max} lines`);
}

/** The lines of a new record, from the create's input (absent lists: no lines). */
export function newLines(model: CompiledModel, input: Readonly<Record<string, unknown>>, time: WriteTime): LinesOf {
  const lines: LinesOf = {};
  for (const list of model.lines.values()) {
    const given = (input[list.meta.name] as Record<string, unknown>[] | undefined) ?? [];
    checkLineCount(model, list, given.length);
    lines[list.meta.name] = given.map((line) => newLine(list, line, time));
  }
  return lines;
}

/**
 * A list as an update gives it, against the record's current lines: a line with `id` changes that
 * line (the fields it gives; the others keep their values), one without adds a line, a line left
 * out is removed; the order is the input's. 400 for an id that is not a line of this record.
 */
export function replacedLines(model: CompiledModel, list: CompiledLineList, current: readonly StoredLine[], given: readonly Record<string, unknown>[], time: WriteTime): StoredLine[] {
  const byId = new Map(current.map((line) => [line.id, line]));
  const seen = new Set<string>();
  const lines = given.map((element, index) => {
    const id = element.id;
    if (id === undefined || id === null) return newLine(list, element, time);
    const existing = typeof id === 'string' ? byId.get(id) : undefined;
    if (!existing || seen.has(id as string)) throw badRequest(`${model.meta.name}.${list.meta.name}[${index}].id is not a line of this ${model.meta.name}`);
    seen.add(existing.id);
    const { id: _id, ...changes } = element;
    return { ...existing, ...changes } as StoredLine;
  });
  checkLineCount(model, list, lines.length);
  return lines;
}

/** The record with its lines as one object (each list under its name), what computed fields and rules see. */
export function documentOf(record: Readonly<Record<string, unknown>>, lines: Readonly<LinesOf>): Record<string, unknown> {
  const document: Record<string, unknown> = { ...record };
  for (const [name, list] of Object.entries(lines)) document[name] = list.map((line) => ({ ...line }));
  return document;
}

/**
 * Works out the computed fields of the record as it will be, and checks its rules: 400 with the
 * first failed rule's message and fields. Answers the record and lines with their computed values.
 */
export function computeAndCheck(model: CompiledModel, record: Readonly<Record<string, unknown>>, lines: Readonly<LinesOf>): { record: Record<string, unknown>; lines: LinesOf } {
  if (!model.hasLogic) return { record: { ...record }, lines: { ...lines } };
  const document = documentOf(record, lines);
  model.logic.compute(document);
  const [failed] = model.logic.failedRules(document);
  if (failed) throw new HttpError(400, `${model.meta.name}: ${failed.message}`, { fields: [...failed.fields] });
  const computed = fromDocument(model, record.id, document);
  refuseUnstorableComputed(model, { record: document, lines: linesOfDocument(model, document) }, computed);
  return computed;
}

/** The record and lines with their computed fields worked out (rules not checked: `recompute.ts`). */
export function computeDocument(model: CompiledModel, record: Readonly<Record<string, unknown>>, lines: Readonly<LinesOf>): { record: Record<string, unknown>; lines: LinesOf } {
  const document = documentOf(record, lines);
  model.logic.compute(document);
  return fromDocument(model, record.id, document);
}

/** A document's line lists, each under its name. */
function linesOfDocument(model: CompiledModel, document: Readonly<Record<string, unknown>>): Record<string, readonly Record<string, unknown>[]> {
  return Object.fromEntries([...model.lines.values()].map((list) => [list.meta.name, (document[list.meta.name] as Record<string, unknown>[] | undefined) ?? []]));
}

/** The record and lines of a computed document, each value as its field stores it. */
function fromDocument(model: CompiledModel, id: unknown, document: Readonly<Record<string, unknown>>): { record: Record<string, unknown>; lines: LinesOf } {
  const computedRecord: Record<string, unknown> = { id };
  for (const field of model.meta.fields) computedRecord[field.name] = normalised(field, document[field.name]);
  const computedLines: LinesOf = {};
  for (const list of model.lines.values()) {
    const computed = (document[list.meta.name] as Record<string, unknown>[] | undefined) ?? [];
    computedLines[list.meta.name] = computed.map((line) => {
      const kept: Record<string, unknown> = { id: line.id };
      for (const field of list.meta.fields) kept[field.name] = normalised(field, line[field.name]);
      return kept as StoredLine;
    });
  }
  return { record: computedRecord, lines: computedLines };
}

/**
 * A computed value as its field stores it: a number of a decimal rounded to its scale, money and
 * numbers to integers (halves away from zero, for all three), undefined as empty (a function may
 * leave a value out). `rmsgen seed` stores computed values the same way.
 */
export function normalised(field: FieldMeta, value: unknown): unknown {
  if (!field.computed || value === undefined || value === null) return value ?? null;
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (field.kind === 'decimal' && typeof value === 'number') return decimalUnits(value, field.scale ?? 0) / 10 ** (field.scale ?? 0);
  // Halves away from zero, as a decimal's are (-12.5 is -13, not Math.round's -12).
  if ((field.kind === 'money' || field.kind === 'number') && typeof value === 'number') return decimalUnits(value, 0);
  return value;
}

/** The writes that turn `before` into `after` for one line list, positions included. */
export function linesWrite(list: CompiledLineList, before: readonly StoredLine[], after: readonly StoredLine[]): LinesWrite {
  const old = new Map(before.map((line, position) => [line.id, { line, position }]));
  const write: LinesWrite = { insert: [], update: [], remove: [] };
  after.forEach((line, position) => {
    const was = old.get(line.id);
    if (!was) {
      write.insert.push({ line, position });
      return;
    }
    const changes: Record<string, unknown> = {};
    for (const field of list.meta.fields) if (!sameValue(was.line[field.name], line[field.name])) changes[field.name] = line[field.name] ?? null;
    if (Object.keys(changes).length > 0 || was.position !== position) write.update.push({ id: line.id, changes, position });
  });
  const kept = new Set(after.map((line) => line.id));
  for (const line of before) if (!kept.has(line.id)) write.remove.push(line.id);
  return write;
}

/** What a write did to a line list, for history: whole lines added and removed, the changed fields of the others, the order when it is not implied (`LinesChange`). */
export function linesChange(list: CompiledLineList, before: readonly StoredLine[], after: readonly StoredLine[]): LinesChange | undefined {
  const old = new Map(before.map((line) => [line.id, line]));
  const kept = new Set(after.map((line) => line.id));
  const added = after.filter((line) => !old.has(line.id));
  const removed = before.filter((line) => !kept.has(line.id));
  const changed: { id: string; changes: Record<string, { from: unknown; to: unknown }> }[] = [];
  for (const line of after) {
    const was = old.get(line.id);
    if (!was) continue;
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const field of list.meta.fields) if (!sameValue(was[field.name], line[field.name])) changes[field.name] = { from: was[field.name] ?? null, to: line[field.name] ?? null };
    if (Object.keys(changes).length > 0) changed.push({ id: line.id, changes });
  }
  const order = linesOrder(before, after, after.filter((line) => old.has(line.id)), removed);
  if (added.length === 0 && removed.length === 0 && changed.length === 0 && !order) return undefined;
  return { added, removed, changed, ...(order ? { order } : {}) };
}

/**
 * The order before and after, when putting the lines back from the lines kept (in their order
 * after) and those removed (at the end), as `linesBefore` does without an order, would not give
 * `before`'s.
 */
function linesOrder(before: readonly StoredLine[], after: readonly StoredLine[], keptAfter: readonly StoredLine[], removed: readonly StoredLine[]): LinesOrder | undefined {
  const putBack = [...keptAfter, ...removed];
  if (putBack.every((line, index) => line.id === before[index]!.id)) return undefined;
  return { from: before.map((line) => line.id), to: after.map((line) => line.id) };
}

/** Stores what `linesWrite` worked out. */
export async function writeLines(db: Knex, list: CompiledLineList, ownerId: string, write: LinesWrite): Promise<void> {
  if (write.remove.length > 0) await list.queries.remove(db, ownerId, write.remove);
  if (write.update.length > 0) await list.queries.update(db, ownerId, write.update);
  if (write.insert.length > 0) await list.queries.insert(db, ownerId, write.insert);
}

/** The lines of one record, every list (empty lists too). */
export async function linesOfRecord(db: Knex, model: CompiledModel, id: string): Promise<LinesOf> {
  return (await linesOfRecords(db, model, [id], [...model.lines.keys()])).get(id) ?? emptyLines(model, [...model.lines.keys()]);
}

/** The lines of these lists of these records, by record id. */
export async function linesOfRecords(db: Knex, model: CompiledModel, ids: readonly string[], lists: readonly string[]): Promise<Map<string, LinesOf>> {
  const byRecord = new Map<string, LinesOf>(ids.map((id) => [id, emptyLines(model, lists)]));
  if (ids.length === 0) return byRecord;
  for (const name of lists) {
    const found = await model.lines.get(name)!.queries.linesOf(db, ids);
    for (const [owner, lines] of found) {
      const record = byRecord.get(owner);
      if (record) record[name] = lines;
    }
  }
  return byRecord;
}

function emptyLines(model: CompiledModel, lists: readonly string[]): LinesOf {
  const lines: LinesOf = {};
  for (const name of lists) if (model.lines.has(name)) lines[name] = [];
  return lines;
}

/** The record with its lines attached, as commands answer it. */
export function withLines(record: StoredRecord, lines: Readonly<LinesOf>): StoredRecord {
  return Object.keys(lines).length === 0 ? record : ({ ...record, ...lines } as StoredRecord);
}

/**
 * 409 `<model> is <state> and cannot be changed` for a record in a state its model locks (update,
 * line changes and delete; actions still run).
 */
export function checkNotLocked(ctx: CommandContext, record: Readonly<Record<string, unknown>>): void {
  const locked = ctx.command.model.meta.lockedIn;
  if (!locked) return;
  const state = record[locked.field];
  if (typeof state === 'string' && locked.states.includes(state)) throw new HttpError(409, `${ctx.command.model.meta.name} is ${state} and cannot be changed`);
}

/** Stored values compared as JSON values (null for empty; arrays by their items). */
export function sameValue(a: unknown, b: unknown): boolean {
  const x = a ?? null;
  const y = b ?? null;
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((item, i) => sameValue(item, y[i]));
  // A file (`FileRef`): the same file whether read from its column or from history.
  if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null) return JSON.stringify(x) === JSON.stringify(y);
  return x === y;
}

/** `lead X not found`: a record id that does not exist (400, since SPEC's 404 means an unknown command). */
export function recordNotFound(ctx: CommandContext, id: string) {
  return badRequest(`${ctx.command.model.meta.name} ${id} not found`);
}

/**
 * A line list as it was before a change, from the change and the lines now (what a revert puts
 * back): lines it added go, lines it removed come back, lines it changed get their `from` values,
 * all in the change's `order.from` (without one: kept lines as they are, removed ones at the
 * end). 409 when any of it changed since, their order too.
 */
export function linesBefore(change: LinesChange, now: readonly StoredLine[], conflict: HttpError): Record<string, unknown>[] {
  const byId = new Map(now.map((line) => [line.id, line]));
  const added = new Set(change.added.map((line) => line.id));
  for (const line of change.added) if (!byId.has(line.id)) throw conflict;
  for (const line of change.removed) if (byId.has(line.id)) throw conflict;
  if (change.order && (change.order.to.length !== now.length || change.order.to.some((id, index) => now[index]!.id !== id))) throw conflict;
  const from = new Map(change.changed.map(({ id, changes }) => [id, changes]));
  for (const [id, changes] of from) {
    const line = byId.get(id);
    if (!line || Object.entries(changes).some(([field, { to }]) => !sameValue(line[field], to))) throw conflict;
  }
  const kept = now
    .filter((line) => !added.has(line.id))
    .map((line) => {
      const changes = from.get(line.id);
      if (!changes) return { id: line.id };
      return { id: line.id, ...Object.fromEntries(Object.entries(changes).map(([field, { from: value }]) => [field, value])) };
    });
  const putBack = [...kept, ...change.removed.map((line) => ({ ...line }))];
  if (!change.order) return putBack;
  const byPlace = new Map(putBack.map((line) => [line.id as string, line]));
  return change.order.from.map((id) => byPlace.get(id)!);
}
