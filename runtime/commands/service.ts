/**
 * The command service: the registry compiled once into lookup tables (commands by id, models
 * with their SQL pieces) plus the database and the hooks. Built at start; the command path only
 * reads it.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../db/connect.ts';
import { compileModelQuery } from '../query/list-query.ts';
import { toDbConverter } from '../query/values.ts';
import type { ActionMeta, FieldMeta, ModelMeta, Registry } from '../registry.ts';
import type { CommandHooks, CommandService, CompiledCommand, CompiledModel } from './types.ts';

export interface CommandServiceOptions {
  readonly registry: Registry;
  readonly db: Knex;
  /** Replaces some of the default hooks (agents: masking, approval plans, audit). */
  readonly hooks?: Partial<CommandHooks>;
  readonly logError?: (error: unknown) => void;
}

export function createCommandService(options: CommandServiceOptions): CommandService {
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
    hooks: { ...defaultHooks, ...options.hooks },
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
    query: compileModelQuery(meta, dialect),
    toDb,
  });
}

/**
 * The hooks for people, and the safe defaults until the agent side installs its own: an agent
 * whose call needs approval cannot run it, and an agent never sees a personal value in clear.
 */
export const defaultHooks: CommandHooks = {
  async unmaskInput(_ctx, input) {
    return input;
  },
  needsProposal(ctx, prepared) {
    return ctx.caller.kind === 'agent' && prepared.needsApproval;
  },
  async propose() {
    throw new Error('approval plans are not installed (agent hooks missing)');
  },
  async presentRecords(ctx, records) {
    if (ctx.caller.kind === 'agent' && ctx.fields.masked.length > 0) throw new Error('masking is not installed (agent hooks missing)');
    return records;
  },
  async audit() {},
};
