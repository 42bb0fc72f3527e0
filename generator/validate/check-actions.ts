/**
 * A model's actions: each moves a governed select field of the model between its options, takes
 * fields of the model as inputs, and does not take a name every model's commands already have.
 */
import { unknownNameHint } from '../suggest.ts';
import type { ActionDraft, FieldDraft, ModelDraft } from './drafts.ts';
import { choiceHint } from './hints.ts';
import type { ProblemList, Report } from './problem-list.ts';
import { RESERVED_COMMAND_NAMES } from './reserved.ts';

type SelectFieldDraft = Extract<FieldDraft, { readonly kind: 'select' }>;

/** Checks the model's actions; returns the field each action moves, for those whose field is a governed select. */
export function checkActions(model: ModelDraft, problems: ProblemList): Map<ActionDraft, string> {
  const moved = new Map<ActionDraft, string>();
  const fieldNames = Object.keys(model.def.fields);
  const fields = new Map(model.fields.map((field) => [field.name, field]));
  const governed = model.fields.filter((field): field is SelectFieldDraft => field.kind === 'select' && field.governed === true);

  for (const action of model.actions) {
    const report = problems.at(model.module.source, { model: model.name, action: action.name });
    if (RESERVED_COMMAND_NAMES.includes(action.name)) {
      report({ code: 'reserved-command-name', message: `name collides with the generated command ${model.name}.${action.name}`, fix: 'rename the action' });
    }
    const fieldName = movedFieldName(model, action, governed, report);
    if (fieldName === undefined) continue;
    const field = fields.get(fieldName);
    if (!field) {
      if (!model.brokenFields.has(fieldName)) {
        report({ code: 'unknown-moved-field', message: `moves unknown field "${fieldName}"`, fix: unknownNameHint(fieldName, fieldNames, 'fields') });
      }
    } else if (field.kind !== 'select') {
      report({
        code: 'moved-field-not-governed',
        message: `moves field ${fieldName}, which is a ${field.kind} field; actions move governed select fields`,
        fix: 'name a governed select field',
      });
    } else if (field.governed !== true) {
      report({ code: 'moved-field-not-governed', message: `moves field ${fieldName}, which is not governed`, fix: `add governed: true to field ${fieldName}` });
    } else {
      checkStates(action, field, report);
      moved.set(action, fieldName);
    }
    checkInputs(model, action, fields, fieldNames, report);
  }
  return moved;
}

/** The field the action names, or else the model's only governed field; undefined (with a problem) when there is none or several. */
function movedFieldName(model: ModelDraft, action: ActionDraft, governed: readonly SelectFieldDraft[], report: Report): string | undefined {
  if (action.field !== undefined) return action.field;
  const [only, ...others] = governed;
  if (only === undefined) {
    // A refused field may have been the governed one; its own problem says enough.
    if (model.brokenFields.size === 0) {
      report({ code: 'no-governed-field', message: `${model.name} has no governed field for the action to move`, fix: 'add governed: true to a select field' });
    }
    return undefined;
  }
  if (others.length > 0) {
    report({
      code: 'ambiguous-governed-field',
      message: `${model.name} has several governed fields`,
      detail: governed.map((field) => field.name).join(', '),
      fix: `say which one the action moves, e.g. field: '${only.name}'`,
    });
    return undefined;
  }
  return only.name;
}

function checkStates(action: ActionDraft, field: SelectFieldDraft, report: Report): void {
  const from = typeof action.from === 'string' ? [action.from] : action.from;
  for (const state of from) {
    if (!field.options.includes(state)) {
      report({ code: 'unknown-state', message: `from state "${state}" is not an option of field ${field.name}`, fix: choiceHint(state, field.options, 'options') });
    }
  }
  if (!field.options.includes(action.to)) {
    report({ code: 'unknown-state', message: `to state "${action.to}" is not an option of field ${field.name}`, fix: choiceHint(action.to, field.options, 'options') });
  }
}

function checkInputs(model: ModelDraft, action: ActionDraft, fields: ReadonlyMap<string, FieldDraft>, fieldNames: readonly string[], report: Report): void {
  const seen = new Set<string>();
  for (const input of action.required ?? []) {
    if (seen.has(input)) report({ code: 'duplicate-action-input', message: `required input "${input}" is listed twice`, fix: 'remove one' });
    seen.add(input);
    const field = fields.get(input);
    if (!field) {
      if (!model.brokenFields.has(input)) {
        report({ code: 'unknown-action-input', message: `required input "${input}" is not a field of ${model.name}`, fix: unknownNameHint(input, fieldNames, 'fields') });
      }
    } else if (field.kind === 'select' && field.governed === true) {
      report({ code: 'governed-action-input', message: `required input "${input}" is a governed field, which only actions change`, fix: 'remove it from required' });
    }
  }
}
