/**
 * `contains` (SPEC 4.5: case-insensitive substring) on text fields, and the plan it runs by on a
 * search field (`search: true`): its trigram index finds candidates, and a page chooses between
 * those and a scan in its own order by how many rows hold the needle (`plannedWhere`).
 */
import type { Knex } from 'knex';
import { sqliteReaderOf, type Dialect } from '../db/connect.ts';
import { searchIndexName, searchIdsTable } from '../db/index-names.ts';
import { selectRows, sqlIdentifier } from '../db/statements.ts';
import { badRequest } from '../errors.ts';
import type { CompiledList, CompiledQueryField, SearchedContains, SearchIndexSql, SqlFragment } from './compiled-list.ts';
import { parseOr400 } from './values.ts';

/** The condition of `contains` `value` on a field that is not a multiselect. */
export function containsCondition(dialect: Dialect, field: CompiledQueryField, value: unknown): SqlFragment {
  const { column, path } = field;
  if (!field.text) throw badRequest(`${path}: contains works on text fields only`);
  if (typeof value !== 'string') throw badRequest(`${path}: contains needs a string`);
  parseOr400(field.value, value); // text the field could hold: no NUL, no lone surrogate
  // Case-insensitive substring. PostgreSQL folds case with ICU's root locale, as JavaScript's
  // toLowerCase does on SQLite (İ, final σ), whatever locale the database was created with
  // (lower() under "C" folds ASCII only). The needle is taken literally: instr needs no
  // escapes; LIKE gets `\`, `%` and `_` escaped.
  const needle = value.toLowerCase();
  if (dialect === 'postgres') return { sql: `${pgLowered(column)} LIKE ?`, bindings: [`%${escapeLike(needle)}%`] };
  const exact: SqlFragment = { sql: `instr(rms_lower(${column}), ?) > 0`, bindings: [needle] };
  // A trigram index finds candidates for three characters or more; the exact test stays the rule.
  const index = field.searchIndex;
  if (!index || [...needle].length < 3) return exact;
  const phrase = `"${needle.replaceAll('"', '""')}"`;
  return {
    sql: `${index.candidates} AND ${exact.sql}`,
    bindings: [phrase, needle],
    searched: { scan: exact, probe: (wanted, scanRows) => ({ sql: index.probe, bindings: [wanted, scanRows, phrase] }), count: { sql: index.count, bindings: [phrase] } },
  };
}

/**
 * The lowered value `contains` compares on PostgreSQL: exactly the expression a search field's
 * GIN trigram index keeps (migrate/apply.ts), so the planner uses the index.
 */
function pgLowered(column: string): string {
  return `lower(${column} COLLATE "und-x-icu")`;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/**
 * SQLite: the statements of a `search` field's trigram table (see migrate/apply.ts for the search
 * and id tables). The table keeps the lowered value (`rms_lower`) with case-sensitive trigrams, and
 * FTS5's trigram tokenizer matches a phrase of three characters or more wherever it occurs in the
 * value: the match is the substring test on the lowered value, so its count is the exact count.
 */
export function searchIndexSql(table: string, field: string): SearchIndexSql {
  const fts = sqlIdentifier(searchIndexName(table, field, 'sqlite'));
  const ids = sqlIdentifier(searchIdsTable(table));
  return {
    candidates: `"id" IN (SELECT m."id" FROM ${ids} m WHERE m."n" IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?))`,
    // The id table's largest number is about the table's rows (deletes leave gaps), read from its key alone.
    probe:
      `WITH "bound"("enough") AS (SELECT CAST(? * coalesce((SELECT max("n") FROM ${ids}), 0) / ? AS INTEGER) + 1) ` +
      `SELECT (SELECT count(*) FROM (SELECT 1 FROM ${fts} WHERE ${fts} MATCH ? LIMIT (SELECT "enough" FROM "bound"))) >= "enough" AS "common" FROM "bound"`,
    count: `SELECT count(*) AS "n" FROM ${fts} WHERE ${fts} MATCH ?`,
  };
}

/**
 * How a page chooses between the two plans of a `contains` on a search field: a scan in the
 * page's order that stops after the page, or the index's candidates (sorted afterwards). A scan
 * that reads more than `scanRows` rows to fill the page, going by how many rows hold the needle,
 * is slower than the index. Adjustable for tests (a small budget forces the index, a large one the scan).
 */
export const containsPlanning = { scanRows: 20_000 };

/**
 * The conditions a page runs: each `contains` on a search field as a scan when enough rows hold
 * its needle that the page fills within the scan budget, else through the index. The rows are
 * the same either way; only the work differs. The estimate is the needle's matches counted up to
 * the point where a scan is cheap enough, so a rare needle costs the index's lookup and no more.
 */
export function plannedWhere(db: Knex, list: CompiledList): readonly SqlFragment[] | Promise<readonly SqlFragment[]> {
  if (list.limit === undefined || !list.where.some((condition) => condition.searched)) return list.where;
  const wanted = list.limit + (list.offset ?? 0);
  const probeOf = (searched: SearchedContains) => searched.probe(wanted, containsPlanning.scanRows);
  const chosen = (condition: SqlFragment, rows: readonly { common?: unknown }[]) => (condition.searched && rows[0]?.common ? condition.searched.scan : condition);
  // SQLite's read-only connection answers at once: the probe, the page and a search's count then
  // run in one turn, one right after the other, as the page and count alone did (commands/handlers.ts).
  const reader = sqliteReaderOf(db);
  if (reader) {
    return list.where.map((condition) => {
      if (!condition.searched) return condition;
      const { sql, bindings } = probeOf(condition.searched);
      return chosen(condition, reader.all(sql, bindings) as { common?: unknown }[]);
    });
  }
  return (async () => {
    const planned: SqlFragment[] = [];
    for (const condition of list.where) {
      if (!condition.searched) {
        planned.push(condition);
        continue;
      }
      const { sql, bindings } = probeOf(condition.searched);
      planned.push(chosen(condition, await selectRows<{ common?: unknown }>(db, sql, bindings)));
    }
    return planned;
  })();
}
