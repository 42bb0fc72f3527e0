/**
 * Stage 2: validate. Takes the raw definitions (the loader runs TypeScript without type
 * checking, so any shape may arrive), checks the shape with zod and then the meaning, and
 * returns one frozen IR with every default resolved. Every problem is collected and reported
 * at once, one line each, as `<file>: model <m>, field <f>: <what is wrong> (<how to fix it>)`.
 */
import { z } from 'zod';
import { FIELD_KINDS, GENERATED_COMMANDS, type FieldKind } from './define.ts';
import { RmsgenError } from './errors.ts';
import type { ActionIR, CommandIR, FieldIR, ModelIR, ModuleIR, ProjectIR, RoleIR } from './ir.ts';
import type { LoadedModule, LoadedModules } from './load.ts';
import { defaultLabel, IDENTIFIER, inSentence, MASK_LABEL, maskLabelOf, plural, withArticle } from './names.ts';
import { closest, unknownNameHint } from './suggest.ts';

const ADMIN = 'admin';

/**
 * Model names the service's own endpoints use as the first segment under `/api/`, with the
 * route shown in the error. A model of that name would collide with `POST /api/<model>/<command>`.
 */
export const RESERVED_MODEL_NAMES: Readonly<Record<string, string>> = {
  auth: '/api/auth/…',
  approve: '/api/approve/…',
  reject: '/api/reject/…',
  plans: '/api/plans',
  commands: '/api/commands',
  meta: '/api/meta',
  audit: '/api/audit',
};

/** The runtime's system tables (`rms_schema`, `rms_people`, …) start with this; a model's table is named after the model. */
export const SYSTEM_TABLE_PREFIX = 'rms_';

// ---------------------------------------------------------------------------------------------
// Shape schemas. Every leaf carries a "must be …" message; `describeIssue` adds the key path.

const str = z.string({ error: 'must be a string' });
const nonEmpty = str.min(1, { error: 'must not be empty' });
const bool = z.boolean({ error: 'must be true or false' });
const strList = z.array(str, { error: 'must be a list of strings' });
const record = z.record(z.string(), z.unknown(), { error: 'must be an object' });

const moduleShape = z.strictObject({
  label: nonEmpty.optional(),
  description: str.optional(),
  dependsOn: strList.optional(),
  models: record,
  roles: z.record(z.string(), record, { error: 'must be an object of roles, each { <model>: "*" | [commands] }' }).optional(),
});

const modelShape = z.strictObject({
  label: nonEmpty.optional(),
  description: str.optional(),
  title: str.optional(),
  fields: record,
  actions: record.optional(),
});

const fieldBase = {
  kind: str,
  label: nonEmpty.optional(),
  description: str.optional(),
  required: bool.optional(),
  personal: bool.optional(),
  read: strList.optional(),
  agents: z.enum(['visible', 'hidden'], { error: "must be 'visible' or 'hidden'" }).optional(),
};
const plainFieldShape = z.strictObject(fieldBase);
const selectFieldShape = z.strictObject({ ...fieldBase, options: strList, governed: bool.optional() });
const refFieldShape = z.strictObject({ ...fieldBase, to: nonEmpty });

/** Shape per kind, through a `Record<FieldKind, …>` so that a new kind must be handled here. */
const FIELD_SHAPES: Record<FieldKind, z.ZodObject> = {
  text: plainFieldShape,
  longtext: plainFieldShape,
  number: plainFieldShape,
  money: plainFieldShape,
  date: plainFieldShape,
  bool: plainFieldShape,
  select: selectFieldShape,
  ref: refFieldShape,
};

const actionShape = z.strictObject({
  description: nonEmpty,
  field: str.optional(),
  from: z.union([nonEmpty, z.array(nonEmpty).min(1)], { error: 'must be a state or a non-empty list of states' }),
  to: nonEmpty,
  required: strList.optional(),
  needs_approval: bool.optional(),
});

/** What to write when a key is missing. */
const MISSING_HINTS: Record<string, string> = {
  models: "add models: { <name>: { fields: {...} } }",
  fields: "add fields: { <name>: { kind: 'text' } }",
  options: "add options: ['first', 'second']",
  to: "add to: '<target model>'",
  description: "add description: 'What the action does'",
  from: "add from: '<state>' or from: ['<state>', ...]",
};

