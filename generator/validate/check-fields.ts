/**
 * A model's references by name: its title to one of its fields, ref fields (its own and its
 * lines') to models it may see, read and write rights to known roles, and the fields its indexes,
 * lists, unique indexes, locked states and rules name.
 */
import { unknownNameHint } from '../suggest.ts';
import { checkedValue, valueSchema } from '../../runtime/value-schemas.ts';
import type { FieldDraft, ModelDraft, RefusedNames } from './drafts.ts';
import { fieldArguments } from './field-arguments.ts';
import { choiceHint, describeValue } from './hints.ts';
import type { ProblemList, Report } from './problem-list.ts';
import { ID_FIELD } from './reserved.ts';

export interface FieldReferenceContext {
  /** Every model by name (the first, when a name is used twice). */
  readonly modelsByName: ReadonlyMap<string, ModelDraft>;
  readonly roles: readonly string[];
  /** The modules the model's module depends on, directly or not. */
  readonly visibleModules: ReadonlySet<string>;
  /** Models and roles of refused definitions: references to them are not reported. */
  readonly refused: RefusedNames;
}

/** The governed select a model's `locked_in` names and its states, when they check out. */
export type LockedIn = { readonly field: string; readonly states: readonly string[] } | undefined;

export function checkFieldReferences(model: ModelDraft, context: FieldReferenceContext, problems: ProblemList): LockedIn {
  const source = model.module.source;
  const fieldNames = Object.keys(model.def.fields);
  const title = model.def.title;
  if (title !== undefined && title !== ID_FIELD && !fieldNames.includes(title)) {
    problems.at(source, { model: model.name })({
      code: 'unknown-title-field',
      message: `title "${title}" is not a field of ${model.name}`,
      fix: unknownNameHint(title, fieldNames, 'fields'),
    });
  } else if (title !== undefined && model.fields.find((field) => field.name === title)?.kind === 'file') {
    problems.at(source, { model: model.name })({ line: model.module.written.lineOf(['models', model.name, 'title']), code: 'title-not-for-kind', message: `title "${title}" is a file field: a record is named by text`, fix: 'name a text field as the title' });
  }

  for (const field of model.fields) checkReferences(model, field, problems.at(source, { model: model.name, field: field.name }), context, false);
  for (const list of model.lines) {
    const written = model.module.written;
    for (const field of list.fields) {
      const line = written.lineOf(['models', model.name, 'lines', list.name, 'fields', field.name]);
      const report = problems.at(source, { model: model.name, lines: list.name, field: field.name });
      checkReferences(model, field, (problem) => report({ line, ...problem }), context, true);
    }
  }
  checkIndexes(model, fieldNames, problems);
  checkList(model, fieldNames, problems);
  checkUniques(model, problems);
  checkRules(model, problems);
  return checkLockedIn(model, problems);
}

/** A field's ref target and its read and write roles. Old problems (model fields' refs and read roles) keep their form; the others carry a line. */
function checkReferences(model: ModelDraft, field: FieldDraft, report: Report, context: FieldReferenceContext, isLine: boolean): void {
  const source = model.module.source;
  const line = (key: string) => model.module.written.lineOf(['models', model.name, 'fields', field.name, key]);
  if (field.kind === 'ref') {
    const target = context.modelsByName.get(field.to);
    if (!target && context.refused.models.has(field.to)) {
      // The target's own problem says enough.
    } else if (!target && model.lines.some((list) => list.name === field.to)) {
      report({ code: 'ref-to-line-list', message: `ref to the line list ${field.to}: lines are not models`, fix: `make ${field.to} a model of its own to refer to its records` });
    } else if (!target) {
      report({ code: 'unknown-ref-target', message: `ref to unknown model "${field.to}"`, fix: unknownNameHint(field.to, [...context.modelsByName.keys()], 'models') });
    } else if (target.module !== model.module && !context.visibleModules.has(target.module.name)) {
      report({
        code: 'ref-outside-dependencies',
        message: `ref to model "${field.to}" of module ${target.module.name}, which module ${model.module.name} does not depend on`,
        fix: `add dependsOn: ['${target.module.name}'] to ${source}`,
      });
    }
  }
  for (const role of field.read ?? []) {
    if (!context.roles.includes(role) && !context.refused.roles.has(role)) report({ code: 'unknown-read-role', message: `read names unknown role "${role}"`, fix: unknownNameHint(role, context.roles, 'roles') });
  }
  for (const role of field.write ?? []) {
    if (context.roles.includes(role) || context.refused.roles.has(role)) continue;
    report({ code: 'unknown-write-role', line: isLine ? undefined : line('write'), message: `write names unknown role "${role}"`, fix: unknownNameHint(role, context.roles, 'roles') });
  }
}

