/**
 * The agent side of the command path (issue 4), installed as `CommandHooks`:
 * - unmask: masking tokens in personal fields → the clear values this agent was issued them for;
 * - propose: a command that needs approval becomes a stored plan;
 * - present: personal fields of records → this agent's masking tokens;
 * - audit: every call, for people and agents, with agent inputs masked.
 * People pass through unmask and present untouched.
 */
import type { Knex } from 'knex';
import type { AgentCaller, Caller } from '../caller.ts';
import type { AuditEvent, CommandContext, CommandHooks, PreparedCommand, RecordValue } from '../commands/types.ts';
import type { FieldMeta, ModelMeta } from '../registry.ts';
import { queueAudit, writeAudit, type AuditEntry } from './audit.ts';
import { isTokenForm, maskKey, maskValues, unmaskValue, type MaskRequest } from './masking.ts';
import { insertPlan } from './plans.ts';

export const agentHooks: Partial<CommandHooks> = {
  async unmaskInput(ctx, input, db) {
    if (ctx.caller.kind !== 'agent' || ctx.fields.masked.length === 0) return input;
    const agent = ctx.caller;
    const clear: Record<string, unknown> = { ...input };
    for (const field of ctx.fields.masked) {
      const value = clear[field.name];
      if (isTokenForm(value)) clear[field.name] = await unmaskValue(db, agent.tokenId, field.maskLabel!, value);
    }
    return clear;
  },

  async propose(ctx, prepared, db) {
    const agent = ctx.caller as AgentCaller;
    return insertPlan(db, {
      command: prepared.command,
      recordId: prepared.recordId,
      input: prepared,
      agentTokenId: agent.tokenId,
      agentLabel: agent.label,
      creatorId: agent.creatorId,
    });
  },

  async presentRecords(ctx, records, db) {
    if (ctx.caller.kind !== 'agent' || ctx.fields.masked.length === 0 || records.length === 0) return records;
    return maskRecords(db, ctx.caller, ctx.fields.masked, records);
  },

  async audit(ctx, event, db) {
    const entry = await auditEntry(ctx, event, db);
    // In a command's transaction the entry commits with it; on its own it joins the next group commit.
    if (db === ctx.service.db) await queueAudit(db, entry);
    else await writeAudit(db, entry);
  },
};

/** Replaces the personal fields of records by this agent's tokens (issuing new ones as needed). */
export async function maskRecords(db: Knex, agent: AgentCaller, masked: readonly FieldMeta[], records: readonly RecordValue[]): Promise<RecordValue[]> {
  const requests: MaskRequest[] = [];
  for (const record of records) {
    for (const field of masked) {
      const value = record[field.name];
      if (typeof value === 'string') requests.push({ label: field.maskLabel!, value });
    }
  }
  if (requests.length === 0) return [...records];
  const tokens = await maskValues(db, agent.tokenId, requests);
  return records.map((record) => {
    const out: RecordValue = { ...record };
    for (const field of masked) {
      const value = out[field.name];
      if (typeof value === 'string') out[field.name] = tokens.get(maskKey(field.maskLabel!, value));
    }
    return out;
  });
}

/** The input as this caller may see it: for agents, personal values replaced by their tokens. */
export async function inputAsSeenBy(
  db: Knex,
  caller: Caller,
  personal: readonly FieldMeta[],
  input: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  if (caller.kind !== 'agent' || personal.length === 0) return { ...input };
  const present = personal.filter((field) => typeof input[field.name] === 'string');
  if (present.length === 0) return { ...input };
  const [masked] = await maskRecords(db, caller, present, [input]);
  return masked!;
}

function who(caller: Caller): Pick<AuditEntry, 'actor' | 'userId' | 'username' | 'agentTokenId' | 'agentLabel'> {
  return caller.kind === 'person'
    ? { actor: 'person', userId: caller.userId, username: caller.username }
    : { actor: 'agent', userId: caller.creatorId, username: caller.creatorUsername, agentTokenId: caller.tokenId, agentLabel: caller.label };
}

async function auditEntry(ctx: CommandContext, event: AuditEvent, db: Knex): Promise<AuditEntry> {
  const base = { ...who(ctx.caller), command: ctx.command.meta.id };
  const input = event.prepared ? await auditInput(ctx, event.prepared, db) : undefined;
  const recordId = event.prepared?.recordId ?? null;
  switch (event.outcome) {
    case 'executed':
      return { ...base, outcome: 'executed', recordId: event.recordId ?? recordId, input };
    case 'proposed':
      return { ...base, outcome: 'proposed', recordId, planId: event.planId, input };
    case 'refused':
      return { ...base, outcome: 'refused', recordId, status: event.status, error: event.error, input };
    case 'failed':
      return { ...base, outcome: 'failed', recordId, status: 500, error: event.error, input };
  }
}

/** Writes keep their input; reads keep only a list's filter/order/paging. Agents' inputs are masked. */
async function auditInput(ctx: CommandContext, prepared: PreparedCommand, db: Knex): Promise<unknown> {
  const kind = ctx.command.meta.kind;
  if (kind === 'get') return undefined;
  return inputAsSeenBy(db, ctx.caller, personalFields(ctx.command.model.meta), prepared.input);
}

const personalByModel = new WeakMap<ModelMeta, readonly FieldMeta[]>();

/** The model's personal fields, worked out once per model: every audited call asks. */
export function personalFields(model: ModelMeta): readonly FieldMeta[] {
  let personal = personalByModel.get(model);
  if (!personal) personalByModel.set(model, (personal = model.fields.filter((field) => field.personal)));
  return personal;
}