type Parsed<S extends z.ZodType> = z.output<S>;
type FieldShape = Parsed<typeof plainFieldShape> & { options?: string[]; governed?: boolean; to?: string };
type ActionShape = Parsed<typeof actionShape>;

function keyPath(path: readonly PropertyKey[]): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`)).join('');
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `"${value}"`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/** One line per zod issue, e.g. `"required" must be true or false (got "yes")`. */
function describeIssues(error: z.ZodError, allowedKeys: readonly string[]): string[] {
  const lines: string[] = [];
  for (const issue of error.issues) {
    const at = keyPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const suggestion = closest(key, allowedKeys);
        lines.push(`unknown key "${key}"${at ? ` in ${at}` : ''} (${suggestion ? `did you mean "${suggestion}"? ` : ''}valid keys: ${allowedKeys.join(', ')})`);
      }
      continue;
    }
    const input = (issue as { input?: unknown }).input;
    if (issue.code === 'invalid_type' && input === undefined) {
      const last = issue.path[issue.path.length - 1];
      const hint = MISSING_HINTS[String(last)];
      lines.push(`missing "${at}"${hint ? ` (${hint})` : ''}`);
      continue;
    }
    lines.push(`"${at}" ${issue.message}${input === undefined ? '' : ` (got ${describeValue(input)})`}`);
  }
  return lines;
}

function parse<S extends z.ZodType>(schema: S, value: unknown, allowedKeys: readonly string[], report: (line: string) => void): Parsed<S> | undefined {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  for (const line of describeIssues(result.error, allowedKeys)) report(line);
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalidName(what: string, name: string): string {
  return `invalid ${what} name "${name}" (use lower snake_case: a lowercase letter, then lowercase letters, digits and single underscores, e.g. "${suggestIdentifier(name)}")`;
}

function suggestIdentifier(name: string): string {
  const snake = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '');
  return snake === '' ? 'lead_item' : snake;
}

function orList(values: readonly string[]): string {
  return values.join(', ');
}

// ---------------------------------------------------------------------------------------------
// Drafts: what survived the shape checks, on the way to the IR.

interface FieldDraft {
  readonly name: string;
  readonly kind: FieldKind;
  readonly def: FieldShape;
}

interface ActionDraft {
  readonly name: string;
  readonly def: ActionShape;
}

interface ModelDraft {
  readonly name: string;
  readonly module: ModuleDraft;
  readonly def: Parsed<typeof modelShape>;
  readonly fields: FieldDraft[];
  /** Fields whose definition was refused; later checks stay quiet about them. */
  readonly brokenFields: Set<string>;
  readonly actions: ActionDraft[];
}

interface ModuleDraft {
  readonly name: string;
  readonly source: string;
  readonly def: Parsed<typeof moduleShape>;
  readonly models: ModelDraft[];
}

/** Collects problems, each prefixed with its location; `lines` groups them by file, in found order within a file. */
class Problems {
  private readonly found: { readonly file: string; readonly line: string }[] = [];
  at(file: string, ...location: (string | undefined)[]): (line: string) => void {
    const rest = location.filter((part): part is string => part !== undefined);
    const prefix = rest.length > 0 ? `${file}: ${rest.join(', ')}: ` : `${file}: `;
    const key = file.replace(/:\d+$/, '');
    return (line) => this.found.push({ file: key, line: prefix + line });
  }
  get lines(): string[] {
    const order = [...new Set(this.found.map((problem) => problem.file))].sort();
    return order.flatMap((file) => this.found.filter((problem) => problem.file === file).map((problem) => problem.line));
  }
}

// ---------------------------------------------------------------------------------------------

export function validate(loaded: LoadedModules): ProjectIR {
  const problems = new Problems();
  const modules: ModuleDraft[] = [];
  const moduleNames = loaded.modules.map((module) => module.name);

  for (const module of loaded.modules) {
    for (const duplicate of module.duplicateKeys) {
      problems.at(`${module.source}:${duplicate.line}`)(`key "${duplicate.key}" is written twice in one object (JavaScript silently keeps only the last one; rename or remove one)`);
    }
    const draft = readModule(module, problems);
    if (draft) modules.push(draft);
  }

  const modelsByName = new Map<string, ModelDraft>();
  for (const module of modules) {
    for (const model of module.models) {
      const first = modelsByName.get(model.name);
      if (first) {
        problems.at(module.source, `model ${model.name}`)(
          `name already used by a model of module ${first.module.name} (${first.module.source}); model names are shared by all modules, rename one`,
        );
      } else {
        modelsByName.set(model.name, model);
      }
    }
  }
  const modelNames = [...modelsByName.keys()];

  // Roles: every name granted anywhere, plus admin.
  const roleNames = new Set<string>([ADMIN]);
  for (const module of modules) for (const role of Object.keys(module.def.roles ?? {})) roleNames.add(role);
  const knownRoles = [ADMIN, ...[...roleNames].filter((role) => role !== ADMIN).sort()];

  // Module dependencies.
  const dependencies = new Map<string, string[]>();
  for (const module of modules) {
    const report = problems.at(module.source, 'dependsOn');
    const valid: string[] = [];
    for (const dependency of module.def.dependsOn ?? []) {
      if (dependency === module.name) report(`module ${module.name} depends on itself (remove "${dependency}")`);
      else if (!moduleNames.includes(dependency)) report(`unknown module "${dependency}" ${unknownNameHint(dependency, moduleNames.filter((name) => name !== module.name), 'modules')}`);
      else if (valid.includes(dependency)) report(`module "${dependency}" is listed twice (remove one)`);
      else valid.push(dependency);
    }
    dependencies.set(module.name, valid);
  }
  for (const cycle of findCycles(modules.map((module) => module.name), dependencies)) {
    const module = modules.find((candidate) => candidate.name === cycle[0]);
    if (module) problems.at(module.source, 'dependsOn')(`cyclic module dependency ${cycle.join(' → ')} (remove one of these dependsOn entries)`);
  }
  const reachable = (from: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [...(dependencies.get(from) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(dependencies.get(next) ?? []));
    }
    return seen;
  };

  // Models, fields and actions.
  for (const module of modules) {
    const visible = reachable(module.name);
    for (const model of module.models) checkModel(model, { modelsByName, modelNames, knownRoles, visible, problems });
  }

  // Role grants.
  for (const module of modules) checkRoles(module, modelsByName, problems);

  const lines = problems.lines;
  if (lines.length > 0) throw new RmsgenError('invalid-definition', lines);
  return freeze(buildProject(loaded.dirName, modules, dependencies, modelsByName, knownRoles));
}

// ---------------------------------------------------------------------------------------------

function readModule(module: LoadedModule, problems: Problems): ModuleDraft | undefined {
  const report = problems.at(module.source);
  if (!IDENTIFIER.test(module.name)) report(`${invalidName('module', module.name)}; the folder name is the module name, rename the folder`);
  if (!isPlainObject(module.definition)) {
    report(`the default export must be an object (write \`export default defineModule({ models: {...} })\`; got ${describeValue(module.definition)})`);
    return undefined;
  }
  const def = parse(moduleShape, module.definition, Object.keys(moduleShape.shape), report);
  if (!def) return undefined;
  const draft: ModuleDraft = { name: module.name, source: module.source, def, models: [] };
  for (const [name, raw] of Object.entries(def.models)) {
    const model = readModel(draft, name, raw, problems);
    if (model) draft.models.push(model);
  }
  return draft;
}

