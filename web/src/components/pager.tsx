/** Paging under a list: where we are in the total, previous/next, and how many rows per page. */
export const PAGE_SIZES = [25, 50, 100] as const;

export function Pager(props: { page: number; size: number; total: number | null; shown: number; hasMore: boolean; onPage: (page: number) => void; onSize: (size: number) => void; label: string }) {
  const { page, size, total, shown } = props;
  const first = shown === 0 ? 0 : (page - 1) * size + 1;
  const last = (page - 1) * size + shown;
  const pages = total === null ? null : Math.max(1, Math.ceil(total / size));
  const hasNext = pages === null ? props.hasMore : page < pages;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <span class="pager-range" aria-live="polite">
        {total === null
          ? shown === 0
            ? 'No rows'
            : `${first}–${last}`
          : total === 0
            ? '0 records'
            : shown === 0
              ? `none of ${total.toLocaleString('en-US')} on this page`
              : `${first.toLocaleString('en-US')}–${last.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`}
      </span>
      <span class="spacer" />
      <label class="pager-size">
        <span>Rows per page</span>
        <select value={String(size)} onChange={(event) => props.onSize(Number(event.currentTarget.value))}>
          {PAGE_SIZES.map((option) => (
            <option value={String(option)} key={option}>
              {option}
            </option>
          ))}
        </select>
      </label>
      <button type="button" class="btn" disabled={page <= 1} onClick={() => props.onPage(page - 1)}>
        <span aria-hidden="true">‹ </span>Previous
      </button>
      {pages !== null && <span class="pager-page">{page > pages ? `Page ${page}, past the last (${pages})` : `Page ${page} of ${pages}`}</span>}
      <button type="button" class="btn" disabled={!hasNext} onClick={() => props.onPage(page + 1)}>
        Next<span aria-hidden="true"> ›</span>
      </button>
    </nav>
  );
}
