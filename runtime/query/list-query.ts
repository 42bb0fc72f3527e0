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
import { dialectOf, type Dialect } from '../db/connect.ts';
import { selectRows, sqlIdentifier } from '../db/statements.ts';
import { badRequest } from '../errors.ts';
import type { FilterOperator, ListInput } from '../kinds.ts';
import { LIMITS } from '../kinds.ts';
import type { FieldMeta, ModelMeta, TableMeta } from '../registry.ts';
import { ordersBy } from '../shapes/values.ts';
import { bytewiseEqualFields, EVERYTHING, finerThanMilliseconds, NOTHING, TEXT_KINDS } from './comparisons.ts';
import { decodeCursor } from './cursor.ts';
import { filterValueSchema, parseOr400, toDbConverter } from './values.ts';
import type { CompiledList, CompiledQueryField, Keyset, ModelQuery, QueryField, SqlFragment } from './compiled-list.ts';
import { containsCondition, plannedWhere, searchIndexSql } from './contains.ts';
import { idsOf, keysetByOneKey, keysetCondition, whereClause } from './keyset.ts';
import { maskedCondition, maskedFieldError, maskedLineFieldError, type MaskedFilters } from './token-filter.ts';

export { maskedFilterTokens, maskedTokenKey, type MaskedFilters } from './token-filter.ts';
export { containsPlanning, plannedWhere } from './contains.ts';

export type { CompiledList, CompiledQueryField, Keyset, ModelQuery, SqlFragment };


export function compileModelQuery(model: ModelMeta, dialect: Dialect): ModelQuery {
  const lines = new Map<string, { table: string; fields: Map<string, CompiledQueryField> }>();
  for (const list of model.lines) {
    const path = `${model.name}.${list.name}`;
    const fields = compileFields(list.table, path, [...list.fields], dialect);
    lines.set(list.name, { table: list.table.name, fields });
  }
  return { model: model.name, table: model.table.name, dialect, fields: compileFields(model.table, model.name, model.fields, dialect), lines };
}

/** The fields of a table (a model's, or a line list's) compiled for the query layer, `id` first. */
function compileFields(tableMeta: TableMeta, owner: string, metas: readonly FieldMeta[], dialect: Dialect): Map<string, CompiledQueryField> {
  const table = tableMeta.name;
  const searched = new Set(tableMeta.search ?? []);
  const bytewiseEquals = bytewiseEqualFields(tableMeta, metas, dialect);
  const fields = new Map<string, CompiledQueryField>();
  const add = (field: QueryField) => {
    const column = sqlIdentifier(field.name);
    const textLike = TEXT_KINDS.has(field.kind) || field.kind === 'ref' || field.kind === 'id' || field.kind === 'datetime' || field.kind === 'multiselect';
    const toDb = toDbConverter(field.kind, dialect, field.scale);
    const ranked = field.kind === 'select' ? optionRank(column, field.options ?? []) : undefined;
    fields.set(field.name, {
      ...field,
      column,
      equality: bytewiseEquals.has(field.name) ? `${column} COLLATE "C"` : column,
      ...(searched.has(field.name) && dialect === 'sqlite' ? { searchIndex: searchIndexSql(table, field.name) } : {}),
      // A select orders by its options' declared order (a workflow's states in sequence), not by
      // their names. PostgreSQL orders text by the database's locale, SQLite by bytes: "C" gives
      // both the same order.
      sortable: ranked ? ranked.sql : dialect === 'postgres' && textLike ? `${column} COLLATE "C"` : column,
      sortValue: ranked ? ranked.rank : toDb,
      nullable: field.kind !== 'id',
      value: filterValueSchema(field),
      toDb,
      text: TEXT_KINDS.has(field.kind),
      ordered: field.kind !== 'bool' && field.kind !== 'ref' && field.kind !== 'multiselect' && field.kind !== 'file',
    });
  };
  add({ name: 'id', kind: 'id', path: `${owner}.id` });
  for (const field of metas) {
    add({ name: field.name, kind: field.kind, path: `${owner}.${field.name}`, options: field.options, target: field.target, ...(field.scale !== undefined ? { scale: field.scale } : {}) });
  }
  return fields;
}

/**
 * A select's value as its place among the options (0 for the first), in SQL and in JavaScript:
 * what orders and comparisons (`gt`, a keyset page's start) use. Empty stays empty (NULL), so
 * empty values still come last.
 */
