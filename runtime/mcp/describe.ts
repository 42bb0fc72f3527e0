/**
 * The description of an MCP tool, worded from the model and the command. The generator words the
 * one every caller who reads all the fields gets; for a caller who may not read some, the runtime
 * words it again without them (`reads`), so a tool never names a field withheld from its reader.
 */
import type { CommandKind } from '../api-shapes.ts';
import { inSentence, plural, withArticle } from '../words.ts';

export interface DescribedField {
  readonly name: string;
  readonly required: boolean;
  readonly personal: boolean;
  readonly maskLabel?: string | undefined;
  readonly governed: boolean;
  readonly options?: readonly string[] | undefined;
}

export interface DescribedAction {
  readonly name: string;
  readonly field: string;
  readonly from: readonly string[];
  readonly to: string;
  readonly required: readonly string[];
  readonly needsApproval: boolean;
  /** What it takes besides the id; `field`: named like a field of the model (said only to who reads it). */
  readonly inputs?: readonly { readonly name: string; readonly required: boolean; readonly field: boolean }[];
}

export interface DescribedModel {
  readonly name: string;
  readonly label: string;
  readonly fields: readonly DescribedField[];
  readonly actions: readonly DescribedAction[];
  /** Ref fields pointing at the model: of a model, or of a model's lines (`lines`). */
  readonly referencedBy: readonly { readonly model: string; readonly field: string; readonly lines?: string }[];
  /** Its line lists: one that needs lines is required on create. */
  readonly lines?: readonly { readonly name: string; readonly min: number }[];
  /** Its rules: said on create and update, so that a call passes them the first time. */
  readonly rules?: readonly { readonly fields: readonly string[]; readonly message: string }[];
}

export interface DescribedCommand {
  readonly kind: CommandKind;
  readonly description: string;
  readonly needsApproval: boolean;
  readonly action?: DescribedAction | undefined;
}

/** The fields a description may name, as one caller (or the generator's reader of everything) sees them. */
export interface FieldView {
  /** Whether the caller reads the field: a model's, or a line's as `<lines>.<field>`. */
  reads(model: string, field: string): boolean;
  /** Whether it reads the field only as masking tokens (an agent, a personal field). */
  masks(model: string, field: string): boolean;
}

/**
 * Worded for a model, which reads every tool's description in every conversation: what the tool
 * returns (the `value` of the `{denied, value}` every result is, as the server's instructions say:
 * extension.ts), and what its input schema cannot say (required lines, rules, actions, approval).
 * Each tool names its own personal fields and whether an agent's call waits for a person.
 */
