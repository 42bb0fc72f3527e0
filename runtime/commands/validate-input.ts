/**
 * Input validation of every command kind. The generated zod schema checks shape and field kinds
 * with SPEC's error texts; this adds what depends on the caller and the model's rules:
 * - a field the caller does not read does not exist for it (`unknown field <model>.<field>`);
 * - governed fields are not set by `create`; an action takes only its required fields
 *   (`lead.qualify does not take lead.title`);
 * - `""` in a text field means empty;
 * - `null` means empty: absent on create, "clear the field" on update (refused when required).
 */
import { noModelCommand } from '../command-kinds.ts';
import { HttpError, badRequest } from '../errors.ts';
import type { FieldMeta } from '../registry.ts';
import { agentMaxAffected, recordId, type ListInput } from '../kinds.ts';
import { idOf } from '../value-checks.ts';
import { findIssuedToken, type IssuedToken } from '../masking/token-store.ts';
import { compileList, maskedFilterTokens, maskedTokenKey, type CompiledList, type MaskedFilters } from '../query/list-query.ts';
import { parseOr400 } from '../query/values.ts';
import { newId } from '../ids.ts';
import { moreThanAllowed, namingRecord, singleContext } from './single.ts';
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
    case 'erase':
    case 'history':
    case 'revert':
    case 'revert_batch':
      return { input: parseOr400(meta.input, raw) as Record<string, unknown> };
    case 'list':
    case 'search': {
      const input = parseOr400(meta.input, raw) as ListInput;
      const lineClear = new Map(Object.entries(ctx.fields.lines).map(([name, line]) => [name, line.clearNames]));
      return { input: input as Record<string, unknown>, list: compileList(ctx.command.model.query, ctx.fields.clearNames, input, await maskedFilters(ctx, input), lineClear) };
    }
    case 'create':
    case 'update':
    case 'action':
      return { input: validateRecordInput(ctx, raw) };
    case 'create_many':
    case 'update_many':
    case 'delete_many':
    case 'action_many':
      return validateBulkInput(ctx, raw);
    default:
      return noModelCommand(meta.kind);
  }
}

/**
 * A bulk command's input: each of `records` checked as `create` checks its input, `set` as
 * `update` checks its fields (refusals naming the record, `lead.create_many records[3].title is
 * required`, or `set`); a selection by `ids` or by a filter (compiled as `list` compiles it, in id
 * order), one of them and not both.
 */
