/**
 * The contract between `generated/` and the runtime. `rmsgen build` emits `generated/registry.ts`,
 * which exports a `Registry`; the server's entry point loads it and hands it to the runtime.
 * The runtime never imports `generated/` itself.
 */
import type { Knex } from 'knex';
import type { z } from 'zod';
import type { ActionSet, CommandKind, FieldDefault, FieldKind, FileRef } from './api-shapes.ts';
import type { CompiledList, ListPages } from './query/compiled-list.ts';

// Declared with the API's shapes (runtime/api-shapes.ts), which the web app imports too.
export type { ActionSet, CommandKind, FieldDefault, FieldKind };

export interface FieldMeta {
  readonly name: string;
  readonly kind: FieldKind;
  /** Human label, e.g. `Expected revenue`. */
  readonly label: string;
  readonly description: string;
  readonly required: boolean;
  /** Personal data (any kind): masked for agents as `<maskLabel>_<n>`. */
  readonly personal: boolean;
  /** Upper-case token prefix for personal fields (`Name` → `NAME`, `Expected revenue` → `EXPECTED_REVENUE`). */
  readonly maskLabel?: string;
  /** A governed select: changed only through actions; starts at its first option. */
  readonly governed: boolean;
  /** Options of a select, in order. */
  readonly options?: readonly string[];
  /** Target model of a ref. */
  readonly target?: string;
  /** Roles that may read this field (besides `admin`); absent means every role that may use the model. */
  readonly readRoles?: readonly string[];
  /** Withheld from agents: absent from records and named in `denied`. */
  readonly hiddenFromAgents: boolean;
  /** A money field's ISO 4217 currency, when it has one. */
  readonly currency?: string;
  /** A decimal's count of decimals (0–6): it is stored as an integer, the value × 10^scale. */
  readonly scale?: number;
  /** The least and most value: number, decimal (as written), money (minor units); date and datetime as their strings. */
  readonly min?: number | string;
  readonly max?: number | string;
  /** Text kinds: the most characters. */
  readonly length?: number;
  /** Text kinds: a regular expression (as written; the whole value must match). */
  readonly pattern?: string;
  /** A file field holding a list of files. */
  readonly multiple?: boolean;
  /** A file field's media types (`image/*` a family); absent: any. */
  readonly accept?: readonly string[];
  /** A file field's largest file in bytes; absent: the server's limit. */
  readonly maxSize?: number;
  /** The value a create gives the field when the input has none (an explicit null stays null unless required). */
  readonly default?: FieldDefault;
  /** Worked out by the model's logic (`ModelLogic.compute`) on every write; callers never write it. */
  readonly computed: boolean;
  /** Roles that may write this field (besides `admin`); absent: whoever may read it and use a write command. */
  readonly writeRoles?: readonly string[];
}

/** An input of an action: validated like a field; one named like a field of the model sets it when given. */
export interface ActionInputMeta extends FieldMeta {
  /** Named like a field of the model (of the same kind): the action writes it to the record when given. */
  readonly field: boolean;
}

export interface ActionMeta {
  readonly name: string;
  readonly description: string;
  /** The governed select field the action moves. */
  readonly field: string;
  readonly from: readonly string[];
  readonly to: string;
  /** Fields the caller must give with the action; written with the transition. */
  readonly required: readonly string[];
  readonly needsApproval: boolean;
  /** What the action takes besides the record's id, in declaration order (the `required` fields among them). */
  readonly inputs: readonly ActionInputMeta[];
  /** Fields the action sets when it runs. */
  readonly set: Readonly<Record<string, ActionSet>>;
}

/** Column types the runtime knows how to create on SQLite and PostgreSQL. */
export type ColumnType = 'id' | 'text' | 'integer' | 'date' | 'bool';

/** A unique index over several fields (`unique: [[…]]`), or over some records only (`where`: field → constant). */
export interface UniqueMeta {
  readonly fields: readonly string[];
  readonly where?: Readonly<Record<string, string | number | boolean>>;
}

/** A rule of the model: the record as it will be after a write must pass its check (`ModelLogic.failedRules`). */
export interface RuleMeta {
  readonly fields: readonly string[];
  readonly message: string;
}

/**
 * A line list (`lines:` of a model): rows owned by one record, each with its own id, in order, in a
 * table of their own (`<model>__<lines>`: `id`, `owner`, `position`, one column per field), written
 * only through the owner's commands and deleted with it.
 */
export interface LineListMeta {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** Fewest and most lines a record has (default 0 and 1000). */
  readonly min: number;
  readonly max: number;
  /** Upper-case prefix of the masking tokens of its personal fields is each field's own `maskLabel`. */
  readonly fields: readonly FieldMeta[];
  readonly table: TableMeta;
}

/**
 * A model's logic, generated from its definition (`<model>.logic.ts`): the functions its computed
 * fields and rules were written with, typed by the record. The write path runs them in its
 * transaction on the record as it will be (every field, each line list as an array of lines).
 */
