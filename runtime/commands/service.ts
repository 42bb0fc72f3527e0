/**
 * The record service: the registry compiled once into lookup tables (commands by id, models with
 * their generated queries) for one database. Built at start; the command path only reads it.
 */
import type { Knex } from 'knex';
import { dialectOf, type Dialect } from '../db/connect.ts';
import { compileModelQuery } from '../query/list-query.ts';
import { logUnexpectedError } from '../errors.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { ActionMeta, FieldMeta, ModelLogic, ModelMeta, ModelQueries, Registry } from '../registry.ts';
import type { CompiledCommand, CompiledLineList, CompiledModel, RecordService } from './types.ts';

export interface RecordServiceOptions {
  readonly registry: Registry;
  readonly db: Knex;
  readonly logError?: (error: unknown) => void;
  /** The time writes read for `'today'` and `'now'` (defaults, actions' sets); the system's by default. */
  readonly clock?: Clock;
}

export function createRecordService(options: RecordServiceOptions): RecordService {
  const { registry, db } = options;
  const dialect = dialectOf(db);
  const models = new Map<string, CompiledModel>();
  for (const model of Object.values(registry.models)) models.set(model.name, compileModel(model, registry.queries[model.name], registry.logic[model.name], dialect));
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
    logError: options.logError ?? logUnexpectedError,
    clock: options.clock ?? systemClock,
  });
}

function compileModel(meta: ModelMeta, queries: ModelQueries | undefined, logic: ModelLogic | undefined, dialect: Dialect): CompiledModel {
  checkQueries(meta, queries);
  if (!logic) throw new Error(`model ${meta.name} has no generated logic in the registry (run \`npx rmsgen build\`)`);
  const lines = new Map<string, CompiledLineList>();
  for (const list of meta.lines) {
    const lineQueries = queries.lines[list.name];
    if (!lineQueries) throw new Error(`model ${meta.name} has no generated queries for its lines ${list.name} (run \`npx rmsgen build\`)`);
    lines.set(list.name, Object.freeze({ meta: list, fields: new Map(list.fields.map((field) => [field.name, field])), personal: personalLabels(list.fields), queries: lineQueries }));
  }
  const hasLogic = meta.rules.length > 0 || meta.fields.some((field) => field.computed) || meta.lines.some((list) => list.fields.some((field) => field.computed));
  const fields = new Map<string, FieldMeta>(meta.fields.map((field) => [field.name, field]));
  const actions = new Map<string, ActionMeta>(meta.actions.map((action) => [action.name, action]));
  return Object.freeze({
    meta,
    queries,
    fields,
    governed: meta.fields.filter((field) => field.governed),
    actions,
    personal: personalLabels(meta.fields),
    query: compileModelQuery(meta, dialect),
    logic,
    lines,
    hasLogic,
  });
}

/** The model's queries must be generated from the same definition as its metadata: the same table and columns. */
function checkQueries(meta: ModelMeta, queries: ModelQueries | undefined): asserts queries is ModelQueries {
  if (!queries) throw new Error(`model ${meta.name} has no generated queries in the registry (run \`npx rmsgen build\`)`);
  const columns = meta.table.columns.map((column) => column.name);
  if (queries.table !== meta.table.name || queries.columns.join() !== columns.join()) {
    throw new Error(
      `model ${meta.name}: its generated queries use ${queries.table} (${queries.columns.join(', ')}), its table is ${meta.table.name} (${columns.join(', ')}) (run \`npx rmsgen build\`)`,
    );
  }
}

/** Personal fields by name: their token labels. */
function personalLabels(fields: readonly FieldMeta[]): Map<string, string> {
  return new Map(fields.filter((field) => field.personal).map((field) => [field.name, field.maskLabel!]));
}
