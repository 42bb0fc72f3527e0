/**
 * A model's list: the title and a few key fields as columns (the person may choose others), sort
 * by header, filters, a search box on the title field, paging with the total from `search`, CSV
 * export and import. Its state lives in the URL (`?q=…&f=[…]&sort=-field&page=2&size=50`), so
 * back, reload and shared links keep it; the columns and the last sort are remembered per person
 * and model (lib/list-prefs.ts).
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { run, search } from '../lib/api.ts';
import { can, titleFieldOf, useMeta } from '../lib/meta.ts';
import { inDeclaredOrder, optionLabel, valueText } from '../lib/format.ts';
import { listColumns, parseSort, readListPrefs, sortText, writeListPrefs, type ListPrefs } from '../lib/list-prefs.ts';
import { pluralLabel, useDocumentTitle, useLoad } from '../lib/page.ts';
import { navigate, onLinkClick, paths } from '../lib/router.ts';
import { rememberTitles, useTitles } from '../lib/titles.ts';
import { FILTER_OPERATORS, ordersBy, type FieldInfo, type FilterCondition, type FilterOperator, type ModelInfo, type RecordValue } from '../lib/types.ts';
import { ColumnChooser } from '../components/column-chooser.tsx';
import { CsvExport } from '../components/csv-export.tsx';
import { FilterBuilder } from '../components/filter-builder.tsx';
import { LoadError } from '../components/load-status.tsx';
import { PagedTable, pagingOf } from '../components/paged-table.tsx';
import { FieldValue, type TitleLookup } from '../components/value.tsx';

export function parseFilters(text: string | null, fields: readonly FieldInfo[]): FilterCondition[] {
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (item): item is FilterCondition =>
        typeof item === 'object' && item !== null && FILTER_OPERATORS.includes(item.op) && (item.field === 'id' || fields.some((field) => field.name === item.field)),
    );
  } catch {
    return [];
  }
}

export function describeFilter(field: FieldInfo | undefined, filter: FilterCondition, title?: TitleLookup): string {
  const label = field?.label ?? filter.field;
  if (filter.op === 'is_null') return `${label} ${filter.value === false ? 'is not empty' : 'is empty'}`;
  const words: Record<Exclude<FilterOperator, 'is_null'>, string> = { eq: 'is', ne: 'is not', contains: 'contains', in: 'is any of', gt: '>', gte: '≥', lt: '<', lte: '≤' };
  const multiselect = field?.kind === 'multiselect';
  if (multiselect) Object.assign(words, { contains: 'has', in: 'has any of' });
  const value = Array.isArray(filter.value)
    ? (field?.kind === 'select' || multiselect ? inDeclaredOrder(field, filter.value.map(String)).map(optionLabel) : filter.value.map(String)).join(', ')
    : multiselect && typeof filter.value === 'string'
      ? optionLabel(filter.value)
      : valueText(field, filter.value);
  const ref = field?.kind === 'ref' && typeof filter.value === 'string' ? (title?.(field.target ?? '', filter.value) ?? filter.value) : undefined;
  return `${label} ${words[filter.op] ?? filter.op} ${ref ?? value}`;
}

export function ListPage({ model, query }: { model: ModelInfo; query: URLSearchParams }) {
  const meta = useMeta();
  const username = meta.caller.username;
  const plural = pluralLabel(model.label);
  useDocumentTitle(plural);
  const [prefs, setPrefs] = useState(() => readListPrefs(username, model.name));
  const columns = useMemo(() => listColumns(model, prefs.columns), [model, prefs.columns]);
  const titleField = titleFieldOf(model);
  const searchable = titleField !== undefined && (titleField.kind === 'text' || titleField.kind === 'longtext');
  const filterable = model.fields;

  const q = query.get('q') ?? '';
  const filters = parseFilters(query.get('f'), model.fields);
  // The URL's sort when it has one (a shared link, back), else the one this person chose last.
  const sort = query.has('sort') ? parseSort(query.get('sort'), model.fields) : parseSort(prefs.sort, model.fields);
  const paging = pagingOf(query);
  const { page, size } = paging;
  const useSearch = can(model, 'search');

  const allFilters: FilterCondition[] = [...filters, ...(q.trim() && searchable ? [{ field: titleField.name, op: 'contains' as const, value: q.trim() }] : [])];
  const key = JSON.stringify([model.name, allFilters, sort, page, size]);
  const [state, reload] = useLoad(async () => {
    const input = { filter: allFilters, order: sort ? [sort] : [], offset: (page - 1) * size };
    if (useSearch) {
      const result = await search(model.name, { ...input, limit: size });
      return { rows: result.rows, total: result.total as number | null, hasMore: false };
    }
    const body: Record<string, unknown> = { limit: size + 1, offset: input.offset };
    if (input.filter.length) body.filter = input.filter;
    if (input.order.length) body.order = input.order;
    const rows = await run<RecordValue[]>(model.name, 'list', body);
    return { rows: rows.slice(0, size), total: null, hasMore: rows.length > size };
  }, [key]);

  const [text, setText] = useState(q);
  const [showFilters, setShowFilters] = useState(filters.length > 0);
  const [showColumns, setShowColumns] = useState(false);
  // The open filter builder starts over when the URL's filters change from elsewhere (a chip, "clear",
  // back), but not after its own Apply, so keyboard focus stays on it.
  const fParam = query.get('f') ?? '';
  const applied = useRef(fParam);
  const [builderKey, setBuilderKey] = useState(0);
  useEffect(() => {
    if (fParam === applied.current) return;
    applied.current = fParam;
    setBuilderKey((key) => key + 1);
  }, [fParam]);
  useEffect(() => setText(q), [q]);
  useEffect(() => {
    if (text === q) return;
    const timer = setTimeout(() => setQuery({ q: text.trim() || null, page: null }, true), 300);
    return () => clearTimeout(timer);
  }, [text]);

  function setQuery(changes: Record<string, string | null>, replace = false) {
    const next = new URLSearchParams(query);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null || value === '') next.delete(name);
      else next.set(name, value);
    }
    navigate(paths.list(model.name, next), { replace });
  }

  function changePrefs(change: ListPrefs) {
    writeListPrefs(username, model.name, change);
    setPrefs(readListPrefs(username, model.name));
  }

  function setSort(next: string | null) {
    changePrefs({ sort: next });
    setQuery({ sort: next, page: null });
  }

  /** A header click: ascending, then descending, then back to the default order. */
  function toggleSort(field: FieldInfo) {
    setSort(sort?.field !== field.name ? field.name : sort.dir === 'asc' ? `-${field.name}` : null);
  }

  const rows = state.data?.rows ?? [];
  useEffect(() => {
    if (state.data) rememberTitles(model, state.data.rows);
  }, [state.data]);
  const refs = rows.flatMap((row) => columns.filter((field) => field.kind === 'ref' && typeof row[field.name] === 'string').map((field) => [field.target!, row[field.name] as string] as const));
  const filterRefs = filters.flatMap((filter) => {
    const field = model.fields.find((candidate) => candidate.name === filter.field);
    return field?.kind === 'ref' && typeof filter.value === 'string' ? [[field.target!, filter.value] as const] : [];
  });
  const title = useTitles([...refs, ...filterRefs]);
  const narrowed = filters.length > 0 || q.trim() !== '';

  return (
    <section class="page page-list">
      <div class="page-head">
        <div>
          <h1>{plural}</h1>
          {model.description && <p class="muted">{model.description}</p>}
        </div>
        {can(model, 'create') && (
          <a class="btn btn-primary" href={paths.create(model.name)} onClick={onLinkClick}>
            {`New ${model.label.toLowerCase()}`}
          </a>
        )}
      </div>

      <div class="toolbar">
        {searchable && (
          <div class="search-box">
            <label class="sr-only" for="list-search">{`Search ${plural.toLowerCase()} by ${titleField.label.toLowerCase()}`}</label>
            <input
              id="list-search"
              type="search"
              placeholder={`Search by ${titleField.label.toLowerCase()}…`}
              value={text}
              onInput={(event) => setText(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') setQuery({ q: text.trim() || null, page: null }, true);
              }}
            />
          </div>
        )}
        {filterable.length > 0 && (
          <button type="button" class={filters.length ? 'btn btn-on' : 'btn'} aria-expanded={showFilters ? 'true' : 'false'} aria-controls="list-filters" onClick={() => setShowFilters((open) => !open)}>
            {filters.length ? `Filters (${filters.length})` : 'Filters'}
          </button>
        )}
        <button type="button" class={prefs.columns ? 'btn btn-on' : 'btn'} aria-expanded={showColumns ? 'true' : 'false'} aria-controls="list-columns" onClick={() => setShowColumns((open) => !open)}>
          Columns
        </button>
        <label class="sort-select">
          <span>Sort</span>
          <select value={sortText(sort) ?? ''} onChange={(event) => setSort(event.currentTarget.value || null)}>
            <option value="">Default order</option>
            {model.fields.filter((field) => ordersBy(field.kind)).flatMap((field) => [
              <option key={field.name} value={field.name}>{`${field.label} ↑`}</option>,
              <option key={`-${field.name}`} value={`-${field.name}`}>{`${field.label} ↓`}</option>,
            ])}
          </select>
        </label>
        {state.loading && (
          <span class="muted small" aria-live="polite">
            Loading…
          </span>
        )}
        <span class="spacer" />
        <CsvExport model={model} plural={plural} filter={allFilters} order={sort ? [sort] : []} />
        {can(model, 'create') && (
          <a class="btn" href={paths.importCsv(model.name)} onClick={onLinkClick}>
            Import CSV
          </a>
        )}
      </div>

      {showColumns && <ColumnChooser model={model} shown={columns} customised={prefs.columns !== undefined} onChange={(names) => changePrefs({ columns: names })} />}

      {showFilters && filterable.length > 0 && (
        <div id="list-filters" class="panel">
          <FilterBuilder
            key={builderKey}
            model={model.name}
            fields={filterable}
            filters={filters}
            onApply={(next) => {
              const f = next.length ? JSON.stringify(next) : '';
              applied.current = f;
              setQuery({ f: f || null, page: null });
            }}
          />
        </div>
      )}
      {!showFilters && filters.length > 0 && (
        <ul class="chips" aria-label="Active filters">
          {filters.map((filter, index) => (
            <li class="chip" key={index}>
              <span>{describeFilter(model.fields.find((field) => field.name === filter.field), filter, title)}</span>
              <button
                type="button"
                class="chip-remove"
                aria-label={`Remove filter ${describeFilter(model.fields.find((field) => field.name === filter.field), filter, title)}`}
                onClick={() => {
                  const rest = filters.filter((_, other) => other !== index);
                  setQuery({ f: rest.length ? JSON.stringify(rest) : null, page: null });
                }}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}

      <LoadError error={state.error} onRetry={reload} />

      {state.data && rows.length === 0 && !state.loading && (
        <div class="empty-state">
          {page > 1 ? (
            <>
              <p>{`No ${plural.toLowerCase()} on page ${page}: the list ends before it.`}</p>
              <button type="button" class="btn" onClick={() => setQuery({ page: null })}>
                Go to the first page
              </button>
            </>
          ) : narrowed ? (
            <>
              <p>{`No ${plural.toLowerCase()} match your search and filters.`}</p>
              <button type="button" class="btn" onClick={() => navigate(paths.list(model.name))}>
                Clear search and filters
              </button>
            </>
          ) : (
            <>
              <p>{`No ${plural.toLowerCase()} yet.`}</p>
              {can(model, 'create') && (
                <a class="btn btn-primary" href={paths.create(model.name)} onClick={onLinkClick}>
                  {`Create the first ${model.label.toLowerCase()}`}
                </a>
              )}
            </>
          )}
        </div>
      )}

      <PagedTable label={plural} paging={paging} shown={rows.length} answer={state.data} loading={state.loading} onQuery={setQuery}>
        <table class="data list-table">
          <caption class="sr-only">{`${plural}${sort ? `, sorted by ${model.fields.find((field) => field.name === sort.field)?.label} ${sort.dir === 'asc' ? 'ascending' : 'descending'}` : ''}`}</caption>
          <thead>
            <tr>
              {columns.map((field) => {
                const sorted = sort?.field === field.name ? sort.dir : null;
                return (
                  <th scope="col" key={field.name} class={`col-${field.kind}`} aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                    {ordersBy(field.kind) ? (
                      <button type="button" class="sort" onClick={() => toggleSort(field)} title={`Sort by ${field.label}`}>
                        {field.label}
                        <span class={sorted ? 'sort-mark on' : 'sort-mark'} aria-hidden="true">
                          {sorted === 'desc' ? '▼' : '▲'}
                        </span>
                      </button>
                    ) : (
                      field.label
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={row.id}
                onClick={(event) => {
                  const target = event.target as HTMLElement;
                  if (target.closest('a, button, input, select') || window.getSelection()?.toString()) return;
                  if (can(model, 'get')) navigate(paths.record(model.name, row.id));
                }}
                class={can(model, 'get') ? 'clickable' : undefined}
              >
                {columns.map((field, index) => (
                  <td key={field.name} class={index === 0 ? `col-${field.kind} col-title` : `col-${field.kind}`} data-label={field.label}>
                    {index === 0 && can(model, 'get') ? (
                      <a href={paths.record(model.name, row.id)} onClick={onLinkClick} class="row-link">
                        {valueText(field, row[field.name]) || row.id}
                      </a>
                    ) : (
                      <FieldValue field={field} value={row[field.name]} title={title} />
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </PagedTable>
    </section>
  );
}
