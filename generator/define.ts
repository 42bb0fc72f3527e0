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

/** Every field kind, once; a `Record` so that a kind added to `FieldKind` fails to compile here until it is listed. */
const FIELD_KIND_LIST: Record<FieldKind, true> = {
  text: true,
  longtext: true,
  number: true,
  money: true,
  date: true,
  bool: true,
  select: true,
  ref: true,
  decimal: true,
  datetime: true,
  email: true,
  url: true,
  phone: true,
  multiselect: true,
  file: true,
};

/** The field kinds, in the order error messages list them. */
export const FIELD_KINDS = Object.keys(FIELD_KIND_LIST) as readonly FieldKind[];

/** The commands every model gets, named after their kinds, in catalogue order (runtime/command-kinds.ts decides which). */
export const GENERATED_COMMANDS = EVERY_MODEL_COMMANDS;
export type GeneratedCommand = EveryModelKind;

/**
 * A record (or a line) as the functions of a module file (`computed`, a rule's `check`) see it
 * there: untyped, so that a function reads naturally before its model's code exists. `rmsgen
 * build` (and `check`) copies each function into `generated/<module>/<model>.logic.ts`, typed with
 * the model's record (every field, each line list as an array of its lines), and a misspelt field,
 * a wrong type or a possibly empty value fails there, reported at the function's line in the
 * module file. (Module files are type-checked without `noImplicitAny` for this: the parameters of
 * a callback inside such a function, `(s, l) => s + l.amount`, are typed in the copy.)
 */
export type DefinitionRecord = any;

/**
 * How a computed field is worked out: from the record as it will be written (every field, each
 * line list as an array of its lines, lines computed first), or for a line field from the line.
 * It may use only its parameter and JavaScript's globals (`Math`, `Number`, `String`, `Date`,
 * `JSON`, arrays' methods): no imports, no variables of the module file. It returns a value of the
 * field's kind, never null (`?? 0` where a field it reads may be empty).
 *
 * @example total: { kind: 'money', computed: (o) => o.items.reduce((s, l) => s + l.amount, 0) }
 */
export type ComputeFunction = (record: DefinitionRecord) => unknown;

/**
 * A rule's check: true when the record, as it will be after the write (lines included and
 * computed), may be written. The same limits as `ComputeFunction`.
 *
 * @example check: (o) => !o.deliver_by || o.deliver_by >= o.ordered_on
 */
export type RuleCheck = (record: DefinitionRecord) => boolean;

interface FieldOptionsBase {
  /** Shown to people; for personal fields the upper-cased label is the masking token prefix (`Name` → `NAME_1`). Defaults to the field name in words. */
  readonly label?: string;
  /** A sentence for people and agents (used in tool schemas). */
  readonly description?: string;
  /** Creating a record without this field is refused with `<model>.<field> is required`. */
  readonly required?: boolean;
  /**
   * Personal data: agents see it as masking tokens (`EMAIL_1`), never in clear; any kind may be.
   * `email` and `phone` fields are personal unless `personal: false`.
   *
   * @example contact_email: { kind: 'email', personal: false }   // a shared mailbox, not a person's
   */
  readonly personal?: boolean;
  /** Roles that may read (and so filter and order on) this field. Omitted: every role that may use the model. `admin` always may. */
  readonly read?: readonly string[];
  /**
   * Roles that may write this field; the others may read it (per `read`) but a write of it is
   * `403 <model>.<field> cannot be written by your role`. Omitted: whoever may read it. `admin` always may.
   *
   * @example credit_limit: { kind: 'money', write: ['admin', 'accountant'] }
   */
  readonly write?: readonly string[];
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
   * agents may write (the refusal would tell an agent that a value it wrote exists). Several
   * fields together, or among some records only: the model's `unique`.
   */
  readonly unique?: boolean;
  /**
   * Worked out from the record on every write and stored; callers never write it (`<model>.<field>
   * is computed`). Not with `required`, `default`, `write` or `governed` (its function decides its
   * value); `index` and `unique` are fine. See `ComputeFunction`.
   *
   * @example amount: { kind: 'money', computed: (l) => Math.round((Math.round(l.quantity * 1000) * l.unit_price) / 1000) }
   */
  readonly computed?: ComputeFunction;
}

