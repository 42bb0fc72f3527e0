/** The approvals inbox: what agents proposed (command, record, input), approve or reject. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post, run } from '../lib/api.ts';
import { formatDateTime, optionLabel, valueText } from '../lib/format.ts';
import { can, useMeta, type AppMeta } from '../lib/meta.ts';
import { errorMessage, useDocumentTitle, useLoad } from '../lib/page.ts';
import { onLinkClick, paths } from '../lib/router.ts';
import { useTitles } from '../lib/titles.ts';
import type { ModelInfo, PlanInfo, PlansAnswer, RecordValue } from '../lib/types.ts';
import { LoadStatus } from '../components/load-status.tsx';
import { ConfirmDialog } from '../components/modal.tsx';
import { FieldValue, type TitleLookup } from '../components/value.tsx';

const STATUS_LABELS: Record<PlanInfo['status'], string> = { pending: 'Pending', approved: 'Approved', rejected: 'Rejected', failed: 'Failed' };

/** "lead.delete" → "Delete lead"; "invoice.post" → "Post invoice". */
export function describeCommand(meta: AppMeta, commandId: string): string {
  const [modelName = '', name = ''] = commandId.split('.');
  const model = meta.model(modelName);
  return `${optionLabel(name)} ${(model?.label ?? modelName).toLowerCase()}`;
}

export function ApprovalsPage() {
  useDocumentTitle('Approvals');
  const meta = useMeta();
  const [view, setView] = useState<'pending' | 'decided'>('pending');
  const [state, reload] = useLoad(() => get<PlansAnswer>('/api/plans').then((data) => data.plans), []);
  const plans = state.data ?? [];
  const pending = plans.filter((plan) => plan.status === 'pending');
  // The badge follows what this page read; when the badge's own poll finds another count, new
  // proposals (or decisions elsewhere) came in, and the page reads them.
  useEffect(() => {
    if (state.data) meta.reportPending(pending.length);
  }, [state.data]);
  useEffect(() => {
    if (state.data && !state.loading && meta.pendingCount !== null && meta.pendingCount !== pending.length) reload();
  }, [meta.pendingCount]);
  const decided = plans.filter((plan) => plan.status !== 'pending');
  const shown = view === 'pending' ? pending : decided;
  const refs = plans.flatMap((plan) => {
    const model = plan.command.split('.')[0] ?? '';
    const found: (readonly [string, string])[] = plan.record_id ? [[model, plan.record_id]] : [];
    const info = meta.model(model);
    for (const field of info?.fields ?? []) {
      const value = plan.input?.[field.name];
      if (field.kind === 'ref' && typeof value === 'string') found.push([field.target!, value]);
    }
    return found;
  });
  const title = useTitles(refs);

  function decided_(message: string, tone: 'success' | 'error' = 'success') {
    meta.notify(message, tone);
    reload();
  }

  return (
    <section class="page">
      <div class="page-head">
        <div>
          <h1>Approvals</h1>
          <p class="muted">Agents can only propose some commands. Nothing happens until a person approves.</p>
        </div>
        <button
          type="button"
          class="btn"
          onClick={reload}
        >
          Refresh
        </button>
      </div>
      <div class="segmented" role="group" aria-label="Show">
        <button type="button" class={view === 'pending' ? 'seg on' : 'seg'} aria-pressed={view === 'pending' ? 'true' : 'false'} onClick={() => setView('pending')}>
          Pending {state.data && <span class={pending.length > 0 ? 'badge' : 'badge badge-zero'}>{pending.length}</span>}
        </button>
        <button type="button" class={view === 'decided' ? 'seg on' : 'seg'} aria-pressed={view === 'decided' ? 'true' : 'false'} onClick={() => setView('decided')}>
          Decided
        </button>
      </div>
      <LoadStatus state={state} onRetry={reload} explain={(error) => (error instanceof ApiError && error.status === 404 ? 'The approvals inbox is not available to you.' : errorMessage(error))} />
      {state.data && shown.length === 0 && (
        <div class="empty-state">
          <p>{view === 'pending' ? 'Nothing is waiting for approval.' : 'No decided proposals yet.'}</p>
        </div>
      )}
      <ul class="plans">
        {shown.map((plan) => (
          <PlanCard key={plan.plan_id} plan={plan} title={title} onDecided={decided_} />
        ))}
      </ul>
    </section>
  );
}

