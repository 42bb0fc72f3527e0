/**
 * What each command kind does to the database, given a prepared (validated) command. Dispatched
 * through a `Record<CommandKind, Handler>`. Handlers run inside the command's transaction for
 * writes and `search`; every check that depends on stored data (record exists, refs exist,
 * current state, references) is made here, inside that transaction, with row locks on
 * PostgreSQL so that concurrent commands cannot slip between check and write.
 */
import type { Knex } from 'knex';
import { selectFirst, sqlIdentifier, sqlIdentifiers } from '../db/statements.ts';
import { badRequest } from '../errors.ts';
import { newId } from '../ids.ts';
import { applyWhere, type CompiledList } from '../query/list-query.ts';
import { compileRowReader, fromDbConverter } from '../query/values.ts';
import type { ActionMeta, CommandKind } from '../registry.ts';
import type { ModelRights } from '../rights.ts';
import type { CommandContext, CompiledModel, PreparedList, RecordValue } from './types.ts';

/**
 * What a write did to its record, in JSON values: what masking's bindings (and the record's
 * history) are kept from. Field values are null when empty.
 */
export interface RecordChange {
  readonly recordId: string;
  /** Fields the input gave (set or emptied), whether or not their value changed; every field a create stored. */
  readonly written: readonly string[];
  /** Before the write: the changed fields (update, action), every field (delete), nothing (create). */
  readonly before: Readonly<Record<string, unknown>>;
  /** After the write: every field a create set, the changed fields of an update or action, nothing for a delete. */
  readonly after: Readonly<Record<string, unknown>>;
}

export type RunResult =
  | { readonly shape: 'record'; readonly records: RecordValue[]; readonly recordId: string; readonly change?: RecordChange }
  | { readonly shape: 'list'; readonly records: RecordValue[] }
  | { readonly shape: 'search'; readonly records: RecordValue[]; readonly total: number }
  | { readonly shape: 'deleted'; readonly recordId: string; readonly change: RecordChange };

type Handler = (ctx: CommandContext, db: Knex, prepared: PreparedList) => Promise<RunResult>;

/** Which kinds need a transaction (the rest are single reads). */
export const TRANSACTIONAL: Record<CommandKind, boolean> = {
  get: false,
  list: false,
  search: true,
  create: true,
  update: true,
  delete: true,
  action: true,
};

export const handlers: Record<CommandKind, Handler> = {
  async get(ctx, db, prepared) {
    const id = prepared.input.id as string;
    return { shape: 'record', records: [await readRecord(ctx, db, id)], recordId: id };
  },

  async list(ctx, db, prepared) {
    const reader = readerFor(ctx.fields);
    const rows = await listQuery(ctx, db, prepared.list!, reader.columns);
    return { shape: 'list', records: rows.map(reader.read) };
  },

  async search(ctx, db, prepared) {
    const reader = readerFor(ctx.fields);
    const list = prepared.list!;
    const counted = await applyWhere(db(ctx.command.model.table).count({ n: '*' }), list).first();
    const rows = await listQuery(ctx, db, list, reader.columns);
    return { shape: 'search', records: rows.map(reader.read), total: Number((counted as { n: unknown } | undefined)?.n ?? 0) };
  },

  async create(ctx, db, prepared) {
    const model = ctx.command.model;
    const values: Record<string, unknown> = { ...prepared.input };
    for (const field of model.governed) values[field.name] = field.options?.[0] ?? null;
    await checkRefs(ctx, db, values);
    const id = newId();
    await db(model.table).insert(toRow(model, { id, ...values }));
    const record: RecordValue = { id };
    for (const field of ctx.fields.readable) record[field.name] = values[field.name] ?? null;
    const after: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values)) if (value !== null && value !== undefined) after[name] = value;
    return { shape: 'record', records: [record], recordId: id, change: { recordId: id, written: Object.keys(after), before: {}, after } };
  },

  async update(ctx, db, prepared) {
    const model = ctx.command.model;
    const { id, ...changes } = prepared.input;
    const recordId = id as string;
    const current = await lockRecord(ctx, db, recordId, Object.keys(changes));
    for (const name of prepared.actions) checkFrom(ctx, model.actions.get(name)!, current);
    await checkRefs(ctx, db, changes);
    if (Object.keys(changes).length > 0) await db(model.table).where('id', recordId).update(toRow(model, changes));
    return { shape: 'record', records: [await readRecord(ctx, db, recordId)], recordId, change: changeOf(recordId, current, changes) };
  },

  async delete(ctx, db, prepared) {
    const model = ctx.command.model;
    const recordId = prepared.input.id as string;
    const current = await lockRecord(ctx, db, recordId, model.meta.fields.map((field) => field.name));
    for (const ref of model.meta.referencedBy) {
      const table = ctx.service.models.get(ref.model)!.table;
      const query = db(table).first('id').where(ref.field, recordId);
      // A record that refers to itself does not keep itself alive.
      if (ref.model === model.meta.name) query.whereNot('id', recordId);
      const referring = (await query) as { id: string } | undefined;
      if (referring) throw badRequest(`${model.meta.name} ${recordId} is referred to by ${ref.model} ${referring.id}`);
    }
    await db(model.table).where('id', recordId).delete();
    const { id: _id, ...before } = current;
    return { shape: 'deleted', recordId, change: { recordId, written: [], before, after: {} } };
  },

  async action(ctx, db, prepared) {
    const model = ctx.command.model;
    const action = ctx.command.meta.action!;
    const { id, ...inputs } = prepared.input;
    const recordId = id as string;
    const changes = { ...inputs, [action.field]: action.to };
    const current = await lockRecord(ctx, db, recordId, Object.keys(changes));
    checkFrom(ctx, action, current);
    await checkRefs(ctx, db, inputs);
    await db(model.table).where('id', recordId).update(toRow(model, changes));
    return { shape: 'record', records: [await readRecord(ctx, db, recordId)], recordId, change: changeOf(recordId, current, changes) };
  },
};

