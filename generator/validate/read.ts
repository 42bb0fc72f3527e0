/**
 * Readers: walk the loaded definitions, check each part's shape and what can be said of it alone
 * (its name, keys that do not fit its kind, a select's options, a personal field's mask label),
 * and keep what passed as drafts. Problems between parts (a ref to an unknown model, an action
 * moving an unknown field) are the checks' business; a part refused here is left out of the
 * drafts, its name is kept (`refused`, `brokenFields`, `brokenActions`), and the checks stay quiet
 * about references to it: its own problem is the first cause, the rest would be its consequences.
 */
import type { FieldDefault } from '../../runtime/api-shapes.ts';
import { ERASED_VALUES } from '../../runtime/erased.ts';
import { accepts, isKnownAccept, parseByteSize, SIZE_SYNTAX } from '../../runtime/files/media-types.ts';
import { patternRegExp } from '../../runtime/kinds.ts';
import { FIELD_KINDS, type FieldKind } from '../define.ts';
import type { DefinitionPath, FunctionSource } from '../definition-source.ts';
import type { LoadedModule, LoadedModules } from '../load.ts';
import { defaultLabel, IDENTIFIER, MASK_LABEL, maskLabelOf } from '../names.ts';
import { checkedValue, valueSchema } from '../../runtime/value-schemas.ts';
import { shapeArguments } from './field-arguments.ts';
import type { ActionDraft, ActionInputDraft, FieldDraft, LineListDraft, ModelDraft, ModuleDraft, ProjectDraft, RuleDraft } from './drafts.ts';
import { choiceHint, describeValue, identifierHint, invalidName } from './hints.ts';
import type { ProblemList, Report } from './problem-list.ts';
import { ID_FIELD, RESERVED_MODEL_NAMES, SYSTEM_TABLE_PREFIX } from './reserved.ts';
import { ACTION_HINTS, actionShape, FIELD_SHAPES, INPUT_SHAPES, lineListShape, modelShape, moduleShape, parseShape, type FieldShape, type Locate } from './shapes.ts';

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
  for (const key of ['models', 'roles'] as const) {
    if (lostProtoKey(module.definition[key])) report({ code: 'reserved-model-name', message: `a key "__proto__" in ${key} sets a JavaScript object's prototype: what it names would be lost`, fix: 'rename it' });
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
  const draft: ModuleDraft = { name: module.name, source: module.source, def, models, written: module.written };
  for (const [name, raw] of Object.entries(def.models)) {
    const model = readModel(draft, name, raw, problems);
    if (model) models.push(model);
    else refused.models.add(name);
  }
  return draft;
}

/** Keys of a model that are newer than its problems' lines: their problems carry the line. */
/** SQLite keeps its own tables under this prefix, and refuses to make one of its own. */
const SQLITE_TABLE_PREFIX = 'sqlite_';

const LOCATED_MODEL_KEYS: ReadonlySet<PropertyKey> = new Set(['lines', 'unique', 'locked_in', 'rules']);