/** `length` and `pattern`: the checks of the text kinds. */
interface TextChecks {
  /**
   * The most characters a value may have (1 or more): `<model>.<field> must be at most <n> characters`.
   *
   * @example description: { kind: 'text', required: true, length: 200 }
   */
  readonly length?: number;
  /**
   * A regular expression the whole value must match (it is anchored for you):
   * `<model>.<field> does not match the required pattern`.
   *
   * @example number: { kind: 'text', pattern: '[A-Z]{2}-[0-9]{4,}' }
   */
  readonly pattern?: string;
  /**
   * The value a create gives the field when its input has none (an explicit null stays null).
   *
   * @example country: { kind: 'text', default: 'NL' }
   */
  readonly default?: string;
}

/** `min` and `max`: the least and most value, `<model>.<field> must be at least <min>` / `at most <max>`. */
interface RangeChecks<T> {
  /** @example quantity: { kind: 'decimal', scale: 3, min: 0.001 } */
  readonly min?: T;
  /** @example discount_pct: { kind: 'decimal', max: 100 } */
  readonly max?: T;
}

export interface TextFieldDefinition extends FieldOptionsBase, TextChecks {
  readonly kind: 'text' | 'longtext';
  /** A trigram index that `contains` uses: fast substring search at size (needles of three characters or more). */
  readonly search?: boolean;
}

/**
 * `email` (an address, at most 254 characters), `url` (an absolute `http:` or `https:` URL),
 * `phone` (digits, spaces and `+-()`, 6 to 20 digits): text of that form. Email and phone are
 * personal unless `personal: false`.
 *
 * @example contact_email: { kind: 'email' }
 * @example website: { kind: 'url' }
 * @example mobile: { kind: 'phone', pattern: '\\+[0-9 ]+' }   // international numbers only
 */
export interface FormattedTextFieldDefinition extends FieldOptionsBase, TextChecks {
  readonly kind: 'email' | 'url' | 'phone';
}

/** @example probability: { kind: 'number', min: 0, max: 100, default: 50 } */
export interface NumberFieldDefinition extends FieldOptionsBase, RangeChecks<number> {
  readonly kind: 'number';
  readonly default?: number;
}

/** An amount in integer minor units (`1234` is 12.34); `min`, `max` and `default` in minor units too. */
export interface MoneyFieldDefinition extends FieldOptionsBase, RangeChecks<number> {
  readonly kind: 'money';
  /** ISO 4217 code shown with amounts (`EUR`); default: the module's `currency`, else none. */
  readonly currency?: string;
  readonly default?: number;
}

/**
 * A number with at most `scale` decimals, stored exactly (as an integer, the value × 10^scale).
 *
 * @example discount_pct: { kind: 'decimal', scale: 2, min: 0, max: 100, default: 0 }
 */
export interface DecimalFieldDefinition extends FieldOptionsBase, RangeChecks<number> {
  readonly kind: 'decimal';
  /** The most decimals, 0 to 6; default 2. */
  readonly scale?: number;
  readonly default?: number;
}

/**
 * A calendar date `YYYY-MM-DD`; `min` and `max` in that form; `default: 'today'` is the server's
 * UTC day of the create.
 *
 * @example ordered_on: { kind: 'date', default: 'today' }
 */
export interface DateFieldDefinition extends FieldOptionsBase, RangeChecks<string> {
  readonly kind: 'date';
  readonly default?: string;
}

/**
 * An instant: in, ISO 8601 with an offset (`2026-11-26T14:30:00+01:00`); out, UTC
 * (`2026-11-26T13:30:00.000Z`). `min` and `max` in either form; `default: 'now'` is the instant
 * of the create.
 *
 * @example delivered_at: { kind: 'datetime' }
 */
export interface DatetimeFieldDefinition extends FieldOptionsBase, RangeChecks<string> {
  readonly kind: 'datetime';
  readonly default?: string;
}

/** @example hot: { kind: 'bool', default: false } */
export interface BoolFieldDefinition extends FieldOptionsBase {
  readonly kind: 'bool';
  readonly default?: boolean;
}

