/**
 * A model's actions: each moves a governed select field of the model between its options, takes
 * inputs (fields of the model it writes, or values of its own), sets fields, and does not take a
 * name every model's commands already have.
 */
import type { ActionSet } from '../../runtime/api-shapes.ts';
import { unknownNameHint } from '../suggest.ts';
import { checkedValue, valueSchema } from '../../runtime/value-schemas.ts';
import type { ActionDraft, FieldDraft, ModelDraft } from './drafts.ts';
import { choiceHint, describeValue } from './hints.ts';
import type { ProblemList, Report } from './problem-list.ts';
import { RESERVED_COMMAND_NAMES } from './reserved.ts';
import { actionManyName } from '../../runtime/command-kinds.ts';
import { fieldArguments } from './field-arguments.ts';

type SelectFieldDraft = Extract<FieldDraft, { readonly kind: 'select' }>;

/** What the checks resolved of a model's actions: the field each moves, and what each sets. */
export interface CheckedActions {
  readonly moved: Map<ActionDraft, string>;
  readonly sets: Map<ActionDraft, readonly { readonly field: string; readonly to: ActionSet }[]>;
}

/** Checks the model's actions; returns the field each action moves (for those whose field is a governed select) and the fields each sets. */
export function checkActions(model: ModelDraft, problems: ProblemList): CheckedActions {
  const moved = new Map<ActionDraft, string>();
  const sets = new Map<ActionDraft, readonly { readonly field: string; readonly to: ActionSet }[]>();
  const fieldNames = Object.keys(model.def.fields);
  const fields = new Map(model.fields.map((field) => [field.name, field]));
  const governed = model.fields.filter((field): field is SelectFieldDraft => field.kind === 'select' && field.governed === true);

  for (const action of model.actions) {
    const report = problems.at(model.module.source, { model: model.name, action: action.name });
    if (RESERVED_COMMAND_NAMES.includes(action.name)) {
      report({ code: 'reserved-command-name', message: `name collides with the generated command ${model.name}.${action.name}`, fix: 'rename the action' });
    }
    const bulkOf = model.actions.find((other) => actionManyName(other.name) === action.name);
    if (bulkOf) {
      report({ code: 'reserved-command-name', message: `name collides with the bulk command ${model.name}.${action.name} of action ${bulkOf.name}`, fix: 'rename the action' });
    }
    checkInputs(model, action, fields, fieldNames, report);
    checkDeclaredInputs(model, action, fields, problems);
    sets.set(action, checkSets(model, action, fields, fieldNames, problems));
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
  }
  return { moved, sets };
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
    } else if (field.logic !== undefined) {
      report({ code: 'computed-action-input', message: `required input "${input}" is a computed field, which its function sets`, fix: 'remove it from required' });
    }
  }
}

/** What an input named like a field may say: the field's checks are its own. */
const FIELD_INPUT_KEYS: readonly string[] = ['kind', 'required', 'label', 'description'];

/**
 * `input`: each named like a field of the model is that field (same kind, no checks of its own,
 * not governed or computed, not also in `required`); others are values of their own, named
 * neither `id` nor like a line list.
 */
function checkDeclaredInputs(model: ModelDraft, action: ActionDraft, fields: ReadonlyMap<string, FieldDraft>, problems: ProblemList): void {
  const written = model.module.written;
  for (const input of action.inputs) {
    const path = ['models', model.name, 'actions', action.name, 'input', input.name];
    const report: Report = (problem) => problems.at(model.module.source, { model: model.name, action: action.name, input: input.name })({ line: written.lineOf(path), ...problem });
    const field = fields.get(input.name);
    if (model.def.lines !== undefined && Object.hasOwn(model.def.lines, input.name)) {
      report({ code: 'reserved-input-name', message: `named like the line list ${input.name}: lines change only through create and update`, fix: 'rename the input' });
    }
    if (!field) continue;
    if (field.kind !== input.def.kind) {
      report({
        code: 'action-input-kind-mismatch',
        message: `named like field ${input.name}, which is a ${field.kind} field, but is a ${input.def.kind} input: an input named like a field sets it`,
        fix: `make it kind: '${field.kind}', or rename the input`,
      });
    }
    const own = input.given.filter((key) => !FIELD_INPUT_KEYS.includes(key));
    if (own.length > 0) {
      report({
        code: 'action-input-field-option',
        message: `named like field ${input.name}, whose checks it takes: it may not say ${own.join(', ')}`,
        fix: `remove ${own.join(', ')} (or say them on the field)`,
      });
    }
    if (field.kind === 'select' && field.governed === true) {
      report({ code: 'governed-action-input', message: `input "${input.name}" is a governed field, which only actions change`, fix: 'remove the input' });
    } else if (field.logic !== undefined) {
      report({ code: 'computed-action-input', message: `input "${input.name}" is a computed field, which its function sets`, fix: 'remove the input' });
    }
    if ((action.required ?? []).includes(input.name)) {
      report({ code: 'duplicate-action-input', message: `input "${input.name}" is also listed in required`, fix: `remove it from required and say required: true on the input` });
    }
  }
}