function readModel(module: ModuleDraft, name: string, raw: unknown, problems: ProblemList): ModelDraft | undefined {
  const report = problems.at(module.source, { model: name });
  const path = ['models', name];
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
  } else if (name.startsWith(SQLITE_TABLE_PREFIX)) {
    report({ code: 'reserved-model-name', message: `names starting with ${SQLITE_TABLE_PREFIX} are SQLite's own tables`, detail: "the model's table takes its name", fix: 'choose another' });
  }
  if (!isPlainObject(raw)) {
    report({ code: 'not-an-object', message: 'must be an object', fix: `write ${name}: { fields: {...} }; got ${describeValue(raw)}` });
    return undefined;
  }
  for (const key of ['fields', 'lines', 'actions'] as const) {
    if (lostProtoKey(raw[key])) report({ code: 'reserved-field-name', message: `a key "__proto__" in ${key} sets a JavaScript object's prototype: what it names would be lost`, fix: 'rename it' });
  }
  const locate: Locate = (at) => (LOCATED_MODEL_KEYS.has(at[0] as PropertyKey) ? module.written.lineOf([...path, ...(at as (string | number)[])]) : undefined);
  const def = parseShape(modelShape, raw, report, { locate });
  if (!def) return undefined;
  const fields: FieldDraft[] = [];
  const brokenFields = new Set<string>();
  for (const [fieldName, fieldRaw] of Object.entries(def.fields)) {
    const field = readField(problems.at(module.source, { model: name, field: fieldName }), fieldName, fieldRaw, { place: 'model', path: [...path, 'fields', fieldName], module });
    if (field) fields.push(field);
    else brokenFields.add(fieldName);
  }
  const lines: LineListDraft[] = [];
  const brokenLines = new Set<string>();
  for (const [listName, listRaw] of Object.entries(def.lines ?? {})) {
    const list = readLineList(module, name, listName, listRaw, Object.keys(def.fields), problems);
    if (list) lines.push(list);
    else brokenLines.add(listName);
  }
  const actions: ActionDraft[] = [];
  const brokenActions = new Set<string>();
  for (const [actionName, actionRaw] of Object.entries(def.actions ?? {})) {
    const action = readAction(module, name, actionName, actionRaw, problems);
    if (action) actions.push(action);
    else brokenActions.add(actionName);
  }
  const rules: RuleDraft[] = [];
  for (const [index, rule] of (def.rules ?? []).entries()) {
    const check = readFunction(module, [...path, 'rules', index, 'check'], report, `rules[${index}].check`);
    if (check) rules.push({ fields: rule.fields, message: rule.message, check, index });
  }
  return { name, module, def, fields, brokenFields, actions, brokenActions, lines, brokenLines, rules };
}

/** Names a line's columns take besides its fields. */
const LINE_COLUMNS: readonly string[] = [ID_FIELD, 'owner', 'position'];

function readLineList(module: ModuleDraft, model: string, name: string, raw: unknown, fieldNames: readonly string[], problems: ProblemList): LineListDraft | undefined {
  const path = ['models', model, 'lines', name];
  const report = problems.at(module.source, { model, lines: name });
  const line = module.written.lineOf(path);
  if (!IDENTIFIER.test(name)) report({ ...invalidName('line list', name), line });
  if (name === ID_FIELD || fieldNames.includes(name)) {
    report({
      code: 'line-list-name-taken',
      line,
      message: name === ID_FIELD ? `"${ID_FIELD}" is the record's id` : `a line list named like field ${name}: a record answers both under one name`,
      fix: 'rename the line list or the field',
    });
  }
  if (!isPlainObject(raw)) {
    report({ code: 'not-an-object', line, message: 'must be an object', fix: `write ${name}: { fields: {...} }; got ${describeValue(raw)}` });
    return undefined;
  }
  if (raw.lines !== undefined) {
    report({
      code: 'nested-lines',
      line: module.written.lineOf([...path, 'lines']),
      message: 'lines inside lines are not supported',
      fix: `make ${name} a model of its own with a ref to ${model}, and give it the lines`,
    });
    return undefined;
  }
  if (isPlainObject(raw) && lostProtoKey(raw.fields)) report({ code: 'reserved-field-name', line, message: `a key "__proto__" in fields sets a JavaScript object's prototype: what it names would be lost`, fix: 'rename it' });
  const def = parseShape(lineListShape, raw, report, { locate: (at) => module.written.lineOf([...path, ...(at as (string | number)[])]) });
  if (!def) return undefined;
  if (def.min !== undefined && def.max !== undefined && def.min > def.max) {
    report({ code: 'min-above-max', line, message: `min ${def.min} is above max ${def.max}`, fix: 'lower min or raise max' });
  }
  const fields: FieldDraft[] = [];
  const brokenFields = new Set<string>();
  for (const [fieldName, fieldRaw] of Object.entries(def.fields)) {
    const field = readField(problems.at(module.source, { model, lines: name, field: fieldName }), fieldName, fieldRaw, {
      place: 'line',
      path: [...path, 'fields', fieldName],
      module,
    });
    if (field) fields.push(field);
    else brokenFields.add(fieldName);
  }
  return { name, def, fields, brokenFields };
}

