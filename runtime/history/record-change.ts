/**
 * The history entry of a write, from what its handler says it changed (`RecordChange`): a create
 * lists every field it set (from null), a delete every field (to null), an update or action the
 * fields whose value changed — and the personal fields an agent wrote, changed or not: were a
 * write of the value a field already holds to leave no entry, an agent could tell by the history
 * whether a value it sent equals one it may only see masked. A write that changed nothing (and
 * wrote no such field) leaves no entry.
 *
 * For masking, the entry keeps which agent tokens stand for its personal values (see store.ts):
 * those bound to the value a field had, read before the write rebinds them, and those the writing
 * agent knows the value it wrote by.
 */
import type { Knex } from 'knex';
import type { AuditActor } from '../audit/store.ts';
import type { RecordChange } from '../commands/handlers.ts';
import { boundTokens, type TokenFor } from '../masking/bindings.ts';
import { writeHistory, type FieldChange, type HistoryEntry } from './store.ts';

export interface ChangeToRecord {
  readonly model: string;
  /** Personal fields of the model, by name. */
  readonly personal: ReadonlySet<string>;
  /** The command whose change this is, as history names it (a revert is an update). */
  readonly command: string;
  readonly kind: HistoryEntry['kind'];
  readonly change: RecordChange;
  readonly by: AuditActor;
  readonly planId: string | null;
  readonly reverts: string | null;
  /** The writing agent's tokens for the personal values it gave (`PreparedCommand.agentTokens`): recorded even when unchanged. */
  readonly agentTokens?: Readonly<Record<string, string>>;
  /** A revert: the tokens agents knew the values it put back by. */
  readonly restoredTokens?: Readonly<Record<string, readonly TokenFor[]>>;
}

/** Writes the entry in the write's transaction; answers its change id, or undefined when there is nothing to record. */
export async function recordChange(db: Knex, write: ChangeToRecord): Promise<string | undefined> {
  const changes = changesOf(write.kind, write.change, new Set(Object.keys(write.agentTokens ?? {})));
  const fields = Object.keys(changes);
  if (fields.length === 0) return undefined;
  const personalFrom: Record<string, string> = {};
  for (const field of fields) {
    const from = changes[field]!.from;
    if (write.personal.has(field) && typeof from === 'string') personalFrom[field] = from;
  }
  const fromTokens = await boundTokens(db, write.model, write.change.recordId, personalFrom);
  const toTokens: Record<string, readonly TokenFor[]> = {};
  for (const field of fields) {
    if (!write.personal.has(field) || typeof changes[field]!.to !== 'string') continue;
    const restored = write.restoredTokens?.[field];
    const known = write.agentTokens?.[field];
    if (restored && restored.length > 0) toTokens[field] = restored;
    else if (known !== undefined && write.by.agentTokenId) toTokens[field] = [{ agent: write.by.agentTokenId, token: known }];
  }
  return writeHistory(db, {
    model: write.model,
    recordId: write.change.recordId,
    command: write.command,
    kind: write.kind,
    by: write.by,
    planId: write.planId,
    reverts: write.reverts,
    changes,
    toTokens,
    fromTokens,
  });
}

/** Field → from and to, of the fields the entry records; `alwaysRecorded` are kept even where unchanged. */
function changesOf(kind: HistoryEntry['kind'], change: RecordChange, alwaysRecorded: ReadonlySet<string>): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  if (kind === 'create') {
    for (const [field, to] of Object.entries(change.after)) changes[field] = { from: null, to };
  } else if (kind === 'delete') {
    for (const [field, from] of Object.entries(change.before)) changes[field] = { from, to: null };
  } else {
    for (const [field, to] of Object.entries(change.after)) changes[field] = { from: change.before[field] ?? null, to };
    for (const [field, value] of Object.entries(change.kept)) if (alwaysRecorded.has(field)) changes[field] = { from: value, to: value };
  }
  return changes;
}