/** The change of an update or action: the written fields whose value differs from what was stored. */
function changeOf(recordId: string, current: Readonly<Record<string, unknown>>, changes: Readonly<Record<string, unknown>>): RecordChange {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(changes)) {
    const was = current[name] ?? null;
    const now = value ?? null;
    if (was === now) continue;
    before[name] = was;
    after[name] = now;
  }
  return { recordId, written: Object.keys(changes), before, after };
}

/** `lead X not found`: a record id that does not exist (400, since SPEC's 404 means an unknown command). */
export function recordNotFound(ctx: CommandContext, id: string) {
  return badRequest(`${ctx.command.model.meta.name} ${id} not found`);
}

function checkFrom(ctx: CommandContext, action: ActionMeta, current: Record<string, unknown>): void {
  const state = current[action.field];
  if (typeof state !== 'string' || !action.from.includes(state)) {
    throw badRequest(`${ctx.command.model.meta.name}.${action.field} is ${String(state ?? 'empty')}; ${action.name} needs ${action.from.join(' or ')}`);
  }
}

interface RecordReader {
  readonly columns: readonly string[];
  /** `select <columns> from <table> where id = ?`: the read of `get` and of every write's answer. */
  readonly selectById: string;
  readonly read: (row: Record<string, unknown>) => RecordValue;
}

const readers = new WeakMap<ModelRights, RecordReader>();

/** Columns to select, the read by id and the row converter for the fields this caller reads (compiled once per rights). */
export function readerFor(rights: ModelRights): RecordReader {
  let reader = readers.get(rights);
  if (!reader) {
    const columns = ['id', ...rights.readable.map((field) => field.name)];
    const selectById = `select ${sqlIdentifiers(columns)} from ${sqlIdentifier(rights.model.table.name)} where "id" = ?`;
    reader = { columns, selectById, read: compileRowReader(rights.readable) };
    readers.set(rights, reader);
  }
  return reader;
}

async function readRecord(ctx: CommandContext, db: Knex, id: string): Promise<RecordValue> {
  const reader = readerFor(ctx.fields);
  const row = await selectFirst<Record<string, unknown>>(db, reader.selectById, [id]);
  if (!row) throw recordNotFound(ctx, id);
  return reader.read(row);
}

/**
 * Reads a record's fields (as JSON values) for a check or a change, locking the row on PostgreSQL
 * until the transaction ends; 400 when there is no such record.
 */
async function lockRecord(ctx: CommandContext, db: Knex, id: string, fields: readonly string[]): Promise<Record<string, unknown>> {
  const model = ctx.command.model;
  const query = db(model.table)
    .first('id', ...fields)
    .where('id', id);
  if (ctx.service.dialect === 'postgres') query.forUpdate();
  const row = (await query) as Record<string, unknown> | undefined;
  if (!row) throw recordNotFound(ctx, id);
  return fromRow(model, row);
}

/** A row's columns as JSON values (numbers from PostgreSQL bigint strings, booleans from SQLite 0/1), null when empty. */
function fromRow(model: CompiledModel, row: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    const field = model.fields.get(name);
    values[name] = value === null || value === undefined ? null : field ? fromDbConverter(field.kind)(value) : value;
  }
  return values;
}

/** Every non-empty ref value must name an existing record of its target (locked against deletion on PostgreSQL). */
async function checkRefs(ctx: CommandContext, db: Knex, values: Record<string, unknown>): Promise<void> {
  const model = ctx.command.model;
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === undefined) continue;
    const field = model.fields.get(name);
    if (field?.kind !== 'ref') continue;
    const target = ctx.service.models.get(field.target!)!;
    const query = db(target.table).first('id').where('id', value as string);
    if (ctx.service.dialect === 'postgres') query.forShare();
    if (!(await query)) throw badRequest(`${model.meta.name}.${name}: no ${target.meta.name} with id ${String(value)}`);
  }
}

function toRow(model: CompiledModel, values: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const convert = model.toDb.get(name);
    row[name] = convert ? convert(value) : value;
  }
  return row;
}

function listQuery(ctx: CommandContext, db: Knex, list: CompiledList, columns: readonly string[]): Promise<Record<string, unknown>[]> {
  const query = applyWhere(db(ctx.command.model.table).select(...columns), list).orderByRaw(list.orderBy);
  if (list.limit !== undefined) query.limit(list.limit);
  if (list.offset !== undefined) query.offset(list.offset);
  return query as unknown as Promise<Record<string, unknown>[]>;
}
