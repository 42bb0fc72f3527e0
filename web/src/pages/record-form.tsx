/**
 * Create and edit: one input per field by kind; governed fields are left to the workflow
 * actions. Problems found before sending and errors the server names by field
 * (`lead.close_date must be …`) are shown next to the field, and focus moves to the first one.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, fieldMessage, isMissingRecord, command, errorField, run } from '../lib/api.ts';
import { collectInput, toDraft, type Drafts, type FieldErrors } from '../lib/form.ts';
import { optionLabel } from '../lib/format.ts';
import { can, recordTitle, useMeta } from '../lib/meta.ts';
import { errorMessage, pluralLabel, useDocumentTitle, useLoad } from '../lib/page.ts';
import { navigate, onLinkClick, paths } from '../lib/router.ts';
import { rememberTitle } from '../lib/titles.ts';
import type { ModelInfo, RecordValue } from '../lib/types.ts';
import { FieldInput } from '../components/field-input.tsx';
import { LoadingPage } from '../components/load-status.tsx';
import { OptionPill } from '../components/value.tsx';
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
  const editable = model.fields.filter((field) => !field.governed);
  const governed = model.fields.filter((field) => field.governed);
  const [drafts, setDrafts] = useState<Drafts>(() =>
    Object.fromEntries(editable.map((field) => [field.name, toDraft(field, original ? original[field.name] : prefill(field.kind, query.get(field.name)))])),
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const [focusTick, setFocusTick] = useState(0);

  useEffect(() => {
    if (focusTick === 0) return;
    const target = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? formRef.current?.querySelector<HTMLElement>('.alert-error');
    if (target) {
      if (!target.matches('input, select, textarea, button')) target.tabIndex = -1;
      target.focus();
    }
  }, [focusTick]);

  async function submit(event: Event) {
    event.preventDefault();
    const { input, errors: found } = collectInput(editable, drafts, original);
    setErrors(found);
    setFormError(null);
    if (Object.keys(found).length > 0) {
      setFocusTick((tick) => tick + 1);
      return;
    }
    if (editing && Object.keys(input).length === 0) {
      meta.notify('Nothing changed.');
      navigate(paths.record(model.name, original.id));
      return;
    }
    setBusy(true);
    try {
      const result = editing ? await command<RecordValue>(model.name, 'update', { id: original.id, ...input }) : await command<RecordValue>(model.name, 'create', input);
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
      const field = caught instanceof ApiError && caught.status === 400 ? errorField(caught.message, model.name, editable.map((candidate) => candidate.name)) : undefined;
      if (field) setErrors({ [field]: fieldMessage((caught as ApiError).message, model.name, editable.find((candidate) => candidate.name === field)!) });
      else setFormError(errorMessage(caught));
      setFocusTick((tick) => tick + 1);
    }
  }

  const cancelHref = editing ? paths.record(model.name, original.id) : paths.list(model.name);
  return (
    <section class="page page-form">
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
      <h1>{editing ? `Edit ${model.label.toLowerCase()}` : `New ${model.label.toLowerCase()}`}</h1>
      <form ref={formRef} class="record-form card" onSubmit={submit} noValidate>
        {formError && (
          <p class="alert alert-error" role="alert">
            {formError}
          </p>
        )}
        {Object.keys(errors).length > 1 && (
          <p class="alert alert-error" role="alert">
            Please correct the fields marked below.
          </p>
        )}
        <div class="form-grid">
          {editable.map((field) => (
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
          ))}
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
 * `?party=<id>` from a related list fills that field of a new record. A money field's value is an
 * amount as people write it (`?amount=950.00` is 950.00, not 9.50): it fills the input as typed text.
 */
function prefill(kind: string, value: string | null): unknown {
  if (value === null) return undefined;
  if (kind === 'bool') return value === 'true';
  if (kind === 'number') return Number.isFinite(Number(value)) ? Number(value) : undefined;
  return value;
}
