/**
 * Drafts: the parts of the definitions that passed their shape checks, on their way to the IR.
 * The readers make them, the checks look across them, and only when nothing is wrong are they
 * built into the IR.
 */
import type { FieldDefault } from '../../runtime/api-shapes.ts';
import type { DefinitionSource, FunctionSource } from '../definition-source.ts';
import type { ActionShape, FieldShape, LineListShape, ModelShape, ModuleShape } from './shapes.ts';

export interface ProjectDraft {
  /** The modules folder as named in banners, e.g. `modules`. */
  readonly dirName: string;
  /** Modules whose definition had the right shape, by name. */
  readonly modules: readonly ModuleDraft[];
  /** Every module found, including those whose definition was refused (a dependsOn may still name them). */
  readonly moduleNames: readonly string[];
  /** What parts refused by the readers were named: the checks stay quiet about references to them. */
  readonly refused: RefusedNames;
}

/**
 * The names declared by parts whose definition was refused (a model with an unknown key, a module
 * whose definition is not of the right shape). Another part that refers to one of them is not wrong
 * for it: the refused part's own problem is the cause, and a second line about the reference (`grant
 * on unknown model`, `ref to unknown model`) would only hide it.
 */
export interface RefusedNames {
  readonly models: ReadonlySet<string>;
  /** Roles a refused module grants. */
  readonly roles: ReadonlySet<string>;
}

export interface ModuleDraft {
  readonly name: string;
  /** The module file as shown in problems, e.g. `modules/crm/module.ts`. */
  readonly source: string;
  readonly def: ModuleShape;
  /** Declaration order. */
  readonly models: readonly ModelDraft[];
  /** The module file as written: lines of its parts, its functions. */
  readonly written: DefinitionSource;
}

export interface ModelDraft {
  readonly name: string;
  readonly module: ModuleDraft;
  readonly def: ModelShape;
  /** Declaration order. */
  readonly fields: readonly FieldDraft[];
  /** Fields whose definition was refused; later checks stay quiet about them. */
  readonly brokenFields: ReadonlySet<string>;
  readonly actions: readonly ActionDraft[];
  /** Actions whose definition was refused; a grant naming one is not reported. */
  readonly brokenActions: ReadonlySet<string>;
  /** Line lists in declaration order. */
  readonly lines: readonly LineListDraft[];
  /** Line lists whose definition was refused; later checks stay quiet about them. */
  readonly brokenLines: ReadonlySet<string>;
  /** Rules whose check was found in the module file, in declaration order. */
  readonly rules: readonly RuleDraft[];
}

/**
 * A field definition of the right shape, tagged by kind, with its name and what the reader
 * resolved from it: whether it is personal (email and phone are unless they say not), its
 * bounds as the runtime compares them, its default as the runtime applies it, and the source of
 * its computing function.
 */
export type FieldDraft = FieldShape & {
  readonly name: string;
  readonly personal: boolean;
  readonly bounds: { readonly min: number | string | undefined; readonly max: number | string | undefined };
  readonly defaultValue: FieldDefault | undefined;
  readonly logic: FunctionSource | undefined;
};

export interface LineListDraft {
  readonly name: string;
  readonly def: LineListShape;
  /** Declaration order. */
  readonly fields: readonly FieldDraft[];
  readonly brokenFields: ReadonlySet<string>;
}

export interface RuleDraft {
  readonly fields: readonly string[];
  readonly message: string;
  readonly check: FunctionSource;
  /** Its index in the model's `rules`. */
  readonly index: number;
}

/** An action's input, read like a field; `given` are the keys its definition wrote. */
export interface ActionInputDraft {
  readonly name: string;
  readonly def: FieldDraft;
  readonly given: readonly string[];
}

export type ActionDraft = ActionShape & { readonly name: string; readonly inputs: readonly ActionInputDraft[] };
