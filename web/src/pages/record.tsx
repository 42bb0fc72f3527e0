/**
 * One record: its fields by kind, Edit and Delete (with confirmation), the workflow actions that
 * apply to its current state, the records of other models that refer to it, and its history (with
 * revert). A record that is gone shows its history still, when there is one.
 */
import { useState } from 'preact/hooks';
import { isMissingRecord, command, run, search } from '../lib/api.ts';
import { can, lockedState, recordTitle, titleFieldOf, useMeta } from '../lib/meta.ts';
import { joinWords, optionLabel, plural } from '../lib/format.ts';
import { defaultColumns } from '../lib/list-prefs.ts';
import { errorMessage, pluralLabel, useDocumentTitle, useLoad } from '../lib/page.ts';
import { navigate, onLinkClick, paths } from '../lib/router.ts';
import { rememberTitle, rememberTitles, useTitles } from '../lib/titles.ts';
import type { ActionInfo, FieldInfo, ModelInfo, RecordValue } from '../lib/types.ts';
import { ActionDialog, asksForInput, describeSets, runAction, type ActionOutcome } from '../components/action-dialog.tsx';
import { LineTable } from '../components/line-table.tsx';
import { LoadingPage } from '../components/load-status.tsx';
import { HistorySection } from '../components/history.tsx';
import { ConfirmDialog } from '../components/modal.tsx';
import { FieldValue, OptionPill } from '../components/value.tsx';
import { NotFound } from './not-found.tsx';

