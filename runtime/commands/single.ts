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
 * record becomes `lead.create_many records[3].title is required`; an action's input
 * (`order.cancel.reason is required`) becomes `order.cancel_many input.reason is required`; a
 * text that begins with the single command (`lead.lose does not take lead.title`) begins with the
 * bulk one instead (`lead.lose_many does not take input.title`); a text that names no field of the
 * model gets the record in front (`lead.update_many record 01H…: lead 01H… not found`). What the
 * refusal's body says besides (a rule's `fields`) is kept.
 */
export function namingRecord(ctx: CommandContext, where: string, error: unknown): unknown {
  if (!(error instanceof HttpError)) return error;
  const bulk = ctx.command.meta.id;
  const model = `${ctx.command.model.meta.name}.`;
  const single = bulk.replace(/_many$/, '');
  const text = error.message;
  let named: string;
  if (single !== bulk && text.startsWith(`${single} `)) {
    const rest = text.slice(single.length);
    const field = fieldNamedAt(ctx, rest, model);
    named = `${bulk}${field ? `${rest.slice(0, field.at)}${where}.${rest.slice(field.at + field.length)}` : rest}`;
  } else {
    const field = fieldNamedAt(ctx, text, model);
    named = field ? `${text.slice(0, field.at)}${bulk} ${where}.${text.slice(field.at + field.length)}` : `${bulk} ${where}: ${text}`;
  }
  return new HttpError(error.status, named, error.body);
}
/** `lead.update_many would change 12 records, more than max_affected 10` (409). */
export function moreThanAllowed(ctx: CommandContext, count: number, max: number): HttpError {
  return new HttpError(409, `${ctx.command.meta.id} would change ${count} records, more than max_affected ${max}`);
}

/**
 * Where the text names a field of the model, and how long the name's prefix is: the first
 * `<model>.` that does not name one of its commands (`lead.qualify does not take lead.title`
 * names the action first), or `<model>.<action>.` before one of the action's inputs; undefined for none.
 */
function fieldNamedAt(ctx: CommandContext, text: string, model: string): { at: number; length: number } | undefined {
  for (let at = text.indexOf(model); at >= 0; at = text.indexOf(model, at + 1)) {
    const name = /^[A-Za-z0-9_]+/.exec(text.slice(at + model.length))?.[0] ?? '';
    const next = text[at + model.length + name.length];
    const namesCommand = ctx.service.commands.has(`${model}${name}`);
    if (!namesCommand) return { at, length: model.length };
    if (next === '.') return { at, length: model.length + name.length + 1 };
  }
  return undefined;
}