/** Keys of some kinds only, refused with a message of their own (before the shape check, which would only say "unknown key"). */
const KIND_SPECIFIC_KEYS: Readonly<Record<string, { readonly kinds: readonly FieldKind[]; readonly fix: string }>> = {
  governed: { kinds: ['select'], fix: "make it kind: 'select' with options, or remove governed" },
  options: { kinds: ['select', 'multiselect'], fix: "make it kind: 'select' (or 'multiselect'), or remove options" },
  to: { kinds: ['ref'], fix: "make it kind: 'ref', or remove to" },
  search: { kinds: ['text', 'longtext'], fix: 'remove search, or make the field text' },
  currency: { kinds: ['money'], fix: "make it kind: 'money', or remove currency" },
  scale: { kinds: ['decimal'], fix: "make it kind: 'decimal', or remove scale" },
  min: { kinds: ['number', 'money', 'decimal', 'date', 'datetime'], fix: 'remove min' },
  max: { kinds: ['number', 'money', 'decimal', 'date', 'datetime'], fix: 'remove max' },
  length: { kinds: ['text', 'longtext', 'email', 'url', 'phone'], fix: 'remove length' },
  pattern: { kinds: ['text', 'longtext', 'email', 'url', 'phone'], fix: 'remove pattern' },
  multiple: { kinds: ['file'], fix: "make it kind: 'file', or remove multiple" },
  accept: { kinds: ['file'], fix: "make it kind: 'file', or remove accept" },
  max_size: { kinds: ['file'], fix: "make it kind: 'file', or remove max_size" },
};

/** How the existing problems word "only for": `select fields`, `text and longtext fields`. */
function kindsInWords(kinds: readonly FieldKind[]): string {
  return kinds.length === 1 ? `${kinds[0]} fields` : `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)} fields`;
}

/** Field keys newer than its problems' lines: their problems carry the line. */
const LOCATED_FIELD_KEYS: ReadonlySet<PropertyKey> = new Set(['write', 'default', 'computed', 'scale', 'min', 'max', 'length', 'pattern', 'multiple', 'accept', 'max_size']);

/** Kinds newer than the problems' lines: every problem of such a field carries the line. */
const LOCATED_KINDS: ReadonlySet<unknown> = new Set(['decimal', 'datetime', 'email', 'url', 'phone', 'multiselect', 'file']);

/** Kinds whose values are text: a default of `'today'` is the text "today" there. */
const TEXT_KINDS: ReadonlySet<FieldKind> = new Set(['text', 'longtext', 'email', 'url', 'phone', 'select', 'multiselect']);

/** Kinds personal unless they say `personal: false`. */
const PERSONAL_KINDS: ReadonlySet<FieldKind> = new Set(['email', 'phone']);

/** Where a field is defined: a model's fields, a line list's, or an action's inputs (read like a field). */
interface FieldPlace {
  readonly place: 'model' | 'line' | 'input';
  /** Its key path in the module file. */
  readonly path: DefinitionPath;
  readonly module: ModuleDraft;
}

