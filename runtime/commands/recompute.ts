/**
 * Stored computed values kept true when their functions change. Computed fields are stored (so
 * they filter, order and index like any field), and every write computes them; but a change of the
 * functions in a module leaves the values of records nobody writes as the old functions made them.
 * Each model's logic carries a version (a hash of its functions' source): `rmsgen migrate` compares
 * it with the one the database recorded and, where they differ, computes every record again in
 * batches, each batch in a transaction, saying how far it got; then records the new version.
 * `serve` only says so. Rules are not checked here: they judge writes, and this is none.
 */
import type { Knex } from 'knex';
import { createTableIfMissing } from '../db/system-tables.ts';
import type { StoredRecord } from '../registry.ts';
import { computeDocument, linesOfRecords, linesWrite, sameValue, writeLines, type LinesOf } from './documents.ts';
import type { CompiledModel, RecordService } from './types.ts';

export const LOGIC_TABLE = 'rms_logic';

/**
 * A computed function that throws on a stored record: which record, and what it threw. The batches
 * before it are recomputed and committed, the version is not recorded: once the function is fixed,
 * `rmsgen migrate` recomputes the model again from its first record.
 */
export class RecomputeError extends Error {
  constructor(
    readonly model: string,
    readonly recordId: string,
    cause: unknown,
  ) {
    super(
      `the computed fields of ${model} ${recordId} could not be worked out: ${cause instanceof Error ? cause.message : String(cause)}; fix the model's computed functions, then run rmsgen migrate again (its records are computed again from the first)`,
      { cause },
    );
    this.name = 'RecomputeError';
  }
}

/** Records per transaction. */
const BATCH = 500;

export async function ensureLogicTables(db: Knex): Promise<void> {
  await createTableIfMissing(db, LOGIC_TABLE, (table) => {
    table.string('model', 100).primary();
    /** The `ModelLogic.version` the model's stored computed values were made with. */
    table.string('version', 64).notNullable();
  });
}

/** Whether a model computes anything, and so has values a change of its functions makes stale. */
function computes(model: CompiledModel): boolean {
  return model.meta.fields.some((field) => field.computed) || [...model.lines.values()].some((list) => list.meta.fields.some((field) => field.computed));
}

/** The models whose stored computed values were made by other functions than theirs (or by none recorded while records exist). */
export async function staleComputedModels(service: RecordService): Promise<CompiledModel[]> {
  const recorded = new Map(((await service.db(LOGIC_TABLE).select('model', 'version')) as { model: string; version: string }[]).map((row) => [row.model, row.version]));
  const stale: CompiledModel[] = [];
  for (const model of service.models.values()) {
    if (!computes(model) || recorded.get(model.meta.name) === model.logic.version) continue;
    stale.push(model);
  }
  return stale;
}

/**
 * Computes the stored values of every stale model again and records its version; `progress` is
 * told after each batch. Answers what it did, a line per model.
 */
export async function recomputeStale(service: RecordService, progress: (model: string, done: number, total: number) => void = () => {}): Promise<string[]> {
  const done: string[] = [];
  for (const model of await staleComputedModels(service)) {
    const total = Number(((await service.db(model.meta.table.name).count({ n: '*' }).first()) as { n: unknown } | undefined)?.n ?? 0);
    let changed = 0;
    let seen = 0;
    let after: string | undefined;
    for (;;) {
      const query = service.db(model.meta.table.name).select('id').orderBy('id').limit(BATCH);
      if (after !== undefined) query.where('id', '>', after);
      const ids = ((await query) as { id: string }[]).map((row) => row.id);
      if (ids.length === 0) break;
      changed += await service.db.transaction((trx) => recomputeBatch(trx, model, ids));
      seen += ids.length;
      after = ids[ids.length - 1];
      progress(model.meta.name, seen, total);
    }
    await recordLogicVersion(service.db, model);
    done.push(`recomputed the computed fields of ${model.meta.name}: ${changed} of ${total} records changed`);
  }
  return done;
}

/** Computes these records again (locked, in `trx`) and writes what differs; answers how many changed. */
async function recomputeBatch(trx: Knex, model: CompiledModel, ids: readonly string[]): Promise<number> {
  const lines = await linesOfRecords(trx, model, ids, [...model.lines.keys()]);
  let changed = 0;
  for (const id of ids) {
    const record = await model.queries.lockForWrite(trx, id);
    if (!record) continue;
    const before: LinesOf = lines.get(id) ?? {};
    let computed: ReturnType<typeof computeDocument>;
    try {
      computed = computeDocument(model, record as StoredRecord & Record<string, unknown>, before);
    } catch (error) {
      throw new RecomputeError(model.meta.name, id, error);
    }
    const changes: Record<string, unknown> = {};
    for (const field of model.meta.fields) if (field.computed && !sameValue((record as Record<string, unknown>)[field.name], computed.record[field.name])) changes[field.name] = computed.record[field.name] ?? null;
    let linesChanged = false;
    for (const [name, list] of model.lines) {
      const write = linesWrite(list, before[name] ?? [], computed.lines[name] ?? []);
      if (write.update.length === 0) continue;
      await writeLines(trx, list, id, write);
      linesChanged = true;
    }
    if (Object.keys(changes).length > 0) await model.queries.update(trx, id, changes);
    if (linesChanged || Object.keys(changes).length > 0) changed++;
  }
  return changed;
}

/** Records the versions of models that compute but have no records yet (nothing to recompute). */
export async function recordFreshLogic(service: RecordService): Promise<void> {
  for (const model of await staleComputedModels(service)) {
    const any = await service.db(model.meta.table.name).select('id').limit(1).first();
    if (any) continue;
    await recordLogicVersion(service.db, model);
  }
}

/**
 * Records that the model's stored values are its functions' version. One statement, whatever is
 * recorded already: instances starting together on one database each record it (a delete then an
 * insert let the second insert fail on the first's row, and that instance fail to start).
 */
async function recordLogicVersion(db: Knex, model: CompiledModel): Promise<void> {
  await db(LOGIC_TABLE).insert({ model: model.meta.name, version: model.logic.version }).onConflict('model').merge(['version']);
}
