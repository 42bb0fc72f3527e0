/**
 * Masking tokens for personal fields (SPEC 2.4). Each agent token has its own numbering per label:
 * the same clear value gives the same token (`NAME_1`) to the same agent on every call and every
 * model, and nothing to any other agent. The mapping lives in the database so it survives restarts
 * and is shared by every instance.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { badRequest } from '../errors.ts';

export const MASK_TABLE = 'rms_mask_tokens';

/** `<LABEL>_<n>`: upper-case label, underscore, positive integer. */
const TOKEN_FORM = /^([A-Z][A-Z0-9_]*)_([1-9][0-9]*)$/;

export function isTokenForm(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_FORM.test(value);
}

export async function ensureMaskTables(db: Knex): Promise<void> {
  if (await db.schema.hasTable(MASK_TABLE)) return;
  await db.schema.createTable(MASK_TABLE, (table) => {
    table.string('agent_token_id', 64).notNullable();
    table.string('label', 100).notNullable();
    table.bigInteger('n').notNullable();
    // Lookups by value go through its hash: values may be long texts, too long for a btree key.
    table.string('value_hash', 64).notNullable();
    table.text('value').notNullable();
    table.primary(['agent_token_id', 'label', 'n']);
    table.unique(['agent_token_id', 'label', 'value_hash']);
  });
}

function hashValue(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A pending request to mask one value under one label. */
export interface MaskRequest {
  readonly label: string;
  readonly value: string;
}

const CHUNK = 400;

/**
 * Returns the token for each (label, value), issuing new ones where this agent has none yet.
 * Batched: one lookup per label and chunk, then one insert per new token. Call inside the
 * command's transaction so a failed command leaves no half-issued numbering behind.
 */
export async function maskValues(db: Knex, agentTokenId: string, requests: readonly MaskRequest[]): Promise<Map<string, string>> {
  const tokens = new Map<string, string>(); // key: label \u0000 value
  const byLabel = new Map<string, Set<string>>();
  for (const { label, value } of requests) {
    let values = byLabel.get(label);
    if (!values) byLabel.set(label, (values = new Set()));
    values.add(value);
  }
  for (const [label, values] of byLabel) {
    const hashes = new Map<string, string>();
    for (const value of values) hashes.set(hashValue(value), value);
    const allHashes = [...hashes.keys()];
    for (let i = 0; i < allHashes.length; i += CHUNK) {
      const rows: { n: number | string; value_hash: string }[] = await db(MASK_TABLE)
        .select('n', 'value_hash')
        .where({ agent_token_id: agentTokenId, label })
        .whereIn('value_hash', allHashes.slice(i, i + CHUNK));
      for (const row of rows) {
        tokens.set(`${label}\u0000${hashes.get(row.value_hash)}`, `${label}_${Number(row.n)}`);
        hashes.delete(row.value_hash);
      }
    }
    if (hashes.size === 0) continue;
    const max = await db(MASK_TABLE).where({ agent_token_id: agentTokenId, label }).max({ n: 'n' }).first();
    let next = Number(max?.n ?? 0);
    const inserts = [];
    for (const [valueHash, value] of hashes) {
      next++;
      inserts.push({ agent_token_id: agentTokenId, label, n: next, value_hash: valueHash, value });
      tokens.set(`${label}\u0000${value}`, `${label}_${next}`);
    }
    for (let i = 0; i < inserts.length; i += 100) await db(MASK_TABLE).insert(inserts.slice(i, i + 100));
  }
  return tokens;
}

export function maskKey(label: string, value: string): string {
  return `${label}\u0000${value}`;
}

/**
 * The clear value of a token this agent was issued for `label`; anything else in token form is
 * refused with `invalid token` (SPEC 2.4): another label's token, a number never issued, or
 * another agent's token.
 */
export async function unmaskValue(db: Knex, agentTokenId: string, label: string, token: string): Promise<string> {
  const match = TOKEN_FORM.exec(token);
  if (!match || match[1] !== label) throw badRequest('invalid token');
  const row = await db(MASK_TABLE).select('value').where({ agent_token_id: agentTokenId, label, n: Number(match[2]) }).first();
  if (!row) throw badRequest('invalid token');
  return row.value as string;
}
