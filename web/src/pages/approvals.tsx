/**
 * The approvals inbox: what agents proposed (command, record, input), approve or reject. A plan
 * that changes a record shows each field from its current value → the proposed one; a revert
 * shows what the change it undoes made, backwards. `#plan-<id>` shows and highlights one plan.
 * The files a plan would attach show as a file field does (name, size, type, a thumbnail, a
 * preview), read with the approver's right to a pending plan's files (runtime/files/plan-files.ts).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post, run } from '../lib/api.ts';
import { formatDateTime, optionLabel, valueText } from '../lib/format.ts';
import { can, useMeta, type AppMeta } from '../lib/meta.ts';
import { sameValue, type ChangeLine } from '../lib/changes.ts';
import { findChange, revertFields, revertLists, shownLineChanges, undoneLines } from '../lib/history.ts';
import { changesLines, diffLines } from '../lib/lines.ts';
import { errorMessage, useDocumentTitle, useLoad, useNow, useScrollIntoView } from '../lib/page.ts';
import { fragmentId, onLinkClick, paths, useLocation } from '../lib/router.ts';
import { useTitles } from '../lib/titles.ts';
import type { FieldChangeInfo, ModelInfo, PlanInfo, PlansAnswer, RecordValue } from '../lib/types.ts';
import { ChangeList, LinesChangeList } from '../components/changes.tsx';
import { When, whoText } from '../components/history.tsx';
import { LoadStatus } from '../components/load-status.tsx';
import { ConfirmDialog } from '../components/modal.tsx';
import { FieldValue, type TitleLookup } from '../components/value.tsx';

const STATUS_LABELS: Record<PlanInfo['status'], string> = { pending: 'Pending', approved: 'Approved', rejected: 'Rejected', failed: 'Failed' };

/** "lead.delete" → "Delete lead"; "invoice.post" → "Post invoice". */
export function describeCommand(meta: AppMeta, commandId: string): string {
  const [modelName = '', name = ''] = commandId.split('.');
  const model = meta.model(modelName);
  const label = (model?.label ?? modelName).toLowerCase();
  // A bulk command's plan: "Delete lead records".
  if (name.endsWith('_many')) return `${optionLabel(name.slice(0, -'_many'.length))} ${label} records`;
  return `${optionLabel(name)} ${label}`;
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
  // A link to one plan (a history entry's "via plan"): show its group, then it.
  const { hash } = useLocation();
  const targetPlan = fragmentId(hash, 'plan-');
  const target = targetPlan === null ? undefined : plans.find((plan) => plan.plan_id === targetPlan);
  useEffect(() => {
    if (target) setView(target.status === 'pending' ? 'pending' : 'decided');
  }, [target?.plan_id, target?.status]);
  useScrollIntoView(target && shown.includes(target) ? `plan-${target.plan_id}` : null);
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
      {state.data && targetPlan !== null && !target && <p class="alert alert-info">That proposal is not in your inbox.</p>}
      <ul class="plans">
        {shown.map((plan) => (
          <PlanCard key={plan.plan_id} plan={plan} title={title} highlighted={plan.plan_id === targetPlan} onDecided={decided_} />
        ))}
      </ul>
    </section>
  );
}

