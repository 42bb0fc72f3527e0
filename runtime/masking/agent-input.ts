/**
 * An agent's input to a write: the tokens it sends in personal fields (of the record and of its
 * lines, of any kind) stand for values (SPEC 2.4), and the values it sends in clear get written
 * tokens (tables.ts) — but only with the write that stores them, so that a call that is refused,
 * fails or is only tried keeps no clear value.
 *
 * A personal value is keyed by its field's name, or `<lines>.<index>.<field>` for a line's (the
 * index in the input's list: lines have no ids before they are written).
 */
import type { Knex } from 'knex';
import type { FieldMeta } from '../registry.ts';
import type { ModelRights } from '../rights.ts';
import { isTokenForm, unmaskedValue } from './tables.ts';
import { findIssuedToken, issueWrittenToken } from './token-store.ts';

export interface AgentInput {
  /** The input with each token replaced by the value it stands for. */
  readonly input: Record<string, unknown>;
  /** Personal value's key → the token the agent sent for it. */
  readonly sentTokens: Record<string, string>;
}

/** A personal value of an input: its key, its field, and where it is. */
interface PersonalSlot {
  readonly key: string;
  readonly field: FieldMeta;
  readonly holder: Record<string, unknown>;
}

/** The personal values an input gives, record fields and line fields, with where they are (copies: the input is not changed). */
function personalSlots(rights: ModelRights, input: Readonly<Record<string, unknown>>): { copy: Record<string, unknown>; slots: PersonalSlot[] } {
  const copy: Record<string, unknown> = { ...input };
  const slots: PersonalSlot[] = [];
  for (const field of rights.masked) if (copy[field.name] !== undefined && copy[field.name] !== null) slots.push({ key: field.name, field, holder: copy });
  for (const [name, line] of Object.entries(rights.lines)) {
    if (line.masked.length === 0 || !Array.isArray(copy[name])) continue;
    copy[name] = (copy[name] as unknown[]).map((item, index) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
      const lineCopy = { ...(item as Record<string, unknown>) };
      for (const field of line.masked) {
        if (lineCopy[field.name] !== undefined && lineCopy[field.name] !== null) slots.push({ key: `${name}.${index}.${field.name}`, field, holder: lineCopy });
      }
      return lineCopy;
    });
  }
  return { copy, slots };
}

/**
 * Replaces the tokens in an agent's personal fields (and its lines') with the values they stand
 * for (400 `invalid token` for one it was not issued, SPEC 2.4), before the input is validated.
 * Reads only: nothing is stored for the call yet.
 */
export async function resolveAgentInput(db: Knex, agentTokenId: string, rights: ModelRights, input: Readonly<Record<string, unknown>>): Promise<AgentInput> {
  const { copy, slots } = personalSlots(rights, input);
  const sentTokens: Record<string, string> = {};
  for (const { key, field, holder } of slots) {
    const value = holder[field.name];
    if (!isTokenForm(value)) continue;
    const issued = await findIssuedToken(db, agentTokenId, field.maskLabel!, value);
    holder[field.name] = unmaskedValue(issued.value, field.kind);
    sentTokens[key] = value;
  }
  return { input: copy, sentTokens };
}

/** The keys of the personal values an (validated) input gives that the agent did not send as tokens. */
export function clearPersonalKeys(rights: ModelRights, input: Readonly<Record<string, unknown>>, sentTokens: Readonly<Record<string, string>>): string[] {
  return personalSlots(rights, input).slots.map((slot) => slot.key).filter((key) => sentTokens[key] === undefined);
}

/**
 * The tokens the agent knows the personal values of its write by: those it sent, and a written
 * token for each value it sent in clear, issued now in `trx`, the transaction that stores them.
 */
export async function tokensOfWrite(
  trx: Knex,
  agentTokenId: string,
  rights: ModelRights,
  input: Readonly<Record<string, unknown>>,
  known: Readonly<Record<string, string>> | undefined,
  clearPersonal: readonly string[],
): Promise<Record<string, string>> {
  const tokens: Record<string, string> = { ...known };
  const wanted = new Set(clearPersonal);
  for (const { key, field, holder } of personalSlots(rights, input).slots) {
    if (!wanted.has(key)) continue;
    const value = holder[field.name];
    tokens[key] = await issueWrittenToken(trx, agentTokenId, field.maskLabel!, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return tokens;
}
