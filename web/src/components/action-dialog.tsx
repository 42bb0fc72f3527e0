/** A workflow action that needs inputs (e.g. `lead.lose` needs `lost_reason`): asks for them, then runs it. */
import { useState } from 'preact/hooks';
import { ApiError, fieldMessage, command, errorField } from '../lib/api.ts';
import { collectInput, toDraft, type Drafts, type FieldErrors } from '../lib/form.ts';
import { optionLabel } from '../lib/format.ts';
import { errorMessage } from '../lib/page.ts';
import type { ActionInfo, FieldInfo, ModelInfo, RecordValue } from '../lib/types.ts';
import { FieldInput } from './field-input.tsx';
import { Modal } from './modal.tsx';

export type ActionOutcome = { readonly kind: 'done'; readonly record: RecordValue } | { readonly kind: 'proposed'; readonly planId: string };

export function actionInputs(model: ModelInfo, action: ActionInfo): FieldInfo[] {
  return action.required.map(
    (name) =>
      model.fields.find((field) => field.name === name) ?? { name, kind: 'text', label: optionLabel(name), description: '', required: true, personal: false, masked: false, governed: false },
  );
}

export async function runAction(model: ModelInfo, action: ActionInfo, id: string, input: Record<string, unknown> = {}): Promise<ActionOutcome> {
  const result = await command<RecordValue>(model.name, action.name, { id, ...input });
  return result.kind === 'proposed' ? { kind: 'proposed', planId: result.planId } : { kind: 'done', record: result.value };
}

export function ActionDialog({ model, action, record, onDone, onClose }: { model: ModelInfo; action: ActionInfo; record: RecordValue; onDone: (outcome: ActionOutcome) => void; onClose: () => void }) {
  const fields = actionInputs(model, action).map((field) => ({ ...field, required: true }));
  const [drafts, setDrafts] = useState<Drafts>(() => Object.fromEntries(fields.map((field) => [field.name, toDraft(field, record[field.name])])));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const { input, errors: found } = collectInput(fields, drafts);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setError(null);
    try {
      onDone(await runAction(model, action, record.id, input));
    } catch (caught) {
      setBusy(false);
      const field = caught instanceof ApiError ? errorField(caught.message, model.name, fields.map((candidate) => candidate.name)) : undefined;
      if (field) setErrors({ [field]: fieldMessage((caught as ApiError).message, model.name, fields.find((candidate) => candidate.name === field)!) });
      else setError(errorMessage(caught));
    }
  }

  return (
    <Modal title={`${optionLabel(action.name)}: ${action.description}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        {error && (
          <p class="alert alert-error" role="alert">
            {error}
          </p>
        )}
        {fields.map((field) => (
          <FieldInput key={field.name} model={`${model.name}-action`} field={field} value={drafts[field.name] ?? ''} error={errors[field.name]} onChange={(value) => {
              setDrafts({ ...drafts, [field.name]: value });
              if (errors[field.name]) setErrors(({ [field.name]: _, ...rest }) => rest);
            }}/>
        ))}
        <div class="modal-actions">
          <button type="button" class="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" class="btn btn-primary" disabled={busy}>
            {busy ? 'Working…' : optionLabel(action.name)}
          </button>
        </div>
      </form>
    </Modal>
  );
}