function PlanCard({ plan, title, highlighted, onDecided }: { plan: PlanInfo; title: TitleLookup; highlighted: boolean; onDecided: (message: string, tone?: 'success' | 'error') => void }) {
  const meta = useMeta();
  const [busy, setBusy] = useState<'approve' | 'reject' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [modelName = ''] = plan.command.split('.');
  const model = meta.model(modelName);
  const summary = describeCommand(meta, plan.command);
  const recordName = plan.record_id ? title(modelName, plan.record_id) : undefined;
  const inputEntries = Object.entries(plan.input ?? {}).filter(([key]) => key !== 'id');
  const headingId = `plan-${plan.plan_id}-title`;

  const deletes = plan.command.endsWith('.delete') || plan.command.endsWith('.delete_many');
  const bulkIds = plan.command.endsWith('.delete_many') && Array.isArray(plan.input?.ids) ? (plan.input.ids as string[]) : undefined;
  const what = (model?.label ?? modelName).toLowerCase();
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
      // 409 is also a revert's "changed since" (the plan then stays pending): only `plan … is already …` means decided.
      if (caught instanceof ApiError && caught.status === 409 && /^plan \S+ is already /.test(caught.message)) onDecided('This proposal was already decided.', 'error');
      else if (caught instanceof ApiError && kind === 'approve' && caught.status === 400) onDecided(`Approved, but the command failed: ${caught.message}`, 'error');
      else setError(errorMessage(caught));
    }
  }

  return (
    <li id={`plan-${plan.plan_id}`} class={highlighted ? 'plan card highlighted' : 'plan card'} aria-labelledby={headingId} aria-current={highlighted ? 'true' : undefined}>
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
          title={bulkIds ? `Delete ${bulkIds.length} records (${what})?` : `Delete ${what} “${recordName ?? plan.record_id ?? ''}”?`}
          message={
            <p>
              {`Approving lets the agent${plan.agent?.label ? ` “${plan.agent.label}”` : ''} delete ${bulkIds ? `${bulkIds.length} records (${what})` : `${what} “${recordName ?? plan.record_id ?? ''}”`}. This cannot be undone.`}
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

  if (commandName === 'delete_many') return <BulkDeleteEffect plan={plan} model={model} />;
  if (commandName === 'create_many') return <BulkCreateEffect plan={plan} model={model} />;
  if (model && (commandName === 'update_many' || actionOfBulk(model, commandName))) return <BulkChangeEffect plan={plan} model={model} />;

  if (commandName === 'revert' && model) return <RevertEffect plan={plan} model={model} record={live ? record : undefined} loaded={!live || state.data !== undefined || state.error !== undefined} title={lookup} />;

  // The record as it is now → what the plan would make of it; without the record (decided, or
  // not readable), only what it would become. An action's inputs that are not fields are shown as given.
  const line = (name: string, to: unknown): ChangeLine => {
    const field = fieldOf(name);
    if (!field && action) return { name, field: action.inputs?.find((input) => input.name === name), to };
    return { name, field, ...(record ? { from: record[name] ?? null } : {}), to };
  };
  const listOf = (name: string) => model?.lines.find((list) => list.name === name);
  const lines = entries.filter(([name]) => !listOf(name)).map(([name, value]) => line(name, value));
  if (action) lines.unshift(line(action.field, action.to));
  // A list the plan sends, against the record's lines now: lines added, removed and changed. A
  // create adds them all; a decided plan (the record not read) shows the lines it sent.
  const lists = entries.flatMap(([name, value]) => {
    const list = listOf(name);
    if (!list) return [];
    const current = record ? record[name] : [];
    return [{ list, change: diffLines(list, current, value), current: Array.isArray(current) ? (current as Record<string, unknown>[]) : [] }];
  });
  if (lines.length === 0 && lists.length === 0) return <p class="small">No further input.</p>;
  return (
    <>
      {lines.length > 0 && <ChangeList lines={lines} className="plan-input changes" />}
      {lists.map(({ list, change, current }) =>
        changesLines(change) ? (
          <LinesChangeList key={list.name} label={record || commandName === 'create' ? list.label : `${list.label} (as proposed)`} list={list} change={change} current={current} />
        ) : (
          <p class="small" key={list.name}>{`${list.label}: unchanged.`}</p>
        ),
      )}
    </>
  );
}

/** An agent's delete_many: every record it deletes, by title (linked when the person reads the model). */
function BulkDeleteEffect({ plan, model }: { plan: PlanInfo; model: ModelInfo | undefined }) {
  const [modelName = ''] = plan.command.split('.');
  const ids = Array.isArray(plan.input?.ids) ? (plan.input.ids as string[]) : [];
  const title = useTitles(ids.map((id) => [modelName, id] as const));
  return (
    <>
      <p class="small">{`Deletes ${ids.length === 1 ? '1 record' : `${ids.length} records`}:`}</p>
      <ul class="plan-records">
        {ids.map((id) => {
          const name = title(modelName, id);
          if (name === null) return <li key={id} class="muted">{`${id} (no longer exists)`}</li>;
          return <li key={id}>{can(model, 'get') ? <a href={paths.record(modelName, id)} onClick={onLinkClick}>{name ?? id}</a> : (name ?? id)}</li>;
        })}
      </ul>
    </>
  );
}

/** The action whose bulk command `name` is (`qualify_many` → qualify), if any. */
function actionOfBulk(model: ModelInfo, name: string) {
  return name.endsWith('_many') ? model.actions.find((candidate) => `${candidate.name}_many` === name) : undefined;
}

/** An agent's create_many: every record it creates, each with the values it gives and the lines it adds (their files too). */
function BulkCreateEffect({ plan, model }: { plan: PlanInfo; model: ModelInfo | undefined }) {
  const records = Array.isArray(plan.input?.records) ? (plan.input.records as Record<string, unknown>[]) : [];
  const fieldOf = (name: string) => model?.fields.find((field) => field.name === name);
  const listOf = (name: string) => model?.lines.find((list) => list.name === name);
  return (
    <>
      <p class="small">{`Creates ${records.length === 1 ? '1 record' : `${records.length} records`}:`}</p>
      <ol class="plan-records">
        {records.map((record, index) => (
          <li key={index}>
            <ChangeList lines={Object.entries(record).filter(([name]) => fieldOf(name)).map(([name, value]) => ({ name, field: fieldOf(name), to: value }))} className="plan-input changes" />
            {Object.entries(record).flatMap(([name, value]) => {
              const list = listOf(name);
              const change = list ? diffLines(list, [], value) : undefined;
              return list && change && changesLines(change) ? [<LinesChangeList key={name} label={list.label} list={list} change={change} current={[]} />] : [];
            })}
          </li>
        ))}
      </ol>
    </>
  );
}

/** The most records a bulk plan's change is read for at once (an `in` filter takes 1,000 values). */
const RECORDS_PER_READ = 1000;

/**
 * An agent's update_many or <action>_many: every record it changes, by title, each field from its
 * value now → the proposed one (the records are read while the plan is pending and readable).
 */
function BulkChangeEffect({ plan, model }: { plan: PlanInfo; model: ModelInfo }) {
  const [, commandName = ''] = plan.command.split('.');
  const ids = Array.isArray(plan.input?.ids) ? (plan.input.ids as string[]) : [];
  const title = useTitles(ids.map((id) => [model.name, id] as const));
  const live = plan.status === 'pending' && can(model, 'list');
  const [state] = useLoad(async () => {
    if (!live) return new Map<string, RecordValue>();
    const found = new Map<string, RecordValue>();
    for (let start = 0; start < ids.length; start += RECORDS_PER_READ) {
      const page = await run<RecordValue[]>(model.name, 'list', { filter: [{ field: 'id', op: 'in', value: ids.slice(start, start + RECORDS_PER_READ) }] });
      for (const record of page) found.set(record.id, record);
    }
    return found;
  }, [plan.plan_id, live]);
  const action = actionOfBulk(model, commandName);
  const given = ((action ? plan.input?.input : plan.input?.set) ?? {}) as Record<string, unknown>;
  const fieldOf = (name: string) => model.fields.find((field) => field.name === name);
  const changes: [string, unknown][] = [...(action ? [[action.field, action.to] as [string, unknown]] : []), ...Object.entries(given)];
  const lines = (record: RecordValue | undefined): ChangeLine[] =>
    changes.map(([name, to]) => {
      const field = fieldOf(name);
      if (!field && action) return { name, field: action.inputs?.find((input) => input.name === name), to };
      return { name, field, ...(record && field ? { from: record[name] ?? null } : {}), to };
    });
  return (
    <>
      <p class="small">{`${action ? optionLabel(action.name) : 'Changes'} ${ids.length === 1 ? '1 record' : `${ids.length} records`}:`}</p>
      {state.loading && live && <p class="small muted">Reading the records…</p>}
      <ul class="plan-records">
        {ids.map((id) => {
          const name = title(model.name, id);
          const record = state.data?.get(id);
          const heading = name === null ? <span class="muted">{`${id} (no longer exists)`}</span> : can(model, 'get') ? <a href={paths.record(model.name, id)} onClick={onLinkClick}>{name ?? id}</a> : (name ?? id);
          return (
            <li key={id}>
              {heading}
              {name !== null && <ChangeList lines={lines(record)} className="plan-input changes" />}
            </li>
          );
        })}
      </ul>
    </>
  );
}

/**
 * A proposed revert: the fields the change it undoes made, each from what the change made it →
 * what it was before (read from the record's history), and which of them changed since (then
 * approving fails, changing nothing).
 */
function RevertEffect({ plan, model, record, loaded, title }: { plan: PlanInfo; model: ModelInfo; record: RecordValue | undefined; loaded: boolean; title: TitleLookup }) {
  const now = useNow();
  const changeId = typeof plan.input?.change_id === 'string' ? plan.input.change_id : null;
  const readable = plan.status === 'pending' && plan.record_id !== null && changeId !== null && can(model, 'history');
  const [state] = useLoad(() => (readable ? findChange(model.name, plan.record_id!, changeId!) : Promise.resolve(null)), [plan.plan_id, readable]);
  const link =
    changeId !== null && plan.record_id !== null && can(model, 'history') ? (
      <>
        {' ('}
        <a href={paths.change(model.name, plan.record_id, changeId)} onClick={onLinkClick}>
          see the change
        </a>
        {')'}
      </>
    ) : null;
  const fallback = (
    <p class="small">
      {plan.status === 'pending' ? 'Puts back what an earlier change replaced' : 'Put back what an earlier change replaced'}
      {link}.
    </p>
  );
  if (!readable) return fallback;
  if (state.error) return <p class="small">{`Puts back what an earlier change replaced. The change could not be read: ${errorMessage(state.error)}`}</p>;
  if (state.data === undefined || !loaded) return <p class="small muted">Reading the change…</p>;
  if (state.data === null) return <p class="small">{`Change ${changeId} is not in this record’s history: approving will fail.`}</p>;
  const entry = state.data.entry;
  const lists = shownLineChanges(model, entry).filter((change) => revertLists(model, entry).includes(change.name));
  const lines: ChangeLine[] = revertFields(model, entry).map((name) => {
    const change = entry.changes[name] as FieldChangeInfo;
    const field = model.fields.find((candidate) => candidate.name === name);
    const since = record !== undefined && !sameValue(record[name], change.to);
    return {
      name,
      field,
      from: change.to,
      to: change.from,
      ...(since
        ? {
            note: (
              <>
                {'Changed since: now '}
                {field ? <FieldValue field={field} value={record[name]} title={title} full /> : valueText(undefined, record[name])}
                {'. Approving will fail.'}
              </>
            ),
          }
        : {}),
    };
  });
  return (
    <>
      <p class="small">
        {`Puts back what ${whoText(entry.by)} changed `}
        <When at={entry.at} now={now} />
        {' ('}
        <a href={paths.change(model.name, plan.record_id!, entry.change_id)} onClick={onLinkClick}>
          see the change
        </a>
        {'):'}
      </p>
      {lines.length > 0 && <ChangeList lines={lines} className="plan-input changes" />}
      {lists.map((change) => (
        <LinesChangeList key={change.name} label={change.list!.label} list={change.list} change={undoneLines(change.change)} current={record && Array.isArray(record[change.name]) ? (record[change.name] as Record<string, unknown>[]) : undefined} />
      ))}
      {lines.length === 0 && lists.length === 0 && <p class="small">None of the fields it changed can be put back.</p>}
    </>
  );
}
