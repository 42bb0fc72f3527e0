/**
 * The validated intermediate representation. `validate()` resolves every default once, so
 * the emitters read only this: no optional fields to re-default, no names to re-check.
 * Everything in it is deeply frozen.
 */
import type { CommandKind, FieldKind } from '../runtime/api-shapes.ts';

// Declared once, with the API's shapes (runtime/api-shapes.ts), which the runtime and the web app import too.
export type { CommandKind, FieldKind };

/**
 * Fields are tagged by `kind`: what only some kinds have (a select's options, a ref's target, a
 * personal text field's mask label) exists only on those, so emitters read it without fallbacks.
 * `personal` and `governed` are on every field, `false` where the kind cannot have them, so that
 * filters over all fields stay plain (`fields.filter((field) => field.personal)`).
 */
interface FieldIRBase {
  readonly name: string;
  readonly label: string;
  /** The definition's description, or `''`. */
  readonly description: string;
  readonly required: boolean;
  /** Roles that may read the field besides admin; undefined = every role that may use the model. */
  readonly readRoles: readonly string[] | undefined;
  readonly hiddenFromAgents: boolean;
  /** Declared `index: true` (refs and governed selects are indexed anyway). */
  readonly index: boolean;
  /** No two records hold the same value. */
  readonly unique: boolean;
}

interface TextFieldIRBase extends FieldIRBase {
  readonly kind: 'text' | 'longtext';
  readonly governed: false;
  /** A trigram index that `contains` uses. */
  readonly search: boolean;
}

export interface UnmaskedTextFieldIR extends TextFieldIRBase {
  readonly personal: false;
}

/** Personal data (only text and longtext may be): agents see masking tokens like `NAME_1`. */
export interface PersonalFieldIR extends TextFieldIRBase {
  readonly personal: true;
  /** Token prefix (`Expected revenue` → `EXPECTED_REVENUE`). */
  readonly maskLabel: string;
}

export type TextFieldIR = UnmaskedTextFieldIR | PersonalFieldIR;

export interface PlainFieldIR extends FieldIRBase {
  readonly kind: 'number' | 'date' | 'bool';
  readonly personal: false;
  readonly governed: false;
}

export interface MoneyFieldIR extends FieldIRBase {
  readonly kind: 'money';
  readonly personal: false;
  readonly governed: false;
  /** ISO 4217 code (the field's, else its module's), or undefined. */
  readonly currency: string | undefined;
}

export interface SelectFieldIR extends FieldIRBase {
  readonly kind: 'select';
  readonly personal: false;
  /** Changed only through actions; a new record starts at the first option. */
  readonly governed: boolean;
  /** In order; never empty. */
  readonly options: readonly [string, ...string[]];
}

export interface RefFieldIR extends FieldIRBase {
  readonly kind: 'ref';
  readonly personal: false;
  readonly governed: false;
  /** The target model. */
  readonly target: string;
}

/** The field type of each kind (a missing kind fails to compile at `FieldIR` below). */
export interface FieldIRByKind {
  readonly text: TextFieldIR;
  readonly longtext: TextFieldIR;
  readonly number: PlainFieldIR;
  readonly money: MoneyFieldIR;
  readonly date: PlainFieldIR;
  readonly bool: PlainFieldIR;
  readonly select: SelectFieldIR;
  readonly ref: RefFieldIR;
}

export type FieldIR = FieldIRByKind[FieldKind];

/** Something worked out per field kind, each entry getting the field type of its kind: a `Record<FieldKind, …>` for fields. */
export type FieldKindTable<T> = { readonly [K in FieldKind]: (field: FieldIRByKind[K]) => T };

/** The table's entry for the field's kind, applied to the field. */
export function forFieldKind<T>(table: FieldKindTable<T>, field: FieldIR): T {
  return applyEntry(table, field.kind, field);
}

// Generic in the kind so that TypeScript relates `table[kind]` to the field's type; called only with a field and its own kind.
function applyEntry<K extends FieldKind, T>(table: FieldKindTable<T>, kind: K, field: FieldIRByKind[K]): T {
  return table[kind](field);
}

export interface ActionIR {
  readonly name: string;
  readonly description: string;
  /** The governed select field it moves: the one named, or the model's only governed field. */
  readonly field: string;
  /** The states (options of that field) the record must be in; at least one. */
  readonly from: readonly string[];
  /** The state it moves to, an option of that field. */
  readonly to: string;
  /** Fields of the model (not governed ones) the caller must give. */
  readonly required: readonly string[];
  readonly needsApproval: boolean;
}

interface CommandIRBase {
  /** `<model>.<name>`. */
  readonly id: string;
  readonly model: string;
  readonly name: string;
  readonly description: string;
  readonly needsApproval: boolean;
}

/** get, list, search, create, update or delete: every model has them. */
export interface GeneratedCommandIR extends CommandIRBase {
  readonly kind: Exclude<CommandKind, 'action'>;
  readonly action: undefined;
}

export interface ActionCommandIR extends CommandIRBase {
  readonly kind: 'action';
  readonly action: ActionIR;
}

export type CommandIR = GeneratedCommandIR | ActionCommandIR;

export interface ModelIR {
  readonly name: string;
  readonly module: string;
  readonly label: string;
  readonly description: string;
  readonly titleField: string;
  /** Declaration order. */
  readonly fields: readonly FieldIR[];
  readonly actions: readonly ActionIR[];
  /** get, list, search, create, update, delete, then the actions. */
  readonly commands: readonly CommandIR[];
  /** Ref fields (of any model) pointing at this model, in model then field order. */
  readonly referencedBy: readonly { readonly model: string; readonly field: string }[];
  /** Indexes over several fields (`indexes`), each in index order. */
  readonly indexes: readonly (readonly string[])[];
  /** The fields a list shows by default besides the title (`list`); empty: the web app chooses. */
  readonly list: readonly string[];
}

export interface ModuleIR {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly dependsOn: readonly string[];
  /** The module file as named in banners and errors, e.g. `modules/crm/module.ts`. */
  readonly source: string;
  /** Models in dependency order within the module (ref targets first). */
  readonly models: readonly ModelIR[];
  /** Model names in declaration order. */
  readonly declaredModels: readonly string[];
  /** What the module grants: per role and model (its own or of a module it depends on), the command names (`*` for all). */
  readonly grants: readonly { readonly role: string; readonly model: string; readonly commands: readonly string[] }[];
}

export interface RoleIR {
  readonly name: string;
  /** Command ids in catalogue order. */
  readonly commands: readonly string[];
}

export interface ProjectIR {
  /** Modules in dependency order. */
  readonly modules: readonly ModuleIR[];
  /** `admin` first, then the other roles by name. */
  readonly roles: readonly RoleIR[];
  /** The modules folder as named in banners, e.g. `modules`. */
  readonly modulesDirName: string;
}

/** Every model of the project in dependency order. */
export function allModels(project: ProjectIR): readonly ModelIR[] {
  return project.modules.flatMap((module) => module.models);
}

/** Every command of the project in catalogue order. */
export function allCommands(project: ProjectIR): readonly CommandIR[] {
  return allModels(project).flatMap((model) => model.commands);
}
