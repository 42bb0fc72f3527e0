/**
 * The validated intermediate representation. `validate()` resolves every default once, so
 * the emitters read only this: no optional fields to re-default, no names to re-check.
 * Everything in it is deeply frozen.
 */
import type { FieldKind } from './define.ts';

export type { FieldKind };
export type CommandKind = 'get' | 'list' | 'search' | 'create' | 'update' | 'delete' | 'action';

export interface FieldIR {
  readonly name: string;
  readonly kind: FieldKind;
  readonly label: string;
  /** The definition's description, or `''`. */
  readonly description: string;
  readonly required: boolean;
  readonly personal: boolean;
  /** Token prefix for personal fields (`Expected revenue` → `EXPECTED_REVENUE`). */
  readonly maskLabel: string | undefined;
  readonly governed: boolean;
  /** Select options, in order (empty for other kinds). */
  readonly options: readonly string[];
  /** Ref target model. */
  readonly target: string | undefined;
  /** Roles that may read the field besides admin; undefined = every role that may use the model. */
  readonly readRoles: readonly string[] | undefined;
  readonly hiddenFromAgents: boolean;
}

export interface ActionIR {
  readonly name: string;
  readonly description: string;
  readonly field: string;
  readonly from: readonly string[];
  readonly to: string;
  readonly required: readonly string[];
  readonly needsApproval: boolean;
}

export interface CommandIR {
  /** `<model>.<name>`. */
  readonly id: string;
  readonly model: string;
  readonly name: string;
  readonly kind: CommandKind;
  readonly description: string;
  readonly needsApproval: boolean;
  /** The action, for kind `action`. */
  readonly action: ActionIR | undefined;
}

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
