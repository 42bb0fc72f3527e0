/**
 * Filters, order and paging of `list` and `search` (SPEC 4.5), compiled into parameterised SQL
 * fragments that run through knex on SQLite and PostgreSQL alike.
 *
 * Everything that depends only on the model (quoted identifiers, value checks, operator rules)
 * is compiled once per model by `compileModelQuery`; a call only checks the input against it and
 * joins fragments. Values are always bound, never spliced, so `%`, `_` and `\` are literal.
 * A model's generated queries run the compiled list after their own `select` (`selectList`,
 * `countList`): the part of reading records that depends on the call.
 */
import type { Knex } from 'knex';
import type { z } from 'zod';
import { dialectOf, type Dialect } from '../db/connect.ts';
import { runSelect, sqlIdentifier } from '../db/statements.ts';
import { badRequest } from '../errors.ts';
import type { FilterOperator, ListInput } from '../kinds.ts';
import { LIMITS } from '../kinds.ts';
import type { ModelMeta } from '../registry.ts';
import { filterValueSchema, parseOr400, toDbConverter, type QueryField } from './values.ts';

export interface CompiledQueryField extends QueryField {
  /** Quoted column, e.g. `"title"`. */
  readonly column: string;
  /** Expression used for comparisons and ordering (PostgreSQL: byte order, as on SQLite). */
  readonly sortable: string;
  readonly nullable: boolean;
  readonly value: z.ZodType;
  readonly toDb: (value: unknown) => unknown;
  readonly text: boolean;
  readonly ordered: boolean;
}

export interface ModelQuery {
  readonly model: string;
  readonly dialect: Dialect;
  readonly fields: ReadonlyMap<string, CompiledQueryField>;
}