function PlanCard({ plan, title, onDecided }: { plan: PlanInfo; title: TitleLookup; onDecided: (message: string, tone?: 'success' | 'error') => void }) {
  const meta = useMeta();
  const [busy, setBusy] = useState<'approve' | 'reject' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [modelName = ''] = plan.command.split('.');
  const model = meta.model(modelName);
  const summary = describeCommand(meta, plan.command);
  const recordName = plan.record_id ? title(modelName, plan.record_id) : undefined;
  const inputEntries = Object.entries(plan.input ?? {}).filter(([key]) => key !== 'id');
  const headingId = `plan-${plan.plan_id}`;

  const deletes = plan.command.endsWith('.delete');
  const [confirming, setConfirming] = useState(false);

  async function decide(kind: 'approve' | 'reject') {
    setBusy(kind);
    setError(null);
    try {
      await post(`/api/${kind}/${encodeURIComponent(plan.plan_id)}`, {});
      const what = `${summary}${recordName ? ` “${recordName}”` : ''}`;
      onDecided(kind === 'approve' ? `Approved: ${what}.` : `Rejected: ${what}.`);
    } catch (caught) {
      setBusy(null);
      if (caught instanceof ApiError && caught.status === 409) onDecided('This proposal was already decided.', 'error');
      else if (caught instanceof ApiError && kind === 'approve' && caught.status === 400) onDecided(`Approved, but the command failed: ${caught.message}`, 'error');
      else setError(errorMessage(caught));
    }
  }

  return (
    <li class="plan card" aria-labelledby={headingId}>
      <div class="plan-head">
        <h2 id={headingId}>
          {summary}
          {plan.record_id && (
            <>
              {' '}
              {recordName === null ? (
                <span class="muted">(record no longer exists)</span>
              ) : can(model, 'get') ? (
                <a href={paths.record(modelName, plan.record_id)} onClick={onLinkClick}>
                  {`“${recordName ?? plan.record_id}”`}
                </a>
              ) : (
                <span>{`“${recordName ?? plan.record_id}”`}</span>
              )}
            </>
          )}
        </h2>
        <span class={`status status-${plan.status}`}>{STATUS_LABELS[plan.status] ?? plan.status}</span>
      </div>
      <p class="muted small">
        {`Proposed by agent ${plan.agent?.label ? `“${plan.agent.label}”` : '(unknown)'}${plan.creator ? ` (token of ${plan.creator})` : ''} · ${formatDateTime(plan.created)}`}
        <span class="mono">{` · ${plan.command}`}</span>
      </p>
      <PlanEffect plan={plan} model={model} title={title} entries={inputEntries} />
      {plan.status !== 'pending' && (
        <p class="small">
          {`${STATUS_LABELS[plan.status] ?? plan.status}${plan.decided_by ? ` by ${plan.decided_by}` : ''}${plan.decided_at ? ` · ${formatDateTime(plan.decided_at)}` : ''}`}
          {plan.error && <span class="field-error">{` — ${plan.error}`}</span>}
        </p>
      )}
      {error && (
        <p class="alert alert-error" role="alert">
          {error}
        </p>
      )}
      {plan.status === 'pending' && (
        <div class="row-actions">
          <button type="button" class="btn btn-primary" disabled={busy !== null} onClick={() => (deletes ? setConfirming(true) : void decide('approve'))}>
            {busy === 'approve' ? 'Approving…' : 'Approve'}
          </button>
          <button type="button" class="btn" disabled={busy !== null} onClick={() => void decide('reject')}>
            {busy === 'reject' ? 'Rejecting…' : 'Reject'}
          </button>
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Delete ${(model?.label ?? modelName).toLowerCase()} “${recordName ?? plan.record_id ?? ''}”?`}
          message={
            <p>
              {`Approving lets the agent${plan.agent?.label ? ` “${plan.agent.label}”` : ''} delete ${(model?.label ?? modelName).toLowerCase()} “${recordName ?? plan.record_id ?? ''}”. This cannot be undone.`}
            </p>
          }
          confirmLabel="Approve and delete"
          danger
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            setConfirming(false);
            await decide('approve');
          }}
        />
      )}
    </li>
  );
}

const PREVIEW_FIELDS = 6;

/**
 * What the plan would do, next to the record as it is now: for a delete, the record's main
 * fields; for an update or an action, each field's current value and the proposed one.
 */
function PlanEffect({ plan, model, title, entries }: { plan: PlanInfo; model: ModelInfo | undefined; title: TitleLookup; entries: [string, unknown][] }) {
  const [modelName = '', commandName = ''] = plan.command.split('.');
  const live = plan.status === 'pending' && plan.record_id !== null && can(model, 'get');
  const [state] = useLoad(() => (live ? run<RecordValue>(modelName, 'get', { id: plan.record_id! }) : Promise.resolve(undefined)), [plan.plan_id, live]);
  const record = state.data;
  const action = model?.actions.find((candidate) => candidate.name === commandName);
  const refs = record && model ? model.fields.filter((field) => field.kind === 'ref' && typeof record[field.name] === 'string').map((field) => [field.target!, record[field.name] as string] as const) : [];
  const recordTitles = useTitles(refs);
  const lookup: TitleLookup = (target, id) => title(target, id) ?? recordTitles(target, id);
  const fieldOf = (name: string) => model?.fields.find((field) => field.name === name);
  const show = (name: string, value: unknown) => {
    const field = fieldOf(name);
    return field ? <FieldValue field={field} value={value} title={lookup} full /> : <span class="mono">{valueText(undefined, value)}</span>;
  };

  if (commandName === 'delete') {
    if (!record || !model) return <p class="small">Deletes the record.</p>;
    const fields = model.fields.filter((field) => field.kind !== 'longtext' && record[field.name] !== null && record[field.name] !== undefined).slice(0, PREVIEW_FIELDS);
    return (
      <>
        <p class="small">Deletes this record:</p>
        <dl class="plan-input">
          {fields.map((field) => (
            <div key={field.name}>
              <dt>{field.label}</dt>
              <dd>{show(field.name, record[field.name])}</dd>
            </div>
          ))}
        </dl>
      </>
    );
  }

  const rows: { name: string; label: string; from?: unknown; to: unknown }[] = entries.map(([name, value]) => ({ name, label: fieldOf(name)?.label ?? name, ...(record ? { from: record[name] } : {}), to: value }));
  if (action) rows.unshift({ name: action.field, label: fieldOf(action.field)?.label ?? action.field, ...(record ? { from: record[action.field] } : {}), to: action.to });
  if (rows.length === 0) return <p class="small">No further input.</p>;
  return (
    <dl class="plan-input">
      {rows.map((row) => (
        <div key={row.name}>
          <dt>{row.label}</dt>
          <dd>
            {'from' in row && (
              <>
                <span class="was">{show(row.name, row.from)}</span>
                <span class="arrow" aria-label="becomes">
                  {' → '}
                </span>
              </>
            )}
            {show(row.name, row.to)}
          </dd>
        </div>
      ))}
    </dl>
  );
}
