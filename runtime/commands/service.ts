/**
 * The record service: the registry compiled once into lookup tables (commands by id, models with
 * their SQL pieces) for one database. Built at start; the command path only reads it.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { compileModelQuery } from '../query/list-query.ts';
import { toDbConverter } from '../query/values.ts';
import type { ActionMeta, FieldMeta, ModelMeta, Registry } from '../registry.ts';
import type { CompiledCommand, CompiledModel, RecordService } from './types.ts';

export interface RecordServiceOptions {
  readonly registry: Registry;
  readonly db: Knex;
  readonly logError?: (error: unknown) => void;
}

export function createRecordService(options: RecordServiceOptions): RecordService {
  const { registry, db } = options;
  const dialect = dialectOf(db);
  const models = new Map<string, CompiledModel>();
  for (const model of Object.values(registry.models)) models.set(model.name, compileModel(model, dialect));
  const commands = new Map<string, CompiledCommand>();
  for (const meta of Object.values(registry.commands)) {
    const model = models.get(meta.model);
    if (!model) throw new Error(`command ${meta.id} names unknown model ${meta.model}`);
    commands.set(meta.id, Object.freeze({ meta, model }));
  }
  return Object.freeze({
    registry,
    db,
    dialect,
    models,
    commands,
    logError: options.logError ?? ((error: unknown) => console.error(error)),
  });
}

function compileModel(meta: ModelMeta, dialect: ReturnType<typeof dialectOf>): CompiledModel {
  const fields = new Map<string, FieldMeta>(meta.fields.map((field) => [field.name, field]));
  const actions = new Map<string, ActionMeta>(meta.actions.map((action) => [action.name, action]));
  const toDb = new Map(meta.fields.map((field) => [field.name, toDbConverter(field.kind, dialect)]));
  return Object.freeze({
    meta,
    table: meta.table.name,
    fields,
    governed: meta.fields.filter((field) => field.governed),
    actions,
    personal: new Map(meta.fields.filter((field) => field.personal).map((field) => [field.name, field.maskLabel!])),
    query: compileModelQuery(meta, dialect),
    toDb,
  });
}
