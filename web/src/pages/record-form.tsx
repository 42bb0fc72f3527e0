/**
 * Create and edit: one input per field by kind, defaults filled in on a new record; governed fields
 * are left to the workflow actions, computed fields are worked out while people type (by the
 * model's generated functions) and fields their role may not write are shown, not edited. Line
 * lists are edited in place (added, removed, moved). Problems found before sending and errors the
 * server names (`lead.close_date must be …`, `order.items[2].quantity is required`, a rule's
 * fields) are shown next to what they name, and focus moves to the first one. A record in a locked
 * state is not edited.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, isMissingRecord, command, run } from '../lib/api.ts';
import { collectInput, defaultDraft, isEditable, toDraft, type Drafts, type FieldErrors } from '../lib/form.ts';
import { placeError } from '../lib/form-errors.ts';
import { optionLabel } from '../lib/format.ts';
import { addedSince } from '../lib/stale-lists.ts';
import { collectLines, draftRecord, hasListErrors, lineDrafts, NO_LIST_ERRORS, startingLines, type ListDrafts, type ListErrors } from '../lib/lines.ts';
import { computed } from '../lib/logic.ts';
import { can, lockedState, recordTitle, useMeta } from '../lib/meta.ts';
import { errorMessage, pluralLabel, useDocumentTitle, useLoad } from '../lib/page.ts';
import { navigate, onLinkClick, paths } from '../lib/router.ts';
import { rememberTitle, useTitles } from '../lib/titles.ts';
import type { FieldInfo, ModelInfo, RecordValue } from '../lib/types.ts';
import { FieldInput } from '../components/field-input.tsx';
import { LineEditor } from '../components/line-editor.tsx';
import { LoadingPage } from '../components/load-status.tsx';
import { FieldValue, OptionPill, type TitleLookup } from '../components/value.tsx';
import { NotFound } from './not-found.tsx';

export function RecordFormPage({ model, id, query }: { model: ModelInfo; id?: string; query: URLSearchParams }) {
  const [state, reload] = useLoad(() => (id === undefined ? Promise.resolve(undefined) : run<RecordValue>(model.name, 'get', { id })), [model.name, id]);
  if (id !== undefined) {
    if (isMissingRecord(state.error)) return <NotFound message={`This ${model.label.toLowerCase()} does not exist, or you may not see it.`} />;
    if (!state.data) return <LoadingPage heading={`Edit ${model.label.toLowerCase()}`} state={state} onRetry={reload} />;
  }
  return <RecordForm model={model} original={state.data} query={query} />;
}

function RecordForm({ model, original, query }: { model: ModelInfo; original: RecordValue | undefined; query: URLSearchParams }) {
  const meta = useMeta();
  const editing = original !== undefined;
  const name = original ? recordTitle(model, original) : '';
  useDocumentTitle(editing ? `Edit ${name}` : `New ${model.label.toLowerCase()}`);
  const locked = original ? lockedState(model, original) : null;
  const editable = model.fields.filter(isEditable);
  const governed = model.fields.filter((field) => field.governed);
  const [drafts, setDrafts] = useState<Drafts>(() =>
    Object.fromEntries(
      editable.map((field) => {
        if (original) return [field.name, toDraft(field, original[field.name])];
        const given = prefill(field.kind, query.get(field.name));
        return [field.name, given === undefined ? defaultDraft(field) : toDraft(field, given)];
      }),
    ),
  );
  const [lists, setLists] = useState<ListDrafts>(() =>
    original ? Object.fromEntries(model.lines.map((list) => [list.name, lineDrafts(list, original[list.name])])) : startingLines(model),
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const [listErrors, setListErrors] = useState<ListErrors>(NO_LIST_ERRORS);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const [focusTick, setFocusTick] = useState(0);
  // The record as it would be saved, its computed fields worked out by the model's own functions.
  const live = useMemo(() => computed(model, draftRecord(model, drafts, lists, original)), [model, drafts, lists, original]);
  const refs = original ? model.fields.filter((field) => field.kind === 'ref' && !isEditable(field) && typeof original[field.name] === 'string').map((field) => [field.target!, original[field.name] as string] as const) : [];
  const title = useTitles(refs);

  useEffect(() => {
    if (focusTick === 0) return;
    const target = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], .list-error, .has-error .field-error') ?? formRef.current?.querySelector<HTMLElement>('.alert-error');
    if (target) {
      if (!target.matches('input, select, textarea, button')) target.tabIndex = -1;
      target.focus();
    }
  }, [focusTick]);

  /** A refusal of the server, beside what it names (a field, a line's field, a list, a rule's fields), else above the form. */
  function showRefusal(caught: unknown) {
    // 400: a check failed; 403: a field the role may not write (`order.items[0].note cannot be written by your role`).
    const place = caught instanceof ApiError && (caught.status === 400 || caught.status === 403) ? placeError(model, caught.message, caught.body) : undefined;
    if (place?.kind === 'field') setErrors({ [place.field]: place.message });
    else if (place?.kind === 'list') setListErrors({ lists: { [place.list]: place.message }, lines: {} });
    else if (place?.kind === 'line') {
      const line = lists[place.list]?.[place.index];
      if (line) setListErrors({ lists: {}, lines: { [place.list]: { [line.key]: place.field === undefined ? { fields: {}, line: place.message } : { fields: { [place.field]: place.message } } } } });
      else setFormError(place.message);
    } else if (place?.kind === 'rule') {
      const shown = place.fields.filter((field) => model.fields.some((candidate) => candidate.name === field && !candidate.governed));
      setErrors(Object.fromEntries(shown.map((field) => [field, place.message])));
      if (shown.length === 0) setFormError(place.message);
    } else setFormError(errorMessage(caught));
    setFocusTick((tick) => tick + 1);
  }

  async function submit(event: Event) {
    event.preventDefault();
    const { input, errors: found } = collectInput(editable, drafts, original);
    const { input: linesInput, errors: foundInLines } = collectLines(model, lists, original);
    setErrors(found);
    setListErrors(foundInLines);
    setFormError(null);
    if (Object.keys(found).length > 0 || hasListErrors(foundInLines)) {
      setFocusTick((tick) => tick + 1);
      return;
    }
    const body = { ...input, ...linesInput };
    if (editing && Object.keys(body).length === 0) {
      meta.notify('Nothing changed.');
      navigate(paths.record(model.name, original.id));
      return;
    }
    setBusy(true);
    try {
      if (editing && can(model, 'get') && sendsWholeLists(model, body)) {
        // Saving replaces these lists whole: first make sure no one added to them meanwhile.
        const now = await command<RecordValue>(model.name, 'get', { id: original.id });
        const added = now.kind === 'done' ? addedSince(model, original, now.value, body) : [];
        if (added.length > 0) {
          setBusy(false);
          setFormError(`Someone added ${added.join(' and ')} since you opened this ${model.label.toLowerCase()}; saving would remove them. Open it again to see what they added, then make your change.`);
          setFocusTick((tick) => tick + 1);
          return;
        }
      }
      const result = editing ? await command<RecordValue>(model.name, 'update', { id: original.id, ...body }) : await command<RecordValue>(model.name, 'create', body);
      if (result.kind === 'proposed') {
        meta.notify('The change was sent for approval.');
        meta.refreshPending();
        navigate(editing ? paths.record(model.name, original.id) : paths.list(model.name));
        return;
      }
      const saved = result.value;
      rememberTitle(model.name, saved.id, recordTitle(model, saved));
      meta.notify(editing ? `${model.label} “${recordTitle(model, saved)}” saved.` : `${model.label} “${recordTitle(model, saved)}” created.`);
      if (can(model, 'get')) navigate(paths.record(model.name, saved.id), { replace: editing });
      else navigate(paths.list(model.name));
    } catch (caught) {
      setBusy(false);
      showRefusal(caught);
    }
  }

  const cancelHref = editing ? paths.record(model.name, original.id) : paths.list(model.name);
  const crumbs = (
    <nav class="crumbs" aria-label="Breadcrumb">
      <a href={paths.list(model.name)} onClick={onLinkClick}>
        {pluralLabel(model.label)}
      </a>
      {editing && (
        <>
          <span aria-hidden="true"> / </span>
          <a href={paths.record(model.name, original.id)} onClick={onLinkClick}>
            {name}
          </a>
        </>
      )}
    </nav>
  );
  if (locked) {
    return (
      <section class="page page-form">
        {crumbs}
        <h1>{`Edit ${model.label.toLowerCase()}`}</h1>
        <p class="alert alert-info locked-note" role="note">{`This ${model.label.toLowerCase()} is ${optionLabel(locked.state).toLowerCase()}, so it cannot be edited.`}</p>
        <a class="btn" href={cancelHref} onClick={onLinkClick}>
          {`Back to the ${model.label.toLowerCase()}`}
        </a>
      </section>
    );
  }
  const problems = Object.keys(errors).length + Object.keys(listErrors.lists).length + Object.values(listErrors.lines).reduce((sum, byLine) => sum + Object.keys(byLine).length, 0);
  return (
    <section class="page page-form">
      {crumbs}
      <h1>{editing ? `Edit ${model.label.toLowerCase()}` : `New ${model.label.toLowerCase()}`}</h1>
      <form ref={formRef} class="record-form card" onSubmit={submit} noValidate>
        {formError && (
          <p class="alert alert-error" role="alert">
            {formError}
          </p>
        )}
        {problems > 1 && (
          <p class="alert alert-error" role="alert">
            Please correct the fields marked below.
          </p>
        )}
        <div class="form-grid">
          {model.fields.map((field) =>
            field.governed ? null : isEditable(field) ? (
              <FieldInput
                key={field.name}
                model={model.name}
                field={field}
                value={drafts[field.name] ?? ''}
                error={errors[field.name]}
                onChange={(value) => {
                  setDrafts((current) => ({ ...current, [field.name]: value }));
                  if (errors[field.name]) setErrors(({ [field.name]: _, ...rest }) => rest);
                }}
              />
            ) : (
              <ReadOnlyField
                key={field.name}
                model={model}
                field={field}
                value={field.computed ? (live?.[field.name] ?? original?.[field.name]) : original ? original[field.name] : field.default !== undefined && typeof field.default === 'object' ? field.default.value : undefined}
                editing={editing}
                error={errors[field.name]}
                title={title}
              />
            ),
          )}
          {governed.map((field) => (
            <div class="field field-readonly" key={field.name}>
              <span class="label">{field.label}</span>
              <p>
                {editing && typeof original[field.name] === 'string' ? (
                  <OptionPill field={field} value={original[field.name] as string} />
                ) : (
                  <OptionPill field={field} value={field.options?.[0] ?? ''} />
                )}
              </p>
              <p class="help">{editing ? 'Changed by the actions on the record page.' : `Starts at ${optionLabel(field.options?.[0] ?? '')}; changed by actions later.`}</p>
            </div>
          ))}
        </div>
        {model.lines.map((list) => (
          <LineEditor
            key={list.name}
            model={model}
            list={list}
            lines={lists[list.name] ?? []}
            computed={live && Array.isArray(live[list.name]) ? (live[list.name] as Record<string, unknown>[]) : undefined}
            stored={original && Array.isArray(original[list.name]) ? (original[list.name] as Record<string, unknown>[]) : []}
            errors={listErrors.lines[list.name] ?? {}}
            listError={listErrors.lists[list.name]}
            onChange={(lines, changedLine, changedField) => {
              setLists((current) => ({ ...current, [list.name]: lines }));
              setListErrors((current) => {
                const { [list.name]: _, ...otherLists } = current.lists;
                const byLine = { ...(current.lines[list.name] ?? {}) };
                if (changedLine !== undefined && changedField !== undefined && byLine[changedLine]) {
                  const { [changedField]: __, ...otherFields } = byLine[changedLine]!.fields;
                  byLine[changedLine] = { fields: otherFields };
                }
                return { lists: otherLists, lines: { ...current.lines, [list.name]: byLine } };
              });
            }}
          />
        ))}
        <p class="muted small">
          <span aria-hidden="true">* </span>required
        </p>
        <div class="form-actions">
          <a class="btn" href={cancelHref} onClick={onLinkClick}>
            Cancel
          </a>
          <button type="submit" class="btn btn-primary" disabled={busy}>
            {busy ? 'Saving…' : editing ? 'Save changes' : `Create ${model.label.toLowerCase()}`}
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * A field the person sees but does not type: a computed one (worked out while they type, saved
 * as the server works it out), or one their role may not write.
 */
function ReadOnlyField({ model, field, value, editing, error, title }: { model: ModelInfo; field: FieldInfo; value: unknown; editing: boolean; error: string | undefined; title: TitleLookup }) {
  const id = `field-${model.name}-${field.name}`;
  return (
    <div class={`field field-readonly field-${field.kind}${error ? ' has-error' : ''}`}>
      <span class="label" id={`${id}-label`}>
        {field.label}
      </span>
      <output class="readonly-value" id={id} aria-labelledby={`${id}-label`} aria-live={field.computed ? 'polite' : undefined}>
        <FieldValue field={field} value={value} title={title} full />
      </output>
      <p class="help">{field.computed ? 'Worked out from the other fields.' : editing ? 'Your role may not change this field.' : 'Your role may not set this field.'}</p>
      {error && <p class="field-error">{error}</p>}
    </div>
  );
}

/**
 * `?party=<id>` from a related list fills that field of a new record. A money field's value is an
 * amount as people write it (`?amount=950.00` is 950.00, not 9.50): it fills the input as typed text.
 */
function prefill(kind: string, value: string | null): unknown {
  if (value === null) return undefined;
  if (kind === 'bool') return value === 'true';
  if (kind === 'multiselect') return value.split(',').map((option) => option.trim()).filter(Boolean);
  if (kind === 'number') return Number.isFinite(Number(value)) ? Number(value) : undefined;
  return value;
}

/** Whether the body gives a line list or a file field, which an update takes whole. */
function sendsWholeLists(model: ModelInfo, body: Readonly<Record<string, unknown>>): boolean {
  return model.lines.some((list) => list.name in body) || model.fields.some((field) => field.kind === 'file' && field.name in body);
}
