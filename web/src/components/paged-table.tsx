/**
 * A table of one page of rows with its pager under it, paged through the URL (`?page=N&size=N`)
 * so that back, reload and shared links keep the page.
 */
import type { ComponentChildren } from 'preact';
import { PAGE_SIZES, Pager } from './pager.tsx';

export interface Paging {
  /** From 1. */
  readonly page: number;
  /** One of `PAGE_SIZES`. */
  readonly size: number;
}

/** The page and page size a URL asks for; anything else is page 1 at the first size. */
export function pagingOf(query: URLSearchParams): Paging {
  const sizeParam = Number(query.get('size'));
  const size = (PAGE_SIZES as readonly number[]).includes(sizeParam) ? sizeParam : PAGE_SIZES[0];
  const page = Math.max(1, Math.floor(Number(query.get('page')) || 1));
  return { page, size };
}

export function PagedTable(props: {
  /** Names the pager (`<label> pages`). */
  readonly label: string;
  readonly paging: Paging;
  /** Rows on this page. */
  readonly shown: number;
  /** The latest answer: `total` when it is known, else `hasMore` says whether a next page exists. */
  readonly answer: { readonly total: number | null; readonly hasMore?: boolean } | undefined;
  /** A new answer is on its way: the table is dimmed meanwhile. */
  readonly loading: boolean;
  /** Changes the URL's query; `null` removes a parameter. */
  readonly onQuery: (changes: Record<string, string | null>) => void;
  /** The `<table>`, rendered only when there are rows. */
  readonly children: ComponentChildren;
}) {
  const { paging, shown, answer, onQuery } = props;
  return (
    <>
      {shown > 0 && <div class={props.loading ? 'table-wrap loading' : 'table-wrap'}>{props.children}</div>}
      {answer && (shown > 0 || paging.page > 1) && (
        <Pager
          label={props.label}
          page={paging.page}
          size={paging.size}
          total={answer.total}
          shown={shown}
          hasMore={answer.hasMore ?? false}
          onPage={(next) => onQuery({ page: next > 1 ? String(next) : null })}
          onSize={(next) => onQuery({ size: next === PAGE_SIZES[0] ? null : String(next), page: null })}
        />
      )}
    </>
  );
}
