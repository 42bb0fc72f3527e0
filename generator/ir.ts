/**
 * The validated intermediate representation. `validate()` resolves every default once, so
 * the emitters read only this: no optional fields to re-default, no names to re-check.
 * Everything in it is deeply frozen.
 */
import type { ActionSet, CommandKind, FieldDefault, FieldKind } from '../runtime/api-shapes.ts';
import type { ReferringField } from '../runtime/registry.ts';

export type { ReferringField };

// Declared once, with the API's shapes (runtime/api-shapes.ts), which the runtime and the web app import too.
export type { ActionSet, CommandKind, FieldDefault, FieldKind };

/**
 * A function of the module file the generator copies into generated code (a computed field's, a
 * rule's check): its text as written, and where it is in the module file, so that what the type
 * checker says about the copy is reported at the module's line.
 */
export interface LogicSource {
  /** The function as copied (see `FunctionSource` in definition-source.ts). */
  readonly text: string;
  /** Characters at the start of `text` that are not in the module file. */
  readonly prefix: number;
  /** Where the rest of `text` starts in the module file (1-based). */
  readonly line: number;
  readonly column: number;
  /** The module file's lines it is written on, whole. */
  readonly writtenLines: readonly string[];
}

/**
 * Fields are tagged by `kind`: what only some kinds have (a select's options, a ref's target, a
 * decimal's scale, a text's length and pattern) exists only on those, so emitters read it without
 * fallbacks. `personal` and `governed` are on every field, `false` where the field is not, so that
 * filters over all fields stay plain (`fields.filter((field) => field.personal)`); a personal
 * field, of any kind, has its `maskLabel`.
 */
interface FieldIRBase {
  readonly name: string;
  readonly label: string;
  /** The definition's description, or `''`. */
  readonly description: string;
  readonly required: boolean;
  /** Roles that may read the field besides admin; undefined = every role that may use the model. */
  readonly readRoles: readonly string[] | undefined;
  /** Roles that may write the field besides admin; undefined = whoever may read it. */
  readonly writeRoles: readonly string[] | undefined;
  readonly hiddenFromAgents: boolean;
  /** Declared `index: true` (refs and governed selects are indexed anyway). */
  readonly index: boolean;
  /** No two records hold the same value. */
  readonly unique: boolean;
  /** The value a create gives the field when its input has none, checked against the field's kind and checks. */
  readonly default: FieldDefault | undefined;
  /** Worked out by this function of the module file on every write; never written by callers. */
  readonly computed: LogicSource | undefined;
}

/** Personal data (any kind may be): agents see masking tokens like `NAME_1`. */
export type Masking =
  | {
      readonly personal: true;
      /** Token prefix (`Expected revenue` → `EXPECTED_REVENUE`). */
      readonly maskLabel: string;
    }
  | { readonly personal: false };

/** `length` and `pattern` of the text kinds. */
interface TextChecks {
  /** The most characters the module allows (its own error, besides the storage limit). */
  readonly length: number | undefined;
  /** A regular expression the whole value must match, as written. */
  readonly pattern: string | undefined;
}

/** `min` and `max` (numbers in the field's JSON unit: minor units for money; date and datetime strings). */
interface RangeChecks<T> {
  readonly min: T | undefined;
  readonly max: T | undefined;
}

export type TextFieldIR = FieldIRBase &
  TextChecks &
  Masking & {
    readonly kind: 'text' | 'longtext';
    readonly governed: false;
    /** A trigram index that `contains` uses. */
    readonly search: boolean;
  };

/** Email addresses, URLs and phone numbers: text of a form the runtime checks. */
export type FormattedTextFieldIR = FieldIRBase & TextChecks & Masking & { readonly kind: 'email' | 'url' | 'phone'; readonly governed: false };

export type NumberFieldIR = FieldIRBase & RangeChecks<number> & Masking & { readonly kind: 'number'; readonly governed: false };

export type MoneyFieldIR = FieldIRBase &
  RangeChecks<number> &
  Masking & {
    readonly kind: 'money';
    readonly governed: false;
    /** ISO 4217 code (the field's, else its module's), or undefined. */
    readonly currency: string | undefined;
  };

export type DecimalFieldIR = FieldIRBase &
  RangeChecks<number> &
  Masking & {
    readonly kind: 'decimal';
    readonly governed: false;
    /** Decimals, 0 to 6: stored as the value × 10^scale. */
    readonly scale: number;
  };

/** A date (`YYYY-MM-DD`) or a datetime (its bounds in the UTC form the runtime keeps). */
export type DateFieldIR = FieldIRBase & RangeChecks<string> & Masking & { readonly kind: 'date' | 'datetime'; readonly governed: false };

