/**
 * Steps 2–4 of the command path: validate the input, resolve an agent's tokens to the values they
 * stand for, and work out what the command will do — for an `update` that changes governed
 * fields, the action that makes each change from the record's current state (whose required
 * inputs, approval rule and rights then apply to the update).
 */
import { kindTraits } from '../command-kinds.ts';
import { resolveAgentInput } from '../masking/agent-input.ts';
import { badRequest } from '../errors.ts';
import { recordNotFound } from './handlers.ts';
import type { CommandContext, PreparedCall } from './types.ts';
import { validateInput, type ValidInput } from './validate-input.ts';
import { actionMoving } from './workflow.ts';

/** The call's input validated and prepared; an agent's tokens resolved (none stored yet). */
export async function prepareCall(ctx: CommandContext, rawInput: unknown): Promise<PreparedCall> {
  const valid = await validateInput(ctx, rawInput);
  if (ctx.caller.kind !== 'agent' || ctx.fields.masked.length === 0 || !takesPersonalValues(ctx)) return prepareCommand(ctx, valid);
  const agentInput = await resolveAgentInput(ctx.service.db, ctx.caller.tokenId, ctx.fields.masked, valid.input);
  const prepared = await prepareCommand(ctx, { ...valid, input: agentInput.input });
  return {
    ...prepared,
    ...(Object.keys(agentInput.sentTokens).length > 0 ? { agentTokens: agentInput.sentTokens } : {}),
    ...(agentInput.clearPersonal.length > 0 ? { clearPersonal: agentInput.clearPersonal } : {}),
  };
}

function takesPersonalValues(ctx: CommandContext): boolean {
  return kindTraits(ctx.command.meta.kind).takesFields;
}

/**
 * What the command will do. For an `update` that changes governed fields, finds the action that
 * makes each change from the record's current state; its required inputs and its approval rule
 * then apply to the update, and the caller must be allowed that action.
 */
export async function prepareCommand(ctx: CommandContext, valid: ValidInput): Promise<PreparedCall> {
  const { meta, model } = ctx.command;
  const input = { ...valid.input };
  const recordId = typeof input.id === 'string' ? input.id : null;
  const actions: string[] = [];
  let needsApproval = meta.needsApproval;

  if (meta.kind === 'action') actions.push(meta.action!.name);

  if (meta.kind === 'update') {
    const changing = model.governed.filter((field) => field.name in input);
    if (changing.length > 0) {
      const current: Readonly<Record<string, unknown>> | undefined = await model.queries.find(ctx.service.db, recordId!);
      if (!current) throw recordNotFound(ctx, recordId!);
      for (const field of changing) {
        const from = current[field.name];
        const to = input[field.name] as string;
        if (from === to) {
          delete input[field.name];
          continue;
        }
        const action = actionMoving(model.meta, field.name, from, to, (name) => ctx.rights.commands.has(`${model.meta.name}.${name}`));
        for (const required of action.required) {
          if (input[required] === undefined || input[required] === null) throw badRequest(`${model.meta.name}.${required} is required`);
        }
        actions.push(action.name);
        needsApproval ||= action.needsApproval;
      }
    }
  }

  return { command: meta.id, input, actions, recordId, needsApproval, ...(valid.list ? { list: valid.list } : {}) };
}
