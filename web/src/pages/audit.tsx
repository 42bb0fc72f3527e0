/** The audit trail (admins): who ran or proposed which command on which record, and how it went. */
import { useEffect, useState } from 'preact/hooks';
import { get } from '../lib/api.ts';
import { formatDateTime, optionLabel } from '../lib/format.ts';
import { can, useMeta } from '../lib/meta.ts';
import { useDocumentTitle, useLoad } from '../lib/page.ts';
import { navigate, onLinkClick, paths } from '../lib/router.ts';
import type { AuditAnswer, FilterCondition } from '../lib/types.ts';
import { LoadStatus } from '../components/load-status.tsx';
import { PagedTable, pagingOf } from '../components/paged-table.tsx';

const OUTCOMES = ['executed', 'proposed', 'approved', 'rejected', 'refused', 'failed'] as const;

export function AuditPage({ query }: { query: URLSearchParams }) {
  useDocumentTitle('Audit trail');
  const meta = useMeta();
  const actor = query.get('actor') ?? '';
  const outcome = query.get('outcome') ?? '';
  const commandText = query.get('command') ?? '';
  const who = query.get('who') ?? '';
  const paging = pagingOf(query);
  const { page, size } = paging;

  const filter: FilterCondition[] = [];
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
      {state.data && rows.length === 0 && <p class="empty-state">{filter.length ? 'No entries match these filters.' : 'Nothing has been recorded yet.'}</p>}
      <PagedTable label="Audit trail" paging={paging} shown={rows.length} answer={state.data} loading={state.loading} onQuery={setQuery}>
        <table class="data">
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
            {rows.map((row) => {
              const modelName = row.command.split('.')[0] ?? '';
              const model = meta.model(modelName);
              return (
                <tr key={row.id}>
                  <td data-label="When" class="nowrap">
                    {formatDateTime(row.at)}
                  </td>
                  <td data-label="Who">
                    {row.actor === 'agent' ? (
                      <>
                        <span class="tag">agent</span> {row.agent_label ?? ''}
                        {row.username && <span class="muted small">{` (${row.username})`}</span>}
                      </>
                    ) : (
                      row.username
                    )}
                  </td>
                  <td data-label="Command" class="mono">
                    {row.command}
                  </td>
                  <td data-label="Record" class="mono">
                    {row.record_id ? (
                      can(model, 'get') && row.outcome !== 'refused' ? (
                        <a href={paths.record(modelName, row.record_id)} onClick={onLinkClick}>
                          {row.record_id}
                        </a>
                      ) : (
                        row.record_id
                      )
                    ) : (
                      ''
                    )}
                  </td>
                  <td data-label="Outcome">
                    <span class={`status status-${row.outcome}`}>{optionLabel(row.outcome)}</span>
                  </td>
                  <td data-label="Details" class="small">
                    {row.error ?? (row.plan_id ? <span class="muted">{`plan ${row.plan_id}`}</span> : '')}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </PagedTable>
    </section>
  );
}