export function RecordPage({ model, id }: { model: ModelInfo; id: string }) {
  const meta = useMeta();
  const [state, reload] = useLoad(
    () =>
      run<RecordValue>(model.name, 'get', { id }).then((found) => {
        rememberTitle(model.name, found.id, recordTitle(model, found));
        return found;
      }),
    [model.name, id],
  );
  const [updated, setUpdated] = useState<RecordValue | null>(null);
  /** Counts the changes made on this page, so that the history is read again after each. */
  const [version, setVersion] = useState(0);
  const record = updated ?? state.data;
  const name = record ? recordTitle(model, record) : '';
  useDocumentTitle(record ? `${name} · ${model.label}` : model.label);
  const [dialog, setDialog] = useState<{ kind: 'delete' } | { kind: 'action'; action: ActionInfo } | { kind: 'confirm-action'; action: ActionInfo } | null>(null);
  const [busyAction, setBusyAction] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const refs = record ? model.fields.filter((field) => field.kind === 'ref' && typeof record[field.name] === 'string').map((field) => [field.target!, record[field.name] as string] as const) : [];
  const title = useTitles(refs);

  if (isMissingRecord(state.error)) {
    return (
      <NotFound message={`This ${model.label.toLowerCase()} does not exist (it may have been deleted), or you may not see it.`}>
        {can(model, 'history') && <HistorySection model={model} id={id} record={null} version={0} onReverted={() => {}} onStale={() => {}} />}
      </NotFound>
    );
  }

  const listLink = (
    <a href={paths.list(model.name)} onClick={onLinkClick}>
      {pluralLabel(model.label)}
    </a>
  );
  if (!record) return <LoadingPage crumbs={listLink} heading={model.label} state={state} onRetry={reload} />;

  const current = record;
  const actions = model.actions.filter((action) => can(model, action.name) && action.from.includes(String(current[action.field] ?? '')));
  const governed = model.fields.filter((field) => field.governed);
  // In a locked state (done, cancelled) the record is not edited or deleted; its actions still run.
  const locked = lockedState(model, current);

  function finishAction(action: ActionInfo, outcome: ActionOutcome) {
    setDialog(null);
    setBusyAction(null);
    if (outcome.kind === 'proposed') {
      meta.notify(`${optionLabel(action.name)} was sent for approval.`);
      meta.refreshPending();
      return;
    }
    setUpdated(outcome.record);
    setVersion((value) => value + 1);
    rememberTitle(model.name, outcome.record.id, recordTitle(model, outcome.record));
    const field = model.fields.find((candidate) => candidate.name === action.field);
    meta.notify(`“${recordTitle(model, outcome.record)}”: ${field?.label ?? action.field} is now ${optionLabel(action.to)}.`);
  }

  /** A state no action leaves (won, lost, cancelled): reaching it cannot be undone in the app, so ask first. */
  function isFinal(action: ActionInfo): boolean {
    return !model.actions.some((other) => other.field === action.field && other.from.includes(action.to));
  }

  async function startAction(action: ActionInfo, confirmed = false) {
    setActionError(null);
    if (asksForInput(model, action)) {
      setDialog({ kind: 'action', action });
      return;
    }
    if (!confirmed && isFinal(action)) {
      setDialog({ kind: 'confirm-action', action });
      return;
    }
    setBusyAction(action.name);
    try {
      finishAction(action, await runAction(model, action, current.id));
    } catch (caught) {
      setBusyAction(null);
      setActionError(errorMessage(caught));
    }
  }

  return (
    <section class="page page-record">
      <nav class="crumbs" aria-label="Breadcrumb">
        {listLink}
        <span aria-hidden="true"> / </span>
        <span aria-current="page">{name}</span>
      </nav>
      <div class="page-head">
        <div>
          <h1>
            {name}{' '}
            {governed.map((field) =>
              typeof current[field.name] === 'string' ? (
                <span class="head-pill" key={field.name}>
                  <span class="sr-only">{`${field.label}: `}</span>
                  <OptionPill field={field} value={current[field.name] as string} />
                </span>
              ) : null,
            )}
          </h1>
          <p class="muted">{model.label}</p>
        </div>
        <div class="head-actions">
          {can(model, 'update') && !locked && (
            <a class="btn" href={paths.edit(model.name, current.id)} onClick={onLinkClick}>
              Edit
            </a>
          )}
          {can(model, 'delete') && !locked && (
            <button type="button" class="btn btn-danger-quiet" onClick={() => setDialog({ kind: 'delete' })}>
              Delete
            </button>
          )}
        </div>
      </div>

      {locked && (
        <p class="alert alert-info locked-note" role="note">
          {`This ${model.label.toLowerCase()} is ${optionLabel(locked.state).toLowerCase()}, so it cannot be edited${can(model, 'delete') ? ' or deleted' : ''}.${actions.length > 0 ? ' Its actions still apply.' : ''}`}
        </p>
      )}
      {actions.length > 0 && (
        <div class="actions-bar" role="group" aria-label="Workflow actions">
          <span class="actions-label">Actions</span>
          {actions.map((action, index) => (
            <button type="button" class={index === 0 ? 'btn btn-primary' : 'btn'} key={action.name} title={action.description} disabled={busyAction !== null} onClick={() => void startAction(action)}>
              {busyAction === action.name ? 'Working…' : optionLabel(action.name)}
              {asksForInput(model, action) ? '…' : ''}
            </button>
          ))}
        </div>
      )}
      {actionError && (
        <p class="alert alert-error" role="alert">
          {actionError}
        </p>
      )}

      <dl class="details">
        {detailCells(model.fields).map(({ field, wide }) => (
          <div class={`detail detail-${field.kind}${wide ? ' detail-wide' : ''}`} key={field.name}>
            <dt>{field.label}</dt>
            <dd>
              <FieldValue field={field} value={current[field.name]} title={title} full />
            </dd>
          </div>
        ))}
      </dl>
      {model.denied && model.denied.length > 0 && <p class="muted small">{`${plural(model.denied.length, 'field')} of this record ${model.denied.length === 1 ? 'is' : 'are'} not shown to you.`}</p>}

      {model.lines.map((list) => (
        <LineTable key={list.name} model={model} list={list} lines={current[list.name]} />
      ))}

      <Related model={model} record={current} />

      {can(model, 'history') && (
        <HistorySection
          model={model}
          id={current.id}
          record={current}
          version={version}
          onReverted={(reverted, labels) => {
            setUpdated(reverted);
            setVersion((value) => value + 1);
            rememberTitle(model.name, reverted.id, recordTitle(model, reverted));
            meta.notify(`Reverted: ${joinWords(labels)} ${labels.length === 1 ? 'is' : 'are'} back as before.`);
          }}
          onStale={() => {
            setUpdated(null);
            reload();
            setVersion((value) => value + 1);
          }}
        />
      )}

      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete ${model.label.toLowerCase()}?`}
          message={
            <p>
              {`“${name}” will be deleted. This cannot be undone.`}
            </p>
          }
          confirmLabel="Delete"
          danger
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const result = await runDelete(model, current.id);
            setDialog(null);
            if (result === 'proposed') {
              meta.notify('The deletion was sent for approval.');
              meta.refreshPending();
              return;
            }
            meta.notify(`${model.label} “${name}” deleted.`);
            navigate(paths.list(model.name), { replace: true });
          }}
        />
      )}
      {dialog?.kind === 'confirm-action' && (
        <ConfirmDialog
          title={`${optionLabel(dialog.action.name)} ${model.label.toLowerCase()}?`}
          message={
            <p>
              {`${dialog.action.description}. ${model.fields.find((field) => field.name === dialog.action.field)?.label ?? dialog.action.field} of “${name}” becomes ${optionLabel(dialog.action.to)}, and no action changes it back.`}
              {describeSets(model, dialog.action).length > 0 && ` It sets ${describeSets(model, dialog.action).map((set) => `${set.label} to ${set.value}`).join(', ')}.`}
            </p>
          }
          confirmLabel={optionLabel(dialog.action.name)}
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const action = dialog.action;
            finishAction(action, await runAction(model, action, current.id));
          }}
        />
      )}
      {dialog?.kind === 'action' && (
        <ActionDialog model={model} action={dialog.action} record={current} onClose={() => setDialog(null)} onDone={(outcome) => finishAction(dialog.action, outcome)} />
      )}
    </section>
  );
}

/**
 * The record's fields as cells of the two-column grid, with no hole in it: long texts take a whole
 * row, so they go after the short fields (in the model's order otherwise), and when the short
 * fields are odd in number the last of them takes a whole row too.
 */
export function detailCells(fields: readonly FieldInfo[]): { field: FieldInfo; wide: boolean }[] {
  const short = fields.filter((field) => field.kind !== 'longtext');
  const long = fields.filter((field) => field.kind === 'longtext');
  return [...short.map((field, index) => ({ field, wide: short.length % 2 === 1 && index === short.length - 1 })), ...long.map((field) => ({ field, wide: true }))];
}

async function runDelete(model: ModelInfo, id: string): Promise<'done' | 'proposed'> {
  const result = await command(model.name, 'delete', { id });
  return result.kind;
}

/** Records of other models whose ref fields point at this record (a party's leads and invoices). */
function Related({ model, record }: { model: ModelInfo; record: RecordValue }) {
  const meta = useMeta();
  const sources = meta.models.flatMap((other) => (can(other, 'search') ? other.fields.filter((field) => field.kind === 'ref' && field.target === model.name).map((field) => ({ model: other, field })) : []));
  if (sources.length === 0) return null;
  return (
    <>
      {sources.map(({ model: other, field }) => (
        <RelatedList key={`${other.name}.${field.name}`} model={other} field={field} id={record.id} showFieldLabel={sources.filter((source) => source.model === other).length > 1} />
      ))}
    </>
  );
}

const RELATED_LIMIT = 10;

function RelatedList({ model, field, id, showFieldLabel }: { model: ModelInfo; field: FieldInfo; id: string; showFieldLabel: boolean }) {
  const filter = [{ field: field.name, op: 'eq' as const, value: id }];
  const titleField = titleFieldOf(model);
  const [state] = useLoad(
    () =>
      search(model.name, { filter, order: titleField ? [{ field: titleField.name, dir: 'asc' }] : [], limit: RELATED_LIMIT }).then((answer) => {
        rememberTitles(model, answer.rows);
        return answer;
      }),
    [model.name, field.name, id],
  );
  // The list's default columns (lib/list-prefs.ts) but the ref that points here: it names this record.
  const shown = new Set(defaultColumns(model).filter((name) => name !== field.name).slice(0, 3));
  const columns = model.fields.filter((candidate) => shown.has(candidate.name));
  const refs = (state.data?.rows ?? []).flatMap((row) => columns.filter((column) => column.kind === 'ref' && typeof row[column.name] === 'string').map((column) => [column.target!, row[column.name] as string] as const));
  const title = useTitles(refs);
  const heading = `${pluralLabel(model.label)}${showFieldLabel ? ` (${field.label})` : ''}`;
  const all = paths.list(model.name, new URLSearchParams({ f: JSON.stringify(filter) }));
  const total = state.data?.total ?? 0;
  return (
    <section class="related" aria-label={heading}>
      <div class="related-head">
        <h2>
          {heading} {state.data && <span class="count">{total}</span>}
        </h2>
        <span class="spacer" />
        {can(model, 'create') && (
          <a class="btn btn-small" href={paths.create(model.name, new URLSearchParams({ [field.name]: id }).toString())} onClick={onLinkClick}>
            {`New ${model.label.toLowerCase()}`}
          </a>
        )}
      </div>
      {state.error && <p class="muted small">{errorMessage(state.error)}</p>}
      {state.data && total === 0 && <p class="muted small">{`No ${pluralLabel(model.label).toLowerCase()}.`}</p>}
      {state.data && total > 0 && (
        <div class="table-wrap">
          <table class="data compact">
            <thead>
              <tr>
                <th scope="col">{titleField?.label ?? 'Record'}</th>
                {columns.map((column) => (
                  <th scope="col" key={column.name} class={`col-${column.kind}`}>
                    {column.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {state.data.rows.map((row) => (
                <tr key={row.id}>
                  <td>
                    {can(model, 'get') ? (
                      <a href={paths.record(model.name, row.id)} onClick={onLinkClick}>
                        {recordTitle(model, row)}
                      </a>
                    ) : (
                      recordTitle(model, row)
                    )}
                  </td>
                  {columns.map((column) => (
                    <td key={column.name} class={`col-${column.kind}`} data-label={column.label}>
                      <FieldValue field={column} value={row[column.name]} title={title} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {total > RELATED_LIMIT && (
        <p class="small">
          <a href={all} onClick={onLinkClick}>{`Show all ${total}`}</a>
        </p>
      )}
    </section>
  );
}