function readField(reportAt: Report, name: string, raw: unknown, where: FieldPlace): FieldDraft | undefined {
  const written = where.module.written;
  const fieldLine = written.lineOf(where.path);
  const isNew = where.place !== 'model' || (isPlainObject(raw) && LOCATED_KINDS.has(raw.kind));
  // Problems of what this change added (line fields, inputs, the new kinds and keys) carry the line; the older ones keep their form.
  const report: Report = isNew ? (problem) => reportAt({ line: fieldLine, ...problem }) : reportAt;
  const reportKey = (key: string): Report => (problem) => reportAt({ line: written.lineOf([...where.path, key]), ...problem });
  const what = where.place === 'input' ? 'input' : 'field';
  if (!IDENTIFIER.test(name)) report(invalidName(what, name));
  if (where.place === 'line' && LINE_COLUMNS.includes(name)) {
    report({ code: 'reserved-field-name', message: `"${name}" is a column every line has`, fix: 'rename the field' });
  } else if (name === ID_FIELD) {
    report({ code: 'reserved-field-name', message: `"${ID_FIELD}" is reserved for the record id every model has`, fix: where.place === 'input' ? 'rename the input' : 'remove the field, or rename it' });
  } else if (name === OBJECT_KEY) {
    report({
      code: 'reserved-field-name',
      message: `"${OBJECT_KEY}" is a name every JavaScript object has (Object.prototype.${OBJECT_KEY}): a record without the field would seem to hold it`,
      fix: where.place === 'input' ? 'rename the input' : 'rename the field',
    });
  }
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
  for (const [key, { kinds, fix }] of Object.entries(KIND_SPECIFIC_KEYS)) {
    if (raw[key] === undefined || kinds.includes(kind)) continue;
    const message = `${key} ${key === 'options' ? 'are' : 'is'} only for ${kindsInWords(kinds)}`;
    (LOCATED_FIELD_KEYS.has(key) ? reportKey(key) : report)({ code: 'key-not-for-kind', message, fix });
  }
  if (raw.index === true && kind === 'longtext') {
    report({ code: 'index-not-for-kind', message: 'an index on a longtext field is refused: its values are too long to index', fix: 'use search: true to find text in it' });
  }
  if (raw.unique === true && (kind === 'longtext' || kind === 'bool')) {
    report({ code: 'unique-not-for-kind', message: `unique is not for ${kind} fields`, fix: 'remove unique' });
  }
  if (raw.default !== undefined && kind === 'ref') {
    reportKey('default')({ code: 'key-not-for-kind', message: 'default is not for ref fields: no record id is known when a module is written', fix: 'remove default' });
  }
  if (kind === 'file') checkFileKeys(raw, where.place, reportKey);
  const personal = typeof raw.personal === 'boolean' ? raw.personal : PERSONAL_KINDS.has(kind);
  if (raw.unique === true && personal && raw.agents !== 'hidden' && where.place !== 'input') {
    report({
      code: 'unique-personal',
      message: 'unique on a personal field agents may write would tell an agent whether a value it wrote is held by another record',
      fix: PERSONAL_KINDS.has(kind) && raw.personal === undefined ? `remove unique, add agents: 'hidden', or say personal: false (${kind} fields are personal unless they say so)` : "remove unique, or add agents: 'hidden'",
    });
  }
  if (raw.required === true && personal && where.place !== 'input' && ERASED_VALUES[kind] === undefined) {
    // A problem new with erasure: located for every kind.
    reportAt({
      line: fieldLine,
      code: 'required-personal-not-erasable',
      message: `a required personal ${kind} field could not be erased (<model>.erase): it cannot be left empty, and every value it takes is a real one`,
      fix: 'remove required, or say personal: false',
    });
  }
  if (where.place === 'line') {
    // Only where the kind would allow it: otherwise its kind's problem says enough.
    if (raw.governed === true && kind === 'select') reportKey('governed')({ code: 'not-for-line-fields', message: 'governed is not for line fields: lines change only with their record', fix: 'remove governed' });
    if (raw.unique === true && kind !== 'longtext' && kind !== 'bool') reportKey('unique')({ code: 'not-for-line-fields', message: 'unique is not for line fields', fix: 'remove unique' });
  }
  if (raw.computed !== undefined && where.place !== 'input') {
    if (typeof raw.computed !== 'function') {
      reportKey('computed')({
        code: 'computed-not-a-function',
        message: `computed must be a function of the ${where.place === 'line' ? 'line' : 'record'}`,
        detail: `got ${describeValue(raw.computed)}`,
        fix: where.place === 'line' ? 'e.g. computed: (line) => line.quantity * line.unit_price' : 'e.g. computed: (record) => record.items.length',
      });
    } else {
      for (const key of ['required', 'default', 'write', 'governed'] as const) {
        if (raw[key] === undefined || raw[key] === false) continue;
        reportKey(key)({
          code: 'computed-conflict',
          message: `a computed field cannot be ${key === 'required' ? 'required' : key === 'default' ? 'given a default' : key === 'write' ? 'written by roles' : 'governed'}: its function sets it on every write`,
          fix: `remove ${key}, or remove computed`,
        });
      }
    }
  }
  const shape = where.place === 'input' ? INPUT_SHAPES[kind] : FIELD_SHAPES[kind];
  const rest = Object.fromEntries(
    Object.entries(raw).filter(([key]) => !(Object.hasOwn(KIND_SPECIFIC_KEYS, key) && !(key in shape.shape)) && !(key === 'computed' && typeof raw.computed !== 'function') && !(key === 'default' && (kind === 'ref' || kind === 'file')) && !(kind === 'file' && FILE_REFUSED_KEYS.includes(key))),
  );
  const def = parseShape(shape, rest, report, {
    locate: (at) => (isNew || LOCATED_FIELD_KEYS.has(at[0] as PropertyKey) ? written.lineOf([...where.path, ...(at as (string | number)[])]) : undefined),
  });
  if (!def) return undefined;
  if (def.kind === 'select' || def.kind === 'multiselect') checkOptions(def.kind, def.options, report);
  if (def.kind === 'file') checkFileField(def.accept, def.max_size, reportKey);
  if (personal) checkMaskLabel(name, def.label, report);
  if ('pattern' in def && def.pattern !== undefined) checkPattern(def.pattern, reportKey('pattern'));
  const model = where.path[1];
  const valuePath = where.place === 'line' ? `${String(model)}.${String(where.path[3])}[].${name}` : `${String(model)}.${name}`;
  const bounds = readBounds(def, valuePath, reportKey);
  const defaultValue = 'default' in def && def.default !== undefined ? readDefault(def, bounds, valuePath, reportKey('default')) : undefined;
  const logic = typeof def.computed === 'function' ? readFunction(where.module, [...where.path, 'computed'], reportKey('computed'), 'computed') : undefined;
  return { ...def, name, personal, bounds, defaultValue, logic };
}

