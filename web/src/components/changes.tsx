/**
 * Fields as they were and as they become ("Stage: New → Qualified"), each value formatted as the
 * record page formats it (`FieldValue`: money with its currency, dates, options, yes/no, refs by
 * their target's title, empty as a dash), and a line list's lines added, removed and changed. Used
 * by a record's history, the revert confirmation and the approvals inbox.
 */
import { sameValue, withheldName, type ChangeLine } from '../lib/changes.ts';
import { valueText } from '../lib/format.ts';
import { useTitles } from '../lib/titles.ts';
import type { LineListInfo, LinesChangeInfo } from '../lib/types.ts';
import { Empty, FieldValue, type TitleLookup } from './value.tsx';

export function ChangeList({ lines, className = 'changes' }: { lines: readonly ChangeLine[]; className?: string }) {
  const refs = lines.flatMap((line) =>
    line.field?.kind === 'ref' && line.field.target
      ? [line.from, line.to].filter((value): value is string => typeof value === 'string').map((value) => [line.field!.target!, value] as const)
      : [],
  );
  const title = useTitles(refs);
  const show = (line: ChangeLine, value: unknown) =>
    line.field ? <FieldValue field={line.field} value={value} title={title} full /> : valueText(undefined, value) === '' ? <Empty /> : <span class="mono">{valueText(undefined, value)}</span>;
  return (
    <dl class={className}>
      {lines.map((line) => (
        <div class="change" key={line.name}>
          <dt>{line.field?.label ?? withheldName(line.name)}</dt>
          <dd>
            {'from' in line && sameValue(line.from, line.to) ? (
              <>
                {show(line, line.to)} <span class="muted small">(unchanged)</span>
              </>
            ) : (
              <>
                {'from' in line && (
                  <>
                    <span class="was">{show(line, line.from)}</span>{' '}
                    <span class="arrow" role="img" aria-label="becomes">
                      →
                    </span>{' '}
                  </>
                )}
                <span class="now">{show(line, line.to)}</span>
              </>
            )}
            {line.note && <span class="change-note">{line.note}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A line's name in a sentence: its first text value (“Widget”), else its place in the list (“line 2”). */
export function lineName(list: LineListInfo | undefined, line: Readonly<Record<string, unknown>> | undefined, position?: number): string {
  const named = list?.fields.find((field) => (field.kind === 'text' || field.kind === 'email' || field.kind === 'phone') && typeof line?.[field.name] === 'string' && line[field.name] !== '');
  if (named && line) return `“${String(line[named.name])}”`;
  return position !== undefined && position >= 0 ? `line ${position + 1}` : 'a line';
}

/** A list's order after a change, then before it: each line by its name (or its place before). */
function LinesOrder({ list, order, lines }: { list: LineListInfo | undefined; order: NonNullable<LinesChangeInfo['order']>; lines: readonly Readonly<Record<string, unknown>>[] }) {
  const byId = new Map(lines.map((line) => [line.id, line]));
  const named = (ids: readonly string[]) => ids.map((id) => lineName(list, byId.get(id), order.from.indexOf(id) >= 0 ? order.from.indexOf(id) : ids.indexOf(id))).join(', ');
  return (
    <span>
      {named(order.to)} <span class="muted">(was {named(order.from)})</span>
    </span>
  );
}

/** A whole line on one row: each field it has, `Label: value`, formatted as the record page formats it. */
function LineSummary({ list, line, title }: { list: LineListInfo | undefined; line: Readonly<Record<string, unknown>>; title: TitleLookup }) {
  const fields = list ? list.fields.filter((field) => field.name in line) : [];
  return (
    <span class="line-summary">
      {fields.map((field, index) => (
        <span key={field.name}>
          {index > 0 && <span aria-hidden="true"> · </span>}
          <span class="muted">{`${field.label}: `}</span>
          <FieldValue field={field} value={line[field.name]} title={title} full />
        </span>
      ))}
      {fields.length === 0 && <span class="muted">(no fields you may see)</span>}
    </span>
  );
}

/**
 * A line list's change (history, a plan, a revert): lines added and removed whole, and for each
 * changed line its fields from → to. `current` (the record's lines now) names the changed lines.
 */
export function LinesChangeList({
  label,
  list,
  change,
  current,
}: {
  label: string;
  list: LineListInfo | undefined;
  change: LinesChangeInfo;
  /** The list's lines as they are now, to name a changed line by. */
  current?: readonly Readonly<Record<string, unknown>>[] | undefined;
}) {
  const all = [...change.added, ...change.removed, ...(current ?? [])];
  const refs = list
    ? all.flatMap((line) => list.fields.filter((field) => field.kind === 'ref' && field.target && typeof line[field.name] === 'string').map((field) => [field.target!, line[field.name] as string] as const))
    : [];
  const title = useTitles(refs);
  return (
    <div class="lines-change">
      <p class="lines-change-head">
        <strong>{label}</strong>
        <span class="muted small">{` ${[change.added.length > 0 ? `${change.added.length} added` : '', change.removed.length > 0 ? `${change.removed.length} removed` : '', change.changed.length > 0 ? `${change.changed.length} changed` : '', change.order ? 'reordered' : ''].filter(Boolean).join(', ')}`}</span>
      </p>
      <ul class="lines-change-list">
        {change.added.map((line, index) => (
          <li class="line-added" key={`added-${line.id || index}`}>
            <span class="tag tag-added">added</span> <LineSummary list={list} line={line} title={title} />
          </li>
        ))}
        {change.removed.map((line, index) => (
          <li class="line-removed" key={`removed-${line.id || index}`}>
            <span class="tag tag-removed">removed</span> <LineSummary list={list} line={line} title={title} />
          </li>
        ))}
        {change.order && (
          <li class="line-moved" key="order">
            <span class="tag tag-changed">order</span> <LinesOrder list={list} order={change.order} lines={all} />
          </li>
        )}
        {change.changed.map((line) => {
          const position = current?.findIndex((candidate) => candidate.id === line.id) ?? -1;
          return (
            <li class="line-changed" key={`changed-${line.id}`}>
              <span class="tag tag-changed">changed</span> <span>{lineName(list, position >= 0 ? current![position] : undefined, position)}</span>
              <ChangeList
                className="changes changes-line"
                lines={Object.entries(line.changes).map(([name, field]) => ({ name, field: list?.fields.find((candidate) => candidate.name === name), from: field.from, to: field.to }))}
              />
            </li>
          );
        })}
      </ul>
    </div>
  );
}