export interface ModelLogic {
  /**
   * Names the functions of its computed fields (a hash of their source): a database that recorded
   * another holds values they would not give, and `rmsgen migrate` recomputes them.
   */
  readonly version: string;
  /** Sets every computed field, in place: each line's first, then the record's. */
  compute(record: Record<string, unknown>): void;
  /** The rules the record fails, in declaration order (none: it may be written). */
  failedRules(record: Readonly<Record<string, unknown>>): readonly RuleMeta[];
}

/** A line as its list's queries read and write it: its `id` and every field (null when empty). */
export type StoredLine = { readonly id: string } & Readonly<Record<string, unknown>>;

/**
 * A line list's data access (generated with the model's queries, typed with its line type, as
 * `ModelQueries` is with its record's).
 */
export interface LineQueries<Line extends StoredLine = StoredLine> {
  readonly table: string;
  /** `id`, `owner`, `position`, then one column per field, as the list's `TableMeta.columns`. */
  readonly columns: readonly string[];
  /** The lines of these records, by owner id (every id given has an entry, empty without lines), each owner's in order. */
  linesOf(db: Knex, ownerIds: readonly string[]): Promise<Map<string, Line[]>>;
  /** Stores new lines of one record, at these positions. */
  insert(db: Knex, ownerId: string, lines: readonly { readonly line: Line; readonly position: number }[]): Promise<void>;
  /** Writes the given fields and the position of lines of one record. */
  update(db: Knex, ownerId: string, lines: readonly { readonly id: string; readonly changes: Readonly<Record<string, unknown>>; readonly position: number }[]): Promise<void>;
  /** Removes these lines of one record. */
  remove(db: Knex, ownerId: string, ids: readonly string[]): Promise<void>;
  /** Removes every line of one record (with its delete). */
  removeAll(db: Knex, ownerId: string): Promise<void>;
}

export interface ColumnMeta {
  readonly name: string;
  readonly type: ColumnType;
  readonly notNull: boolean;
  /** Default for rows that exist when the column is added (e.g. a governed select's first option). */
  readonly default?: string;
}

/** A model's table as the generator designed it; `rmsgen migrate` creates or extends it. */
/** An index a module declared (`index`, `unique`, `indexes`): fields in index order. */
export interface DeclaredIndex {
  readonly fields: readonly string[];
  /** No two records may hold the same values (empty values do not count). */
  readonly unique: boolean;
  /** Only over the records whose fields hold these constants (a partial index, `unique: [{ fields, where }]`). */
  readonly where?: Readonly<Record<string, string | number | boolean>>;
}

export interface TableMeta {
  readonly name: string;
  /** `id` first, then one column per field. */
  readonly columns: readonly ColumnMeta[];
  /** A field name: the single-column index the runtime keeps on each ref and governed select; an object: a declared index. */
  readonly indexes: readonly (string | DeclaredIndex)[];
  /** Text fields with a trigram index that `contains` uses (`search: true`). */
  readonly search?: readonly string[];
}

export interface ModelMeta {
  readonly name: string;
  readonly module: string;
  readonly label: string;
  readonly description: string;
  /** Database table. */
  readonly table: TableMeta;
  /** Field that names a record for people. */
  readonly titleField: string;
  /** Fields in declaration order (without `id`). */
  readonly fields: readonly FieldMeta[];
  readonly actions: readonly ActionMeta[];
  /** Ref fields (of models, and of their lines) that point at this model; a record they point at cannot be deleted. */
  readonly referencedBy: readonly ReferringField[];
  /** The fields a list shows by default besides the title, when the module says. */
  readonly list?: readonly string[];
  /** Its line lists, in declaration order. */
  readonly lines: readonly LineListMeta[];
  /** Unique indexes over several fields or some records (field-level `unique` is on the field). */
  readonly uniques: readonly UniqueMeta[];
  /** States of its governed field in which it cannot be changed (update, lines, delete); actions still run. */
  readonly lockedIn?: { readonly field: string; readonly states: readonly string[] };
  readonly rules: readonly RuleMeta[];
}

/** A ref field pointing at a model: `model.field`, or with `lines` a field of that line list's lines (`order.items.product`). */
export interface ReferringField {
  readonly model: string;
  readonly field: string;
  readonly lines?: string;
}

/** A record as a model's queries read and write it: `id` and every field of the model, null when empty. */
export type StoredRecord = { readonly id: string };

/** A record that refers to another one through a ref field (of its own, or of one of its lines: `lines`). */
export interface Referrer {
  readonly model: string;
  readonly field: string;
  readonly lines?: string;
  readonly id: string;
}

/** An agent's binding of a personal field to a token (masking/bindings.ts): the token's label and number, and the hash of the value it stands for. */
export interface MaskBinding {
  readonly label: string;
  readonly n: number;
  readonly valueHash: string;
}

/** How a record's file columns are read: `fromDb.file` (query/values.ts), or `fileTextForAnswer` there. */
export type FileColumnReader = (value: unknown) => FileRef | FileRef[] | null;

/**
 * A model's data access, generated per model (`generated/<module>/<model>.queries.ts`, typed with
 * the model's record interface): its table's statements, written once, and the conversion of its
 * rows. The command path reads and writes records only through these; rights, input checks,
 * masking and the audit trail are its own. Every function takes a transaction as `db` too.
 */