async function validateBulkInput(ctx: CommandContext, raw: Record<string, unknown>): Promise<ValidInput> {
  const { meta, model } = ctx.command;
  // Each id named by its place (`ids[2] must be a string`), before the schema checks the list as a
  // whole: checked by the one id schema, and only one that fails again by a schema of its name (up
  // to 10,000 ids: a schema built for each would cost more than the check).
  if (Array.isArray(raw.ids)) raw.ids.forEach((id, index) => recordId.safeParse(id).success || parseOr400(idOf(`ids[${index}]`), id));
  const input = parseOr400(meta.input, raw) as Record<string, unknown>;
  // An agent's bulk command is one plan a person reads through: its token caps how many records it names.
  const agentCap = ctx.caller.kind === 'agent' ? agentMaxAffected(ctx.caller.maxAffected) : undefined;
  if (meta.kind === 'create_many') {
    const given = (input.records as unknown[]).length;
    if (agentCap !== undefined && given > agentCap) throw badRequest(`${meta.id} may create at most ${agentCap} records for an agent`);
    const create = singleContext(ctx, 'create');
    const records = (input.records as unknown[]).map((record, index) => {
      try {
        if (!isPlainObject(record)) throw badRequest(NOT_AN_OBJECT);
        return validateRecordInput(create, record);
      } catch (error) {
        throw namingRecord(ctx, `records[${index}]`, error);
      }
    });
    return { input: { ...input, records } };
  }
  const filter = input.filter as ListInput['filter'];
  const hasFilter = filter !== undefined && filter.length > 0;
  if (!hasFilter && input.ids === undefined) throw badRequest(`${meta.id} needs a filter or ids`);
  if (hasFilter && input.ids !== undefined) throw badRequest(`${meta.id} takes a filter or ids, not both`);
  // `set` and `input` as they came: the schema's copy of an object of any keys drops a `__proto__`
  // key (it sets the copy's prototype), which the single command's check must see to refuse.
  if (meta.kind === 'update_many') {
    const set = raw.set as Record<string, unknown>;
    if (Object.keys(set).length === 0) throw badRequest(`${meta.id} set must give at least one field`);
    if ('id' in set) throw badRequest(`${meta.id} set cannot give id`);
    try {
      // Checked as an update of one record; the id is each selected record's, given when it runs.
      const { id: _id, ...checked } = validateRecordInput(singleContext(ctx, 'update'), { id: newId(), ...set });
      input.set = checked;
    } catch (error) {
      throw namingRecord(ctx, 'set', error);
    }
  }
  if (meta.kind === 'action_many') {
    try {
      // Checked as the action's input for one record; the id is each selected record's.
      const { id: _id, ...checked } = validateRecordInput(singleContext(ctx, 'action'), { id: newId(), ...((raw.input as Record<string, unknown> | undefined) ?? {}) });
      if (Object.keys(checked).length > 0) input.input = checked;
      else delete input.input;
    } catch (error) {
      throw namingRecord(ctx, 'input', error);
    }
  }
  const max = input.max_affected as number;
  if (agentCap !== undefined && max > agentCap) throw badRequest(`max_affected may be at most ${agentCap} for an agent`);
  if (!hasFilter) return { input };
  const lineClear = new Map(Object.entries(ctx.fields.lines).map(([name, line]) => [name, line.clearNames]));
  const list = compileList(model.query, ctx.fields.clearNames, { filter, order: [{ field: 'id' }] }, await maskedFilters(ctx, { filter }), lineClear);
  if (ctx.caller.kind !== 'agent') return { input, list };
  // An agent's call is a plan: it names the records the filter selects now, so that what a person
  // approves is the list they see, not whatever the filter selects later.
  const { filter: _filter, ...rest } = input;
  return { input: { ...rest, ids: await selectedNow(ctx, list, max) } };
}

/** The ids a filter selects now (in id order); 409 when they are more than `max`. */
async function selectedNow(ctx: CommandContext, list: CompiledList, max: number): Promise<string[]> {
  const { queries } = ctx.command.model;
  const count = await queries.count(ctx.service.db, list);
  if (count > max) throw moreThanAllowed(ctx, count, max);
  return (await queries.list(ctx.service.db, list)).map((record) => record.id);
}

/** An agent's filters on its masked fields: the tokens they name, resolved (400 `invalid token` for one it was not issued). */
async function maskedFilters(ctx: CommandContext, input: ListInput): Promise<MaskedFilters | undefined> {
  if (ctx.caller.kind !== 'agent') return undefined;
  const maskedLineNames = new Set(Object.entries(ctx.fields.lines).flatMap(([list, rights]) => rights.masked.map((field) => `${list}.${field.name}`)));
  if (ctx.fields.masked.length === 0 && maskedLineNames.size === 0) return undefined;
  const tokens = new Map<string, IssuedToken>();
  for (const [field, token] of maskedFilterTokens(input, ctx.fields.maskedNames)) {
    const label = ctx.command.model.personal.get(field)!;
    tokens.set(maskedTokenKey(field, token), await findIssuedToken(ctx.service.db, ctx.caller.tokenId, label, token));
  }
  return { agentTokenId: ctx.caller.tokenId, maskedNames: ctx.fields.maskedNames, maskedLineNames, tokens };
}

/** Text kinds: an empty string means empty (null), as a form with a cleared input sends it. */
const TEXT_KINDS: ReadonlySet<FieldMeta['kind']> = new Set(['text', 'longtext', 'email', 'url', 'phone']);

