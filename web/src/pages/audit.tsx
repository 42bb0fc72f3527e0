/**
 * The audit trail (admins): who ran or proposed which command on which record, when to the
 * second, how it went and with what input. Changes only by default: reads (every list and search,
 * the app's own included) outnumber them many times over, so they are a filter away. A change
 * links to its entry in the record's history.
 */
import { useEffect, useState } from 'preact/hooks';
import { get } from '../lib/api.ts';
import { formatTimestamp, optionLabel } from '../lib/format.ts';
import { can, useMeta } from '../lib/meta.ts';
import { useDocumentTitle, useLoad } from '../lib/page.ts';
import { navigate, onLinkClick, paths } from '../lib/router.ts';
import type { AuditAnswer, AuditTrailRow, FilterCondition } from '../lib/types.ts';
import { LoadStatus } from '../components/load-status.tsx';
import { PagedTable, pagingOf } from '../components/paged-table.tsx';

const OUTCOMES = ['executed', 'proposed', 'approved', 'rejected', 'refused', 'failed'] as const;

/** The `access` filter: `?access=read` reads only, `?access=all` both; none: changes only. */
const ACCESS_CHOICES = [
  { value: '', label: 'Changes' },
  { value: 'read', label: 'Reads' },
  { value: 'all', label: 'Changes and reads' },
] as const;

export function AuditPage({ query }: { query: URLSearchParams }) {
  useDocumentTitle('Audit trail');
  const access = query.get('access') ?? '';
  const actor = query.get('actor') ?? '';
  const outcome = query.get('outcome') ?? '';
  const commandText = query.get('command') ?? '';
  const who = query.get('who') ?? '';
  const paging = pagingOf(query);
  const { page, size } = paging;

  const filter: FilterCondition[] = [];
  if (access !== 'all') filter.push({ field: 'access', op: 'eq', value: access === 'read' ? 'read' : 'write' });
  if (actor === 'person' || actor === 'agent') filter.push({ field: 'actor', op: 'eq', value: actor });
  if (outcome) filter.push({ field: 'outcome', op: 'eq', value: outcome });
  if (commandText.trim()) filter.push({ field: 'command', op: 'contains', value: commandText.trim() });
  if (who.trim()) filter.push({ field: 'username', op: 'contains', value: who.trim() });
  const key = JSON.stringify([filter, page, size]);
  const [state, reload] = useLoad(() => {
    const params = new URLSearchParams({ order: JSON.stringify([{ field: 'at', dir: 'desc' }]), limit: String(size), offset: String((page - 1) * size) });
    if (filter.length) params.set('filter', JSON.stringify(filter));
    return get<AuditAnswer>(`/api/audit?${params}`);
  }, [key]);

  const [commandDraft, setCommandDraft] = useState(commandText);
  const [whoDraft, setWhoDraft] = useState(who);
  useEffect(() => setCommandDraft(commandText), [commandText]);
  useEffect(() => setWhoDraft(who), [who]);

  function setQuery(changes: Record<string, string | null>) {
    const next = new URLSearchParams(query);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null || value === '') next.delete(name);
      else next.set(name, value);
    }
    navigate(`${paths.audit()}${next.size ? `?${next}` : ''}`, { replace: true });
  }

  const rows = state.data?.rows ?? [];
  const narrowed = actor !== '' || outcome !== '' || commandText.trim() !== '' || who.trim() !== '';
  return (
    <section class="page">
      <div class="page-head">
        <div>
          <h1>Audit trail</h1>
          <p class="muted">Every command people and agents ran, proposed or were refused, newest first.</p>
        </div>
      </div>
      <form
        class="toolbar audit-filters"
        role="search"
        aria-label="Filter the audit trail"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ command: commandDraft.trim() || null, who: whoDraft.trim() || null, page: null });
        }}
      >
        <label class="inline-field">
          <span>Show</span>
          <select value={access} onChange={(event) => setQuery({ access: event.currentTarget.value || null, page: null })}>
            {ACCESS_CHOICES.map((choice) => (
              <option value={choice.value} key={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
        <label class="inline-field">
          <span>Actor</span>
          <select value={actor} onChange={(event) => setQuery({ actor: event.currentTarget.value || null, page: null })}>
            <option value="">Anyone</option>
            <option value="person">People</option>
            <option value="agent">Agents</option>
          </select>
        </label>
        <label class="inline-field">
          <span>Outcome</span>
          <select value={outcome} onChange={(event) => setQuery({ outcome: event.currentTarget.value || null, page: null })}>
            <option value="">Any</option>
            {OUTCOMES.map((value) => (
              <option value={value} key={value}>
                {optionLabel(value)}
              </option>
            ))}
          </select>
        </label>
        <label class="inline-field">
          <span>Command</span>
          <input type="search" value={commandDraft} placeholder="e.g. lead.delete" onInput={(event) => setCommandDraft(event.currentTarget.value)} />
        </label>
        <label class="inline-field">
          <span>Person</span>
          <input type="search" value={whoDraft} placeholder="username" onInput={(event) => setWhoDraft(event.currentTarget.value)} />
        </label>
        <button type="submit" class="btn">
          Apply
        </button>
      </form>
      <LoadStatus state={state} onRetry={reload} />
      {state.data && rows.length === 0 && <p class="empty-state">{narrowed ? 'No entries match these filters.' : access === 'read' ? 'No reads have been recorded yet.' : 'No changes have been recorded yet.'}</p>}
      <PagedTable label="Audit trail" paging={paging} shown={rows.length} answer={state.data} loading={state.loading} onQuery={setQuery}>
        <table class="data audit-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Command</th>
              <th scope="col">Record</th>
              <th scope="col">Outcome</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <AuditRow key={row.id} row={row} />
            ))}
          </tbody>
        </table>
      </PagedTable>
    </section>
  );
}