function readModel(module: ModuleDraft, name: string, raw: unknown, problems: Problems): ModelDraft | undefined {
  const report = problems.at(module.source, `model ${name}`);
  if (!IDENTIFIER.test(name)) report(invalidName('model', name));
  else if (Object.hasOwn(RESERVED_MODEL_NAMES, name)) {
    report(`the name is reserved by the service's own endpoints (${RESERVED_MODEL_NAMES[name]}); choose another`);
  } else if (name.startsWith(SYSTEM_TABLE_PREFIX)) {
    report(`names starting with ${SYSTEM_TABLE_PREFIX} are reserved for the runtime's system tables (the model's table takes its name); choose another`);
  }
  if (!isPlainObject(raw)) {
    report(`must be an object (write ${name}: { fields: {...} }; got ${describeValue(raw)})`);
    return undefined;
  }
  const def = parse(modelShape, raw, Object.keys(modelShape.shape), report);
  if (!def) return undefined;
  const model: ModelDraft = { name, module, def, fields: [], brokenFields: new Set(), actions: [] };
  for (const [fieldName, fieldRaw] of Object.entries(def.fields)) {
    const field = readField(module.source, name, fieldName, fieldRaw, problems);
    if (field) model.fields.push(field);
    else model.brokenFields.add(fieldName);
  }
  for (const [actionName, actionRaw] of Object.entries(def.actions ?? {})) {
    const reportAction = problems.at(module.source, `model ${name}`, `action ${actionName}`);
    if (!IDENTIFIER.test(actionName)) reportAction(invalidName('action', actionName));
    if (!isPlainObject(actionRaw)) {
      reportAction(`must be an object (write ${actionName}: { description, from, to }; got ${describeValue(actionRaw)})`);
      continue;
    }
    const action = parse(actionShape, actionRaw, Object.keys(actionShape.shape), reportAction);
    if (action) model.actions.push({ name: actionName, def: action });
  }
  return model;
}