function optionRank(column: string, options: readonly string[]): { sql: string; rank: (value: unknown) => unknown } {
  const ranks = new Map(options.map((option, i) => [option, i]));
  const sql = `CASE ${column} ${options.map((option, i) => `WHEN '${option.replaceAll("'", "''")}' THEN ${i}`).join(' ')} END`;
  return { sql, rank: (value) => (value === null || value === undefined ? null : (ranks.get(String(value)) ?? null)) };
}

/**
 * Checks a structurally valid list input (see `listInput`) against the model and the fields the
 * caller reads in clear (and, for an agent, the masked ones it may filter by token), and compiles it.
 */
export function compileList(
  query: ModelQuery,
  clearNames: ReadonlySet<string>,
  input: ListInput,
  masked?: MaskedFilters,
  /** The line fields the caller reads in clear, by line list: what `<lines>.<field>` conditions may name. */
  lineClearNames: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): CompiledList {
  const field = (name: string): CompiledQueryField => {
    const found = name === 'id' || clearNames.has(name) ? query.fields.get(name) : undefined;
    if (found) return found;
    if (masked?.maskedNames.has(name)) throw maskedFieldError(`${query.model}.${name}`);
    throw badRequest(`unknown field ${query.model}.${name}`);
  };

  const where: SqlFragment[] = [];
  for (const condition of input.filter ?? []) {
    const line = lineCondition(query, lineClearNames, condition, masked);
    if (line) {
      where.push(line);
      continue;
    }
    where.push(compileCondition(query.dialect, field(condition.field), condition.op, condition.value, 'value' in condition));
  }
  for (const name of input.include ?? []) {
    if (!query.lines.has(name)) throw badRequest(`include: ${query.model} has no line list ${name}`);
  }
  for (const condition of input.token_filter ?? []) {
    const path = `${query.model}.${condition.field}`;
    if (masked?.maskedLineNames.has(condition.field)) throw badRequest(`${path}: token_filter takes fields of the record, not of its lines`);
    if (!masked?.maskedNames.has(condition.field)) {
      if (condition.field === 'id' || clearNames.has(condition.field)) throw badRequest(`${path} is not masked for you: filter it with filter`);
      throw badRequest(`unknown field ${path}`);
    }
    where.push(maskedCondition(query, masked, condition.field, condition.op, condition.value));
  }

  const order: { field: CompiledQueryField; desc: boolean }[] = [];
  for (const key of input.order ?? []) {
    // A line field the caller reads filters (records with a line that passes) but orders nothing:
    // a record has many lines.
    const dot = key.field.indexOf('.');
    if (dot > 0 && lineClearNames.get(key.field.slice(0, dot))?.has(key.field.slice(dot + 1))) throw badRequest(`${query.model}.${key.field}: line fields cannot be ordered by`);
    const target = field(key.field);
    if (target.kind !== 'id' && !ordersBy(target.kind)) throw badRequest(`${target.path}: ${target.kind} fields cannot be ordered by`);
    if (order.some((known) => known.field === target)) continue; // a key again orders nothing more
    order.push({ field: target, desc: key.dir === 'desc' });
    if (target.kind === 'id') break; // ids are unique: later keys order nothing
  }
  // Ties broken by id so that paging is stable.
  const id = query.fields.get('id')!;
  if (!order.some((key) => key.field === id)) order.push({ field: id, desc: false });
  // Empty values last in both directions (false sorts before true). `NULLS LAST` rather than an
  // `IS NULL` key, so that an index on the keys gives the order (see migrate/index-design.ts).
  const orderBy = order.map(({ field: key, desc }) => `${key.sortable} ${desc ? 'DESC' : 'ASC'}${key.nullable ? ' NULLS LAST' : ''}`).join(', ');
  const mixedDirections = new Set(order.map((key) => key.desc)).size > 1;

  if (input.after === undefined) return { where, orderBy, mixedDirections, limit: input.limit, offset: input.offset };
  if (input.offset !== undefined) throw badRequest('after and offset cannot be used together: after continues where the last page ended');
  const after = input.after === '' ? undefined : decodeCursor(input.after, order);
  return { where, orderBy, mixedDirections, limit: input.limit, offset: undefined, keyset: { keys: order, ...(after ? { after } : {}) } };
}

/**
 * A condition on a line field (`{"field": "items.description", …}`): the records with at least
 * one line that meets it. Undefined when the condition names no line list's field.
 */
