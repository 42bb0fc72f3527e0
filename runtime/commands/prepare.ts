/**
 * Steps 2–4 of the command path: validate the input, resolve an agent's tokens to the values they
 * stand for, and work out what the command will do — for an `update` that changes governed
 * fields, the action that makes each change from the record's current state (whose required
 * inputs, approval rule and rights then apply to the update).
 */
import { kindTraits } from '../command-kinds.ts';
import { clearPersonalKeys, resolveAgentInput } from '../masking/agent-input.ts';
import { badRequest } from '../errors.ts';
import type { Knex } from 'knex';
import { recordNotFound } from './documents.ts';
import type { CommandContext, PreparedCall } from './types.ts';
import { isPlainObject, validateInput, type ValidInput } from './validate-input.ts';
import { actionMoving } from './workflow.ts';
import { clearPersonalBulkKeys, resolveAgentBulkInput } from './bulk-input.ts';
import { takesValueParts } from '../masking/value-parts.ts';

/**
 * The call's input validated and prepared. An agent's tokens are resolved to the values they
 * stand for first (a personal number's token is no number: the values are what gets validated);
 * nothing is stored for the call yet.
 */
export async function prepareCall(ctx: CommandContext, rawInput: unknown): Promise<PreparedCall> {
  if (ctx.caller.kind !== 'agent' || !takesPersonalValues(ctx) || !isPlainObject(rawInput)) return prepareCommand(ctx, await validateInput(ctx, rawInput));
  const kind = ctx.command.meta.kind;
  // A bulk command's values are in parts (its records, its set), each masked as its single command's input.
  const bulk = takesValueParts(kind);
  const agentInput = bulk
    ? await resolveAgentBulkInput(ctx, ctx.caller.tokenId, rawInput)
    : await resolveAgentInput(ctx.service.db, ctx.caller.tokenId, ctx.fields, rawInput);
  const prepared = await prepareCommand(ctx, await validateInput(ctx, agentInput.input));
  const clearPersonal = bulk ? clearPersonalBulkKeys(ctx.fields, kind, prepared.input, agentInput.sentTokens) : clearPersonalKeys(ctx.fields, prepared.input, agentInput.sentTokens);
  return {
    ...prepared,
    ...(Object.keys(agentInput.sentTokens).length > 0 ? { agentTokens: agentInput.sentTokens } : {}),
    ...(clearPersonal.length > 0 ? { clearPersonal } : {}),
  };
}

/** Whether the command's input may carry personal values: an agent with fields masked for it, writing fields. */
function takesPersonalValues(ctx: CommandContext): boolean {
  const masks = ctx.fields.masked.length > 0 || Object.values(ctx.fields.lines).some((line) => line.masked.length > 0);
  return masks && kindTraits(ctx.command.meta.kind).takesFields;
}

/**
 * What the command will do. For an `update` that changes governed fields, finds the action that
 * makes each change from the record's current state; its required inputs and its approval rule
 * then apply to the update, and the caller must be allowed that action. `db`: where to read the
 * record (a bulk update prepares each record in its transaction).
 */
export async function prepareCommand(ctx: CommandContext, valid: ValidInput, db: Knex = ctx.service.db): Promise<PreparedCall> {
  const { meta, model } = ctx.command;
  const input = { ...valid.input };
  const recordId = typeof input.id === 'string' ? input.id : null;
  const actions: string[] = [];
  let needsApproval = meta.needsApproval;

  // An action's bulk command runs the action: approving its plan is running it.
  if (meta.kind === 'action' || meta.kind === 'action_many') actions.push(meta.action!.name);

  if (meta.kind === 'update') {
    const changing = model.governed.filter((field) => field.name in input);
    if (changing.length > 0) {
      const current: Readonly<Record<string, unknown>> | undefined = await model.queries.find(db, recordId!);
      if (!current) throw recordNotFound(ctx, recordId!);
      for (const field of changing) {
        const from = current[field.name];
        const to = input[field.name] as string;
        if (from === to) {
          delete input[field.name];
          continue;
        }
        const action = actionMoving(model.meta, field.name, from, to, (name) => ctx.rights.commands.has(`${model.meta.name}.${name}`));
        // An update carries fields only: an action that needs an input that is none runs by its own command.
        const needs = action.inputs.filter((candidate) => candidate.required && !candidate.field).map((candidate) => candidate.name);
        if (needs.length > 0) throw badRequest(`${model.meta.name}.${field.name} cannot move from ${String(from)} to ${to} by update: run ${model.meta.name}.${action.name}, which needs ${needs.join(', ')}`);
        for (const required of action.required) {
          if (input[required] === undefined || input[required] === null) throw badRequest(`${model.meta.name}.${required} is required`);
        }
        // An input that is no field of the record cannot come with an update: the action itself takes it.
        const notFields = action.inputs.filter((candidate) => candidate.required && !candidate.field).map((candidate) => candidate.name);
        if (notFields.length > 0) {
          throw badRequest(`${model.meta.name}.${field.name} moves to ${to} by ${model.meta.name}.${action.name}, which takes ${notFields.join(', ')}: call it instead of update`);
        }
        actions.push(action.name);
        needsApproval ||= action.needsApproval;
      }
    }
  }

  return { command: meta.id, input, actions, recordId, needsApproval, ...(valid.list ? { list: valid.list } : {}) };
}