function readField(source: string, model: string, name: string, raw: unknown, problems: Problems): FieldDraft | undefined {
  const report = problems.at(source, `model ${model}`, `field ${name}`);
  if (!IDENTIFIER.test(name)) report(invalidName('field', name));
  if (name === 'id') report('"id" is reserved for the record id every model has (remove the field, or rename it)');
  if (!isPlainObject(raw)) {
    report(`must be an object (write ${name}: { kind: 'text' }; got ${describeValue(raw)})`);
    return undefined;
  }
  const kind = raw.kind;
  if (kind === undefined) {
    report(`missing "kind" (add kind: one of ${orList(FIELD_KINDS)})`);
    return undefined;
  }
  if (typeof kind !== 'string' || !(FIELD_KINDS as readonly string[]).includes(kind)) {
    const suggestion = typeof kind === 'string' ? closest(kind, FIELD_KINDS) : undefined;
    report(`unknown kind ${describeValue(kind)} (${suggestion ? `did you mean "${suggestion}"? ` : ''}valid kinds: ${orList(FIELD_KINDS)})`);
    return undefined;
  }
  const fieldKind = kind as FieldKind;
  // Checked before the shape so that the message says what to do, not just "unknown key".
  if (raw.governed !== undefined && fieldKind !== 'select') {
    report(`governed is only for select fields (make it kind: 'select' with options, or remove governed)`);
  }
  if (raw.options !== undefined && fieldKind !== 'select') report(`options are only for select fields (make it kind: 'select', or remove options)`);
  if (raw.to !== undefined && fieldKind !== 'ref') report(`to is only for ref fields (make it kind: 'ref', or remove to)`);
  if (raw.personal === true && fieldKind !== 'text' && fieldKind !== 'longtext') {
    report(`personal is only for text and longtext fields (remove personal, or make the field text)`);
  }
  const shape = FIELD_SHAPES[fieldKind];
  const known = new Set(['governed', 'options', 'to']);
  const rest = Object.fromEntries(Object.entries(raw).filter(([key]) => !(known.has(key) && !(key in shape.shape))));
  const def = parse(shape, rest, Object.keys(shape.shape), report) as FieldShape | undefined;
  if (!def) return undefined;
  if (fieldKind === 'select') {
    const options = def.options ?? [];
    if (options.length === 0) report(`select has no options (add options: ['first', 'second'])`);
    const seen = new Set<string>();
    for (const option of options) {
      if (option === '') report(`select option "" is empty (remove it)`);
      else if (seen.has(option)) report(`select option "${option}" is listed twice (remove one)`);
      seen.add(option);
    }
  }
  if (def.personal) {
    const label = def.label ?? defaultLabel(name);
    const maskLabel = maskLabelOf(label);
    if (!MASK_LABEL.test(maskLabel)) {
      report(
        `personal field label "${label}" gives the masking token prefix "${maskLabel}", which must be A-Z, 0-9 and _ starting with a letter (use a label of plain letters, digits, spaces or hyphens, e.g. label: '${defaultLabel(name)}')`,
      );
    }
  }
  return { name, kind: fieldKind, def };
}

interface ModelContext {
  readonly modelsByName: ReadonlyMap<string, ModelDraft>;
  readonly modelNames: readonly string[];
  readonly knownRoles: readonly string[];
  /** Modules this model's module depends on, directly or not. */
  readonly visible: ReadonlySet<string>;
  readonly problems: Problems;
}

