/**
 * A create, in two steps: the record drafted — its values (defaults, computed fields), rules and
 * refs checked — and, once its row is stored (alone by `create`, a few hundred a statement by
 * `create_many`), its lines written and its change made. Both commands run the same steps.
 */
import type { Knex } from 'knex';
import { newId } from '../ids.ts';
import { attachFiles } from './attach-files.ts';
import type { StoredLine, StoredRecord } from '../registry.ts';
import { computeAndCheck, newLines, newRecordValues, withLines, writeLines, type LinesChange, type WriteTime } from './documents.ts';
import { checkLineRefs, checkRefs } from './record-write.ts';
import type { RecordChange, RunResult } from './results.ts';
import type { CommandContext } from './types.ts';

/** A record drafted for a create: its row, and its lines by list. */
export interface DraftedRecord {
  readonly record: StoredRecord;
  readonly lines: Readonly<Record<string, readonly StoredLine[]>>;
}

/** The new record of a create's (validated) input: its files attached (attach-files.ts), its values worked out and checked, its refs and its lines' refs existing. Writes nothing else. */
export async function draftRecord(ctx: CommandContext, db: Knex, input: Readonly<Record<string, unknown>>, time: WriteTime, agentTokens?: Readonly<Record<string, string>>): Promise<DraftedRecord> {
  const model = ctx.command.model;
  const attached = await attachFiles(ctx, db, input, agentTokens);
  const drafted = newRecordValues(model, attached, time);
  const { record, lines } = computeAndCheck(model, { id: newId(), ...drafted }, newLines(model, attached, time));
  await checkRefs(ctx, db, record);
  for (const [name, list] of Object.entries(lines)) await checkLineRefs(ctx, db, name, list.map((line, position) => ({ line, position })));
  return { record: record as StoredRecord, lines: lines as Record<string, StoredLine[]> };
}

/** After the record's row is stored: its lines written; what the create answers and records. */
export async function storedRecord(ctx: CommandContext, db: Knex, { record, lines }: DraftedRecord): Promise<Extract<RunResult, { shape: 'record' }>> {
  const model = ctx.command.model;
  const linesChanged: Record<string, LinesChange> = {};
  for (const [name, list] of model.lines) {
    const added = lines[name] ?? [];
    if (added.length === 0) continue;
    await writeLines(db, list, record.id, { insert: added.map((line, position) => ({ line, position })), update: [], remove: [] });
    linesChanged[name] = { added: [...added], removed: [], changed: [] };
  }
  const after: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record)) if (name !== 'id' && value !== null && value !== undefined) after[name] = value;
  const change: RecordChange = { recordId: record.id, givenFields: Object.keys(after), before: {}, after, kept: {}, ...(Object.keys(linesChanged).length > 0 ? { lines: linesChanged } : {}) };
  return { shape: 'record', record: withLines(record, lines as Record<string, StoredLine[]>), change };
}
