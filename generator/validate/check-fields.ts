/** A model's references by name: its title to one of its fields, ref fields to models it may see, read rights to known roles. */
import { unknownNameHint } from '../suggest.ts';
import type { ModelDraft, RefusedNames } from './drafts.ts';
import type { ProblemList } from './problem-list.ts';
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

export function checkFieldReferences(model: ModelDraft, context: FieldReferenceContext, problems: ProblemList): void {
  const source = model.module.source;
  const fieldNames = Object.keys(model.def.fields);
  const title = model.def.title;
  if (title !== undefined && title !== ID_FIELD && !fieldNames.includes(title)) {
    problems.at(source, { model: model.name })({
      code: 'unknown-title-field',
      message: `title "${title}" is not a field of ${model.name}`,
      fix: unknownNameHint(title, fieldNames, 'fields'),
    });
  }

  for (const field of model.fields) {
    const report = problems.at(source, { model: model.name, field: field.name });
    if (field.kind === 'ref') {
      const target = context.modelsByName.get(field.to);
      if (!target && context.refused.models.has(field.to)) {
        // The target's own problem says enough.
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
  }
  checkIndexes(model, fieldNames, problems);
  checkList(model, fieldNames, problems);
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