export function describeTool(model: DescribedModel, command: DescribedCommand, view: FieldView): string {
  const { reads } = view;
  const phrase = inSentence(model.label);
  const parts = [`${command.description}.`];
  const readable = model.fields.filter((field) => reads(model.name, field.name));
  const masked = readable.filter((field) => view.masks(model.name, field.name));
  const governed = readable.filter((field) => field.governed);
  const returnsRecords = command.kind !== 'delete' && command.kind !== 'erase';
  switch (command.kind) {
    case 'get':
    case 'create':
    case 'update':
    case 'revert':
    case 'action':
      parts.push(`Returns the ${phrase}.`);
      break;
    case 'history':
      parts.push('Returns {rows, total}: entries newest first, each {change_id, at, command, by, plan_id, changes: {<field>: {from, to}}}; a deleted id\'s too.');
      break;
    case 'list':
      parts.push(`Returns an array of ${plural(phrase)}; ${model.name}__search takes the same input and also counts the matches.`);
      break;
    case 'search':
      parts.push(`Returns {rows, total}, total counting every match; to page without counting, ${model.name}__list is lighter.`);
      break;
    case 'delete':
      parts.push('Returns {id}.');
      break;
    case 'create_many':
    case 'update_many':
    case 'delete_many':
    case 'revert_batch':
    case 'action_many':
      parts.push('Returns {batch_id, count, ids, changes}, changes listing each record\'s {id, changes: {<field>: {from, to}}}; dry_run: true changes nothing.');
      break;
    case 'erase':
      parts.push('Returns {id, fields, history_entries, audit_rows, plans, plans_rejected, mask_tokens, bindings}: the fields emptied and how many rows had the values taken out. Cannot be undone; records that refer to it keep their refs.');
      break;
  }
  if (command.kind === 'create') {
    const neededLines = (model.lines ?? []).filter((list) => list.min > 0).map((list) => `${list.name} (at least ${list.min === 1 ? '1 line' : `${list.min} lines`})`);
    const required = [...readable.filter((field) => field.required).map((field) => field.name), ...neededLines];
    if (required.length > 0) parts.push(`Required: ${required.join(', ')}.`);
    for (const field of governed) parts.push(`${field.name} starts at ${field.options?.[0] ?? ''} and changes only through actions.`);
  }
  if (command.kind === 'update') parts.push('Give only the fields to change; null empties one.');
  if (command.kind === 'create' || command.kind === 'update') {
    const lineLists = new Set((model.lines ?? []).map((list) => list.name));
    // A rule about a field the caller may not read is not named to it.
    const rules = (model.rules ?? []).filter((rule) => rule.fields.every((field) => lineLists.has(field) || reads(model.name, field)));
    if (rules.length > 0) parts.push(`Rules the ${phrase} must pass: ${rules.map((rule) => rule.message).join('; ')}.`);
  }
  if (command.kind === 'list' || command.kind === 'search') {
    parts.push('Filter and order only on fields you read in clear.');
  }
  if (command.kind === 'revert') {
    parts.push(`Give a change_id from ${model.name}__history; only changes made by update can be reverted, and only while none of their fields changed since.`);
  }
  if (command.action) {
    const action = command.action;
    parts.push(`Moves ${action.field} from ${action.from.join(' or ')} to ${action.to}.`);
    const inputs = action.inputs ?? action.required.map((name) => ({ name, required: true, field: true }));
    const shown = inputs.filter((input) => !input.field || reads(model.name, input.name));
    const required = shown.filter((input) => input.required).map((input) => input.name);
    const optional = shown.filter((input) => !input.required).map((input) => input.name);
    // An action's bulk command takes them in `input`, the same for every record.
    const where = command.kind === 'action_many' ? ' in input' : '';
    if (required.length > 0) parts.push(`Also give${where}: ${required.join(', ')}.`);
    if (optional.length > 0) parts.push(`May also give${where}: ${optional.join(', ')}.`);
  }
  // A line's field is named `<lines>.<field>` of its model, as filters name it.
  const referrers = model.referencedBy.map((ref) => ({ model: ref.model, field: ref.lines === undefined ? ref.field : `${ref.lines}.${ref.field}` })).filter((ref) => reads(ref.model, ref.field));
  if (command.kind === 'delete' && referrers.length > 0) {
    parts.push(`Refused while a record refers to it (${referrers.map((ref) => `${ref.model}.${ref.field}`).join(', ')}).`);
  }
  if (returnsRecords && masked.length > 0) {
    parts.push(`Personal fields (${masked.map((field) => field.name).join(', ')}) come back as tokens like ${masked.map((field) => `${field.maskLabel}_1`).join(', ')}.`);
  }
  if (command.needsApproval) {
    parts.push("An agent's call waits for a person's approval: it returns approval_required and a plan_id.");
  } else if (proposable(model, command)) {
    const held = model.actions.filter((action) => action.needsApproval).map((action) => action.name);
    parts.push(`Setting a governed field runs its action; where that needs approval (${held.join(', ')}), an agent's call returns approval_required and a plan_id.`);
  }
  return parts.join(' ');
}

function proposable(model: DescribedModel, command: DescribedCommand): boolean {
  return command.needsApproval || (command.kind === 'update' && model.actions.some((action) => action.needsApproval));
}
