/**
 * A record's history after an erasure (see runtime/erased.ts): each entry keeps the names of the
 * personal fields it changed, with `{"erased": true}` in place of `{from, to}`; a line's personal
 * field holds the marker; an action's personal inputs likewise. Everything else of the entry
 * (who, when, which command, the other fields) stays.
 */
import type { Knex } from 'knex';
import { ERASED, isErased, type ErasedValues, type PersonalKeys } from '../erased.ts';
import type { StoredLine } from '../registry.ts';
import { dialectOf } from '../db/connect.ts';
import { HISTORY_TABLE, isLinesChange, type EntryChange, type FieldChange, type LinesChange, type TokenFor } from './store.ts';

interface StoredEntry {
  readonly id: string;
  readonly changes: string;
  readonly inputs: string | null;
}

/** The entries of a record as stored, and what erasing would make of each. */
export interface HistoryErasure {
  /** Entries whose personal values would be replaced, with their new `changes` and `inputs`. */
  readonly rewritten: readonly { readonly id: string; readonly changes: string; readonly inputs: string | null }[];
  /** The ids of the record's lines the history names (their masking bindings go too). */
  readonly lineIds: ReadonlySet<string>;
  /** How many entries the record has. */
  readonly entries: number;
}

/**
 * Reads the record's history, adds every personal value it holds to `values`, and works out each
 * entry without them. `inputKeys`: an action's inputs (not fields) that are personal.
 */
export async function planHistoryErasure(db: Knex, model: string, recordId: string, keys: PersonalKeys, inputKeys: ReadonlySet<string>, values: ErasedValues): Promise<HistoryErasure> {
  const rows = (await db(HISTORY_TABLE).where({ model, record_id: recordId }).select('id', 'changes', 'inputs')) as StoredEntry[];
  const rewritten: { id: string; changes: string; inputs: string | null }[] = [];
  const lineIds = new Set<string>();
  for (const row of rows) {
    let changed = false;
    const changes = JSON.parse(row.changes) as Record<string, EntryChange>;
    for (const [name, change] of Object.entries(changes)) {
      if (isLinesChange(change)) {
        const lineKeys = keys.lines[name];
        for (const line of [...change.added, ...change.removed]) lineIds.add(line.id);
        for (const { id } of change.changed) lineIds.add(id);
        if (!lineKeys || lineKeys.size === 0) continue;
        const erased = erasedLines(change, lineKeys, values);
        if (erased) {
          changes[name] = erased;
          changed = true;
        }
      } else if (keys.fields.has(name) && !isErased(change)) {
        values.add((change as FieldChange).from);
        values.add((change as FieldChange).to);
        changes[name] = ERASED as unknown as FieldChange;
        changed = true;
      }
    }
    let inputs = row.inputs;
    if (inputs !== null && inputKeys.size > 0) {
      const parsed = JSON.parse(inputs) as Record<string, unknown>;
      let inputsChanged = false;
      for (const key of inputKeys) {
        if (parsed[key] === undefined || parsed[key] === null || isErased(parsed[key])) continue;
        values.add(parsed[key]);
        parsed[key] = ERASED;
        inputsChanged = true;
      }
      if (inputsChanged) {
        inputs = JSON.stringify(parsed);
        changed = true;
      }
    }
    if (changed) rewritten.push({ id: row.id, changes: JSON.stringify(changes), inputs });
  }
  return { rewritten, lineIds, entries: rows.length };
}

/** A line list's change with its lines' personal values replaced (undefined when it held none). */
function erasedLines(change: LinesChange, keys: ReadonlySet<string>, values: ErasedValues): LinesChange | undefined {
  let changed = false;
  const line = (item: StoredLine): StoredLine => {
    const copy: Record<string, unknown> = { ...item };
    for (const key of keys) {
      if (copy[key] === null || copy[key] === undefined || isErased(copy[key])) continue;
      values.add(copy[key]);
      copy[key] = ERASED;
      changed = true;
    }
    return copy as StoredLine;
  };
  const erased: LinesChange = {
    added: change.added.map(line),
    removed: change.removed.map(line),
    changed: change.changed.map(({ id, changes }) => ({
      id,
      changes: Object.fromEntries(
        Object.entries(changes).map(([field, fieldChange]) => {
          if (!keys.has(field) || isErased(fieldChange)) return [field, fieldChange];
          values.add(fieldChange.from);
          values.add(fieldChange.to);
          changed = true;
          return [field, ERASED as unknown as FieldChange];
        }),
      ),
    })),
    ...(change.order ? { order: change.order } : {}),
  };
  return changed ? erased : undefined;
}

/** Stores what `planHistoryErasure` worked out, in the erasure's transaction; answers how many entries changed. */
export async function applyHistoryErasure(db: Knex, erasure: HistoryErasure): Promise<number> {
  for (const entry of erasure.rewritten) await db(HISTORY_TABLE).where({ id: entry.id }).update({ changes: entry.changes, inputs: entry.inputs });
  return erasure.rewritten.length;
}

/** Tokens looked for per statement. */
const TOKENS_PER_STATEMENT = 100;

/**
 * Drops tokens an erasure emptied (whose, and how each reads: `NOTES_2`) from the entries of every record that keep them (an entry keeps
 * the tokens agents knew its values by: store.ts). A copy of the value in another record would
 * otherwise show the agent that record's history in a token it is refused, and a revert there
 * would bind it again; without it, the agent sees the value's new token, as reading the record
 * gives it. Answers how many entries changed.
 */
export async function forgetErasedTokens(db: Knex, erased: readonly TokenFor[]): Promise<number> {
  const dead = new Set(erased.map(({ agent, token }) => `${agent}\u0000${token}`));
  const texts = [...new Set(erased.map(({ token }) => token))];
  const contains = dialectOf(db) === 'postgres' ? 'strpos(tokens, ?) > 0' : 'instr(tokens, ?) > 0';
  const alive = (list: readonly TokenFor[]) => list.filter(({ agent, token }) => !dead.has(`${agent}\u0000${token}`));
  const kept = (side: Readonly<Record<string, readonly TokenFor[]>>) =>
    Object.fromEntries(Object.entries(side).flatMap(([key, list]) => (alive(list).length > 0 ? [[key, alive(list)]] : [])));
  let changed = 0;
  for (let i = 0; i < texts.length; i += TOKENS_PER_STATEMENT) {
    const rows = (await db(HISTORY_TABLE)
      .whereNotNull('tokens')
      .andWhere((query) => {
        for (const text of texts.slice(i, i + TOKENS_PER_STATEMENT)) query.orWhereRaw(contains, [JSON.stringify(text)]);
      })
      .select('id', 'tokens')) as { id: string; tokens: string }[];
    for (const row of rows) {
      const tokens = JSON.parse(row.tokens) as { to: Record<string, TokenFor[]>; from: Record<string, TokenFor[]> };
      const next = JSON.stringify({ to: kept(tokens.to), from: kept(tokens.from) });
      if (next === JSON.stringify({ to: tokens.to, from: tokens.from })) continue;
      await db(HISTORY_TABLE).where({ id: row.id }).update({ tokens: next });
      changed++;
    }
  }
  return changed;
}
