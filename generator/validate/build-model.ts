/** One model's IR from its draft: every default resolved, fields tagged by kind, the generated commands and then the actions. */
import { parseByteSize } from '../../runtime/files/media-types.ts';
import { COMMAND_KINDS, actionManyName, catalogueNames } from '../../runtime/command-kinds.ts';
import type { GeneratedCommand } from '../define.ts';
import type { ActionSet } from '../../runtime/api-shapes.ts';
import type { FunctionSource } from '../definition-source.ts';
import type {
  ActionCommandIR,
  ActionInputIR,
  ActionIR,
  CommandIR,
  FieldIR,
  GeneratedCommandIR,
  LineListIR,
  LogicSource,
  Masking,
  ModelIR,
  ReferringField,
  RuleIR,
  UniqueIR,
} from '../ir.ts';
import { defaultLabel, inSentence, maskLabelOf, plural, withArticle } from '../names.ts';
import { DEFAULT_SCALE } from '../../runtime/value-schemas.ts';
import type { LockedIn } from './check-fields.ts';
import type { ActionDraft, FieldDraft, ModelDraft } from './drafts.ts';
import { ADMIN_ROLE, ID_FIELD } from './reserved.ts';

export interface ModelReferences {
  /** Ref fields (of any model or its lines) pointing at this model. */
  readonly referencedBy: readonly ReferringField[];
  /** The field each action moves. */
  readonly movedFields: ReadonlyMap<ActionDraft, string>;
  /** The fields each action sets. */
  readonly actionSets: ReadonlyMap<ActionDraft, readonly { readonly field: string; readonly to: ActionSet }[]>;
  /** The model's locked states. */
  readonly lockedIn: LockedIn;
}

/** A line list's most lines when the module says none. */
export const DEFAULT_MAX_LINES = 1000;

export function buildModel(model: ModelDraft, references: ModelReferences): ModelIR {
  const label = model.def.label ?? defaultLabel(model.name);
  const currency = model.module.def.currency;
  const fields = model.fields.map((field) => buildField(field, currency));
  const actions = model.actions.map((action) => buildAction(model, label, action, fields, references));
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
    commands: buildCommands(model.name, label, actions, holdsPersonalData(model)),
    referencedBy: references.referencedBy,
    indexes: (model.def.indexes ?? []).map((index) => [...index]),
    list: [...(model.def.list ?? [])],
    lines: model.lines.map(
      (list): LineListIR => ({
        name: list.name,
        label: list.def.label ?? defaultLabel(list.name),
        description: list.def.description ?? '',
        min: list.def.min ?? 0,
        max: list.def.max ?? DEFAULT_MAX_LINES,
        fields: list.fields.map((field) => buildField(field, currency)),
      }),
    ),
    uniques: (model.def.unique ?? []).map((entry): UniqueIR => (Array.isArray(entry) ? { fields: [...entry], where: undefined } : { fields: [...entry.fields], where: entry.where })),
    lockedIn: references.lockedIn,
    rules: model.rules.map((rule): RuleIR => ({ fields: [...rule.fields], message: rule.message, check: logicSource(rule.check) })),
  };
}

function logicSource(source: FunctionSource): LogicSource {
  return { text: source.text, prefix: source.prefix, line: source.line, column: source.column, writtenLines: source.writtenLines };
}

/** The field's IR: every default resolved, the parts of its kind only on its kind. */
export function buildField(field: FieldDraft, moduleCurrency: string | undefined): FieldIR {
  const label = field.label ?? defaultLabel(field.name);
  const common = {
    name: field.name,
    label,
    description: field.description ?? '',
    required: field.required === true,
    readRoles: withoutAdmin(field.read),
    writeRoles: withoutAdmin(field.write),
    hiddenFromAgents: field.agents === 'hidden',
    index: field.index === true,
    unique: field.unique === true,
    default: field.defaultValue,
    computed: field.logic === undefined ? undefined : logicSource(field.logic),
  };
  const masking: Masking = field.personal ? { personal: true, maskLabel: maskLabelOf(label) } : { personal: false };
  const text = (length: number | undefined, pattern: string | undefined) => ({ length, pattern });
  const range = <T extends number | string>() => ({ min: field.bounds.min as T | undefined, max: field.bounds.max as T | undefined });
  switch (field.kind) {
    case 'text':
    case 'longtext':
      return { ...common, ...masking, ...text(field.length, field.pattern), kind: field.kind, governed: false, search: field.search === true };
    case 'email':
    case 'url':
    case 'phone':
      return { ...common, ...masking, ...text(field.length, field.pattern), kind: field.kind, governed: false };
    case 'number':
      return { ...common, ...masking, ...range<number>(), kind: field.kind, governed: false };
    case 'money':
      return { ...common, ...masking, ...range<number>(), kind: field.kind, governed: false, currency: field.currency ?? moduleCurrency };
    case 'decimal':
      return { ...common, ...masking, ...range<number>(), kind: field.kind, governed: false, scale: field.scale ?? DEFAULT_SCALE };
    case 'date':
    case 'datetime':
      return { ...common, ...masking, ...range<string>(), kind: field.kind, governed: false };
    case 'bool':
      return { ...common, ...masking, kind: field.kind, governed: false };
    case 'select':
      return { ...common, ...masking, kind: field.kind, governed: field.governed === true, options: validatedOptions(field.name, field.options) };
    case 'multiselect':
      return { ...common, ...masking, kind: field.kind, governed: false, options: validatedOptions(field.name, field.options) };
    case 'ref':
      return { ...common, ...masking, kind: field.kind, governed: false, target: field.to };
    case 'file':
      return {
        ...common,
        ...masking,
        kind: field.kind,
        governed: false,
        multiple: field.multiple === true,
        accept: field.accept ?? [],
        maxSize: field.max_size === undefined ? undefined : parseByteSize(field.max_size),
      };
  }
}

