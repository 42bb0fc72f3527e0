/**
 * Masking tokens for personal fields (SPEC 2.4): an agent sees `<LABEL>_<n>` where a person sees
 * the value. Each agent token has its own numbering per label, kept in the database so it survives
 * restarts and is shared by every instance. Two kinds of token share that numbering:
 *
 * - **Shared** tokens stand for a value wherever the agent reads it: the same clear value gives the
 *   same token on every record, model and call (two parties sharing an email show one `EMAIL_n`).
 *   See shared-tokens.ts.
 * - **Written** tokens are issued for a value the agent itself sends in clear, in the transaction
 *   of the write that stores it (a write that does not happen keeps no clear value). Such a value
 *   never gets a shared token (nor one already issued for an equal value): were it to, an agent
 *   could write a guess and compare the token it gets back with one it holds, and learn whether a
 *   value it has only seen masked equals its guess. A written token is *bound* to the record field
 *   it was written to (bindings.ts), and reads of that field show it, for as long as the field
 *   keeps that value. See token-store.ts.
 *
 * What an agent can and cannot link this way is set out in docs/security.md. This file holds the
 * tables and the token's form, which every part of masking shares.
 */
import { hash } from 'node:crypto';
import type { FieldKind } from '../api-shapes.ts';
import type { Knex } from 'knex';
import { createTableIfMissing } from '../db/system-tables.ts';

export const MASK_TABLE = 'rms_mask_tokens';
export const MASK_BINDINGS_TABLE = 'rms_mask_bindings';

/**
 * `<LABEL>_<n>`: upper-case label, underscore, integer (SPEC 2.4). Issued numbers start at 1 and
 * have no leading zeros, but `NAME_0` and `NAME_01` have the form all the same: they are refused as
 * `invalid token`, never stored as clear text.
 */
export const TOKEN_FORM = /^([A-Z][A-Z0-9_]*)_([0-9]+)$/;

export function isTokenForm(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_FORM.test(value);
}

/** The token of number `n` under `label`. */
export function tokenOf(label: string, n: number | string): string {
  return `${label}_${Number(n)}`;
}

/** A personal value as masking keeps and keys it: text as it is, any other kind as its JSON. */
export function maskedText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Kinds whose values are strings (text, and dates, datetimes, options and ids as written): masked as they are. */
const STRING_VALUED: ReadonlySet<FieldKind | 'id'> = new Set(['id', 'text', 'longtext', 'email', 'url', 'phone', 'date', 'datetime', 'select', 'ref']);

/**
 * The value a masked text (`maskedText`) stands for, in a field of this kind. A file field's is
 * the file as a record holds it (JSON) when the agent read it, or the id it sent when it wrote the
 * value in clear (kinds.ts takes both as a file field's input).
 */
export function unmaskedValue(text: string, kind: FieldKind | 'id'): unknown {
  if (STRING_VALUED.has(kind)) return text;
  if (kind === 'file' && !text.startsWith('{') && !text.startsWith('[')) return text;
  return JSON.parse(text) as unknown;
}

/**
 * The key a value is found by: the sha256 of its text (values may be long texts, too long for a
 * btree key). Every masked value an agent reads is hashed: the one-shot `hash` costs a fifth of a
 * `createHash` object's update and digest.
 */
export function hashValue(value: string): string {
  return hash('sha256', value, 'hex');
}

export async function ensureMaskTables(db: Knex): Promise<void> {
  await createTableIfMissing(db, MASK_TABLE, (table) => {
    table.string('agent_token_id', 64).notNullable();
    table.string('label', 100).notNullable();
    table.bigInteger('n').notNullable();
    // The lookup key of the token: for a shared token the sha256 of its value, unique per agent
    // and label; for a written token `written:<id>`, which no lookup by value finds.
    table.string('value_hash', 64).notNullable();
    table.text('value').notNullable();
    table.primary(['agent_token_id', 'label', 'n']);
    table.unique(['agent_token_id', 'label', 'value_hash']);
  });
  await createTableIfMissing(db, MASK_BINDINGS_TABLE, (table) => {
    table.string('agent_token_id', 64).notNullable();
    table.string('model', 100).notNullable();
    table.string('record_id', 64).notNullable();
    table.string('field', 100).notNullable();
    table.string('label', 100).notNullable();
    table.bigInteger('n').notNullable();
    /** sha256 of the value the agent wrote: the binding holds only while the field still holds it. */
    table.string('value_hash', 64).notNullable();
    table.primary(['agent_token_id', 'model', 'record_id', 'field']);
    table.index(['model', 'record_id'], 'rms_mask_bindings_record');
  });
}

/** The prefix of a written token's `value_hash`: no lookup by a value's hash meets it. */
export const WRITTEN_KEY_PREFIX = 'written:';

/** The prefix of the `value_hash` of a token whose value was erased (erase.ts): no lookup meets it, and the token is refused. */
export const ERASED_KEY_PREFIX = 'erased:';
