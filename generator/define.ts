/**
 * The module definition format. A module is a folder under `modules/` whose `module.ts`
 * default-exports `defineModule({...})`. The folder name is the module name.
 *
 * @example
 * import { defineModule } from '../../generator/define.ts';
 * export default defineModule({
 *   description: 'Customers and sales leads',
 *   models: {
 *     party: {
 *       fields: {
 *         name: { kind: 'text', required: true, personal: true, label: 'Name' },
 *         kind: { kind: 'select', options: ['person', 'company'] },
 *       },
 *     },
 *   },
 *   roles: { sales: { party: '*' } },
 * });
 */

import type { FieldKind } from '../runtime/api-shapes.ts';
import { EVERY_MODEL_COMMANDS, type EveryModelKind } from '../runtime/command-kinds.ts';

// The kinds are declared once, with the API's shapes, which the runtime and the web app import too.
export type { FieldKind };

/** Every field kind (SPEC 2.2), once; a `Record` so that a kind added to `FieldKind` fails to compile here until it is listed. */
const FIELD_KIND_LIST: Record<FieldKind, true> = { text: true, longtext: true, number: true, money: true, date: true, bool: true, select: true, ref: true };

/** The field kinds, in the order error messages list them. */
export const FIELD_KINDS = Object.keys(FIELD_KIND_LIST) as readonly FieldKind[];

/** The commands every model gets, named after their kinds, in catalogue order (runtime/command-kinds.ts decides which). */
export const GENERATED_COMMANDS = EVERY_MODEL_COMMANDS;
export type GeneratedCommand = EveryModelKind;

interface FieldOptionsBase {
  /** Shown to people; for personal fields the upper-cased label is the masking token prefix (`Name` → `NAME_1`). Defaults to the field name in words. */
  readonly label?: string;
  /** A sentence for people and agents (used in tool schemas). */
  readonly description?: string;
  /** Creating a record without this field is refused with `<model>.<field> is required`. */
  readonly required?: boolean;
  /** Personal data: agents see it as masking tokens, never in clear. Only for text and longtext. */
  readonly personal?: boolean;
  /** Roles that may read (and so filter, order and write) this field. Omitted: every role that may use the model. `admin` always may. */
  readonly read?: readonly string[];
  /** `'hidden'`: withheld from agents entirely (absent from records and named in `denied`). */
  readonly agents?: 'visible' | 'hidden';
  /**
   * Index the field, for filters and orders on it at size (not for longtext; refs and governed
   * selects are indexed anyway). Several fields together: the model's `indexes`.
   */
  readonly index?: boolean;
  /**
   * No two records may hold the same value (empty values do not count): a duplicate is refused
   * with `<model>.<field> must be unique`. Not for longtext or bool, nor for a personal field
   * agents may write (the refusal would tell an agent that a value it wrote exists).
   */
  readonly unique?: boolean;
}

export interface TextFieldDefinition extends FieldOptionsBase {
  readonly kind: 'text' | 'longtext';
  /** A trigram index that `contains` uses: fast substring search at size (needles of three characters or more). */
  readonly search?: boolean;
}

export interface MoneyFieldDefinition extends FieldOptionsBase {
  readonly kind: 'money';
  /** ISO 4217 code shown with amounts (`EUR`); default: the module's `currency`, else none. */
  readonly currency?: string;
}

export interface PlainFieldDefinition extends FieldOptionsBase {
  readonly kind: 'number' | 'date' | 'bool';
}

export interface SelectFieldDefinition extends FieldOptionsBase {
  readonly kind: 'select';
  /** The allowed values, in order; a governed select starts at the first one. */
  readonly options: readonly string[];
  /** Changed only through workflow actions; `create` sets it to the first option. */
  readonly governed?: boolean;
}

export interface RefFieldDefinition extends FieldOptionsBase {
  readonly kind: 'ref';
  /** The target model (in this module or one it depends on). */
  readonly to: string;
}

export type FieldDefinition = TextFieldDefinition | MoneyFieldDefinition | PlainFieldDefinition | SelectFieldDefinition | RefFieldDefinition;

export interface ActionDefinition {
  /** Short human description, shown in the command catalogue and to agents. */
  readonly description: string;
  /** The governed select field the action moves. May be omitted when the model has exactly one governed field. */
  readonly field?: string;
  /** The state (or states) the record must be in. */
  readonly from: string | readonly string[];
  /** The state the record moves to. */
  readonly to: string;
  /** Fields of the model the caller must give with the action; they are written with the transition. */
  readonly required?: readonly string[];
  /** When true an agent can only propose the action; a person approves the plan. Default false. */
  readonly needs_approval?: boolean;
}

export interface ModelDefinition {
  /** Shown to people; defaults to the model name in words. */
  readonly label?: string;
  readonly description?: string;
  /** The field that names a record for people (ref pickers, lists). Defaults to the first required text field. */
  readonly title?: string;
  readonly fields: Readonly<Record<string, FieldDefinition>>;
  readonly actions?: Readonly<Record<string, ActionDefinition>>;
  /**
   * Indexes over several fields, each in index order: the fields a list filters on with `eq`,
   * then the one it orders by, e.g. `[['stage', 'expected_revenue']]` for "stage = won, by
   * expected revenue". Each costs every write a little; declare what screens and agents use.
   */
  readonly indexes?: readonly (readonly string[])[];
  /** The fields a list shows by default besides the title (in the model's order). Default: a few chosen by kind. */
  readonly list?: readonly string[];
}

/** A role's grant on one model: every command (`'*'`) or a list of command names (generated commands and actions). */
export type ModelGrant = '*' | readonly string[];

export interface ModuleDefinition {
  readonly label?: string;
  readonly description?: string;
  /** Modules whose models this module refers to (and whose models it may grant its roles rights on). */
  readonly dependsOn?: readonly string[];
  /** ISO 4217 code of the module's money fields that name none (`EUR`). */
  readonly currency?: string;
  /**
   * Models by name (lower snake_case, shared by all modules; a model's table takes its name).
   * Reserved: `auth`, `approve`, `reject`, `plans`, `commands`, `meta`, `audit` (the service's
   * own endpoints under `/api/`) and names starting with `rms_` (the runtime's system tables).
   */
  readonly models: Readonly<Record<string, ModelDefinition>>;
  /**
   * What each role may do with this module's models. Roles are shared across modules: the same
   * role name in two modules is one role. The built-in role `admin` may do everything.
   */
  readonly roles?: Readonly<Record<string, Readonly<Record<string, ModelGrant>>>>;
}

/** Identity function that gives module files type checking and editor completion. */
export function defineModule<const M extends ModuleDefinition>(definition: M): M {
  return definition;
}