/**
 * The record input of create, update and actions. Beyond the generated schema: a field the caller
 * does not read does not exist for it; a computed field is nobody's to write; a field the caller
 * reads but may not write is 403; an action takes only its inputs; lines are checked the same way
 * per line; `""` in a text field and `null` mean empty — absent on create (so a default applies)
 * unless given as `null`, "clear the field" on update (refused when required).
 */
function validateRecordInput(ctx: CommandContext, raw: Record<string, unknown>): Record<string, unknown> {
  const { meta, model } = ctx.command;
  const kind = meta.kind;
  const name = model.meta.name;
  const action = meta.action;
  const inputs = action ? new Map(action.inputs.map((input) => [input.name, input])) : undefined;
  const present: Record<string, unknown> = {};
  const emptied: string[] = [];

  for (const key of Object.keys(raw)) {
    let value = raw[key];
    if (key === 'id' && kind !== 'create') {
      present.id = value;
      continue;
    }
    const lines = kind !== 'action' ? model.lines.get(key) : undefined;
    if (lines) {
      present[key] = checkLines(ctx, lines.meta.name, value);
      continue;
    }
    const input = inputs?.get(key);
    if (input && !input.field) {
      if (value === '' && TEXT_KINDS.has(input.kind)) value = null;
      if (value === null) emptied.push(key);
      else present[key] = value;
      continue;
    }
    const field = model.fields.get(key);
    if (!field || !ctx.fields.readableNames.has(key)) throw badRequest(`unknown field ${name}.${key}`);
    // A field the caller reads, but not one this action takes: say so, rather than that it does not exist.
    if (inputs !== undefined && !inputs.has(key)) throw badRequest(`${meta.id} does not take ${name}.${key}`);
    if (field.computed) throw badRequest(`${name}.${key} is computed`);
    if (!ctx.fields.writableNames.has(key)) throw new HttpError(403, `${name}.${key} cannot be written by your role`);
    if (kind === 'create' && field.governed) {
      const actions = model.meta.actions.filter((candidate) => candidate.field === key).map((candidate) => candidate.name);
      throw badRequest(`${name}.${key} is set by actions${actions.length ? ` (${actions.join(', ')})` : ''}, not by create`);
    }
    if (value === '' && TEXT_KINDS.has(field.kind)) value = null;
    if (value === null) emptied.push(key);
    else present[key] = value;
  }

  // The schema sees only the values given: a missing required field and an emptied one read the same.
  const parsed = parseOr400(meta.input, present) as Record<string, unknown>;

  for (const key of emptied) {
    const required = inputs?.get(key)?.required ?? model.fields.get(key)!.required;
    const governed = model.fields.get(key)?.governed ?? false;
    if (required || governed) throw badRequest(`${name}.${key} is required`);
    // An action's optional input given as null is not given; a create's explicit null keeps the field empty (no default).
    if (kind !== 'action') parsed[key] = null;
  }
  return parsed;
}

/**
 * A line list of a create or update: an array of lines, each an object whose keys the caller may
 * write (its withheld fields do not exist for it; computed ones are nobody's to write). Empty text
 * is empty. The generated schema checks the rest, naming each line (`order.items[2].quantity …`).
 */
function checkLines(ctx: CommandContext, list: string, value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const rights = ctx.fields.lines[list]!;
  const compiled = ctx.command.model.lines.get(list)!;
  const path = `${ctx.command.model.meta.name}.${list}`;
  return value.map((line, index) => {
    if (!isPlainObject(line)) return line;
    const checked: Record<string, unknown> = {};
    for (const [key, raw] of Object.entries(line)) {
      if (key === 'id') {
        checked.id = raw;
        continue;
      }
      const field = compiled.fields.get(key);
      if (!field || !rights.readableNames.has(key)) throw badRequest(`unknown field ${path}[${index}].${key}`);
      if (field.computed) throw badRequest(`${path}[${index}].${key} is computed`);
      if (!rights.writableNames.has(key)) throw new HttpError(403, `${path}[${index}].${key} cannot be written by your role`);
      checked[key] = raw === '' && TEXT_KINDS.has(field.kind) ? null : raw;
    }
    return checked;
  });
}