function lineCondition(
  query: ModelQuery,
  lineClearNames: ReadonlyMap<string, ReadonlySet<string>>,
  condition: { field: string; op: FilterOperator; value?: unknown },
  masked: MaskedFilters | undefined,
): SqlFragment | undefined {
  const dot = condition.field.indexOf('.');
  if (dot < 0) return undefined;
  const [listName, fieldName] = [condition.field.slice(0, dot), condition.field.slice(dot + 1)];
  const list = query.lines.get(listName);
  if (!list) return undefined;
  const field = lineClearNames.get(listName)?.has(fieldName) ? list.fields.get(fieldName) : undefined;
  if (!field && masked?.maskedLineNames.has(condition.field)) throw maskedLineFieldError(`${query.model}.${condition.field}`);
  if (!field) throw badRequest(`unknown field ${query.model}.${condition.field}`);
  const inner = compileCondition(query.dialect, field, condition.op, condition.value, 'value' in condition);
  return { sql: `${sqlIdentifier(query.table)}."id" IN (SELECT "owner" FROM ${sqlIdentifier(list.table)} WHERE ${inner.sql})`, bindings: inner.bindings };
}

/**
 * A multiselect's conditions: `contains` an option, `in` (has any of) options, `eq`/`ne` the whole
 * list (in any order), `is_null` empty. Stored as the JSON array of its options.
 */
function multiselectCondition(dialect: Dialect, field: CompiledQueryField, op: FilterOperator, value: unknown, hasValue: boolean): SqlFragment {
  const { column, path } = field;
  const option = (item: unknown) => parseOr400(field.value, item) as string;
  switch (op) {
    case 'contains': {
      if (value === undefined || value === null) throw badRequest(`${path}: contains needs an option`);
      const wanted = option(value);
      return dialect === 'sqlite'
        ? { sql: `EXISTS (SELECT 1 FROM json_each(${column}) WHERE value = ?)`, bindings: [wanted] }
        : { sql: `jsonb_exists(${column}::jsonb, ?)`, bindings: [wanted] };
    }
    case 'in': {
      if (!Array.isArray(value) || value.length < 1 || value.length > LIMITS.inValues) throw badRequest(`${path}: in needs an array of 1 to ${LIMITS.inValues} values`);
      const wanted = value.map(option);
      return dialect === 'sqlite'
        ? { sql: `EXISTS (SELECT 1 FROM json_each(${column}) WHERE value IN (SELECT value FROM json_each(?)))`, bindings: [JSON.stringify(wanted)] }
        : { sql: `jsonb_exists_any(${column}::jsonb, ?::text[])`, bindings: [wanted] };
    }
    case 'eq':
    case 'ne': {
      if (!Array.isArray(value)) throw badRequest(`${path}: ${op} needs a list of options (use is_null for empty values)`);
      const options = field.options ?? [];
      const given = value.map(option);
      const stored = JSON.stringify(options.filter((candidate) => given.includes(candidate)));
      if (given.length === 0) throw badRequest(`${path}: ${op} needs a list of options (use is_null for empty values)`);
      return op === 'eq' ? { sql: `${column} = ?`, bindings: [stored] } : { sql: `(${column} <> ? OR ${column} IS NULL)`, bindings: [stored] };
    }
    case 'is_null':
      if (hasValue && value !== true && value !== false && value !== undefined) throw badRequest(`${path}: is_null takes true or false`);
      return { sql: `${column} IS ${value === false ? 'NOT ' : ''}NULL`, bindings: [] };
    default:
      throw badRequest(`${path}: ${op} is not allowed on multiselect fields`);
  }
}

