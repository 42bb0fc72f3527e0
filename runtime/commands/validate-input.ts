/**
 * Input validation of every command kind. The generated zod schema checks shape and field kinds
 * with SPEC's error texts; this adds what depends on the caller and the model's rules:
 * - a field the caller does not read does not exist for it (`unknown field <model>.<field>`);
 * - governed fields are not set by `create`; an action takes only its required fields
 *   (`lead.qualify does not take lead.title`);
 * - `""` in a text field means empty;
 * - `null` means empty: absent on create, "clear the field" on update (refused when required).
 */
import { badRequest } from '../errors.ts';
import type { ListInput } from '../kinds.ts';
import { findIssuedToken, type IssuedToken } from '../masking/token-store.ts';
import { compileList, maskedFilterTokens, maskedTokenKey, type CompiledList, type MaskedFilters } from '../query/list-query.ts';
import { parseOr400 } from '../query/values.ts';
import type { CommandContext } from './types.ts';

export interface ValidInput {
  readonly input: Record<string, unknown>;
  /** For list and search. */
  readonly list?: CompiledList;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const NOT_AN_OBJECT = 'input must be a JSON object';

export async function validateInput(ctx: CommandContext, raw: unknown): Promise<ValidInput> {
  if (!isPlainObject(raw)) throw badRequest(NOT_AN_OBJECT);
  const { meta } = ctx.command;
  switch (meta.kind) {
    case 'get':
    case 'delete':
    case 'history':
    case 'revert':
      return { input: parseOr400(meta.input, raw) as Record<string, unknown> };
    case 'list':
    case 'search': {
      const input = parseOr400(meta.input, raw) as ListInput;
      return { input: input as Record<string, unknown>, list: compileList(ctx.command.model.query, ctx.fields.clearNames, input, await maskedFilters(ctx, input)) };
    }
    case 'create':
    case 'update':
    case 'action':
      return { input: validateRecordInput(ctx, raw) };
  }
}

/** An agent's filters on its masked fields: the tokens they name, resolved (400 `invalid token` for one it was not issued). */
async function maskedFilters(ctx: CommandContext, input: ListInput): Promise<MaskedFilters | undefined> {
  if (ctx.caller.kind !== 'agent' || ctx.fields.masked.length === 0) return undefined;
  const tokens = new Map<string, IssuedToken>();
  for (const [field, token] of maskedFilterTokens(input, ctx.fields.maskedNames)) {
    const label = ctx.command.model.personal.get(field)!;
    tokens.set(maskedTokenKey(field, token), await findIssuedToken(ctx.service.db, ctx.caller.tokenId, label, token));
  }
  return { agentTokenId: ctx.caller.tokenId, maskedNames: ctx.fields.maskedNames, tokens };
}

function validateRecordInput(ctx: CommandContext, raw: Record<string, unknown>): Record<string, unknown> {
  const { meta, model } = ctx.command;
  const kind = meta.kind;
  const name = model.meta.name;
  const actionFields = meta.action?.required;
  const present: Record<string, unknown> = {};
  const emptied: string[] = [];

  for (const key of Object.keys(raw)) {
    let value = raw[key];
    if (key === 'id' && kind !== 'create') {
      present.id = value;
      continue;
    }
    const field = model.fields.get(key);
    if (!field || !ctx.fields.readableNames.has(key)) throw badRequest(`unknown field ${name}.${key}`);
    // A field the caller reads, but not one this action writes: say so, rather than that it does not exist.
    if (actionFields !== undefined && !actionFields.includes(key)) throw badRequest(`${meta.id} does not take ${name}.${key}`);
    if (kind === 'create' && field.governed) {
      const actions = model.meta.actions.filter((action) => action.field === key).map((action) => action.name);
      throw badRequest(`${name}.${key} is set by actions${actions.length ? ` (${actions.join(', ')})` : ''}, not by create`);
    }
    if (value === '' && (field.kind === 'text' || field.kind === 'longtext')) value = null;
    if (value === null) emptied.push(key);
    else present[key] = value;
  }

  // The schema sees only the values given: a missing required field and an emptied one read the same.
  const parsed = parseOr400(meta.input, present) as Record<string, unknown>;

  for (const key of emptied) {
    const field = model.fields.get(key)!;
    if (kind === 'create') continue;
    if (field.required || field.governed || kind === 'action') throw badRequest(`${name}.${key} is required`);
    parsed[key] = null;
  }
  return parsed;
}
