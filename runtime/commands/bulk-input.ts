/**
 * An agent's personal values in a bulk command's input, part by part (masking/value-parts.ts):
 * each part is masked as the single command masks its input (masking/agent-input.ts) — the tokens
 * the agent sent stand for the values they were issued for, and a value it sent in clear gets a
 * written token with the write (or the plan) that keeps it.
 */
import type { Knex } from 'knex';
import type { CommandKind } from '../command-kinds.ts';
import { clearPersonalKeys, resolveAgentInput, tokensOfWrite } from '../masking/agent-input.ts';
import type { ModelRights } from '../rights.ts';
import { namingRecord } from './single.ts';
import type { CommandContext, PreparedCall } from './types.ts';
import { takesValueParts, valueParts, withParts, withoutPrefix } from '../masking/value-parts.ts';

/**
 * Resolves the tokens an agent sent in each part of a bulk input (400 `invalid token` for one not
 * issued to it, naming the part: `party.create_many records[2]: invalid token`); reads only.
 */
export async function resolveAgentBulkInput(ctx: CommandContext, agentTokenId: string, input: Readonly<Record<string, unknown>>): Promise<{ input: Record<string, unknown>; sentTokens: Record<string, string> }> {
  const kind = ctx.command.meta.kind;
  const sentTokens: Record<string, string> = {};
  const resolved: Record<string, unknown>[] = [];
  for (const part of valueParts(kind, input)) {
    let agentInput: Awaited<ReturnType<typeof resolveAgentInput>>;
    try {
      agentInput = await resolveAgentInput(ctx.service.db, agentTokenId, ctx.fields, part.values);
    } catch (error) {
      // `records.3.` names records[3]; `set.` and `input.` name themselves.
      throw namingRecord(ctx, part.prefix.slice(0, -1).replace(/\.(\d+)$/, '[$1]'), error);
    }
    resolved.push(agentInput.input);
    for (const [key, token] of Object.entries(agentInput.sentTokens)) sentTokens[`${part.prefix}${key}`] = token;
  }
  return { input: withParts(kind, input, resolved), sentTokens };
}

/** The keys of the personal values a (validated) bulk input gives that the agent did not send as tokens. */
export function clearPersonalBulkKeys(rights: ModelRights, kind: CommandKind, input: Readonly<Record<string, unknown>>, sentTokens: Readonly<Record<string, string>>): string[] {
  return valueParts(kind, input).flatMap((part) => clearPersonalKeys(rights, part.values, withoutPrefix(sentTokens, part.prefix)).map((key) => `${part.prefix}${key}`));
}

/**
 * The tokens the agent knows the personal values of its call by: those it sent, and a written
 * token for each value it sent in clear, issued now in `trx` (the write's or the plan's
 * transaction). For a bulk command, part by part.
 */
export async function writtenTokensOf(ctx: CommandContext, trx: Knex, agentTokenId: string, prepared: PreparedCall): Promise<Record<string, string>> {
  const kind = ctx.command.meta.kind;
  const clear = prepared.clearPersonal ?? [];
  if (!takesValueParts(kind)) return tokensOfWrite(trx, agentTokenId, ctx.fields, prepared.input, prepared.agentTokens, clear);
  const tokens: Record<string, string> = { ...prepared.agentTokens };
  for (const part of valueParts(kind, prepared.input)) {
    const wanted = clear.filter((key) => key.startsWith(part.prefix)).map((key) => key.slice(part.prefix.length));
    if (wanted.length === 0) continue;
    const issued = await tokensOfWrite(trx, agentTokenId, ctx.fields, part.values, undefined, wanted);
    for (const [key, token] of Object.entries(issued)) tokens[`${part.prefix}${key}`] = token;
  }
  return tokens;
}
