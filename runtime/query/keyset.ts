/**
 * Keyset paging's conditions (see cursor.ts): the rows after the last row of the page before, in
 * the page's order, written so that an index on the order's keys serves them at any depth.
 */
import type { CompiledList, Keyset, SqlFragment } from './compiled-list.ts';

/**
 * The rows after the keyset's row in the order: after it on the first key, or equal there and
 * after it on the next, and so on, and finally the id. Empty values come last on every key.
 */
export function keysetCondition(after: Keyset): SqlFragment {
  const equalSoFar: SqlFragment[] = [];
  const alternatives: SqlFragment[] = [];
  for (const { field, desc, value } of after.keys) {
    const bound = field.sortValue(value);
    if (field.kind === 'id') {
      alternatives.push(join([...equalSoFar, { sql: `${field.sortable} ${desc ? '<' : '>'} ?`, bindings: [bound] }]));
      break;
    }
    if (value === null) {
      // On an empty value only more empty values follow: equal here, decided by the next key.
      equalSoFar.push({ sql: `${field.column} IS NULL`, bindings: [] });
      continue;
    }
    alternatives.push(join([...equalSoFar, { sql: `(${field.sortable} ${desc ? '<' : '>'} ? OR ${field.column} IS NULL)`, bindings: [bound] }]));
    equalSoFar.push({ sql: `${field.sortable} = ?`, bindings: [bound] });
  }
  return { sql: `(${alternatives.map((alternative) => `(${alternative.sql})`).join(' OR ')})`, bindings: alternatives.flatMap((alternative) => alternative.bindings) };
}

function join(conditions: readonly SqlFragment[]): SqlFragment {
  return { sql: conditions.map((condition) => condition.sql).join(' AND '), bindings: conditions.flatMap((condition) => condition.bindings) };
}

/**
 * A keyset page of an order by one key (and the id): what follows the row (v, id) is the rows
 * equal on the key with a greater id (a smaller one, ordered by `id desc`), then those past v, then (empty values last) those without a
 * value. Each part is a range an index on (key, id) reads in order from where it starts, so a page
 * costs the same at any depth; one condition with ORs would make the database read from the top.
 */
export function keysetByOneKey(select: string, list: CompiledList, after: Keyset, dialect: 'sqlite' | 'postgres'): SqlFragment {
  const [{ field: key, desc, value }, { field: id, desc: idDesc, value: lastId }] = after.keys as [Keyset['keys'][number], Keyset['keys'][number]];
  const filters = list.where;
  const limit = list.limit;
  let partCount = 0;
  const part = (conditions: readonly SqlFragment[], orderBy: string, idsFirst = false): SqlFragment => {
    const where = whereClause({ ...list, where: [...filters, ...conditions] });
    const page = `${select}${where.sql} order by ${orderBy}${limit === undefined ? '' : ' limit ?'}`;
    return {
      sql: idsFirst ? `select * from (${select} where ${id.column} in (${idsOf(select)}${where.sql} order by ${orderBy} limit ?)) as part${partCount++}` : `select * from (${page}) as part${partCount++}`,
      bindings: [...where.bindings, ...(limit === undefined ? [] : [limit])],
    };
  };
  // Past v, an index on (key, id) read in the key's direction gives the ids of each key value in
  // that direction too; an order whose id goes the other way (\`key desc\`, then id ascending) sorts
  // each value's rows. On SQLite those rows were read whole to be sorted, every row of the first
  // value (1,370 of a million leads' close dates: 7 ms, its page cache emptied by the writes of
  // every call); its ids alone come from the index, and only the page's rows are read after them
  // (0.8 ms, docs/performance.md, "A million records").
  const idsFirst = dialect === 'sqlite' && desc !== idDesc && limit !== undefined;
  // Every part in the index's whole order, the key too, NULLS LAST as in the index: where the key
  // is one value (or empty) that orders by id alone, but PostgreSQL matches an index's order only
  // to the order as written (for `IS NULL` it would rather sort every empty row).
  // The id in the order's direction: after the row means a greater id, or with `id desc` a smaller one.
  const order = `${key.sortable} ${desc ? 'DESC' : 'ASC'} NULLS LAST, ${id.sortable} ${idDesc ? 'DESC' : 'ASC'}`;
  const idAfter: SqlFragment = { sql: `${id.sortable} ${idDesc ? '<' : '>'} ?`, bindings: [id.sortValue(lastId)] };
  const parts: SqlFragment[] = [];
  if (value !== null) {
    const bound = key.sortValue(value);
    parts.push(part([{ sql: `${key.sortable} = ?`, bindings: [bound] }, idAfter], order));
    parts.push(part([{ sql: `${key.sortable} ${desc ? '<' : '>'} ?`, bindings: [bound] }], order, idsFirst));
    parts.push(part([{ sql: `${key.column} IS NULL`, bindings: [] }], order));
  } else {
    parts.push(part([{ sql: `${key.column} IS NULL`, bindings: [] }, idAfter], order));
  }
  const union = parts.map((fragment) => fragment.sql).join(' union all ');
  return {
    sql: `select * from (${union}) as page order by ${list.orderBy}${limit === undefined ? '' : ' limit ?'}`,
    bindings: [...parts.flatMap((fragment) => fragment.bindings), ...(limit === undefined ? [] : [limit])],
  };
}

/**
 * `select "id" from <table>` of a model's `select <columns> from <table>`: a page's ids, which an
 * index on its order's keys gives without reading the rows.
 */
export function idsOf(select: string): string {
  return `select "id"${select.slice(select.lastIndexOf(' from '))}`;
}

/** The conditions of a compiled list as a `where` clause (empty without conditions), with its bindings. */
export function whereClause(list: CompiledList): SqlFragment {
  if (list.where.length === 0) return { sql: '', bindings: [] };
  return { sql: ` where ${list.where.map((condition) => condition.sql).join(' and ')}`, bindings: list.where.flatMap((condition) => condition.bindings) };
}