/** What a model-level list names: a field of the model (not a line field), reported at its line. */
function namedField(model: ModelDraft, name: string): FieldDraft | undefined {
  return model.fields.find((field) => field.name === name);
}

/**
 * `unique`: known fields of the model (not longtext), each once, no index twice; `where` on known
 * fields with a value each of them can hold.
 */
function checkUniques(model: ModelDraft, problems: ProblemList): void {
  const fieldNames = Object.keys(model.def.fields);
  const seen = new Set<string>();
  for (const [i, entry] of (model.def.unique ?? []).entries()) {
    const line = model.module.written.lineOf(['models', model.name, 'unique', i]);
    const report: Report = (problem) => problems.at(model.module.source, { model: model.name })({ line, ...problem });
    const where = `unique[${i}]`;
    const fields = Array.isArray(entry) ? entry : entry.fields;
    const conditions = Array.isArray(entry) ? {} : (entry.where ?? {});
    for (const name of fields) {
      const field = namedField(model, name);
      if (!fieldNames.includes(name)) report({ code: 'unknown-unique-field', message: `${where} names unknown field "${name}"`, fix: unknownNameHint(name, fieldNames, 'fields') });
      else if (field?.kind === 'longtext' || field?.kind === 'file') report({ code: 'unique-not-for-kind', message: `${where}: unique is not for ${field.kind} fields (${name})`, fix: `remove ${name}` });
      else if (field?.personal && field.agents !== 'hidden') {
        // As `unique: true` on the field (read.ts): an agent writing a guess with the other
        // fields' values would learn from the refusal whether a record holds it.
        report({
          code: 'unique-personal',
          message: `${where} names personal field ${name}: a unique index on a personal field agents may write would tell an agent whether a value it wrote is held by another record`,
          fix: `remove ${name}, or add agents: 'hidden' to it`,
        });
      }
    }
    if (new Set(fields).size !== fields.length) report({ code: 'duplicate-unique', message: `${where} names a field twice`, fix: 'remove one' });
    for (const [name, value] of Object.entries(conditions)) {
      const field = namedField(model, name);
      if (!field) {
        if (!model.brokenFields.has(name)) report({ code: 'unknown-unique-field', message: `${where}: where names unknown field "${name}"`, fix: unknownNameHint(name, fieldNames, 'fields') });
        continue;
      }
      const checked = checkedValue(valueSchema(`${model.name}.${name}`, field.kind, fieldArguments(field)), value);
      if ('refused' in checked) {
        report({ code: 'invalid-unique-where', message: `${where}: where ${name}: ${describeValue(value)} is not a value of the field: ${checked.refused}`, fix: `write a ${field.kind} value` });
      }
    }
    const key = `${[...fields].join('\0')}\u0001${JSON.stringify(Object.entries(conditions).sort())}`;
    if (seen.has(key)) report({ code: 'duplicate-unique', message: `${where} is declared twice`, fix: 'remove one' });
    seen.add(key);
  }
}

/** `rules`: each names fields of the model (or its line lists). */
function checkRules(model: ModelDraft, problems: ProblemList): void {
  const names = [...new Set([...Object.keys(model.def.fields), ...Object.keys(model.def.lines ?? {})])];
  for (const [i, rule] of (model.def.rules ?? []).entries()) {
    const line = model.module.written.lineOf(['models', model.name, 'rules', i, 'fields']);
    for (const name of rule.fields) {
      if (names.includes(name) || model.brokenFields.has(name) || model.brokenLines.has(name)) continue;
      problems.at(model.module.source, { model: model.name })({ line, code: 'unknown-rule-field', message: `rules[${i}] names unknown field "${name}"`, fix: unknownNameHint(name, names, 'fields') });
    }
  }
}

/**
 * `locked_in`: states of the model's governed select — the only one, or the one named with
 * `{ field, states }`. Returns it when it checks out.
 */