/**
 * `min` and `max`: values of the field's kind (a decimal within its scale, a real date, a datetime
 * with an offset, kept in UTC as the runtime compares them), min not above max.
 */
function readBounds(def: FieldShape, path: string, reportKey: (key: string) => Report): FieldDraft['bounds'] {
  if (!('min' in def) && !('max' in def)) return { min: undefined, max: undefined };
  const schema = valueSchema(path, def.kind, shapeArguments(def));
  const read = (key: 'min' | 'max'): number | string | undefined => {
    const value = (def as { readonly min?: number | string; readonly max?: number | string })[key];
    if (value === undefined) return undefined;
    const checked = checkedValue(schema, value);
    if ('value' in checked) return checked.value as number | string;
    reportKey(key)({ code: 'invalid-check', message: `${key} ${describeValue(value)} is not a value of the field: ${checked.refused}`, fix: `write ${key} as a ${def.kind} value` });
    return undefined;
  };
  const min = read('min');
  const max = read('max');
  if (min !== undefined && max !== undefined && min > max) {
    reportKey('min')({ code: 'min-above-max', message: `min ${describeValue(min)} is above max ${describeValue(max)}`, fix: 'lower min or raise max' });
  }
  return { min, max };
}

/**
 * A default: a value of the field that passes its checks (a select's option, a governed select's
 * first), `'today'` on a date, `'now'` on a datetime. Kept as the runtime applies it.
 */
