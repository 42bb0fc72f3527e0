/**
 * Readers: walk the loaded definitions, check each part's shape and what can be said of it alone
 * (its name, keys that do not fit its kind, a select's options, a personal field's mask label),
 * and keep what passed as drafts. Problems between parts (a ref to an unknown model, an action
 * moving an unknown field) are the checks' business; a part refused here is left out of the
 * drafts, its name is kept (`refused`, `brokenFields`, `brokenActions`), and the checks stay quiet
 * about references to it: its own problem is the first cause, the rest would be its consequences.
 */
import { FIELD_KINDS, type FieldKind } from '../define.ts';
import type { LoadedModule, LoadedModules } from '../load.ts';
import { defaultLabel, IDENTIFIER, MASK_LABEL, maskLabelOf } from '../names.ts';
import type { ActionDraft, FieldDraft, ModelDraft, ModuleDraft, ProjectDraft } from './drafts.ts';
import { choiceHint, describeValue, identifierHint, invalidName } from './hints.ts';
import type { ProblemList, Report } from './problem-list.ts';
import { ID_FIELD, RESERVED_MODEL_NAMES, SYSTEM_TABLE_PREFIX } from './reserved.ts';
import { actionShape, FIELD_SHAPES, modelShape, moduleShape, parseShape } from './shapes.ts';

export function readProject(loaded: LoadedModules, problems: ProblemList): ProjectDraft {
  const modules: ModuleDraft[] = [];
  const refused: Refused = { models: new Set(), roles: new Set() };
  for (const module of loaded.modules) {
    for (const { line, key } of module.duplicateKeys) {
      problems.at(module.source, { line })({
        code: 'duplicate-key',
        message: `key "${key}" is written twice in one object`,
        fix: 'JavaScript silently keeps only the last one; rename or remove one',
      });
    }
    const draft = readModule(module, problems, refused);
    if (draft) modules.push(draft);
  }
  return { dirName: loaded.dirName, modules, moduleNames: loaded.modules.map((module) => module.name), refused };
}

/** `RefusedNames`, while the readers fill it. */
interface Refused {
  readonly models: Set<string>;
  readonly roles: Set<string>;
}

function readModule(module: LoadedModule, problems: ProblemList, refused: Refused): ModuleDraft | undefined {
  const report = problems.at(module.source);
  if (!IDENTIFIER.test(module.name)) {
    report({
      code: 'invalid-name',
      message: `invalid module name "${module.name}"`,
      detail: identifierHint(module.name),
      fix: 'the folder name is the module name, rename the folder',
    });
  }
  if (!isPlainObject(module.definition)) {
    report({
      code: 'not-an-object',
      message: 'the default export must be an object',
      fix: `write \`export default defineModule({ models: {...} })\`; got ${describeValue(module.definition)}`,
    });
    return undefined;
  }
  const def = parseShape(moduleShape, module.definition, report);
  if (!def) {
    // What it would have declared, as far as it can be read.
    const { models, roles } = module.definition;
    if (isPlainObject(models)) for (const name of Object.keys(models)) refused.models.add(name);
    if (isPlainObject(roles)) for (const name of Object.keys(roles)) refused.roles.add(name);
    return undefined;
  }
  const models: ModelDraft[] = [];
  const draft: ModuleDraft = { name: module.name, source: module.source, def, models };
  for (const [name, raw] of Object.entries(def.models)) {
    const model = readModel(draft, name, raw, problems);
    if (model) models.push(model);
    else refused.models.add(name);
  }
  return draft;
}

function readModel(module: ModuleDraft, name: string, raw: unknown, problems: ProblemList): ModelDraft | undefined {
  const report = problems.at(module.source, { model: name });
  if (!IDENTIFIER.test(name)) report(invalidName('model', name));
  else if (Object.hasOwn(RESERVED_MODEL_NAMES, name)) {
    report({ code: 'reserved-model-name', message: "the name is reserved by the service's own endpoints", detail: RESERVED_MODEL_NAMES[name], fix: 'choose another' });
  } else if (name.startsWith(SYSTEM_TABLE_PREFIX)) {
    report({
      code: 'reserved-model-name',
      message: `names starting with ${SYSTEM_TABLE_PREFIX} are reserved for the runtime's system tables`,
      detail: "the model's table takes its name",
      fix: 'choose another',
    });
  }
  if (!isPlainObject(raw)) {
    report({ code: 'not-an-object', message: 'must be an object', fix: `write ${name}: { fields: {...} }; got ${describeValue(raw)}` });
    return undefined;
  }
  const def = parseShape(modelShape, raw, report);
  if (!def) return undefined;
  const fields: FieldDraft[] = [];
  const brokenFields = new Set<string>();
  for (const [fieldName, fieldRaw] of Object.entries(def.fields)) {
    const field = readField(problems.at(module.source, { model: name, field: fieldName }), fieldName, fieldRaw);
    if (field) fields.push(field);
    else brokenFields.add(fieldName);
  }
  const actions: ActionDraft[] = [];
  const brokenActions = new Set<string>();
  for (const [actionName, actionRaw] of Object.entries(def.actions ?? {})) {
    const action = readAction(problems.at(module.source, { model: name, action: actionName }), actionName, actionRaw);
    if (action) actions.push(action);
    else brokenActions.add(actionName);
  }
  return { name, module, def, fields, brokenFields, actions, brokenActions };
}

