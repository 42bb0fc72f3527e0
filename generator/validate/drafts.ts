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
}

/** A field definition of the right shape, tagged by kind, with its name. */
export type FieldDraft = FieldShape & { readonly name: string };

export type ActionDraft = ActionShape & { readonly name: string };