export type BoolFieldIR = FieldIRBase & Masking & { readonly kind: 'bool'; readonly governed: false };

export type SelectFieldIR = FieldIRBase &
  Masking & {
    readonly kind: 'select';
    /** Changed only through actions; a new record starts at the first option. */
    readonly governed: boolean;
    /** In order; never empty. */
    readonly options: readonly [string, ...string[]];
  };

export type MultiselectFieldIR = FieldIRBase &
  Masking & {
    readonly kind: 'multiselect';
    readonly governed: false;
    /** In order, each once; never empty. */
    readonly options: readonly [string, ...string[]];
  };

export type RefFieldIR = FieldIRBase &
  Masking & {
    readonly kind: 'ref';
    readonly governed: false;
    /** The target model. */
    readonly target: string;
  };

export type FileFieldIR = FieldIRBase &
  Masking & {
    readonly kind: 'file';
    readonly governed: false;
    /** A list of files instead of one. */
    readonly multiple: boolean;
    /** Media types (`image/*` for a family) a file must have; empty: any. */
    readonly accept: readonly string[];
    /** The largest file in bytes; undefined: the server's limit. */
    readonly maxSize: number | undefined;
  };

/** The field type of each kind (a missing kind fails to compile at `FieldIR` below). */
export interface FieldIRByKind {
  readonly text: TextFieldIR;
  readonly longtext: TextFieldIR;
  readonly number: NumberFieldIR;
  readonly money: MoneyFieldIR;
  readonly date: DateFieldIR;
  readonly bool: BoolFieldIR;
  readonly select: SelectFieldIR;
  readonly ref: RefFieldIR;
  readonly decimal: DecimalFieldIR;
  readonly datetime: DateFieldIR;
  readonly email: FormattedTextFieldIR;
  readonly url: FormattedTextFieldIR;
  readonly phone: FormattedTextFieldIR;
  readonly multiselect: MultiselectFieldIR;
  readonly file: FileFieldIR;
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
  /** Fields of the model (not governed ones) the caller must give: the required inputs that are fields. */
  readonly required: readonly string[];
  readonly needsApproval: boolean;
  /** What it takes besides the record's id, in declaration order (`required` fields first, then `input`). */
  readonly inputs: readonly ActionInputIR[];
  /** The fields it sets when it runs, in declaration order. */
  readonly set: readonly { readonly field: string; readonly to: ActionSet }[];
}

/**
 * An input of an action, described like a field: one named like a field of the model (`field`)
 * is that field (its kind and checks, with the input's `required`, label and description).
 */
export interface ActionInputIR {
  readonly input: FieldIR;
  readonly field: boolean;
}

/**
 * A line list: rows owned by one record, in order, in a table of their own. Its fields are
 * fields like a model's (never governed or unique).
 */
export interface LineListIR {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** Fewest and most lines (defaults 0 and 1000). */
  readonly min: number;
  readonly max: number;
  /** Declaration order. */
  readonly fields: readonly FieldIR[];
}

/** A composite or partial unique index (`unique:` of the model). */
export interface UniqueIR {
  readonly fields: readonly string[];
  /** Only among the records whose fields hold these values. */
  readonly where: Readonly<Record<string, string | number | boolean>> | undefined;
}

/** A rule of the model: its check, copied from the module file, and what a failure says. */
export interface RuleIR {
  readonly fields: readonly string[];
  readonly message: string;
  readonly check: LogicSource;
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
  readonly kind: Exclude<CommandKind, 'action' | 'action_many'>;
  readonly action: undefined;
}

/** A workflow action's command, or its bulk command (`<action>_many`, on each record a selection names). */
export interface ActionCommandIR extends CommandIRBase {
  readonly kind: 'action' | 'action_many';
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
  /** Ref fields (of any model or its lines) pointing at this model, in model then field order. */
  readonly referencedBy: readonly ReferringField[];
  /** Indexes over several fields (`indexes`), each in index order. */
  readonly indexes: readonly (readonly string[])[];
  /** The fields a list shows by default besides the title (`list`); empty: the web app chooses. */
  readonly list: readonly string[];
  /** Line lists in declaration order. */
  readonly lines: readonly LineListIR[];
  /** Composite and partial unique indexes, in declaration order. */
  readonly uniques: readonly UniqueIR[];
  /** States of its governed select in which it cannot be changed. */
  readonly lockedIn: { readonly field: string; readonly states: readonly string[] } | undefined;
  /** Its rules, in declaration order. */
  readonly rules: readonly RuleIR[];
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