function checkLockedIn(model: ModelDraft, problems: ProblemList): LockedIn {
  const declared = model.def.locked_in;
  if (declared === undefined) return undefined;
  const line = model.module.written.lineOf(['models', model.name, 'locked_in']);
  const report: Report = (problem) => problems.at(model.module.source, { model: model.name })({ line, ...problem });
  const governed = model.fields.filter((field) => field.kind === 'select' && field.governed === true);
  const fieldNames = Object.keys(model.def.fields);
  let name: string;
  if (Array.isArray(declared)) {
    const [only, ...others] = governed;
    if (only === undefined || others.length > 0) {
      if (only === undefined && model.brokenFields.size > 0) return undefined;
      report({
        code: 'locked-in-field-needed',
        message: only === undefined ? `locked_in names states, but ${model.name} has no governed field` : `locked_in names states, but ${model.name} has several governed fields`,
        detail: only === undefined ? undefined : governed.map((field) => field.name).join(', '),
        fix: only === undefined ? 'add governed: true to a select field' : `say which: locked_in: { field: '${only.name}', states: [...] }`,
      });
      return undefined;
    }
    name = only.name;
  } else {
    name = (declared as { readonly field: string }).field;
  }
  const states = Array.isArray(declared) ? (declared as readonly string[]) : (declared as { readonly states: readonly string[] }).states;
  const field = model.fields.find((candidate) => candidate.name === name);
  if (!field) {
    if (!model.brokenFields.has(name)) report({ code: 'unknown-locked-in-field', message: `locked_in names unknown field "${name}"`, fix: unknownNameHint(name, fieldNames, 'fields') });
    return undefined;
  }
  if (field.kind !== 'select' || field.governed !== true) {
    report({ code: 'unknown-locked-in-field', message: `locked_in names field ${name}, which is not a governed select`, fix: 'name a governed select field' });
    return undefined;
  }
  let valid = true;
  for (const state of states) {
    if (field.options.includes(state)) continue;
    valid = false;
    report({ code: 'unknown-state', message: `locked_in state "${state}" is not an option of field ${name}`, fix: choiceHint(state, field.options, 'options') });
  }
  return valid ? { field: name, states: [...new Set(states)] } : undefined;
}

/** `indexes`: lists of known fields, none longtext, none listed twice; no index declared twice. */
function checkIndexes(model: ModelDraft, fieldNames: readonly string[], problems: ProblemList): void {
  const report = problems.at(model.module.source, { model: model.name });
  const seen = new Set<string>();
  for (const [i, index] of (model.def.indexes ?? []).entries()) {
    const where = `indexes[${i}]`;
    if (index.length === 0) {
      report({ code: 'empty-index', message: `${where} names no field`, fix: "name the fields, e.g. ['stage', 'expected_revenue']" });
      continue;
    }
    for (const name of index) {
      const field = model.fields.find((candidate) => candidate.name === name);
      if (!fieldNames.includes(name)) report({ code: 'unknown-index-field', message: `${where} names unknown field "${name}"`, fix: unknownNameHint(name, fieldNames, 'fields') });
      else if (field?.kind === 'longtext') {
        problems.at(model.module.source, { model: model.name, field: name })({
          code: 'index-not-for-kind',
          message: `${where}: an index on a longtext field is refused: its values are too long to index`,
          fix: 'use search: true on the field to find text in it',
        });
      } else if (field?.kind === 'file') {
        problems.at(model.module.source, { model: model.name, field: name })({
          line: model.module.written.lineOf(['models', model.name, 'indexes', i]),
          code: 'index-not-for-kind',
          message: `${where}: an index on a file field is refused: records are not looked up by their files`,
          fix: `remove ${name}`,
        });
      }
    }
    if (new Set(index).size !== index.length) report({ code: 'duplicate-index', message: `${where} names a field twice`, fix: 'remove one' });
    const key = index.join('\0');
    if (seen.has(key)) report({ code: 'duplicate-index', message: `${where} is declared twice`, fix: 'remove one' });
    seen.add(key);
  }
}

/** `list`: known fields, each once. */
function checkList(model: ModelDraft, fieldNames: readonly string[], problems: ProblemList): void {
  const report = problems.at(model.module.source, { model: model.name });
  const seen = new Set<string>();
  for (const name of model.def.list ?? []) {
    if (!fieldNames.includes(name)) report({ code: 'unknown-list-field', message: `list names unknown field "${name}"`, fix: unknownNameHint(name, fieldNames, 'fields') });
    else if (seen.has(name)) report({ code: 'duplicate-list-field', message: `list names field "${name}" twice`, fix: 'remove one' });
    seen.add(name);
  }
}
