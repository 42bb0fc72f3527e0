/**
 * What `rmsgen seed` seeds, in order, and what refs may point at: the ref targets that have no
 * records yet come first (so that a ref never stays empty), then the model; the ids each ref
 * field may point at are read once, before seeding. Reads the database, writes nothing.
 */
import type { Knex } from 'knex';
import { sqlIdentifier } from '../db/statements.ts';
import { newId } from '../ids.ts';
import type { ModelMeta, Registry } from '../registry.ts';
import type { SeedTargets } from './value-context.ts';

export interface SeededModel {
  readonly model: string;
  readonly count: number;
  /** The lines written with the records, every list together (models with line lists only). */
  readonly lines?: number;
}

/**
 * What to seed, in order: the ref targets that have no records yet (a tenth as many, but at least
 * ten, or as many as the model's records when they are fewer, so that refs spread over several;
 * their own empty targets before them), then the model. A ref to the model itself, or a cycle,
 * points only at records that existed before.
 */
export async function planSeeding(db: Knex, registry: Registry, model: ModelMeta, count: number, log: (line: string) => void): Promise<SeededModel[]> {
  const plan: SeededModel[] = [];
  const visiting = new Set<string>();
  const visit = async (current: ModelMeta, currentCount: number): Promise<void> => {
    visiting.add(current.name);
    for (const field of current.fields) {
      const target = field.kind === 'ref' ? registry.models[field.target ?? ''] : undefined;
      if (!target || visiting.has(target.name) || plan.some((step) => step.model === target.name)) continue;
      if ((await countRows(db, target.table.name)) > 0) continue;
      const targetCount = Math.min(currentCount, Math.max(10, Math.ceil(currentCount / 10)));
      log(`${target.name} has no records for ${current.name}.${field.name} to point at: seeding ${targetCount.toLocaleString('en-US')} ${target.name} records first`);
      await visit(target, targetCount);
    }
    plan.push({ model: current.name, count: currentCount });
  };
  await visit(model, count);
  return plan;
}

/**
 * The ids each ref field of the model (and of its lines) may point at, by target model (read once,
 * before seeding). A target the plan seeds and that has no records yet stands in as one made-up
 * id, for checking records before anything is written.
 */
export async function targetIds(db: Knex, registry: Registry, model: ModelMeta, plan: readonly SeededModel[]): Promise<SeedTargets> {
  const targets: Record<string, string[]> = {};
  for (const field of [...model.fields, ...model.lines.flatMap((list) => list.fields)]) {
    const target = field.target;
    if (field.kind !== 'ref' || target === undefined || targets[target]) continue;
    const table = registry.models[target]?.table.name ?? target;
    const rows = (await db.raw(`select "id" from ${sqlIdentifier(table)} order by "id"`)) as unknown;
    const list = Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows;
    targets[target] = (list as { id: string }[]).map((row) => row.id);
    if (targets[target].length === 0 && plan.some((step) => step.model === target)) targets[target] = [newId()];
  }
  return targets;
}

export async function countRows(db: Knex, table: string): Promise<number> {
  const result = (await db.raw(`select count(*) as "n" from ${sqlIdentifier(table)}`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number | string }[];
  return Number(rows[0]?.n ?? 0);
}
