/**
 * What the command path writes to the audit trail for a call: its outcome (executed, proposed,
 * refused, failed; a dry run's too), who, the record, and the input as the caller sees it
 * (view/caller-view.ts: an agent's personal values as its tokens, never in clear).
 */
import type { Knex } from 'knex';
import { kindTraits } from '../command-kinds.ts';
import type { CommandContext, PreparedCommand } from '../commands/types.ts';
import { HttpError } from '../errors.ts';
import { recordId } from '../kinds.ts';
import { inputAsSeen } from '../view/caller-view.ts';
import { auditActor, queueAudit, writeAudit, writeAuditEntries, type AuditEntry } from './store.ts';

/** What happened to a call. */
export type AuditEvent =
  /** `changeId`: the history entry of the change a write made. */
  | { readonly outcome: 'executed'; readonly prepared: PreparedCommand; readonly recordId: string | null; readonly changeId?: string | undefined }
  | { readonly outcome: 'proposed'; readonly prepared: PreparedCommand; readonly planId: string | null }
  | { readonly outcome: 'refused'; readonly status: number; readonly error: string; readonly prepared?: PreparedCommand | undefined; readonly named?: string | null }
  | { readonly outcome: 'failed'; readonly error: string; readonly prepared?: PreparedCommand | undefined; readonly named?: string | null };

/**
 * Records what happened to a call: on `db` at once when it is a transaction (a write's entry
 * commits with it), else in the next group commit (see `queueAudit`). `dryRun`: the call was only
 * tried (`?dry_run=true`).
 */
export async function writeAuditEvent(ctx: CommandContext, event: AuditEvent, db: Knex, dryRun = false): Promise<void> {
  const entry = auditEntry(ctx, event, auditBase(ctx, dryRun));
  if (db === ctx.service.db) await queueAudit(db, entry);
  else await writeAudit(db, entry);
}

/** The executed rows of a bulk command's records, written together in its transaction `db`. */
export async function writeAuditEvents(ctx: CommandContext, events: readonly AuditEvent[], db: Knex): Promise<void> {
  const base = auditBase(ctx, false);
  await writeAuditEntries(db, events.map((event) => auditEntry(ctx, event, base)));
}

/**
 * Records a call that did not go through: a refusal (4xx) with its status and reason, anything
 * else as a failure (a bug, whose details stay in the server's log). An audit write that fails
 * is not swallowed: the call then fails with it. A call refused before it was prepared (its input
 * did not validate) keeps the record its `rawInput` names, when the command names one and the id
 * is well formed, but not the input: unchecked, it could hold anything (a NUL PostgreSQL cannot
 * store, megabytes), and an agent's personal values in it are not yet told from the rest.
 */
export async function auditFailure(ctx: CommandContext, error: unknown, prepared: PreparedCommand | undefined, dryRun = false, rawInput?: unknown): Promise<void> {
  const named = prepared ? undefined : recordNamedBy(ctx, rawInput);
  const event: AuditEvent =
    error instanceof HttpError
      ? { outcome: 'refused', status: error.status, error: error.message, prepared, named }
      : { outcome: 'failed', error: 'internal error', prepared, named };
  await writeAuditEvent(ctx, event, ctx.service.db, dryRun);
}

/** The record an input names: its `id`, when the command takes one and it is a well-formed id; else null. */
function recordNamedBy(ctx: CommandContext, rawInput: unknown): string | null {
  if (!kindTraits(ctx.command.meta.kind).namesRecord || typeof rawInput !== 'object' || rawInput === null) return null;
  const id = (rawInput as { id?: unknown }).id;
  return recordId.safeParse(id).success ? (id as string) : null;
}

/** What every row of a call shares: who, the command, its access, whether it was a dry run. */
function auditBase(ctx: CommandContext, dryRun: boolean) {
  return { ...auditActor(ctx.caller), command: ctx.command.meta.id, access: kindTraits(ctx.command.meta.kind).access, ...(dryRun ? { dryRun } : {}) };
}

function auditEntry(ctx: CommandContext, event: AuditEvent, base: ReturnType<typeof auditBase>): AuditEntry {
  const input = event.prepared ? auditInput(ctx, event.prepared) : undefined;
  const preparedId = event.prepared?.recordId ?? null;
  switch (event.outcome) {
    case 'executed':
      return { ...base, outcome: 'executed', recordId: event.recordId ?? preparedId, input, changeId: event.changeId ?? null };
    case 'proposed':
      return { ...base, outcome: 'proposed', recordId: preparedId, planId: event.planId, input };
    case 'refused':
      return { ...base, outcome: 'refused', recordId: preparedId ?? event.named ?? null, status: event.status, error: event.error, input };
    case 'failed':
      return { ...base, outcome: 'failed', recordId: preparedId ?? event.named ?? null, status: 500, error: event.error, input };
  }
}

/** Writes keep their input; reads keep only a list's filter/order/paging; a `get` keeps none. */
function auditInput(ctx: CommandContext, prepared: PreparedCommand): unknown {
  if (ctx.command.meta.kind === 'get') return undefined;
  if (!kindTraits(ctx.command.meta.kind).takesFields) return { ...prepared.input };
  // A bulk command's row of one record (an executed one) holds that record's input, its single command's.
  const kind = prepared.command === ctx.command.meta.id ? ctx.command.meta.kind : undefined;
  return inputAsSeen(ctx.caller, ctx.fields, prepared.input, prepared.agentTokens, kind);
}
