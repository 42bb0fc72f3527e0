/**
 * A workflow action that takes inputs (`order.cancel` asks for a reason, `lead.lose` for
 * `lost_reason`): asks for them, required or not and checked like fields, says what the action
 * sets, then runs it.
 */
import { useState } from 'preact/hooks';
import { ApiError, command, errorField, fieldMessage } from '../lib/api.ts';
import { collectInput, defaultDraft, toDraft, type Drafts, type FieldErrors } from '../lib/form.ts';
import { optionLabel, valueText } from '../lib/format.ts';
import { errorMessage } from '../lib/page.ts';
import type { ActionInfo, ActionSet, FieldInfo, ModelInfo, RecordValue } from '../lib/types.ts';
import { FieldInput } from './field-input.tsx';
import { Modal } from './modal.tsx';

export type ActionOutcome = { readonly kind: 'done'; readonly record: RecordValue } | { readonly kind: 'proposed'; readonly planId: string };

/**
 * What the action asks for: its inputs (`ActionInfo.inputs`); from a server that does not list
 * them, its required fields.
 */
export function actionInputs(model: ModelInfo, action: ActionInfo): FieldInfo[] {
  if (Array.isArray(action.inputs)) return [...action.inputs];
  return action.required.map(
    (name) =>
      model.fields.find((field) => field.name === name) ?? {
        name,
        kind: 'text',
        label: optionLabel(name),
        description: '',
        required: true,
        personal: false,
        masked: false,
        governed: false,
        computed: false,
        writable: true,
      },
  );
}

/** Whether running the action first asks for something. */
export function asksForInput(model: ModelInfo, action: ActionInfo): boolean {
  return actionInputs(model, action).length > 0;
}

/** What the action sets besides its state, in words: “Confirmed on: today”, “Delivered at: what you give”. */
export function describeSets(model: ModelInfo, action: ActionInfo): { name: string; label: string; value: string }[] {
  return Object.entries(action.set ?? {}).map(([name, set]: [string, ActionSet]) => {
    const field = model.fields.find((candidate) => candidate.name === name);
    const label = field?.label ?? optionLabel(name);
    let value: string;
    if (set === 'today') value = 'today';
    else if (set === 'now') value = 'now';
    else if ('input' in set) value = `the ${(actionInputs(model, action).find((input) => input.name === set.input)?.label ?? optionLabel(set.input)).toLowerCase()} you give`;
    else value = valueText(field, set.value) || 'empty';
    return { name, label, value };
  });
}

export async function runAction(model: ModelInfo, action: ActionInfo, id: string, input: Record<string, unknown> = {}): Promise<ActionOutcome> {
  const result = await command<RecordValue>(model.name, action.name, { id, ...input });
  return result.kind === 'proposed' ? { kind: 'proposed', planId: result.planId } : { kind: 'done', record: result.value };
}

/** The input an error names: `order.delivered_at …` (an input named like a field) or `order.cancel.reason …`. */
function erroredInput(message: string, model: ModelInfo, action: ActionInfo, fields: readonly FieldInfo[]): FieldInfo | undefined {
  const names = fields.map((field) => field.name);
  const name = errorField(message, `${model.name}.${action.name}`, names) ?? errorField(message, model.name, names);
  return fields.find((field) => field.name === name);
}

export function ActionDialog({ model, action, record, onDone, onClose }: { model: ModelInfo; action: ActionInfo; record: RecordValue; onDone: (outcome: ActionOutcome) => void; onClose: () => void }) {
  const fields = actionInputs(model, action);
  const sets = describeSets(model, action);
  const [drafts, setDrafts] = useState<Drafts>(() =>
    Object.fromEntries(fields.map((field) => [field.name, record[field.name] !== undefined && record[field.name] !== null ? toDraft(field, record[field.name]) : defaultDraft(field)])),
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const stateField = model.fields.find((field) => field.name === action.field);

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
      const field = caught instanceof ApiError ? erroredInput(caught.message, model, action, fields) : undefined;
      if (field) {
        const path = caught instanceof ApiError && caught.message.startsWith(`${model.name}.${action.name}.`) ? `${model.name}.${action.name}` : model.name;
        setErrors({ [field.name]: fieldMessage((caught as ApiError).message, path, field) });
      } else setError(errorMessage(caught));
    }
  }

  return (
    <Modal title={`${optionLabel(action.name)}: ${action.description}`} onClose={onClose}>
      <form onSubmit={submit} noValidate class="action-form">
        {error && (
          <p class="alert alert-error" role="alert">
            {error}
          </p>
        )}
        <p class="small action-effect">
          {`${stateField?.label ?? optionLabel(action.field)} becomes ${optionLabel(action.to)}.`}
          {sets.length > 0 && ` It sets ${sets.map((set) => `${set.label} to ${set.value}`).join(', ')}.`}
        </p>
        {fields.map((field) => (
          <FieldInput
            key={field.name}
            model={`${model.name}-action`}
            field={field}
            value={drafts[field.name] ?? ''}
            error={errors[field.name]}
            onChange={(value) => {
              setDrafts((current) => ({ ...current, [field.name]: value }));
              if (errors[field.name]) setErrors(({ [field.name]: _, ...rest }) => rest);
            }}
          />
        ))}
        {fields.some((field) => field.required) && (
          <p class="muted small">
            <span aria-hidden="true">* </span>required
          </p>
        )}
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
