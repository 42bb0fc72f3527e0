/**
 * Masking bindings after a write, in its transaction (see masking/bindings.ts): what run.ts does
 * for each record a command changed, after its history entry (which reads the bindings it drops).
 */
import type { Knex } from 'knex';
import { kindTraits } from '../command-kinds.ts';
import { forgetRecord, rebindAfterWrite, restoreBindings } from '../masking/bindings.ts';
import { maskedText, type OwnWrite } from '../view/caller-view.ts';
import type { RunResult } from './results.ts';
import type { CommandContext } from './types.ts';

/**
 * Masking bindings follow the write (see masking/bindings.ts): a deleted record or line keeps none;
 * a written personal value (of the record or of a line) is bound, for the agent that wrote it
 * (directly or by a plan it proposed), to the token it knows the value by, and other agents'
 * bindings of a value that changed go.
 */
export async function keepBindings(ctx: CommandContext, db: Knex, result: RunResult, own: OwnWrite, proposedBy: string | undefined): Promise<void> {
  const model = ctx.command.model;
  const change = 'change' in result ? result.change : undefined;
  if (!change) return;
  const agentTokenId = proposedBy ?? (ctx.caller.kind === 'agent' ? ctx.caller.tokenId : undefined);
  for (const [list, lines] of model.lines) {
    const changed = change.lines?.[list];
    const kept = change.linesKept?.[list] ?? [];
    if (lines.personal.size === 0 || (!changed && kept.length === 0)) continue;
    const owner = `${model.meta.name}.${list}`;
    for (const line of changed?.removed ?? []) await forgetRecord(db, owner, line.id);
    // Per line written: the personal values it holds now that the input gave, and which of them changed.
    const written = new Map<string, { values: Record<string, unknown>; changedFields: string[] }>();
    const entry = (id: string) => written.get(id) ?? written.set(id, { values: {}, changedFields: [] }).get(id)!;
    const wrote = (id: string, field: string, value: unknown) => {
      const line = entry(id);
      line.values[field] = value;
      line.changedFields.push(field);
    };
    for (const line of changed?.added ?? []) for (const field of lines.personal.keys()) wrote(line.id, field, line[field] ?? null);
    for (const { id, changes } of changed?.changed ?? []) for (const [field, { to }] of Object.entries(changes)) if (lines.personal.has(field)) wrote(id, field, to);
    // A field given the value it held is bound to the token the writing agent knows it by, as a record's field is.
    for (const { id, values: keptValues } of kept) {
      const { values } = entry(id);
      for (const [field, value] of Object.entries(keptValues)) if (lines.personal.has(field)) values[field] = value;
    }
    // A line this write added is new: nothing is bound to it yet, so there is nothing to drop.
    const added = new Set((changed?.added ?? []).map((line) => line.id));
    for (const [id, { values, changedFields }] of written) {
      const personal = Object.keys(values);
      if (personal.length === 0) continue;
      const tokens: Record<string, string> = {};
      for (const field of personal) if (own.tokens[`${list}.${id}.${field}`] !== undefined) tokens[field] = own.tokens[`${list}.${id}.${field}`]!;
      await rebindAfterWrite(
        db,
        {
          model: owner,
          recordId: id,
          ...(agentTokenId !== undefined ? { agentTokenId, agentTokens: tokens } : {}),
          values: personalValues(personal, values),
          changed: changedFields,
          created: added.has(id),
        },
        lines.personal,
      );
    }
  }
  if (model.personal.size === 0) return;
  if (result.shape === 'deleted') return forgetRecord(db, model.meta.name, result.recordId);
  if (result.shape !== 'record') return;
  const writtenPersonal = change.givenFields.filter((name) => model.personal.has(name));
  if (writtenPersonal.length === 0) return;
  const current: Record<string, unknown> = {};
  for (const name of writtenPersonal) current[name] = name in change.after ? change.after[name] : (change.kept[name] ?? null);
  const fieldTokens = Object.fromEntries(Object.entries(own.tokens).filter(([key]) => !key.includes('.')));
  await rebindAfterWrite(
    db,
    {
      model: model.meta.name,
      recordId: change.recordId,
      ...(agentTokenId !== undefined ? { agentTokenId, agentTokens: fieldTokens } : {}),
      values: personalValues(writtenPersonal, current),
      changed: writtenPersonal.filter((name) => name in change.after),
      created: kindTraits(ctx.command.meta.kind).change === 'create',
    },
    model.personal,
  );
  // A revert puts back values and, with them, the tokens agents knew them by.
  const reverts = result.reverts;
  if (reverts && Object.keys(reverts.restored).length > 0) await restoreBindings(db, model.meta.name, change.recordId, reverts.restored);
}

/** Personal values as bindings hash them (their masked text), null when empty. */
function personalValues(fields: readonly string[], values: Readonly<Record<string, unknown>>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const field of fields) {
    const value = values[field];
    out[field] = value === null || value === undefined ? null : maskedText(value);
  }
  return out;
}