export interface SelectFieldDefinition extends FieldOptionsBase {
  readonly kind: 'select';
  /** The allowed values, in order; a governed select starts at the first one. */
  readonly options: readonly string[];
  /** Changed only through workflow actions; `create` sets it to the first option. */
  readonly governed?: boolean;
  /** One of the options; a governed select's may only be its first option (where it starts anyway). */
  readonly default?: string;
}

/**
 * Any of its options, each at most once (`[]` is empty); they come back in the options' order.
 *
 * @example tags: { kind: 'multiselect', options: ['rush', 'gift', 'export'] }
 */
export interface MultiselectFieldDefinition extends FieldOptionsBase {
  readonly kind: 'multiselect';
  /** The allowed values, in order: at least one, each once. */
  readonly options: readonly string[];
  /** Some of the options. */
  readonly default?: readonly string[];
}

export interface RefFieldDefinition extends FieldOptionsBase {
  readonly kind: 'ref';
  /** The target model (in this module or one it depends on). */
  readonly to: string;
}

/**
 * Uploaded files (`POST /api/files`) kept with the record, under the record's rights: one, or a
 * list with `multiple`. A write gives file ids; `get` answers `{"id", "name", "size", "type",
 * "sha256"}` per file. Not in `index`, `indexes`, `unique` lists or `title`; no `default`.
 *
 * @example attachments: { kind: 'file', multiple: true, accept: ['application/pdf', 'image/*'], max_size: '20MB', label: 'Attachments' }
 * @example signed_contract: { kind: 'file', accept: ['application/pdf'], personal: true }
 */
export interface FileFieldDefinition extends FieldOptionsBase {
  readonly kind: 'file';
  /** A list of files (each once, at most 100) instead of one; not with `unique`. */
  readonly multiple?: boolean;
  /**
   * The media types a file must have (detected from its content where the content says): known
   * types such as `application/pdf`, or a whole family such as `image/*`. Default: any.
   */
  readonly accept?: readonly string[];
  /** The largest file: a number and a unit, `B`, `KB`, `MB` or `GB` (1 KB = 1024 B), e.g. `'20MB'`. Default: the server's `--max-upload`. */
  readonly max_size?: string;
}

export type FieldDefinition =
  | TextFieldDefinition
  | FormattedTextFieldDefinition
  | NumberFieldDefinition
  | MoneyFieldDefinition
  | DecimalFieldDefinition
  | DateFieldDefinition
  | DatetimeFieldDefinition
  | BoolFieldDefinition
  | SelectFieldDefinition
  | MultiselectFieldDefinition
  | RefFieldDefinition
  | FileFieldDefinition;

/**
 * A line list: rows a record owns, in order (an order's items, an invoice's lines), each with its
 * own id, written only through the record's create and update (an array that becomes the new
 * list) and deleted with it. Its fields are defined like a model's, except that none is governed
 * or unique and a line list has no lines of its own.
 *
 * @example
 * lines: {
 *   items: {
 *     label: 'Items', min: 1, max: 500,
 *     fields: {
 *       description: { kind: 'text', required: true, length: 200 },
 *       quantity: { kind: 'decimal', scale: 3, required: true, min: 0.001 },
 *       unit_price: { kind: 'money', required: true, min: 0 },
 *       amount: { kind: 'money', computed: (l) => Math.round((Math.round(l.quantity * 1000) * l.unit_price) / 1000) },
 *     },
 *   },
 * }
 */
export interface LineListDefinition {
  /** Shown to people; defaults to the list's name in words. */
  readonly label?: string;
  readonly description?: string;
  /** The fewest lines a record has: `<model>.<lines> needs at least <min> line(s)`. Default 0. */
  readonly min?: number;
  /** The most lines a record has: `<model>.<lines> has at most <max> lines`. Default 1000. */
  readonly max?: number;
  readonly fields: Readonly<Record<string, FieldDefinition>>;
}

/**
 * A unique index besides the field-level `unique`: several fields together (`['customer',
 * 'number']`: `<model>: customer, number must be unique`), or among the records matching `where`
 * only (`<model>: <fields> must be unique among <value> records`). Empty values do not collide.
 *
 * @example unique: [['customer', 'number'], { fields: ['number'], where: { status: 'confirmed' } }]
 */
