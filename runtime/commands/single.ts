/**
 * A bulk command's records as single-record commands: the command each runs as, and its
 * refusals named for the bulk command (see bulk.ts).
 */
import type { CommandKind } from '../command-kinds.ts';
import { HttpError } from '../errors.ts';
import type { CommandContext } from './types.ts';

/**
 * The context of the single-record command a bulk command runs each record as (`lead.update` for
 * `lead.update_many`; the action for an action's bulk command, `lead.qualify` for `lead.qualify_many`).
 */
export function singleContext(ctx: CommandContext, kind: CommandKind): CommandContext {
  const name = kind === 'action' ? ctx.command.meta.action!.name : kind;
  const command = ctx.service.commands.get(`${ctx.command.model.meta.name}.${name}`)!;
  return { ...ctx, command };
}

/**
 * A refusal of one record, named for the bulk command: `lead.title is required` of the fourth
 * record becomes `lead.create_many records[3].title is required`; a text that does not name a
 * field of the model gets the record in front (`lead.update_many record 01H…: lead 01H… not found`).
 */
export function namingRecord(ctx: CommandContext, where: string, error: unknown): unknown {
  if (!(error instanceof HttpError)) return error;
  const model = `${ctx.command.model.meta.name}.`;
  const at = fieldNamedAt(ctx, error.message, model);
  const named = at >= 0 ? `${error.message.slice(0, at)}${ctx.command.meta.id} ${where}.${error.message.slice(at + model.length)}` : `${ctx.command.meta.id} ${where}: ${error.message}`;
  return new HttpError(error.status, named);
}

/** `lead.update_many would change 12 records, more than max_affected 10` (409). */
export function moreThanAllowed(ctx: CommandContext, count: number, max: number): HttpError {
  return new HttpError(409, `${ctx.command.meta.id} would change ${count} records, more than max_affected ${max}`);
}

/**
 * Where the text names a field of the model (`lead.title`): the first `<model>.` that does not
 * name one of its commands (`lead.qualify does not take lead.title` names the action first); -1 for none.
 */
function fieldNamedAt(ctx: CommandContext, text: string, model: string): number {
  for (let at = text.indexOf(model); at >= 0; at = text.indexOf(model, at + 1)) {
    const name = /^[A-Za-z0-9_]+/.exec(text.slice(at + model.length))?.[0] ?? '';
    const namesCommand = ctx.service.commands.has(`${model}${name}`) && text[at + model.length + name.length] === ' ';
    if (!namesCommand) return at;
  }
  return -1;
}
