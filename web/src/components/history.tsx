/**
 * A record's History section: its changes newest first, ten at a time — when (in words, the exact
 * time on hover), who (a person, or an agent by its label and the person whose token it used; the
 * plan it came through), and each field from → to. People who may update the record revert an
 * edit from here, after seeing what would be put back. `#change-<id>` in the URL scrolls to an
 * entry and highlights it (the audit trail links there), reading further pages to find it.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, command, isMissingRecord } from '../lib/api.ts';
import { formatTimestamp, joinWords, optionLabel, relativeTime } from '../lib/format.ts';
import { withheldName, type ChangeLine } from '../lib/changes.ts';
import { entryKind, findChange, HISTORY_PAGE, revertFields, revertLists, shownChanges, shownLineChanges, undoneLines } from '../lib/history.ts';
import { can, fieldOf, lockedState, useMeta } from '../lib/meta.ts';
import { errorMessage, useLoad, useNow, useScrollIntoView } from '../lib/page.ts';
import { fragmentId, onLinkClick, paths, useLocation } from '../lib/router.ts';
import type { HistoryEntryInfo, ModelInfo, RecordValue, SearchAnswer } from '../lib/types.ts';
import { ChangeList, LinesChangeList } from './changes.tsx';
import { LoadError } from './load-status.tsx';
import { ConfirmDialog } from './modal.tsx';

interface HistoryPage {
  readonly answer: SearchAnswer<HistoryEntryInfo>;
  readonly denied: readonly string[];
  /** Where the page starts: the range shown follows the rows, not the page asked for meanwhile. */
  readonly offset: number;
}