function checkModel(model: ModelDraft, context: ModelContext): void {
  const { problems } = context;
  const source = model.module.source;
  const fieldNames = Object.keys(model.def.fields);
  const fields = new Map(model.fields.map((field) => [field.name, field]));

  if (model.def.title !== undefined && model.def.title !== 'id' && !fieldNames.includes(model.def.title)) {
    problems.at(source, `model ${model.name}`)(`title "${model.def.title}" is not a field of ${model.name} ${unknownNameHint(model.def.title, fieldNames, 'fields')}`);
  }

  for (const field of model.fields) {
    const report = problems.at(source, `model ${model.name}`, `field ${field.name}`);
    if (field.kind === 'ref' && field.def.to !== undefined) {
      const target = field.def.to;
      const targetModel = context.modelsByName.get(target);
      if (!targetModel) {
        report(`ref to unknown model "${target}" ${unknownNameHint(target, context.modelNames, 'models')}`);
      } else if (targetModel.module !== model.module && !context.visible.has(targetModel.module.name)) {
        report(
          `ref to model "${target}" of module ${targetModel.module.name}, which module ${model.module.name} does not depend on (add dependsOn: ['${targetModel.module.name}'] to ${source})`,
        );
      }
    }
    for (const role of field.def.read ?? []) {
      if (!context.knownRoles.includes(role)) report(`read names unknown role "${role}" ${unknownNameHint(role, context.knownRoles, 'roles')}`);
    }
  }

  const governed = model.fields.filter((field) => field.kind === 'select' && field.def.governed === true);
  for (const action of model.actions) {
    const report = problems.at(source, `model ${model.name}`, `action ${action.name}`);
    if ((GENERATED_COMMANDS as readonly string[]).includes(action.name)) {
      report(`name collides with the generated command ${model.name}.${action.name} (rename the action)`);
    }
    let fieldName = action.def.field;
    if (fieldName === undefined) {
      if (governed.length === 1) fieldName = governed[0]?.name;
      else if (governed.length === 0) {
        if (model.brokenFields.size === 0) report(`${model.name} has no governed field for the action to move (add governed: true to a select field)`);
        continue;
      } else {
        report(`${model.name} has several governed fields (${governed.map((field) => field.name).join(', ')}); say which one the action moves, e.g. field: '${governed[0]?.name}'`);
        continue;
      }
    }
    if (fieldName === undefined) continue;
    const moved = fields.get(fieldName);
    if (!moved) {
      if (!model.brokenFields.has(fieldName)) report(`moves unknown field "${fieldName}" ${unknownNameHint(fieldName, fieldNames, 'fields')}`);
    } else if (moved.kind !== 'select' || moved.def.governed !== true) {
      report(
        moved.kind === 'select'
          ? `moves field ${fieldName}, which is not governed (add governed: true to field ${fieldName})`
          : `moves field ${fieldName}, which is a ${moved.kind} field; actions move governed select fields (name a governed select field)`,
      );
    } else {
      const options = moved.def.options ?? [];
      const from = typeof action.def.from === 'string' ? [action.def.from] : action.def.from;
      for (const state of from) {
        if (!options.includes(state)) report(`from state "${state}" is not an option of field ${fieldName} ${stateHint(state, options)}`);
      }
      if (!options.includes(action.def.to)) report(`to state "${action.def.to}" is not an option of field ${fieldName} ${stateHint(action.def.to, options)}`);
    }
    const seen = new Set<string>();
    for (const input of action.def.required ?? []) {
      if (seen.has(input)) report(`required input "${input}" is listed twice (remove one)`);
      seen.add(input);
      const inputField = fields.get(input);
      if (!inputField) {
        if (!model.brokenFields.has(input)) report(`required input "${input}" is not a field of ${model.name} ${unknownNameHint(input, fieldNames, 'fields')}`);
      } else if (inputField.kind === 'select' && inputField.def.governed) {
        report(`required input "${input}" is a governed field, which only actions change (remove it from required)`);
      }
    }
  }
}

function stateHint(state: string, options: readonly string[]): string {
  const suggestion = closest(state, options);
  return `(${suggestion ? `did you mean "${suggestion}"? ` : ''}options: ${orList(options)})`;
}