export interface ModelQueries<Stored extends StoredRecord = StoredRecord> {
  readonly table: string;
  /** `id`, then one column per field, as `TableMeta.columns`. */
  readonly columns: readonly string[];
  /**
   * The record with this id, every field read; undefined when there is none. `files` reads its
   * file columns (models with a file field take it; `fromDb.file` when absent).
   */
  find(db: Knex, id: string, files?: FileColumnReader): Promise<Stored | undefined>;
  /** `find` and, in the same statement, the bindings of this agent token on the record (masking/bindings.ts): models with a personal field have it. */
  findForAgent?(db: Knex, id: string, agentTokenId: string): Promise<{ record: Stored; bindings: ReadonlyMap<string, MaskBinding> } | undefined>;
  /** The records a compiled `list`/`search` input selects, in its order and page. */
  list(db: Knex, list: CompiledList): Promise<Stored[]>;
  /** Every record a compiled input without a `limit` selects, a page at a time in one snapshot, and their count when `withTotal` (query/list-pages.ts). */
  listPages(db: Knex, list: CompiledList, withTotal: boolean): Promise<ListPages<Stored>>;
  /** How many records the list's conditions select (without its page). */
  count(db: Knex, list: CompiledList): Promise<number>;
  /** Stores a new record: every field given, null when empty. */
  insert(db: Knex, record: Stored): Promise<void>;
  /** Stores new records as `insert` does, several a statement; a refusal does not say which record. */
  insertMany(db: Knex, records: readonly Stored[]): Promise<void>;
  /** Writes the given fields of the record with this id (null empties one); the others keep their values. */
  update(db: Knex, id: string, changes: Partial<Omit<Stored, 'id'>>): Promise<void>;
  /** Deletes the record with this id. References to it are the caller's to check (`firstReferrer`). */
  remove(db: Knex, id: string): Promise<void>;
  /** Reads the record with this id for a write, locking its row until the transaction ends (PostgreSQL: `for update`). */
  lockForWrite(db: Knex, id: string): Promise<Stored | undefined>;
  /** Whether a record with this id exists, kept from deletion until the transaction ends (PostgreSQL: `for share`): the target of a ref being written. */
  lockForRef(db: Knex, id: string): Promise<boolean>;
  /** The first record that refers to the one with this id (ref fields in `ModelMeta.referencedBy` order); a record referring to itself does not count. */
  firstReferrer(db: Knex, id: string): Promise<Referrer | undefined>;
  /** Each line list's queries, by name (empty without lines). */
  readonly lines: Readonly<Record<string, LineQueries>>;
}

export interface CommandMeta {
  /** `<model>.<command>`, e.g. `lead.qualify`. */
  readonly id: string;
  readonly model: string;
  /** `get`, `list`, …, or the action name. */
  readonly name: string;
  readonly kind: CommandKind;
  readonly description: string;
  /** When true an agent can only propose the command. */
  readonly needsApproval: boolean;
  /**
   * zod schema of the REST body. It checks shape and field kinds with SPEC's error texts
   * (`lead.title is required`); rights, masking and references are the runtime's.
   */
  readonly input: z.ZodType;
  /** The action, for kind `action`. */
  readonly action?: ActionMeta;
}

/** JSON Schema (2020-12) object, as printed by the generator. */
export type JsonSchema = { readonly [key: string]: unknown };

export interface ToolMeta {
  /** `<model>__<command>`. */
  readonly name: string;
  /** The command id it runs. */
  readonly command: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly annotations: {
    readonly readOnlyHint?: boolean;
    readonly destructiveHint?: boolean;
    readonly idempotentHint?: boolean;
    readonly openWorldHint?: boolean;
  };
}

/** The OpenAPI 3.1 document of every command (`generated/openapi.json`); each caller is served its own view of it. */
export type OpenApiDocument = { readonly [key: string]: unknown };

export interface ModuleMeta {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly dependsOn: readonly string[];
  /** Model names in declaration order. */
  readonly models: readonly string[];
}

export interface Registry {
  /** Modules in dependency order. */
  readonly modules: readonly ModuleMeta[];
  /** Models in dependency order (a model's ref targets come before it where possible). */
  readonly models: Readonly<Record<string, ModelMeta>>;
  /** Each model's generated data access, by model name. */
  readonly queries: Readonly<Record<string, ModelQueries>>;
  /** Each model's computed fields and rules, by model name. */
  readonly logic: Readonly<Record<string, ModelLogic>>;
  /** Every command, keyed by id, in catalogue order. */
  readonly commands: Readonly<Record<string, CommandMeta>>;
  /** Every role with the command ids it may use. `admin` has all of them. */
  readonly roles: Readonly<Record<string, readonly string[]>>;
  /** MCP tool definitions, keyed by tool name. */
  readonly tools: Readonly<Record<string, ToolMeta>>;
  /**
   * The OpenAPI document of every command (runtime/view/caller-openapi.ts fits it to a caller),
   * imported on first use: at about 100 kB a model it is the largest generated file, and a server
   * nobody asks for it never holds it.
   */
  readonly openapi: () => Promise<OpenApiDocument>;
}