export interface SqlFragment {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

export interface CompiledList {
  /** Conditions, combined with AND. */
  readonly where: readonly SqlFragment[];
  readonly orderBy: string;
  readonly limit: number | undefined;
  readonly offset: number | undefined;
}

export function compileModelQuery(model: ModelMeta, dialect: Dialect): ModelQuery {
  const fields = new Map<string, CompiledQueryField>();
  const add = (field: QueryField) => {
    const column = sqlIdentifier(field.name);
    const textLike = field.kind === 'text' || field.kind === 'longtext' || field.kind === 'select' || field.kind === 'ref' || field.kind === 'id';
    fields.set(field.name, {
      ...field,
      column,
      // PostgreSQL orders text by the database's locale; SQLite by bytes. "C" gives both the same order.
      sortable: dialect === 'postgres' && textLike ? `${column} COLLATE "C"` : column,
      nullable: field.kind !== 'id',
      value: filterValueSchema(field),
      toDb: toDbConverter(field.kind, dialect),
      text: field.kind === 'text' || field.kind === 'longtext',
      ordered: field.kind !== 'bool' && field.kind !== 'ref',
    });
  };
  add({ name: 'id', kind: 'id', path: `${model.name}.id` });
  for (const field of model.fields) {
    add({ name: field.name, kind: field.kind, path: `${model.name}.${field.name}`, options: field.options, target: field.target });
  }
  return { model: model.name, dialect, fields };
}

/**
 * Checks a structurally valid list input (see `listInput`) against the model and the fields the
 * caller reads in clear, and compiles it.
 */
export function compileList(query: ModelQuery, clearNames: ReadonlySet<string>, input: ListInput): CompiledList {
  const field = (name: string): CompiledQueryField => {
    const found = name === 'id' || clearNames.has(name) ? query.fields.get(name) : undefined;
    if (!found) throw badRequest(`unknown field ${query.model}.${name}`);
    return found;
  };

  const where: SqlFragment[] = [];
  for (const condition of input.filter ?? []) {
    where.push(compileCondition(query.dialect, field(condition.field), condition.op, condition.value, 'value' in condition));
  }

  const keys: string[] = [];
  let hasId = false;
  for (const key of input.order ?? []) {
    const target = field(key.field);
    const dir = key.dir === 'desc' ? 'DESC' : 'ASC';
    if (target.kind === 'id') hasId = true;
    // Empty values last in both directions: false (0) sorts before true (1).
    if (target.nullable) keys.push(`(${target.column} IS NULL)`);
    keys.push(`${target.sortable} ${dir}`);
  }
  // Ties broken by id so that paging is stable.
  if (!hasId) keys.push(`${query.fields.get('id')!.sortable} ASC`);

  return { where, orderBy: keys.join(', '), limit: input.limit, offset: input.offset };
}

function compileCondition(dialect: Dialect, field: CompiledQueryField, op: FilterOperator, value: unknown, hasValue: boolean): SqlFragment {
  const { column, path } = field;
  const needsValue = (): unknown => {
    if (value === undefined || value === null) throw badRequest(`${path}: ${op} needs a value (use is_null for empty values)`);
    return field.toDb(parseOr400(field.value, value));
  };
  switch (op) {
    case 'eq':
      return { sql: `${column} = ?`, bindings: [needsValue()] };
    case 'ne':
      // SPEC: `ne` also matches records where the field is empty.
      return { sql: `(${column} <> ? OR ${column} IS NULL)`, bindings: [needsValue()] };
    case 'contains': {
      if (!field.text) throw badRequest(`${path}: contains works on text fields only`);
      if (typeof value !== 'string') throw badRequest(`${path}: contains needs a string`);
      // instr/strpos take the value literally: no LIKE wildcards or escapes to worry about.
      // PostgreSQL folds case with ICU's root locale, as JavaScript's toLowerCase does on SQLite
      // (İ, final σ), whatever locale the database was created with (lower() under "C" folds ASCII only).
      return dialect === 'sqlite'
        ? { sql: `instr(rms_lower(${column}), ?) > 0`, bindings: [value.toLowerCase()] }
        : { sql: `strpos(lower(${column} COLLATE "und-x-icu"), ?) > 0`, bindings: [value.toLowerCase()] };
    }
    case 'in': {
      if (!Array.isArray(value) || value.length < 1 || value.length > LIMITS.inValues) {
        throw badRequest(`${path}: in needs an array of 1 to ${LIMITS.inValues} values`);
      }
      const values = value.map((item) => {
        if (item === undefined || item === null) throw badRequest(`${path}: in values cannot be empty (use is_null)`);
        return field.toDb(parseOr400(field.value, item));
      });
      // One parameter for the whole list: 50 conditions of 1000 values stay within parameter limits.
      return dialect === 'sqlite'
        ? { sql: `${column} IN (SELECT value FROM json_each(?))`, bindings: [JSON.stringify(values)] }
        : { sql: `${column} = ANY(?)`, bindings: [values] };
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (!field.ordered) throw badRequest(`${path}: ${op} is not allowed on ${field.kind} fields`);
      const sign = op === 'gt' ? '>' : op === 'gte' ? '>=' : op === 'lt' ? '<' : '<=';
      return { sql: `${field.sortable} ${sign} ?`, bindings: [needsValue()] };
    }
    case 'is_null': {
      // `true` (or no value): the field is empty; `false`: the field is not empty.
      if (hasValue && value !== true && value !== false && value !== undefined) throw badRequest(`${path}: is_null takes true or false`);
      return { sql: `${column} IS ${value === false ? 'NOT ' : ''}NULL`, bindings: [] };
    }
  }
}

/** Adds the conditions to a query builder. */
export function applyWhere(builder: Knex.QueryBuilder, list: CompiledList): Knex.QueryBuilder {
  for (const condition of list.where) builder.whereRaw(condition.sql, condition.bindings as readonly Knex.RawBinding[]);
  return builder;
}

/** The conditions of a compiled list as a `where` clause (empty without conditions), with its bindings. */
function whereClause(list: CompiledList): SqlFragment {
  if (list.where.length === 0) return { sql: '', bindings: [] };
  return { sql: ` where ${list.where.map((condition) => condition.sql).join(' and ')}`, bindings: list.where.flatMap((condition) => condition.bindings) };
}

/**
 * Runs `select` (a model's `select <columns> from <table>`, written once) with the list's
 * conditions, order and page. Through knex on the pooled connection: `contains` calls `rms_lower`,
 * which SQLite's read-only connection lacks.
 */
export function selectList(db: Knex, select: string, list: CompiledList): Promise<Record<string, unknown>[]> {
  const where = whereClause(list);
  let sql = `${select}${where.sql} order by ${list.orderBy}`;
  const bindings = [...where.bindings];
  if (list.limit !== undefined) {
    sql += ' limit ?';
    bindings.push(list.limit);
  }
  if (list.offset) {
    // SQLite takes an offset only after a limit; -1 is none.
    if (list.limit === undefined && dialectOf(db) === 'sqlite') sql += ' limit -1';
    sql += ' offset ?';
    bindings.push(list.offset);
  }
  return runSelect(db, sql, bindings);
}

/** Runs `count` (a model's `select count(*) as "n" from <table>`) with the list's conditions: how many records match. */
export async function countList(db: Knex, count: string, list: CompiledList): Promise<number> {
  const where = whereClause(list);
  const [row] = await runSelect<{ n: unknown }>(db, `${count}${where.sql}`, where.bindings);
  return Number(row?.n ?? 0);
}