function AuditRow({ row }: { row: AuditTrailRow }) {
  return (
    <tr>
      <td data-label="When" class="nowrap">
        <time dateTime={row.at} title={row.at}>
          {formatTimestamp(row.at)}
        </time>
      </td>
      <td data-label="Who" class="audit-who">
        {row.actor === 'agent' ? (
          <>
            <span class="tag">agent</span> {row.agent_label ?? ''}
            {row.username && <span class="muted small">{` (${row.username})`}</span>}
          </>
        ) : (
          row.username
        )}
      </td>
      <td data-label="Command" class="mono nowrap">
        {row.command}
      </td>
      <td data-label="Record" class="audit-record">
        <AuditRecord row={row} />
      </td>
      <td data-label="Outcome">
        <span class={`status status-${row.outcome}`}>{optionLabel(row.outcome)}</span>
      </td>
      <td data-label="Details" class="small audit-details">
        <AuditDetails row={row} />
      </td>
    </tr>
  );
}

/**
 * The record by its title as it is now, linked while it exists. The server leaves the title out
 * when the record is gone, and when its title field is personal (the trail shows no personal
 * values): then the id stands in, linked unless the record is known not to be there.
 */
function AuditRecord({ row }: { row: AuditTrailRow }) {
  const meta = useMeta();
  if (!row.record_id) return <span class="empty">—</span>;
  const modelName = row.command.split('.')[0] ?? '';
  const model = meta.model(modelName);
  const titleField = model?.fields.find((field) => field.name === model.title_field);
  const titleWithheld = titleField === undefined || titleField.personal;
  const exists = row.record_title !== null || titleWithheld;
  const name = row.record_title ?? row.record_id;
  const text = <span class={row.record_title === null ? 'mono' : undefined}>{name}</span>;
  return (
    <>
      {exists && can(model, 'get') ? (
        <a href={paths.record(modelName, row.record_id)} onClick={onLinkClick} title={row.record_id}>
          {text}
        </a>
      ) : (
        <span title={row.record_id}>{text}</span>
      )}
      {!exists && <span class="muted small"> (not found)</span>}
    </>
  );
}

/**
 * The change the call made (a link to its entry in the record's history), the error or plan, and
 * the input as it was stored (an agent's personal values as their masks).
 */
function AuditDetails({ row }: { row: AuditTrailRow }) {
  const meta = useMeta();
  const hasInput = row.input !== null && row.input !== undefined && !(typeof row.input === 'object' && Object.keys(row.input).length === 0);
  const modelName = row.command.split('.')[0] ?? '';
  const change = row.change_id && row.record_id && can(meta.model(modelName), 'history') ? paths.change(modelName, row.record_id, row.change_id) : null;
  // One block, so that on a phone (where each cell is a row of label and value) its parts stack.
  return (
    <div class="audit-details-body">
      {change && (
        <p>
          <a href={change} onClick={onLinkClick}>
            See the change
          </a>
        </p>
      )}
      {row.error && <p class="audit-error">{`${row.status ? `${row.status}: ` : ''}${row.error}`}</p>}
      {row.plan_id && <p class="muted">{`Plan ${row.plan_id}`}</p>}
      {hasInput && (
        <details class="audit-input">
          <summary>
            <span class="sr-only">Input: </span>
            <code>{JSON.stringify(row.input)}</code>
          </summary>
          <pre>{JSON.stringify(row.input, null, 2)}</pre>
        </details>
      )}
      {!change && !row.error && !row.plan_id && !hasInput && <span class="empty">—</span>}
    </div>
  );
}
