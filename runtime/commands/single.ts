/**
 * A bulk command's records as single-record commands: the command each runs as, and its
 * refusals named for the bulk command (see bulk.ts).
 */
import type { CommandKind } from '../command-kinds.ts';
import { HttpError } from '../errors.ts';
import type { CommandContext } from './types.ts';

/** The context of the single-record command a bulk command runs each record as (`lead.update` for `lead.update_many`). */
export function singleContext(ctx: CommandContext, kind: CommandKind): CommandContext {
  const command = ctx.service.commands.get(`${ctx.command.model.meta.name}.${kind}`)!;
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
  const at = error.message.indexOf(model);
  const named = at >= 0 ? `${error.message.slice(0, at)}${ctx.command.meta.id} ${where}.${error.message.slice(at + model.length)}` : `${ctx.command.meta.id} ${where}: ${error.message}`;
  return new HttpError(error.status, named);
}

/** `lead.update_many would change 12 records, more than max_affected 10` (409). */
export function moreThanAllowed(ctx: CommandContext, count: number, max: number): HttpError {
  return new HttpError(409, `${ctx.command.meta.id} would change ${count} records, more than max_affected ${max}`);
}