function readDefault(def: FieldShape, bounds: FieldDraft['bounds'], path: string, report: Report): FieldDefault | undefined {
  const value = (def as { readonly default?: unknown }).default;
  if (value === 'today' && def.kind === 'date') return 'today';
  if (value === 'now' && def.kind === 'datetime') return 'now';
  // On a text kind 'today' is a text like any other.
  if ((value === 'today' || value === 'now') && !TEXT_KINDS.has(def.kind)) {
    const fits = def.kind === 'date' ? " (a date field's is 'today')" : def.kind === 'datetime' ? " (a datetime field's is 'now')" : '';
    report({ code: 'invalid-default', message: `default '${value}' is only for ${value === 'today' ? 'date' : 'datetime'} fields${fits}`, fix: `write a ${def.kind} value` });
    return undefined;
  }
  if (def.kind === 'select' && def.governed === true && value !== def.options[0]) {
    report({
      code: 'invalid-default',
      message: `default ${describeValue(value)}: a governed select starts at its first option "${def.options[0] ?? ''}"`,
      fix: 'remove default, or make it the first option',
    });
    return undefined;
  }
  const checked = checkedValue(valueSchema(path, def.kind, shapeArguments(def, bounds)), value);
  if ('refused' in checked) {
    report({ code: 'invalid-default', message: `default ${describeValue(value)} is not a value of the field: ${checked.refused}`, fix: `write a ${def.kind} value${def.kind === 'date' ? " or 'today'" : def.kind === 'datetime' ? " or 'now'" : ''}` });
    return undefined;
  }
  if (checked.value === null) {
    report({ code: 'invalid-default', message: `default ${describeValue(value)} is empty`, fix: 'remove default: a field without one starts empty' });
    return undefined;
  }
  return { value: checked.value };
}

/** The function written at this path in the module file, if it can be copied out of it (else a problem). */
function readFunction(module: ModuleDraft, path: DefinitionPath, report: Report, what: string): FunctionSource | undefined {
  const source = module.written.functionAt(path);
  if (source === undefined) {
    report({
      code: 'function-not-found',
      message: `the function of ${what} cannot be found in the module file`,
      fix: `write it in place, e.g. ${what.endsWith('check') ? 'check: (record) => …' : 'computed: (record) => …'}, or as a const of the module file named there`,
    });
    return undefined;
  }
  if (source.outsideNames.length > 0) {
    const names = source.outsideNames.map((name) => `"${name}"`).join(', ');
    report({
      line: source.line,
      code: 'function-uses-outside-names',
      message: `${what} uses ${names} from outside the function: it is copied into generated code, where only its parameter and JavaScript's globals (Math, Number, String, Date, JSON, …) exist`,
      fix: `write what it needs into the function (the value of ${names})`,
    });
    return undefined;
  }
  return source;
}

/** What a file field is never given: its problem says why (checkFileKeys), so the shape check stays quiet about it. */
const FILE_REFUSED_KEYS: readonly string[] = ['index', 'computed'];

/**
 * A file field's keys that do not go with files: a default (no file exists when a module is
 * written), an index (its value is a list of files, nothing to look records up by), `unique` with
 * `multiple`, a computed value.
 */
function checkFileKeys(raw: Readonly<Record<string, unknown>>, place: FieldPlace['place'], reportKey: (key: string) => Report): void {
  if (raw.default !== undefined) reportKey('default')({ code: 'key-not-for-kind', message: 'default is not for file fields: no file exists when a module is written', fix: 'remove default' });
  if (raw.index === true) reportKey('index')({ code: 'index-not-for-kind', message: 'an index on a file field is refused: records are not looked up by their files', fix: 'remove index' });
  if (raw.unique === true && raw.multiple === true && place !== 'line') {
    reportKey('unique')({ code: 'unique-not-for-kind', message: 'unique is not for a file field with multiple: a list of files is not one value', fix: 'remove unique, or remove multiple' });
  }
  if (raw.computed !== undefined) reportKey('computed')({ code: 'key-not-for-kind', message: 'computed is not for file fields: files are uploaded, not worked out', fix: 'remove computed' });
}