/**
 * `set`: fields of the model, none governed (the action moves its own) or computed, none also an
 * input; each to a constant of the field's kind, `'today'` (date), `'now'` (datetime) or
 * `{ input }` of an input of the same kind. Returns what each sets, as the runtime applies it.
 */
function checkSets(
  model: ModelDraft,
  action: ActionDraft,
  fields: ReadonlyMap<string, FieldDraft>,
  fieldNames: readonly string[],
  problems: ProblemList,
): { field: string; to: ActionSet }[] {
  const resolved: { field: string; to: ActionSet }[] = [];
  const written = model.module.written;
  const inputs = new Map<string, FieldDraft>([
    ...(action.required ?? []).flatMap((name) => {
      const field = fields.get(name);
      return field ? [[name, field] as const] : [];
    }),
    ...action.inputs.map((input) => [input.name, input.def] as const),
  ]);
  for (const [name, value] of Object.entries(action.set ?? {})) {
    const path = ['models', model.name, 'actions', action.name, 'set', name];
    const report: Report = (problem) => problems.at(model.module.source, { model: model.name, action: action.name })({ line: written.lineOf(path), ...problem });
    const field = fields.get(name);
    if (!field) {
      if (!model.brokenFields.has(name)) report({ code: 'unknown-set-field', message: `sets unknown field "${name}"`, fix: unknownNameHint(name, fieldNames, 'fields') });
      continue;
    }
    if (field.kind === 'select' && field.governed === true) {
      report({ code: 'governed-set-field', message: `sets the governed field ${name}, which actions change by moving it (from, to)`, fix: `remove ${name} from set` });
      continue;
    }
    if (field.logic !== undefined) {
      report({ code: 'computed-set-field', message: `sets the computed field ${name}, which its function sets`, fix: `remove ${name} from set` });
      continue;
    }
    if (inputs.has(name)) {
      report({ code: 'set-and-input', message: `sets field ${name}, which is also an input of the action`, fix: `remove ${name} from set, or the input` });
      continue;
    }
    const to = setValue(`${model.name}.${name}`, field, value, inputs, report);
    if (to !== undefined) resolved.push({ field: name, to });
  }
  return resolved;
}

function setValue(path: string, field: FieldDraft, value: unknown, inputs: ReadonlyMap<string, FieldDraft>, report: Report): ActionSet | undefined {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const input = (value as { input?: unknown }).input;
    if (keys.length !== 1 || typeof input !== 'string') {
      report({ code: 'invalid-set-value', message: `sets ${field.name} to ${describeValue(value)}`, fix: "write a constant, 'today', 'now' or { input: '<input name>' }" });
      return undefined;
    }
    const source = inputs.get(input);
    if (!source) {
      report({ code: 'unknown-set-input', message: `sets ${field.name} from input "${input}", which the action does not take`, fix: unknownNameHint(input, [...inputs.keys()], 'inputs') });
      return undefined;
    }
    if (source.kind !== field.kind) {
      report({ code: 'invalid-set-value', message: `sets ${field.name} (a ${field.kind} field) from input ${input}, which is a ${source.kind} input`, fix: `make input ${input} kind: '${field.kind}'` });
      return undefined;
    }
    return { input };
  }
  if (value === 'today' && field.kind === 'date') return 'today';
  if (value === 'now' && field.kind === 'datetime') return 'now';
  if (value === null) {
    report({ code: 'invalid-set-value', message: `sets ${field.name} to null`, fix: "write a constant of the field, 'today' (a date) or 'now' (a datetime)" });
    return undefined;
  }
  const checked = checkedValue(valueSchema(path, field.kind, fieldArguments(field)), value);
  if ('refused' in checked || checked.value === null) {
    const why = 'refused' in checked ? `: ${checked.refused}` : ': it is empty';
    const fits = field.kind === 'date' ? ", or 'today'" : field.kind === 'datetime' ? ", or 'now'" : '';
    report({ code: 'invalid-set-value', message: `sets ${field.name} to ${describeValue(value)}, which is not a value of the field${why}`, fix: `write a ${field.kind} value${fits}` });
    return undefined;
  }
  return { value: checked.value };
}