/** Keys of some kinds only, refused with a message of their own (before the shape check, which would only say "unknown key"). */
const KIND_SPECIFIC_KEYS: readonly string[] = ['governed', 'options', 'to', 'search', 'currency'];

function readField(report: Report, name: string, raw: unknown): FieldDraft | undefined {
  if (!IDENTIFIER.test(name)) report(invalidName('field', name));
  if (name === ID_FIELD) report({ code: 'reserved-field-name', message: `"${ID_FIELD}" is reserved for the record id every model has`, fix: 'remove the field, or rename it' });
  if (!isPlainObject(raw)) {
    report({ code: 'not-an-object', message: 'must be an object', fix: `write ${name}: { kind: 'text' }; got ${describeValue(raw)}` });
    return undefined;
  }
  const kind = raw.kind;
  if (kind === undefined) {
    report({ code: 'missing-key', message: 'missing "kind"', fix: `add kind: one of ${FIELD_KINDS.join(', ')}` });
    return undefined;
  }
  if (!isFieldKind(kind)) {
    report({ code: 'unknown-kind', message: `unknown kind ${describeValue(kind)}`, fix: choiceHint(kind, FIELD_KINDS, 'valid kinds') });
    return undefined;
  }
  if (raw.governed !== undefined && kind !== 'select') {
    report({ code: 'key-not-for-kind', message: 'governed is only for select fields', fix: "make it kind: 'select' with options, or remove governed" });
  }
  if (raw.options !== undefined && kind !== 'select') {
    report({ code: 'key-not-for-kind', message: 'options are only for select fields', fix: "make it kind: 'select', or remove options" });
  }
  if (raw.to !== undefined && kind !== 'ref') {
    report({ code: 'key-not-for-kind', message: 'to is only for ref fields', fix: "make it kind: 'ref', or remove to" });
  }
  if (raw.personal === true && kind !== 'text' && kind !== 'longtext') {
    report({ code: 'key-not-for-kind', message: 'personal is only for text and longtext fields', fix: 'remove personal, or make the field text' });
  }
  if (raw.search !== undefined && kind !== 'text' && kind !== 'longtext') {
    report({ code: 'key-not-for-kind', message: 'search is only for text and longtext fields', fix: 'remove search, or make the field text' });
  }
  if (raw.currency !== undefined && kind !== 'money') {
    report({ code: 'key-not-for-kind', message: 'currency is only for money fields', fix: "make it kind: 'money', or remove currency" });
  }
  if (raw.index === true && kind === 'longtext') {
    report({ code: 'index-not-for-kind', message: 'an index on a longtext field is refused: its values are too long to index', fix: 'use search: true to find text in it' });
  }
  if (raw.unique === true && (kind === 'longtext' || kind === 'bool')) {
    report({ code: 'unique-not-for-kind', message: `unique is not for ${kind} fields`, fix: 'remove unique' });
  }
  if (raw.unique === true && raw.personal === true && raw.agents !== 'hidden') {
    report({
      code: 'unique-personal',
      message: 'unique on a personal field agents may write would tell an agent whether a value it wrote is held by another record',
      fix: "remove unique, or add agents: 'hidden'",
    });
  }
  const shape = FIELD_SHAPES[kind];
  const rest = Object.fromEntries(Object.entries(raw).filter(([key]) => !(KIND_SPECIFIC_KEYS.includes(key) && !(key in shape.shape))));
  const def = parseShape(shape, rest, report);
  if (!def) return undefined;
  if (def.kind === 'select') checkOptions(def.options, report);
  if (def.personal) checkMaskLabel(name, def.label, report);
  return { ...def, name };
}

function isFieldKind(kind: unknown): kind is FieldKind {
  return typeof kind === 'string' && (FIELD_KINDS as readonly string[]).includes(kind);
}

function checkOptions(options: readonly string[], report: Report): void {
  if (options.length === 0) report({ code: 'no-select-options', message: 'select has no options', fix: "add options: ['first', 'second']" });
  const seen = new Set<string>();
  for (const option of options) {
    if (option === '') report({ code: 'empty-select-option', message: 'select option "" is empty', fix: 'remove it' });
    else if (seen.has(option)) report({ code: 'duplicate-select-option', message: `select option "${option}" is listed twice`, fix: 'remove one' });
    seen.add(option);
  }
}

/** Agents see personal values as `<mask label>_<n>` tokens, so the label must make a token prefix. */
function checkMaskLabel(name: string, givenLabel: string | undefined, report: Report): void {
  const label = givenLabel ?? defaultLabel(name);
  const maskLabel = maskLabelOf(label);
  if (MASK_LABEL.test(maskLabel)) return;
  report({
    code: 'invalid-mask-label',
    message: `personal field label "${label}" gives the masking token prefix "${maskLabel}", which must be A-Z, 0-9 and _ starting with a letter`,
    fix: `use a label of plain letters, digits, spaces or hyphens, e.g. label: '${defaultLabel(name)}'`,
  });
}

function readAction(report: Report, name: string, raw: unknown): ActionDraft | undefined {
  if (!IDENTIFIER.test(name)) report(invalidName('action', name));
  if (!isPlainObject(raw)) {
    report({ code: 'not-an-object', message: 'must be an object', fix: `write ${name}: { description, from, to }; got ${describeValue(raw)}` });
    return undefined;
  }
  const def = parseShape(actionShape, raw, report);
  return def && { ...def, name };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