/** `accept`: known media types (or `<family>/*`), each once; `max_size`: a size in `SIZE_SYNTAX`. */
function checkFileField(accept: readonly string[] | undefined, maxSize: string | undefined, reportKey: (key: string) => Report): void {
  const seen = new Set<string>();
  for (const entry of accept ?? []) {
    if (!isKnownAccept(entry)) {
      reportKey('accept')({
        code: 'unknown-media-type',
        message: `accept names unknown media type ${describeValue(entry)}`,
        fix: "write a registered media type in lower case, such as 'application/pdf', or a family such as 'image/*'",
      });
    } else if (seen.has(entry) || (!entry.endsWith('/*') && (accept ?? []).some((other) => other !== entry && other.endsWith('/*') && accepts([other], entry)))) {
      reportKey('accept')({ code: 'duplicate-media-type', message: `accept lists ${describeValue(entry)} twice (or within a family it lists)`, fix: 'remove one' });
    }
    seen.add(entry);
  }
  if (accept !== undefined && accept.length === 0) reportKey('accept')({ code: 'empty-accept', message: 'accept lists no media type', fix: 'remove accept to take any type, or list the types' });
  if (maxSize !== undefined && parseByteSize(maxSize) === undefined) {
    reportKey('max_size')({ code: 'invalid-max-size', message: `max_size ${describeValue(maxSize)} is not a size of 1 B to 1024 GB`, fix: `write ${SIZE_SYNTAX}` });
  }
}

function isFieldKind(kind: unknown): kind is FieldKind {
  return typeof kind === 'string' && (FIELD_KINDS as readonly string[]).includes(kind);
}

function checkOptions(kind: 'select' | 'multiselect', options: readonly string[], report: Report): void {
  if (options.length === 0) report({ code: 'no-select-options', message: `${kind} has no options`, fix: "add options: ['first', 'second']" });
  const seen = new Set<string>();
  for (const option of options) {
    if (option === '') report({ code: 'empty-select-option', message: `${kind} option "" is empty`, fix: 'remove it' });
    else if (seen.has(option)) report({ code: 'duplicate-select-option', message: `${kind} option "${option}" is listed twice`, fix: 'remove one' });
    seen.add(option);
  }
}

/** A pattern compiles as the runtime compiles it (anchored, Unicode). */
function checkPattern(pattern: string, report: Report): void {
  try {
    patternRegExp(pattern);
  } catch (error) {
    report({
      code: 'invalid-pattern',
      message: `pattern ${describeValue(pattern)} is not a valid regular expression`,
      detail: error instanceof Error ? error.message : String(error),
      fix: 'fix the expression (JavaScript syntax, with the u flag)',
    });
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

function readAction(module: ModuleDraft, model: string, name: string, raw: unknown, problems: ProblemList): ActionDraft | undefined {
  const report = problems.at(module.source, { model, action: name });
  const path = ['models', model, 'actions', name];
  if (!IDENTIFIER.test(name)) report(invalidName('action', name));
  if (!isPlainObject(raw)) {
    report({ code: 'not-an-object', message: 'must be an object', fix: `write ${name}: { from, to }; got ${describeValue(raw)}` });
    return undefined;
  }
  const locate: Locate = (at) => (at[0] === 'input' || at[0] === 'set' ? module.written.lineOf([...path, ...(at as (string | number)[])]) : undefined);
  const def = parseShape(actionShape, raw, report, { locate, hints: ACTION_HINTS });
  if (!def) return undefined;
  const inputs: ActionInputDraft[] = [];
  let broken = false;
  for (const [inputName, inputRaw] of Object.entries(def.input ?? {})) {
    const input = readField(problems.at(module.source, { model, action: name, input: inputName }), inputName, inputRaw, {
      place: 'input',
      path: [...path, 'input', inputName],
      module,
    });
    if (input) inputs.push({ name: inputName, def: input, given: isPlainObject(inputRaw) ? Object.keys(inputRaw) : [] });
    else broken = true;
  }
  return broken ? undefined : { ...def, name, inputs };
}

/** The one lower-case name every object inherits (`toString` and the rest are not names a definition can take). */
const OBJECT_KEY = 'constructor';

/**
 * Whether an object literal was written with a `__proto__` key: JavaScript took it as the
 * object's prototype, and the name is not among its keys (what it named would be lost without a word).
 */
function lostProtoKey(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto !== Object.prototype && proto !== null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