export type UniqueDefinition = readonly string[] | { readonly fields: readonly string[]; readonly where?: Readonly<Record<string, string | number | boolean>> };

/**
 * A rule the record must pass on every write, lines included: when `check` returns false the
 * write is refused with `400 {"error": "<model>: <message>", "fields": [...]}` and nothing is written.
 *
 * @example { fields: ['deliver_by'], message: 'deliver by must be on or after the order date', check: (o) => !o.deliver_by || o.deliver_by >= o.ordered_on }
 */
export interface RuleDefinition {
  /** The fields (or line lists) the rule is about, shown with the error, e.g. next to the inputs of a form. */
  readonly fields: readonly string[];
  /** Said to the caller after `<model>: `. */
  readonly message: string;
  readonly check: RuleCheck;
}

/**
 * An input an action takes besides the record's id. One named like a field of the model has the
 * field's kind and checks, and sets the field when given (an optional one that is absent sets
 * nothing); it may only say `kind`, `required`, `label` and `description`. Any other input is
 * checked like a field of its kind and recorded with the action (its history entry, the audit
 * trail, the approval inbox).
 *
 * @example input: { reason: { kind: 'text', required: true } }
 */
export type ActionInputDefinition = FieldDefinition extends infer Field ? (Field extends FieldDefinition ? Omit<Field, ActionInputLeavesOut> : never) : never;

/** What a field definition says that an action's input does not: where it is stored and who sees it. */
type ActionInputLeavesOut = 'read' | 'write' | 'agents' | 'index' | 'unique' | 'computed' | 'default' | 'governed' | 'search' | 'currency';

/**
 * A field an action sets when it runs: a constant of the field's kind, `'today'` (a date field),
 * `'now'` (a datetime field), or the value of one of its inputs.
 *
 * @example set: { confirmed_on: 'today', cancel_reason: { input: 'reason' } }
 */
export type ActionSetDefinition = string | number | boolean | readonly string[] | { readonly input: string };

export interface ActionDefinition {
  /** Short human description, shown in the command catalogue and to agents. Default: the action and the model in words (`Confirm the order`). */
  readonly description?: string;
  /** The governed select field the action moves. May be omitted when the model has exactly one governed field. */
  readonly field?: string;
  /** The state (or states) the record must be in. */
  readonly from: string | readonly string[];
  /** The state the record moves to. */
  readonly to: string;
  /** Fields of the model the caller must give with the action; they are written with the transition. */
  readonly required?: readonly string[];
  /** What the action takes besides the record's id (see `ActionInputDefinition`). */
  readonly input?: Readonly<Record<string, ActionInputDefinition>>;
  /** Fields the action sets when it runs (see `ActionSetDefinition`). */
  readonly set?: Readonly<Record<string, ActionSetDefinition>>;
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
  /** Line lists by name (see `LineListDefinition`); a name no field of the model has. */
  readonly lines?: Readonly<Record<string, LineListDefinition>>;
  readonly actions?: Readonly<Record<string, ActionDefinition>>;
  /**
   * Indexes over several fields, each in index order: the fields a list filters on with `eq`,
   * then the one it orders by, e.g. `[['stage', 'expected_revenue']]` for "stage = won, by
   * expected revenue". Each costs every write a little; declare what screens and agents use.
   */
  readonly indexes?: readonly (readonly string[])[];
  /** Composite and partial unique indexes (see `UniqueDefinition`). */
  readonly unique?: readonly UniqueDefinition[];
  /**
   * States of the model's governed select in which a record cannot be changed: its update, line
   * changes and delete are `409 <model> is <state> and cannot be changed`; actions out of them
   * still run. With several governed selects, name the field: `{ field: 'status', states: [...] }`.
   *
   * @example locked_in: ['done', 'cancelled']
   */
  readonly locked_in?: readonly string[] | { readonly field: string; readonly states: readonly string[] };
  /** Rules every write must pass (see `RuleDefinition`). */
  readonly rules?: readonly RuleDefinition[];
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
