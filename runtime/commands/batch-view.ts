/**
 * What a bulk command answers: how many records it changed (or, in a dry run, would change),
 * their ids, and each record's field changes as the caller sees them (view/caller-view.ts: fields
 * it may not read absent, personal values masked for an agent). Line lists are not listed: the
 * records' history has them.
 */
import type { Knex } from 'knex';
import type { BatchAnswer, FieldChangeInfo } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { StoredRecord } from '../registry.ts';
import type { ModelRights } from '../rights.ts';
import { recordsAsSeen, type OwnWrite } from '../view/caller-view.ts';
import type { BatchItem } from './results.ts';

export async function batchAsSeen(
  db: Knex,
  caller: Caller,
  rights: ModelRights,
  items: readonly BatchItem[],
  batchId: string | null,
  /** For an agent: what it wrote in each record (its tokens), by the items' order. */
  owns?: readonly OwnWrite[],
): Promise<BatchAnswer> {
  const ids = items.map((item) => (item.result.shape === 'deleted' ? item.result.recordId : item.result.record.id));
  // The masked fields an agent gave a value, on every record whether its stored value changed or
  // not: left out where it was the same, they would tell the agent that the value it sent (a
  // guess) is the one stored, record by record (a dry run of update_many tried a hundred at once).
  // (A record created has nothing before: each field it was given is listed as any create's.)
  const sentMasked = items.map((item, index) =>
    item.ctx.command.meta.kind === 'create' ? [] : Object.keys(owns?.[index]?.tokens ?? {}).filter((name) => rights.maskedNames.has(name)),
  );
  const sides = items.flatMap((item, index) => {
    const change = item.result.change;
    const stored = item.result.shape === 'record' ? (item.result.record as Readonly<Record<string, unknown>>) : {};
    const unchanged = Object.fromEntries(sentMasked[index]!.map((name) => [name, stored[name] ?? null]));
    const from = { id: ids[index]!, ...unchanged, ...change?.before } as StoredRecord;
    const to = { id: ids[index]!, ...unchanged, ...change?.after } as StoredRecord;
    return [from, to];
  });
  const seen = owns ? await seenWithOwn(db, caller, rights, sides, owns) : ((await recordsAsSeen(db, caller, rights, sides)) as Readonly<Record<string, unknown>>[]);
  const changes = items.map((item, index) => {
    const change = item.result.change;
    const changed = new Set([...Object.keys(change?.before ?? {}), ...Object.keys(change?.after ?? {}), ...sentMasked[index]!]);
    // In the model's order of fields, whatever changed: an order by what changed would tell it too.
    const names = [...rights.readableNames].filter((name) => changed.has(name));
    const from = seen[index * 2]!;
    const to = seen[index * 2 + 1]!;
    const fields: Record<string, FieldChangeInfo> = {};
    for (const name of names) fields[name] = { from: from[name] ?? null, to: to[name] ?? null };
    return { id: ids[index]!, changes: fields };
  });
  return { batch_id: batchId, count: items.length, ids, changes };
}

/**
 * The sides (before, after; by record) as an agent sees them: the values it gave in a record show
 * the tokens it knows them by on that record's after side only (the before side is what was
 * stored: a token of the agent's there would tell it that a value it sent equals a stored one).
 */
async function seenWithOwn(db: Knex, caller: Caller, rights: ModelRights, sides: readonly StoredRecord[], owns: readonly OwnWrite[]): Promise<Readonly<Record<string, unknown>>[]> {
  const befores = (await recordsAsSeen(db, caller, rights, sides.filter((_, index) => index % 2 === 0))) as Readonly<Record<string, unknown>>[];
  const seen: Readonly<Record<string, unknown>>[] = [];
  for (const [index, before] of befores.entries()) {
    const [after] = (await recordsAsSeen(db, caller, rights, [sides[index * 2 + 1]!], owns[index])) as Readonly<Record<string, unknown>>[];
    seen.push(before, after!);
  }
  return seen;
}
