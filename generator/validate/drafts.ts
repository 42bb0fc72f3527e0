/**
 * Drafts: the parts of the definitions that passed their shape checks, on their way to the IR.
 * The readers make them, the checks look across them, and only when nothing is wrong are they
 * built into the IR.
 */
import type { ActionShape, FieldShape, ModelShape, ModuleShape } from './shapes.ts';

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
}

/** A field definition of the right shape, tagged by kind, with its name. */
export type FieldDraft = FieldShape & { readonly name: string };

export type ActionDraft = ActionShape & { readonly name: string };
