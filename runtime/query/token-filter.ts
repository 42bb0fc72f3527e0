/**
 * `token_filter` (an extension of SPEC 4.5 for agents): finding records by a field masked for the
 * agent, by equality with the masking tokens it holds, never with a clear value. A record matches
 * a token when reading it shows the agent that token — a shared token where the agent holds no
 * binding of another token for the value, a written token where the agent's binding says so
 * (masking/bindings.ts) — so that a filter tells it nothing that reading every record would not,
 * and never whether a value it wrote equals another record's.
 */
import { badRequest } from '../errors.ts';
import { LIMITS, type FilterOperator, type ListInput } from '../kinds.ts';
import { hashValue, isTokenForm, MASK_BINDINGS_TABLE, unmaskedValue } from '../masking/tables.ts';
import type { IssuedToken } from '../masking/token-store.ts';
import { sqlIdentifier } from '../db/statements.ts';
import type { ModelQuery, SqlFragment } from './compiled-list.ts';

/** What an agent's `token_filter` needs: the fields masked for it and the tokens the filter names, resolved. */
export interface MaskedFilters {
  readonly agentTokenId: string;
  /** Fields masked for the agent. */
  readonly maskedNames: ReadonlySet<string>;
  /** Line fields masked for the agent, as `<list>.<field>`: refused in filters, saying why. */
  readonly maskedLineNames: ReadonlySet<string>;
  /** The tokens the filter names, as the agent was issued them, by `maskedTokenKey(field, token)`. */
  readonly tokens: ReadonlyMap<string, IssuedToken>;
}

export function maskedTokenKey(field: string, token: string): string {
  return `${field}\u0000${token}`;
}

/** The operators a masked field may be filtered with. */
const MASKED_OPERATORS: ReadonlySet<FilterOperator> = new Set(['eq', 'in']);

/** The tokens an input's `token_filter` names on masked fields (what `MaskedFilters.tokens` must resolve), as [field, token]. */
export function maskedFilterTokens(input: ListInput, maskedNames: ReadonlySet<string>): [string, string][] {
  const tokens: [string, string][] = [];
  for (const condition of input.token_filter ?? []) {
    if (!maskedNames.has(condition.field) || !MASKED_OPERATORS.has(condition.op)) continue;
    const values = condition.op === 'in' && Array.isArray(condition.value) ? condition.value : [condition.value];
    for (const value of values) if (isTokenForm(value)) tokens.push([condition.field, value]);
  }
  return tokens;
}

/**
 * SPEC 4.5's refusal of a field the caller does not read in clear, saying why when the field is
 * masked for it: it exists, but its values may not be compared, ordered or matched in clear.
 */
export function maskedFieldError(path: string) {
  return badRequest(
    `unknown field ${path}: it is personal data, masked for you, so it cannot be filtered or ordered by its value; ` +
      'to find records by it, use token_filter with eq or in and a masking token you were given',
  );
}

/**
 * The refusal of a line field masked for the agent in a filter: as for a field of the record, with
 * the reason; token_filter does not reach into lines either (a line's tokens are bound per line).
 */
export function maskedLineFieldError(path: string) {
  return badRequest(`unknown field ${path}: it is personal data, masked for you, so it cannot be filtered by its value, nor by its tokens (token_filter takes fields of the record, not of its lines)`);
}

/** `eq`/`in` with masking tokens on a field masked for the agent (see `MaskedFilters`). */
export function maskedCondition(query: ModelQuery, masked: MaskedFilters, name: string, op: FilterOperator, value: unknown): SqlFragment {
  const field = query.fields.get(name)!;
  // A file is not found by what it is: a plain filter takes only is_null on a file field.
  if (field.kind === 'file') throw badRequest(`${field.path}: token_filter takes no file fields`);
  if (!MASKED_OPERATORS.has(op)) throw badRequest(`${field.path}: token_filter takes eq or in`);
  const values = op === 'in' ? value : [value];
  if (!Array.isArray(values) || values.length < 1 || values.length > LIMITS.inValues) throw badRequest(`${field.path}: in needs an array of 1 to ${LIMITS.inValues} values`);
  const matches = values.map((token): SqlFragment => {
    const issued = typeof token === 'string' ? masked.tokens.get(maskedTokenKey(name, token)) : undefined;
    if (!issued) throw badRequest(`${field.path}: token_filter takes masking tokens (${field.path} values you were given, such as the ones reads show you)`);
    const binding =
      `SELECT 1 FROM ${sqlIdentifier(MASK_BINDINGS_TABLE)} b WHERE b.agent_token_id = ? AND b.model = ? AND b.record_id = ${sqlIdentifier(query.table)}."id" ` +
      'AND b.field = ? AND b.value_hash = ?';
    // The value the token stands for, compared as the column stores it.
    const stored = field.toDb(unmaskedValue(issued.value, field.kind));
    const bindings = [stored, masked.agentTokenId, query.model, name, hashValue(issued.value), issued.label, issued.n];
    // Reads show a binding's token where the agent holds one for the value, the shared token elsewhere.
    return issued.written
      ? { sql: `(${field.column} = ? AND EXISTS (${binding} AND b.label = ? AND b.n = ?))`, bindings }
      : { sql: `(${field.column} = ? AND NOT EXISTS (${binding} AND NOT (b.label = ? AND b.n = ?)))`, bindings };
  });
  return matches.length === 1 ? matches[0]! : { sql: `(${matches.map((match) => match.sql).join(' OR ')})`, bindings: matches.flatMap((match) => match.bindings) };
}

