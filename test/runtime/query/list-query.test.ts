/**
 * Table tests of the filter/order compiler: the SQL fragments each dialect gets. The integration
 * tests run them on SQLite (and on PostgreSQL under RMS_TEST_PG_URL); these pin the text.
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../fixtures/generated/registry.ts';
import type { ListInput } from '../../../runtime/kinds.ts';
import { compileList, compileModelQuery } from '../../../runtime/query/list-query.ts';

const lead = registry.models.lead!;
const everything = new Set(lead.fields.map((field) => field.name));
const sqlite = compileModelQuery(lead, 'sqlite');
const postgres = compileModelQuery(lead, 'postgres');

describe('conditions', () => {
  const cases: [string, ListInput['filter'], string, unknown[], string, unknown[]][] = [
    ['eq', [{ field: 'title', op: 'eq', value: 'a' }], '"title" = ?', ['a'], '"title" = ?', ['a']],
    ['ne matches empty', [{ field: 'probability', op: 'ne', value: 3 }], '("probability" <> ? OR "probability" IS NULL)', [3], '("probability" <> ? OR "probability" IS NULL)', [3]],
    ['bool binds 1/0 on SQLite', [{ field: 'hot', op: 'eq', value: true }], '"hot" = ?', [1], '"hot" = ?', [true]],
    ['contains', [{ field: 'notes', op: 'contains', value: 'ÉC_O%\\' }], 'instr(rms_lower("notes"), ?) > 0', ['éc_o%\\'], 'lower("notes" COLLATE "und-x-icu") LIKE ?', ['%éc\\_o\\%\\\\%']],
    ['in', [{ field: 'probability', op: 'in', value: [1, 2] }], '"probability" IN (SELECT value FROM json_each(?))', ['[1,2]'], '"probability" = ANY(?)', [[1, 2]]],
    ['gt on text compares bytes', [{ field: 'title', op: 'gt', value: 'b' }], '"title" > ?', ['b'], '"title" COLLATE "C" > ?', ['b']],
    ['lte on a number', [{ field: 'probability', op: 'lte', value: 5 }], '"probability" <= ?', [5], '"probability" <= ?', [5]],
    ['is_null', [{ field: 'notes', op: 'is_null' }], '"notes" IS NULL', [], '"notes" IS NULL', []],
    ['is_null false', [{ field: 'notes', op: 'is_null', value: false }], '"notes" IS NOT NULL', [], '"notes" IS NOT NULL', []],
  ];
  it.each(cases)('%s', (_name, filter, sqliteSql, sqliteBindings, pgSql, pgBindings) => {
    expect(compileList(sqlite, everything, { filter }).where).toEqual([{ sql: sqliteSql, bindings: sqliteBindings }]);
    expect(compileList(postgres, everything, { filter }).where).toEqual([{ sql: pgSql, bindings: pgBindings }]);
  });
});

describe('order', () => {
  it('puts empty values last, then the key, then id', () => {
    expect(compileList(sqlite, everything, { order: [{ field: 'probability', dir: 'desc' }] }).orderBy).toBe('"probability" DESC NULLS LAST, "id" ASC');
    expect(compileList(postgres, everything, { order: [{ field: 'title' }] }).orderBy).toBe('"title" COLLATE "C" ASC NULLS LAST, "id" COLLATE "C" ASC');
  });

  it('does not add id twice', () => {
    expect(compileList(sqlite, everything, { order: [{ field: 'id', dir: 'desc' }] }).orderBy).toBe('"id" DESC');
    expect(compileList(sqlite, everything, {}).orderBy).toBe('"id" ASC');
  });
});

describe('fields', () => {
  it('knows only the fields readable in clear, and id', () => {
    const clear = new Set(['title']);
    expect(() => compileList(sqlite, clear, { filter: [{ field: 'notes', op: 'eq', value: 'x' }] })).toThrow('unknown field lead.notes');
    expect(() => compileList(sqlite, clear, { order: [{ field: 'notes' }] })).toThrow('unknown field lead.notes');
    expect(compileList(sqlite, clear, { filter: [{ field: 'id', op: 'eq', value: 'x' }] }).where).toHaveLength(1);
  });
});