function withoutAdmin(roles: readonly string[] | undefined): readonly string[] | undefined {
  return roles === undefined ? undefined : [...new Set(roles)].filter((role) => role !== ADMIN_ROLE);
}

/** Validation refuses a select without options, so the IR can promise a first one (where a governed select starts). */
function validatedOptions(field: string, options: readonly string[]): readonly [string, ...string[]] {
  const [first, ...rest] = options;
  if (first === undefined) throw new Error(`bug: select field ${field} passed validation without options`);
  return [first, ...rest];
}

function buildAction(model: ModelDraft, modelLabel: string, action: ActionDraft, fields: readonly FieldIR[], references: ModelReferences): ActionIR {
  const field = references.movedFields.get(action);
  if (field === undefined) throw new Error(`bug: action ${model.name}.${action.name} passed validation without a field it moves`);
  const byName = new Map(fields.map((candidate) => [candidate.name, candidate]));
  const fieldOf = (name: string): FieldIR => {
    const found = byName.get(name);
    if (!found) throw new Error(`bug: action ${model.name}.${action.name} takes unknown field ${name}`);
    return found;
  };
  // `required: [field]`: the field, required. An input named like a field: the field, with the input's required, label and description.
  const inputs: ActionInputIR[] = [
    ...(action.required ?? []).map((name): ActionInputIR => ({ input: { ...fieldOf(name), required: true }, field: true })),
    ...action.inputs.map((input): ActionInputIR => {
      const own = buildField(input.def, model.module.def.currency);
      if (!byName.has(input.name)) return { input: own, field: false };
      const base = fieldOf(input.name);
      return {
        input: { ...base, required: own.required, label: input.def.label ?? base.label, description: input.def.description ?? base.description },
        field: true,
      };
    }),
  ];
  return {
    name: action.name,
    // Without a description of its own: `Confirm the order`.
    description: action.description ?? `${defaultLabel(action.name)} the ${inSentence(modelLabel)}`,
    field,
    from: typeof action.from === 'string' ? [action.from] : action.from,
    to: action.to,
    required: inputs.filter((input) => input.field && input.input.required).map((input) => input.input.name),
    needsApproval: action.needs_approval === true,
    inputs,
    set: references.actionSets.get(action) ?? [],
  };
}

/** Whether a model holds personal data: a personal field of its own or of one of its line lists. */
export function holdsPersonalData(model: ModelDraft): boolean {
  return model.fields.some((field) => field.personal) || model.lines.some((list) => list.fields.some((field) => field.personal));
}

function buildCommands(model: string, label: string, actions: readonly ActionIR[], personalData: boolean): CommandIR[] {
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
    create_many: `Create up to 1000 ${plural(phrase)} in one transaction, all or none`,
    update_many: `Set the same fields on the ${plural(phrase)} a filter or ids select, in one transaction, all or none`,
    delete_many: `Delete the ${plural(phrase)} a filter or ids select, in one transaction, all or none`,
    revert_batch: `Put back what one update_many of ${plural(phrase)} changed, every record or none`,
    erase: `Forget the personal data of ${withArticle(phrase)}: its personal fields become empty, and their values leave its history, the audit trail, plans and masking (admin only)`,
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
  const action = (action: ActionIR): ActionCommandIR => ({
    id: `${model}.${action.name}`,
    model,
    name: action.name,
    kind: 'action',
    description: action.description,
    needsApproval: action.needsApproval,
    action,
  });
  const actionMany = (action: ActionIR): ActionCommandIR => ({
    id: `${model}.${actionManyName(action.name)}`,
    model,
    name: actionManyName(action.name),
    kind: 'action_many',
    description: `${action.description}, on each of the ${plural(phrase)} a filter or ids select, in one transaction, all or none`,
    needsApproval: COMMAND_KINDS.action_many.needsApproval,
    action,
  });
  // Implied commands (history, revert, bulk) and the admin's (erase) come after the actions: the catalogue keeps SPEC's commands first.
  const has = (kind: GeneratedCommand) => personalData || !COMMAND_KINDS[kind].personalData;
  const byName = new Map(actions.map((candidate) => [candidate.name, candidate]));
  const manyOf = new Map(actions.map((candidate) => [actionManyName(candidate.name), candidate]));
  return catalogueNames(actions.map((candidate) => candidate.name), has).map((name) => {
    const single = byName.get(name);
    if (single) return action(single);
    const many = manyOf.get(name);
    if (many) return actionMany(many);
    return generated(name as GeneratedCommand);
  });
}