export function HistorySection(props: {
  model: ModelInfo;
  id: string;
  /** The record as the page shows it; null when it no longer exists (its history still does). */
  record: RecordValue | null;
  /** Changes when the record changed on the page: the history is read again. */
  version: number;
  /** A revert went through: the record as it is now, and the labels of the fields put back. */
  onReverted: (record: RecordValue, labels: string[]) => void;
  /** A revert was refused: what the page shows may be out of date. */
  onStale: () => void;
}) {
  const { model, id, record } = props;
  const meta = useMeta();
  const now = useNow();
  const { hash } = useLocation();
  const target = fragmentId(hash, 'change-');
  const [offset, setOffset] = useState(0);
  const [state, reload] = useLoad(async (): Promise<HistoryPage> => {
    const result = await command<SearchAnswer<HistoryEntryInfo>>(model.name, 'history', { id, limit: HISTORY_PAGE, offset });
    if (result.kind !== 'done') throw new ApiError(202, 'The history could not be read.');
    return { answer: result.value, denied: result.denied, offset };
  }, [model.name, id, offset, props.version]);
  const [reverting, setReverting] = useState<HistoryEntryInfo | null>(null);
  const [refusal, setRefusal] = useState<{ message: string; conflict: boolean } | null>(null);
  const [lookedFor, setLookedFor] = useState<string | null>(null);
  const [missingTarget, setMissingTarget] = useState<string | null>(null);

  const rows = state.data?.answer.rows ?? [];
  const total = state.data?.answer.total ?? 0;
  const shownOffset = state.data?.offset ?? 0;
  const targetShown = target !== null && rows.some((entry) => entry.change_id === target);

  // A linked change not on this page: find its page.
  useEffect(() => {
    if (target === null || !state.data || state.loading || targetShown || lookedFor === target) return;
    setLookedFor(target);
    findChange(model.name, id, target).then(
      (found) => {
        if (found) setOffset(Math.floor(found.index / HISTORY_PAGE) * HISTORY_PAGE);
        else setMissingTarget(target);
      },
      () => setMissingTarget(target),
    );
  }, [target, state.data, state.loading]);
  useScrollIntoView(targetShown ? `change-${target}` : null);
  // A page past the end (entries pruned meanwhile): back to the newest.
  useEffect(() => {
    if (state.data && state.data.offset > 0 && state.data.answer.rows.length === 0) setOffset(0);
  }, [state.data]);

  // The record is gone and so is any trace of it (or it never was): the page says so itself. Of a
  // gone record, the section shows once there is a history to show.
  if (record === null && (isMissingRecord(state.error) || !state.data)) return null;

  // A record in a locked state (done, cancelled) is not changed, by a revert either.
  const mayRevert = record !== null && can(model, 'revert') && lockedState(model, record) === null;
  const denied = state.data?.denied ?? [];

  async function revert(entry: HistoryEntryInfo, fields: readonly string[]) {
    setRefusal(null);
    try {
      const result = await command<RecordValue>(model.name, 'revert', { id, change_id: entry.change_id });
      setReverting(null);
      if (result.kind === 'proposed') {
        meta.notify('The revert was sent for approval.');
        meta.refreshPending();
        return;
      }
      setOffset(0);
      props.onReverted(
        result.value,
        fields.map((name) => fieldOf(model, name)?.label ?? model.lines.find((list) => list.name === name)?.label ?? withheldName(name)),
      );
    } catch (caught) {
      // A change since (409) or a change that cannot be reverted (400): the server's words, in the section.
      if (caught instanceof ApiError && (caught.status === 409 || caught.status === 400)) {
        setReverting(null);
        setRefusal({ message: caught.message, conflict: caught.status === 409 });
        props.onStale();
        return;
      }
      throw caught;
    }
  }

  return (
    <section class="history" aria-label="History">
      <div class="related-head">
        <h2>
          History {state.data && <span class="count">{total}</span>}
        </h2>
      </div>
      {refusal && (
        <div class="alert alert-error history-refusal" role="alert">
          <p class="history-refusal-message">{refusal.message}</p>
          <p class="small">
            {refusal.conflict
              ? 'Nothing was reverted: the record changed again after that change. Its latest changes are listed below.'
              : 'Nothing was reverted.'}
          </p>
        </div>
      )}
      {denied.length > 0 && (
        <p class="muted small history-withheld">{`${joinWords(denied.map(withheldName))} ${denied.length === 1 ? 'is' : 'are'} withheld from you: changes to ${denied.length === 1 ? 'it are' : 'them are'} not shown.`}</p>
      )}
      {target !== null && missingTarget === target && <p class="alert alert-info">The linked change is not in this record’s history.</p>}
      <LoadError error={state.error} onRetry={reload} explain={errorMessage} />
      {!state.data && !state.error && <p class="muted small">Loading the history…</p>}
      {state.data && total === 0 && <p class="muted small">No changes recorded yet.</p>}
      {rows.length > 0 && (
        <ol class={state.loading ? 'history-list loading' : 'history-list'}>
          {rows.map((entry) => (
            <HistoryItem
              key={entry.change_id}
              model={model}
              recordId={id}
              entry={entry}
              page={rows}
              now={now}
              record={record}
              highlighted={entry.change_id === target}
              onRevert={mayRevert ? () => setReverting(entry) : undefined}
            />
          ))}
        </ol>
      )}
      {total > HISTORY_PAGE && (
        <nav class="pager history-pager" aria-label="History pages">
          <span class="pager-range" aria-live="polite">{`${(shownOffset + 1).toLocaleString('en-US')}–${(shownOffset + rows.length).toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`}</span>
          <span class="spacer" />
          <button type="button" class="btn" disabled={shownOffset === 0 || state.loading} onClick={() => setOffset(Math.max(0, shownOffset - HISTORY_PAGE))}>
            <span aria-hidden="true">‹ </span>Newer
          </button>
          <button type="button" class="btn" disabled={shownOffset + rows.length >= total || state.loading} onClick={() => setOffset(shownOffset + HISTORY_PAGE)}>
            Older<span aria-hidden="true"> ›</span>
          </button>
        </nav>
      )}
      {reverting && record && (
        <RevertDialog model={model} record={record} entry={reverting} now={now} onClose={() => setReverting(null)} onConfirm={(fields) => revert(reverting, fields)} />
      )}
    </section>
  );
}

/** Who, in plain text for sentences: `admin`, `agent “history-bot”`. */
export function whoText(by: HistoryEntryInfo['by']): string {
  return by.kind === 'agent' ? `agent “${by.agent_label ?? 'unknown'}”` : by.username;
}

function Who({ by }: { by: HistoryEntryInfo['by'] }) {
  if (by.kind === 'person') return <strong class="history-who">{by.username}</strong>;
  return (
    <span class="history-who">
      <span class="tag tag-agent" title={`An agent, using a token of ${by.username}`}>
        agent
      </span>{' '}
      <strong>{by.agent_label ?? 'unknown'}</strong> <span class="muted">{`(${by.username})`}</span>
    </span>
  );
}

function verbOf(model: ModelInfo, entry: HistoryEntryInfo): string {
  const kind = entryKind(entry);
  const what = `this ${model.label.toLowerCase()}`;
  if (kind === 'create') return `created ${what}`;
  if (kind === 'delete') return `deleted ${what}`;
  if (kind === 'action') return `ran ${optionLabel(entry.command.slice(entry.command.indexOf('.') + 1))}`;
  return entry.reverts ? 'reverted a change' : 'edited';
}

/** A time in words ("3 minutes ago"), the exact time on hover. */
export function When({ at, now }: { at: string; now: number }) {
  return (
    <time dateTime={at} title={formatTimestamp(at)}>
      {relativeTime(at, now)}
    </time>
  );
}

