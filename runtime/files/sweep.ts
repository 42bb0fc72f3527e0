/**
 * The background sweep of files: a file is kept while a record, a history entry or a pending plan
 * refers to it (history's retention decides how long entries last), and a day after it was last
 * uploaded or attached in any case (a write that attaches it marks it: store.ts, `touchFiles`, so
 * that a pass that read what refers to files before the write committed does not remove it); then
 * its row goes, and its content once no other file has the same bytes. Several
 * instances share the work through a lease, as the retention pruner does (retention/lease.ts);
 * time is the server's clock, so tests move it instead of waiting a day.
 */
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Clock } from '../clock.ts';
import type { RecordService } from '../commands/types.ts';
import { HISTORY_TABLE } from '../history/store.ts';
import { newId } from '../ids.ts';
import { PLAN_TABLE } from '../plans/store.ts';
import { releaseLease, takeLease } from '../retention/lease.ts';
import type { FileStorage } from './storage.ts';
import { deleteFileRow, filesUploadedBefore } from './store.ts';

export const FILE_SWEEP_LEASE = 'files';
/** An upload no record holds is removed once it is this old. */
export const UNATTACHED_FILE_MS = 24 * 60 * 60 * 1000;
/** How often the sweep runs. */
export const FILE_SWEEP_EVERY_MS = 60 * 60 * 1000;
/** The first pass after a start: soon, so that a server restarted more often than hourly still sweeps. */
export const FIRST_FILE_SWEEP_AFTER_MS = 5 * 60 * 1000;
const PAGE = 500;

/** A file's id in stored JSON: `"id":"<26 characters>"` (records' and history's `FileRef`s), or any quoted id (plans' inputs). */
const REFERENCED_ID = /"([0-9A-HJKMNP-TV-Z]{26})"/g;

export interface FileSweeper {
  /** Runs a pass now (the timer runs them too): how many files it removed; skipped (0) while another instance holds the lease. */
  runPass(): Promise<{ readonly ran: boolean; readonly removed: number }>;
  stop(): Promise<void>;
}

export function startFileSweeper(options: {
  readonly service: RecordService;
  readonly storage: FileStorage;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  readonly logError: (error: unknown) => void;
}): FileSweeper {
  const { service, storage, clock } = options;
  const db = service.db;
  const holder = `${hostname()}:${process.pid}:${newId()}`;
  const ttlMs = 2 * FILE_SWEEP_EVERY_MS + 60_000;
  let running: Promise<{ ran: boolean; removed: number }> | undefined;
  let stopping = false;

  async function pass(): Promise<{ ran: boolean; removed: number }> {
    if (!(await takeLease(db, FILE_SWEEP_LEASE, holder, clock.now(), ttlMs))) return { ran: false, removed: 0 };
    const cutoff = new Date(clock.now() - UNATTACHED_FILE_MS).toISOString();
    const referenced = await referencedFileIds(service);
    let removed = 0;
    let after = '';
    for (;;) {
      const page = await filesUploadedBefore(db, cutoff, after, PAGE);
      for (const file of page) {
        if (stopping) return { ran: true, removed };
        if (referenced.has(file.id)) continue;
        if (!(await deleteFileRow(db, file.id, cutoff))) continue;
        // Kept while another file has the same bytes (remove checks as it removes).
        await storage.remove(file.sha256);
        removed++;
      }
      if (page.length < PAGE) break;
      after = page.at(-1)!.id;
    }
    if (removed > 0) options.log(`files: removed ${removed} files no record, history entry or plan refers to`);
    return { ran: true, removed };
  }

  const runPass = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void runPass().catch(options.logError), FILE_SWEEP_EVERY_MS);
  timer.unref();
  const first = setTimeout(() => void runPass().catch(options.logError), FIRST_FILE_SWEEP_AFTER_MS);
  first.unref();
  return {
    runPass,
    async stop() {
      stopping = true;
      clearInterval(timer);
      clearTimeout(first);
      await running?.catch(() => {});
      await releaseLease(db, FILE_SWEEP_LEASE, holder);
    },
  };
}

/** Every file id a record's file field, a history entry or a pending plan holds (one read of each, a page at a time). */
async function referencedFileIds(service: RecordService): Promise<Set<string>> {
  const ids = new Set<string>();
  const collect = (text: unknown) => {
    if (typeof text !== 'string') return;
    for (const match of text.matchAll(REFERENCED_ID)) ids.add(match[1]!);
  };
  const db = service.db;
  for (const model of service.models.values()) {
    const tables = [
      { table: model.meta.table.name, fields: model.meta.fields },
      ...[...model.lines.values()].map((list) => ({ table: list.meta.table.name, fields: list.meta.fields })),
    ];
    for (const { table, fields } of tables) {
      for (const field of fields.filter((candidate) => candidate.kind === 'file')) {
        await pages(db, table, field.name, (query) => query.whereNotNull(field.name), collect);
      }
    }
  }
  await pages(db, HISTORY_TABLE, 'changes', (query) => query.where('changes', 'like', '%"sha256":"%'), collect);
  await pages(db, PLAN_TABLE, 'input', (query) => query.where({ status: 'pending' }), collect);
  return ids;
}

/** Reads one column of the rows a condition selects, by id order, a page at a time. */
async function pages(db: Knex, table: string, column: string, where: (query: Knex.QueryBuilder) => Knex.QueryBuilder, each: (value: unknown) => void): Promise<void> {
  let after = '';
  for (;;) {
    const rows = (await where(db(table).select('id', column)).andWhere('id', '>', after).orderBy('id').limit(PAGE)) as Record<string, unknown>[];
    for (const row of rows) each(row[column]);
    if (rows.length < PAGE) return;
    after = String(rows.at(-1)!.id);
  }
}
