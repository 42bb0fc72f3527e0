/**
 * A record's line list on its page (an order's items): a table of its lines in order, every line
 * field the person reads (computed ones included, marked so), and the line fields withheld from
 * them named below it. On a phone each line is a card.
 */
import { joinWords } from '../lib/format.ts';
import { withheldName } from '../lib/changes.ts';
import { useTitles } from '../lib/titles.ts';
import type { LineListInfo, ModelInfo } from '../lib/types.ts';
import { FieldValue } from './value.tsx';

/** `order.items.note` → `Note`. */
function withheldLineField(path: string): string {
  return withheldName(path.slice(path.indexOf('.') + 1));
}

export function LineTable({ model, list, lines }: { model: ModelInfo; list: LineListInfo; lines: unknown }) {
  const rows = Array.isArray(lines) ? (lines as Readonly<Record<string, unknown>>[]) : [];
  const refs = rows.flatMap((row) => list.fields.filter((field) => field.kind === 'ref' && field.target && typeof row[field.name] === 'string').map((field) => [field.target!, row[field.name] as string] as const));
  const title = useTitles(refs);
  const headingId = `lines-${model.name}-${list.name}`;
  return (
    <section class="lines" aria-labelledby={headingId}>
      <div class="related-head">
        <h2 id={headingId}>
          {list.label} <span class="count">{rows.length}</span>
        </h2>
      </div>
      {list.description && <p class="muted small">{list.description}</p>}
      {!Array.isArray(lines) ? (
        <p class="muted small">{`The ${list.label.toLowerCase()} are not shown to you.`}</p>
      ) : rows.length === 0 ? (
        <p class="muted small">{`No ${list.label.toLowerCase()}.`}</p>
      ) : (
        <div class="table-wrap">
          <table class="data compact line-table">
            <thead>
              <tr>
                <th scope="col" class="col-line">
                  #
                </th>
                {list.fields.map((field) => (
                  <th scope="col" key={field.name} class={`col-${field.kind}`} title={field.computed ? 'Worked out from the other fields' : undefined}>
                    {field.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr key={String(row.id ?? index)}>
                  <td class="col-line">
                    <span>
                      <span class="phone-only">Line </span>
                      {index + 1}
                    </span>
                  </td>
                  {list.fields.map((field) => (
                    <td key={field.name} class={`col-${field.kind}${field.computed ? ' col-computed' : ''}`} data-label={field.label}>
                      <FieldValue field={field} value={row[field.name]} title={title} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.denied.length > 0 && (
        <p class="muted small lines-withheld">{`${joinWords(list.denied.map(withheldLineField))} of each line ${list.denied.length === 1 ? 'is' : 'are'} not shown to you.`}</p>
      )}
    </section>
  );
}