function checkRoles(module: ModuleDraft, modelsByName: ReadonlyMap<string, ModelDraft>, problems: Problems): void {
  const ownModels = module.models.map((model) => model.name);
  for (const [role, grants] of Object.entries(module.def.roles ?? {})) {
    const report = problems.at(module.source, `role ${role}`);
    if (!IDENTIFIER.test(role)) report(invalidName('role', role));
    if (role === ADMIN) {
      report(`admin is built in and may use every command (remove this grant)`);
      continue;
    }
    for (const [modelName, grant] of Object.entries(grants)) {
      const model = modelsByName.get(modelName);
      if (!model) {
        report(`grant on unknown model "${modelName}" ${unknownNameHint(modelName, ownModels, 'models of this module')}`);
        continue;
      }
      if (model.module !== module) {
        report(`grant on model "${modelName}" of module ${model.module.name} (grant it in ${model.module.source}, where ${modelName} is defined)`);
        continue;
      }
      const reportModel = problems.at(module.source, `role ${role}`, `model ${modelName}`);
      if (grant === '*') continue;
      if (!Array.isArray(grant) || grant.some((command) => typeof command !== 'string')) {
        reportModel(`grant must be '*' or a list of command names (got ${describeValue(grant)})`);
        continue;
      }
      const commands = [...new Set([...GENERATED_COMMANDS, ...model.actions.map((action) => action.name)])];
      for (const command of grant as string[]) {
        if (!commands.includes(command)) {
          const suggestion = closest(command, commands);
          reportModel(`unknown command "${command}" (${suggestion ? `did you mean "${suggestion}"? ` : ''}commands of ${modelName}: ${orList(commands)})`);
        }
      }
    }
  }
}

/** Each cycle once, as `a → b → a`, starting at its smallest module name. */
function findCycles(names: readonly string[], dependencies: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): void => {
    state.set(name, 'visiting');
    stack.push(name);
    for (const next of dependencies.get(name) ?? []) {
      if (state.get(next) === 'visiting') {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0] as string);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(rotated.join(' '), [...rotated, rotated[0] as string]);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(name, 'done');
  };
  for (const name of names) if (!state.has(name)) visit(name);
  return [...cycles.values()];
}

// ---------------------------------------------------------------------------------------------
// IR construction (only reached when nothing is wrong).

function buildProject(
  dirName: string,
  modules: readonly ModuleDraft[],
  dependencies: ReadonlyMap<string, readonly string[]>,
  modelsByName: ReadonlyMap<string, ModelDraft>,
  knownRoles: readonly string[],
): ProjectIR {
  const ordered = dependencyOrder(modules, dependencies);
  const orderedModels = ordered.flatMap((module) => modelOrder(module));
  const referencedBy = new Map<string, { model: string; field: string }[]>();
  for (const model of orderedModels) {
    for (const field of model.fields) {
      if (field.kind !== 'ref' || field.def.to === undefined) continue;
      const list = referencedBy.get(field.def.to) ?? [];
      list.push({ model: model.name, field: field.name });
      referencedBy.set(field.def.to, list);
    }
  }
  const moduleIRs: ModuleIR[] = ordered.map((module) => ({
    name: module.name,
    label: module.def.label ?? defaultLabel(module.name),
    description: module.def.description ?? '',
    dependsOn: dependencies.get(module.name) ?? [],
    source: module.source,
    models: modelOrder(module).map((model) => buildModel(model, referencedBy.get(model.name) ?? [])),
    declaredModels: module.models.map((model) => model.name),
  }));
  const catalogue = moduleIRs.flatMap((module) => module.models.flatMap((model) => model.commands.map((command) => command.id)));
  const granted = new Map<string, Set<string>>();
  for (const module of modules) {
    for (const [role, grants] of Object.entries(module.def.roles ?? {})) {
      const set = granted.get(role) ?? new Set<string>();
      for (const [modelName, grant] of Object.entries(grants)) {
        const model = modelsByName.get(modelName);
        if (!model) continue;
        const names = grant === '*' ? [...GENERATED_COMMANDS, ...model.actions.map((action) => action.name)] : (grant as string[]);
        for (const name of names) set.add(`${modelName}.${name}`);
      }
      granted.set(role, set);
    }
  }
  const roles: RoleIR[] = knownRoles.map((role) => ({
    name: role,
    commands: role === ADMIN ? catalogue : catalogue.filter((id) => granted.get(role)?.has(id)),
  }));
  return { modules: moduleIRs, roles, modulesDirName: dirName };
}

