/** One model's IR from its draft: every default resolved, fields tagged by kind, the generated commands and then the actions. */
import { COMMAND_KINDS, EVERY_MODEL_COMMANDS } from '../../runtime/command-kinds.ts';
import type { GeneratedCommand } from '../define.ts';
import type { ActionCommandIR, ActionIR, CommandIR, FieldIR, GeneratedCommandIR, ModelIR } from '../ir.ts';
import { defaultLabel, inSentence, maskLabelOf, plural, withArticle } from '../names.ts';
import type { ActionDraft, FieldDraft, ModelDraft } from './drafts.ts';
import { ADMIN_ROLE, ID_FIELD } from './reserved.ts';

export interface ModelReferences {
  /** Ref fields (of any model) pointing at this model. */
  readonly referencedBy: readonly { readonly model: string; readonly field: string }[];
  /** The field each action moves. */
  readonly movedFields: ReadonlyMap<ActionDraft, string>;
}

export function buildModel(model: ModelDraft, references: ModelReferences): ModelIR {
  const label = model.def.label ?? defaultLabel(model.name);
  const fields = model.fields.map((field) => buildField(field, model.module.def.currency));
  const actions = model.actions.map((action) => buildAction(model, action, references.movedFields));
  const titleField =
    model.def.title ?? fields.find((field) => field.kind === 'text' && field.required)?.name ?? fields.find((field) => field.kind === 'text')?.name ?? ID_FIELD;
  return {
    name: model.name,
    module: model.module.name,
    label,
    description: model.def.description ?? '',
    titleField,
    fields,
    actions,
    commands: buildCommands(model.name, label, actions),
    referencedBy: references.referencedBy,
    indexes: (model.def.indexes ?? []).map((index) => [...index]),
    list: [...(model.def.list ?? [])],
  };
}

function buildField(field: FieldDraft, moduleCurrency: string | undefined): FieldIR {
  const label = field.label ?? defaultLabel(field.name);
  const common = {
    name: field.name,
    label,
    description: field.description ?? '',
    required: field.required === true,
    readRoles: field.read === undefined ? undefined : [...new Set(field.read)].filter((role) => role !== ADMIN_ROLE),
    hiddenFromAgents: field.agents === 'hidden',
    index: field.index === true,
    unique: field.unique === true,
  };
  switch (field.kind) {
    case 'text':
    case 'longtext': {
      const search = field.search === true;
      return field.personal === true
        ? { ...common, kind: field.kind, personal: true, maskLabel: maskLabelOf(label), governed: false, search }
        : { ...common, kind: field.kind, personal: false, governed: false, search };
    }
    case 'money':
      return { ...common, kind: field.kind, personal: false, governed: false, currency: field.currency ?? moduleCurrency };
    case 'number':
    case 'date':
    case 'bool':
      return { ...common, kind: field.kind, personal: false, governed: false };
    case 'select':
      return { ...common, kind: field.kind, personal: false, governed: field.governed === true, options: validatedOptions(field.name, field.options) };
    case 'ref':
      return { ...common, kind: field.kind, personal: false, governed: false, target: field.to };
  }
}

/** Validation refuses a select without options, so the IR can promise a first one (where a governed select starts). */
function validatedOptions(field: string, options: readonly string[]): readonly [string, ...string[]] {
  const [first, ...rest] = options;
  if (first === undefined) throw new Error(`bug: select field ${field} passed validation without options`);
  return [first, ...rest];
}

function buildAction(model: ModelDraft, action: ActionDraft, movedFields: ReadonlyMap<ActionDraft, string>): ActionIR {
  const field = movedFields.get(action);
  if (field === undefined) throw new Error(`bug: action ${model.name}.${action.name} passed validation without a field it moves`);
  return {
    name: action.name,
    description: action.description,
    field,
    from: typeof action.from === 'string' ? [action.from] : action.from,
    to: action.to,
    required: action.required ?? [],
    needsApproval: action.needs_approval === true,
  };
}

function buildCommands(model: string, label: string, actions: readonly ActionIR[]): CommandIR[] {
  const phrase = inSentence(label);
  const descriptions: Record<GeneratedCommand, string> = {
    get: `Read one ${phrase} by id`,
    list: `List ${plural(phrase)} with optional filter, order and paging`,
    search: `Search ${plural(phrase)}; returns matching rows and their total count`,
    create: `Create ${withArticle(phrase)}`,
    update: `Update fields of ${withArticle(phrase)}`,
    delete: `Delete ${withArticle(phrase)} (agents can only propose this)`,
    history: `Read the changes made to ${withArticle(phrase)}, newest first: which fields, from what to what, by whom`,
    revert: `Put back the fields one update of ${withArticle(phrase)} changed (agents can only propose this)`,
  };
  const generated = (name: GeneratedCommand): GeneratedCommandIR => ({
    id: `${model}.${name}`,
    model,
    name,
    kind: name,
    description: descriptions[name],
    needsApproval: COMMAND_KINDS[name].needsApproval,
    action: undefined,
  });
  // Implied commands (history, revert) come after the actions: the catalogue keeps SPEC's commands first.
  const own = EVERY_MODEL_COMMANDS.filter((kind) => COMMAND_KINDS[kind].impliedBy === null);
  const implied = EVERY_MODEL_COMMANDS.filter((kind) => COMMAND_KINDS[kind].impliedBy !== null);
  return [
    ...own.map(generated),
    ...actions.map(
      (action): ActionCommandIR => ({
        id: `${model}.${action.name}`,
        model,
        name: action.name,
        kind: 'action',
        description: action.description,
        needsApproval: action.needsApproval,
        action,
      }),
    ),
    ...implied.map(generated),
  ];
}