function HistoryItem(props: {
  model: ModelInfo;
  recordId: string;
  entry: HistoryEntryInfo;
  /** The entries shown with it: a revert names the change it undid, and that change who undid it. */
  page: readonly HistoryEntryInfo[];
  now: number;
  /** The record as it is now (its lines name the changed ones); null once deleted. */
  record: RecordValue | null;
  highlighted: boolean;
  onRevert: (() => void) | undefined;
}) {
  const { model, entry, now } = props;
  const meta = useMeta();
  const kind = entryKind(entry);
  const changes = shownChanges(model, entry);
  const undid = entry.reverts ? props.page.find((other) => other.change_id === entry.reverts) : undefined;
  const undoneBy = props.page.find((other) => other.reverts === entry.change_id);
  const revertible = revertFields(model, entry).length + revertLists(model, entry).length > 0;
  // A create's fields were empty before: only what they became says something.
  const lines: ChangeLine[] = changes.map((change) => (kind === 'create' ? { name: change.name, field: change.field, to: change.to } : change));
  const action = kind === 'action' ? model.actions.find((candidate) => `${model.name}.${candidate.name}` === entry.command) : undefined;
  const inputs: ChangeLine[] = Object.entries(entry.inputs ?? {}).map(([name, value]) => ({ name, field: action?.inputs.find((input) => input.name === name), to: value }));
  return (
    <li id={`change-${entry.change_id}`} class={props.highlighted ? 'history-entry highlighted' : 'history-entry'} aria-current={props.highlighted ? 'true' : undefined}>
      <div class="history-head">
        <p class="history-summary">
          <Who by={entry.by} /> {verbOf(model, entry)}
          <span class="history-meta">
            {' · '}
            <When at={entry.at} now={now} />
            {entry.plan_id && (
              <>
                {' · via plan '}
                {meta.decidesPlans ? (
                  <a class="mono" href={paths.plan(entry.plan_id)} onClick={onLinkClick}>
                    {entry.plan_id}
                  </a>
                ) : (
                  <span class="mono">{entry.plan_id}</span>
                )}
              </>
            )}
          </span>
        </p>
        {props.onRevert && revertible && !undoneBy && (
          <button type="button" class="btn btn-small" onClick={props.onRevert}>
            Revert
          </button>
        )}
      </div>
      {entry.reverts && (
        <p class="small history-note">
          {'Reverts '}
          <a href={paths.change(model.name, props.recordId, entry.reverts)} onClick={onLinkClick}>
            {undid ? `the edit by ${whoText(undid.by)} ${relativeTime(undid.at, now)}` : 'an earlier change'}
          </a>
          .
        </p>
      )}
      {undoneBy && (
        <p class="small muted history-note">
          {`Reverted by ${whoText(undoneBy.by)} `}
          <When at={undoneBy.at} now={now} />.
        </p>
      )}
      {/* The server leaves out entries that changed only fields the caller may not read. */}
      <ChangeList lines={lines} />
      {shownLineChanges(model, entry).map((change) => (
        <LinesChangeList key={change.name} label={change.list?.label ?? withheldName(change.name)} list={change.list} change={change.change} current={currentLines(props.record, change.name)} />
      ))}
      {inputs.length > 0 && (
        <div class="history-inputs">
          <p class="small muted">With:</p>
          <ChangeList lines={inputs} />
        </div>
      )}
    </li>
  );
}

/** A record's lines of one list, as `get` answers them. */
function currentLines(record: RecordValue | null, list: string): readonly Readonly<Record<string, unknown>>[] | undefined {
  const lines = record?.[list];
  return Array.isArray(lines) ? (lines as Readonly<Record<string, unknown>>[]) : undefined;
}

function RevertDialog({ model, record, entry, now, onClose, onConfirm }: { model: ModelInfo; record: RecordValue; entry: HistoryEntryInfo; now: number; onClose: () => void; onConfirm: (fields: readonly string[]) => Promise<void> }) {
  const fields = revertFields(model, entry);
  const lines: ChangeLine[] = fields.map((name) => ({ name, field: fieldOf(model, name), from: record[name] ?? null, to: (entry.changes[name] as { from: unknown }).from }));
  const lists = shownLineChanges(model, entry).filter((change) => revertLists(model, entry).includes(change.name));
  return (
    <ConfirmDialog
      title="Revert this change?"
      message={
        <>
          <p>{`This puts back what ${whoText(entry.by)} changed ${relativeTime(entry.at, now)}:`}</p>
          <ChangeList lines={lines} className="changes changes-confirm" />
          {lists.map((change) => (
            <LinesChangeList key={change.name} label={change.list!.label} list={change.list} change={undoneLines(change.change)} current={currentLines(record, change.name)} />
          ))}
        </>
      }
      confirmLabel="Revert"
      onClose={onClose}
      onConfirm={() => onConfirm([...fields, ...lists.map((change) => change.name)])}
    />
  );
}
