/**
 * Fields as they were and as they become ("Stage: New → Qualified"), each value formatted as the
 * record page formats it (`FieldValue`: money with its currency, dates, options, yes/no, refs by
 * their target's title, empty as a dash). Used by a record's history, the revert confirmation and
 * the approvals inbox.
 */
import { sameValue, withheldName, type ChangeLine } from '../lib/changes.ts';
import { valueText } from '../lib/format.ts';
import { useTitles } from '../lib/titles.ts';
import { Empty, FieldValue } from './value.tsx';

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
