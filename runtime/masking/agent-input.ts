/**
 * An agent's input to a write: the tokens it sends in personal fields stand for values (SPEC 2.4),
 * and the values it sends in clear get written tokens (tables.ts) — but only with the write that
 * stores them, so that a call that is refused, fails or is only tried keeps no clear value.
 */
import type { Knex } from 'knex';
import type { FieldMeta } from '../registry.ts';
import { isTokenForm } from './tables.ts';
import { findIssuedToken, issueWrittenToken } from './token-store.ts';

export interface AgentInput {
  /** The input with clear values: each token replaced by the value it stands for. */
  readonly input: Record<string, unknown>;
  /** Field → the token the agent sent for it. */
  readonly sentTokens: Record<string, string>;
  /** Personal fields the agent gave in clear: a written token is issued for each with the write. */
  readonly clearPersonal: string[];
}

/**
 * Replaces the tokens in an agent's personal fields with the values they stand for (400 `invalid
 * token` for one it was not issued, SPEC 2.4). Reads only: nothing is stored for the call yet.
 */
export async function resolveAgentInput(db: Knex, agentTokenId: string, masked: readonly FieldMeta[], input: Readonly<Record<string, unknown>>): Promise<AgentInput> {
  const clear: Record<string, unknown> = { ...input };
  const sentTokens: Record<string, string> = {};
  const clearPersonal: string[] = [];
  for (const field of masked) {
    const value = clear[field.name];
    if (typeof value !== 'string') continue;
    if (isTokenForm(value)) {
      clear[field.name] = (await findIssuedToken(db, agentTokenId, field.maskLabel!, value)).value;
      sentTokens[field.name] = value;
    } else {
      clearPersonal.push(field.name);
    }
  }
  return { input: clear, sentTokens, clearPersonal };
}

/**
 * The tokens the agent knows the personal values of its write by: those it sent, and a written
 * token for each value it sent in clear, issued now in `trx`, the transaction that stores them.
 */
export async function tokensOfWrite(
  trx: Knex,
  agentTokenId: string,
  labels: ReadonlyMap<string, string>,
  input: Readonly<Record<string, unknown>>,
  known: Readonly<Record<string, string>> | undefined,
  clearPersonal: readonly string[],
): Promise<Record<string, string>> {
  const tokens: Record<string, string> = { ...known };
  for (const field of clearPersonal) {
    const value = input[field];
    if (typeof value === 'string') tokens[field] = await issueWrittenToken(trx, agentTokenId, labels.get(field)!, value);
  }
  return tokens;
}
