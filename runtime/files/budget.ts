/**
 * Agents' daily budget of file bytes: what an agent token reads of files (downloads and MCP
 * `resources/read`) per UTC day, beside its rate limits, so that a runaway agent cannot pull the
 * whole store. One row per token and day, added to atomically (an upsert that adds only while the
 * sum stays within the budget), so instances on one database share it.
 */
import type { Knex } from 'knex';
import { createTableIfMissing } from '../db/system-tables.ts';
import { runSelect } from '../db/statements.ts';
import type { FileStorage } from './storage.ts';

export const FILE_BUDGET_TABLE = 'rms_file_budget';

/** An agent token's file bytes per day unless the server says otherwise: 1 GB. */
export const DEFAULT_AGENT_FILE_BYTES_PER_DAY = 1024 ** 3;

export async function ensureFileBudgetTable(db: Knex): Promise<void> {
  await createTableIfMissing(db, FILE_BUDGET_TABLE, (table) => {
    table.string('token_id', 64).notNullable();
    /** `YYYY-MM-DD`, UTC. */
    table.string('day', 10).notNullable();
    table.bigInteger('bytes').notNullable();
    table.primary(['token_id', 'day']);
  });
}

/** Spends `bytes` of the token's budget for the day of `now`; false (nothing spent) when that would pass `perDay`. */
export async function spendFileBudget(db: Knex, tokenId: string, now: number, bytes: number, perDay: number): Promise<boolean> {
  if (bytes > perDay) return false;
  const day = new Date(now).toISOString().slice(0, 10);
  const rows = await runSelect<{ bytes: number | string }>(
    db,
    `insert into ${FILE_BUDGET_TABLE} (token_id, day, bytes) values (?, ?, ?)
     on conflict (token_id, day) do update set bytes = ${FILE_BUDGET_TABLE}.bytes + excluded.bytes
     where ${FILE_BUDGET_TABLE}.bytes + excluded.bytes <= ?
     returning bytes`,
    [tokenId, day, bytes, perDay],
  );
  return rows.length === 1;
}

/** What reading files takes: where their content is, and agents' daily budget of bytes. */
export interface FileReading {
  readonly storage: FileStorage;
  readonly agentBytesPerDay: number;
}

export const OVER_FILE_BUDGET = "this agent token's daily budget of file bytes is spent";