/** Modules with their dependencies first; ties by name. */
function dependencyOrder(modules: readonly ModuleDraft[], dependencies: ReadonlyMap<string, readonly string[]>): ModuleDraft[] {
  const byName = new Map(modules.map((module) => [module.name, module]));
  const done = new Set<string>();
  const result: ModuleDraft[] = [];
  const visit = (module: ModuleDraft): void => {
    if (done.has(module.name)) return;
    done.add(module.name);
    for (const dependency of [...(dependencies.get(module.name) ?? [])].sort()) {
      const target = byName.get(dependency);
      if (target) visit(target);
    }
    result.push(module);
  };
  for (const module of [...modules].sort((a, b) => a.name.localeCompare(b.name))) visit(module);
  return result;
}

/** A module's models with the targets of their refs first, otherwise in declaration order. */
function modelOrder(module: ModuleDraft): ModelDraft[] {
  const byName = new Map(module.models.map((model) => [model.name, model]));
  const done = new Set<string>();
  const result: ModelDraft[] = [];
  const visit = (model: ModelDraft): void => {
    if (done.has(model.name)) return;
    done.add(model.name);
    for (const field of model.fields) {
      const target = field.kind === 'ref' && field.def.to !== undefined ? byName.get(field.def.to) : undefined;
      if (target) visit(target);
    }
    result.push(model);
  };
  for (const model of module.models) visit(model);
  return result;
}

function buildModel(model: ModelDraft, referencedBy: readonly { model: string; field: string }[]): ModelIR {
  const label = model.def.label ?? defaultLabel(model.name);
  const fields: FieldIR[] = model.fields.map(({ name, kind, def }) => {
    const fieldLabel = def.label ?? defaultLabel(name);
    return {
      name,
      kind,
      label: fieldLabel,
      description: def.description ?? '',
      required: def.required === true,
      personal: def.personal === true,
      maskLabel: def.personal === true ? maskLabelOf(fieldLabel) : undefined,
      governed: kind === 'select' && def.governed === true,
      options: kind === 'select' ? (def.options ?? []) : [],
      target: kind === 'ref' ? def.to : undefined,
      readRoles: def.read === undefined ? undefined : [...new Set(def.read)].filter((role) => role !== ADMIN),
      hiddenFromAgents: def.agents === 'hidden',
    };
  });
  const governed = fields.filter((field) => field.governed);
  const actions: ActionIR[] = model.actions.map(({ name, def }) => ({
    name,
    description: def.description,
    field: def.field ?? governed[0]?.name ?? '',
    from: typeof def.from === 'string' ? [def.from] : def.from,
    to: def.to,
    required: def.required ?? [],
    needsApproval: def.needs_approval === true,
  }));
  const phrase = inSentence(label);
  const generated: Record<(typeof GENERATED_COMMANDS)[number], string> = {
    get: `Read one ${phrase} by id`,
    list: `List ${plural(phrase)} with optional filter, order and paging`,
    search: `Search ${plural(phrase)}; returns matching rows and their total count`,
    create: `Create ${withArticle(phrase)}`,
    update: `Update fields of ${withArticle(phrase)}`,
    delete: `Delete ${withArticle(phrase)} (agents can only propose this)`,
  };
  const commands: CommandIR[] = [
    ...GENERATED_COMMANDS.map((name) => ({
      id: `${model.name}.${name}`,
      model: model.name,
      name,
      kind: name,
      description: generated[name],
      needsApproval: name === 'delete',
      action: undefined,
    })),
    ...actions.map((action) => ({
      id: `${model.name}.${action.name}`,
      model: model.name,
      name: action.name,
      kind: 'action' as const,
      description: action.description,
      needsApproval: action.needsApproval,
      action,
    })),
  ];
  const titleField =
    model.def.title ?? fields.find((field) => field.kind === 'text' && field.required)?.name ?? fields.find((field) => field.kind === 'text')?.name ?? 'id';
  return {
    name: model.name,
    module: model.module.name,
    label,
    description: model.def.description ?? '',
    titleField,
    fields,
    actions,
    commands,
    referencedBy,
  };
}

function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) freeze(child);
  }
  return value;
}