function compileCondition(dialect: Dialect, field: CompiledQueryField, op: FilterOperator, value: unknown, hasValue: boolean): SqlFragment {
  if (field.kind === 'multiselect') return multiselectCondition(dialect, field, op, value, hasValue);
  const { column, path } = field;
  // A file is not found by what it is: every operator but is_null says so, whatever its value.
  if (field.kind === 'file' && op !== 'is_null') throw badRequest(`${path}: file fields are filtered only with is_null`);
  const needsValue = (): unknown => {
    if (value === undefined || value === null) throw badRequest(`${path}: ${op} needs a value (use is_null for empty values)`);
    return field.toDb(parseOr400(field.value, value));
  };
  // A datetime finer than the milliseconds stored (Python's isoformat gives microseconds) is read
  // as its millisecond, which is before it: no stored value equals it, `gte` it is `gt` that
  // millisecond, and `lt` it is `lte` that millisecond.
  const between = field.kind === 'datetime' && finerThanMilliseconds(value);
  switch (op) {
    case 'eq':
      if (between) return (needsValue(), NOTHING);
      return { sql: `${field.equality} = ?`, bindings: [needsValue()] };
    case 'ne':
      if (between) return (needsValue(), EVERYTHING);
      // SPEC: `ne` also matches records where the field is empty.
      return { sql: `(${field.equality} <> ? OR ${column} IS NULL)`, bindings: [needsValue()] };
    case 'contains':
      return containsCondition(dialect, field, value);
    case 'in': {
      if (!Array.isArray(value) || value.length < 1 || value.length > LIMITS.inValues) {
        throw badRequest(`${path}: in needs an array of 1 to ${LIMITS.inValues} values`);
      }
      const values = value.flatMap((item) => {
        if (item === undefined || item === null) throw badRequest(`${path}: in values cannot be empty (use is_null)`);
        const stored = field.toDb(parseOr400(field.value, item));
        return field.kind === 'datetime' && finerThanMilliseconds(item) ? [] : [stored];
      });
      if (values.length === 0) return NOTHING;
      // One parameter for the whole list: 50 conditions of 1000 values stay within parameter limits.
      return dialect === 'sqlite'
        ? { sql: `${column} IN (SELECT value FROM json_each(?))`, bindings: [JSON.stringify(values)] }
        : { sql: `${field.equality} = ANY(?)`, bindings: [values] };
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (!field.ordered) throw badRequest(`${path}: ${op} is not allowed on ${field.kind} fields`);
      const sign = op === 'gt' || (op === 'gte' && between) ? '>' : op === 'gte' ? '>=' : op === 'lt' && !between ? '<' : '<=';
      // Compared as ordered: a select by its options' order.
      if (value === undefined || value === null) throw badRequest(`${path}: ${op} needs a value (use is_null for empty values)`);
      return { sql: `${field.sortable} ${sign} ?`, bindings: [field.sortValue(parseOr400(field.value, value))] };
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

/**
 * The statement of a list page: `select` (a model's `select <columns> from <table>`, written once)
 * with the list's conditions, order and page.
 */
export function listStatement(select: string, list: CompiledList, dialect: Dialect): SqlFragment {
  const after = list.keyset?.after;
  if (after && after.keys.length === 2 && after.keys[0]!.field.kind !== 'id') return keysetByOneKey(select, list, after, dialect);
  const where = whereClause(after ? { ...list, where: [...list.where, keysetCondition(after)] } : list);
  // An order whose keys go different ways (`close_date desc`, then the id ascending) is sorted
  // where an index gives each run of equal values the other way: SQLite sorted whole rows, every
  // row of such runs and of an offset's skipped rows (a page at 90 % of a million leads: 7.6 s).
  // The page's ids alone come from the index, then its rows by id (0.36 s; docs/performance.md).
  const idsFirst = dialect === 'sqlite' && list.limit !== undefined && list.mixedDirections;
  let sql = `${idsFirst ? idsOf(select) : select}${where.sql} order by ${list.orderBy}`;
  const bindings = [...where.bindings];
  if (list.limit !== undefined) {
    sql += ' limit ?';
    bindings.push(list.limit);
  }
  if (list.offset) {
    // SQLite takes an offset only after a limit; -1 is none.
    if (list.limit === undefined && dialect === 'sqlite') sql += ' limit -1';
    sql += ' offset ?';
    bindings.push(list.offset);
  }
  if (idsFirst) sql = `${select} where "id" in (${sql}) order by ${list.orderBy}`;
  return { sql, bindings };
}

/**
 * Runs a list page (see `listStatement`): on SQLite's read-only connection when `db` is the
 * database itself (it defines `rms_lower` too), else in the caller's transaction.
 */
export function selectList(db: Knex, select: string, list: CompiledList): Promise<Record<string, unknown>[]> {
  const page = (where: readonly SqlFragment[]) => {
    const { sql, bindings } = listStatement(select, { ...list, where }, dialectOf(db));
    return selectRows<Record<string, unknown>>(db, sql, bindings);
  };
  // Not an async function: on SQLite's read-only connection the probe and the page run before it returns.
  try {
    const where = plannedWhere(db, list);
    return where instanceof Promise ? where.then(page) : page(where);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Runs `count` (a model's `select count(*) as "n" from <table>`) with the list's conditions: how many records match. */
export async function countList(db: Knex, count: string, list: CompiledList): Promise<number> {
  const { sql, bindings } = countStatement(count, list);
  const [row] = await selectRows<{ n: unknown }>(db, sql, bindings);
  return Number(row?.n ?? 0);
}

/** The statement `countList` runs: its one row's `n` is the count. */
export function countStatement(count: string, list: CompiledList): SqlFragment {
  // A lone `contains` on a search field: the index counts its matches itself, without a row.
  const [only] = list.where;
  if (list.where.length === 1 && only?.searched) return only.searched.count;
  const where = whereClause(list);
  return { sql: `${count}${where.sql}`, bindings: where.bindings };
}
