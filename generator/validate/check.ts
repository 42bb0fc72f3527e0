/**
 * Semantic checks: what needs more than one part of the definitions in view (model names shared by
 * all modules, dependencies, references by name, actions, grants). Each check reports its problems
 * and resolves the references the IR is built from.
 */
import { checkActions } from './check-actions.ts';
import { checkDependencies } from './check-dependencies.ts';
import type { ActionSet } from '../../runtime/api-shapes.ts';
import { checkFieldReferences, type LockedIn } from './check-fields.ts';
import { checkGrants, type ModuleGrants } from './check-grants.ts';
import { checkVisibility } from './check-visibility.ts';
import type { ActionDraft, ModelDraft, ProjectDraft } from './drafts.ts';
import type { ProblemList } from './problem-list.ts';
import { ADMIN_ROLE } from './reserved.ts';

/** What the checks resolved; complete only when they found no problem. */
export interface ResolvedReferences {
  /** Each module's dependsOn entries that name another module, once each. */
  readonly dependencies: ReadonlyMap<string, readonly string[]>;
  /** `admin`, then every other role granted in any module, by name. */
  readonly roles: readonly string[];
  /** The governed select field each action moves. */
  readonly movedFields: ReadonlyMap<ActionDraft, string>;
  /** The fields each action sets, as the runtime applies them. */
  readonly actionSets: ReadonlyMap<ActionDraft, readonly { readonly field: string; readonly to: ActionSet }[]>;
  /** Each model's locked states (models without `locked_in` have none). */
  readonly lockedIn: ReadonlyMap<ModelDraft, LockedIn>;
  /** The command ids each role is granted (`admin` is not: it may use every command). */
  readonly grants: ReadonlyMap<string, ReadonlySet<string>>;
  /** What each module grants, role by role and model by model. */
  readonly moduleGrants: ModuleGrants;
}

export function checkProject(project: ProjectDraft, problems: ProblemList): ResolvedReferences {
  const modelsByName = checkModelNames(project, problems);
  const roles = roleNames(project);
  const dependencies = checkDependencies(project, problems);
  const movedFields = new Map<ActionDraft, string>();
  const actionSets = new Map<ActionDraft, readonly { readonly field: string; readonly to: ActionSet }[]>();
  const lockedIn = new Map<ModelDraft, LockedIn>();
  for (const module of project.modules) {
    const visibleModules = dependencies.reachable.get(module.name) ?? new Set<string>();
    for (const model of module.models) {
      lockedIn.set(model, checkFieldReferences(model, { modelsByName, roles, visibleModules, refused: project.refused }, problems));
      checkVisibility(model, problems);
      const actions = checkActions(model, problems);
      for (const [action, field] of actions.moved) movedFields.set(action, field);
      for (const [action, sets] of actions.sets) actionSets.set(action, sets);
    }
  }
  checkRequiredRefCycles(project, modelsByName, problems);
  const { granted, byModule } = checkGrants(project, modelsByName, dependencies.reachable, problems);
  return { dependencies: dependencies.direct, roles, movedFields, actionSets, lockedIn, grants: granted, moduleGrants: byModule };
}

/**
 * Required refs that go round (a model requiring a ref to itself, two that require each other …):
 * none of their records could be created first, since each needs one of the next already there.
 * Reported once per circle, at its first model in declaration order.
 */
function checkRequiredRefCycles(project: ProjectDraft, modelsByName: ReadonlyMap<string, ModelDraft>, problems: ProblemList): void {
  const requires = new Map<string, { field: string; to: string }[]>();
  for (const module of project.modules) {
    for (const model of module.models) {
      const refs: { field: string; to: string }[] = [];
      for (const field of model.fields) if (field.kind === 'ref' && field.required === true && modelsByName.has(field.to)) refs.push({ field: field.name, to: field.to });
      requires.set(model.name, refs);
    }
  }
  const reported = new Set<string>();
  for (const module of project.modules) {
    for (const model of module.models) {
      const circle = circleFrom(model.name, requires);
      if (!circle) continue;
      const key = [...circle.map((step) => step.model)].sort().join(',');
      if (reported.has(key)) continue;
      reported.add(key);
      const path = circle.map((step) => `${step.model}.${step.field} → ${step.to}`).join(', ');
      problems.at(module.source, { model: model.name })({
        code: 'required-ref-cycle',
        message: `required refs go round (${path}): no record of ${circle.length === 1 ? 'it' : 'any of them'} can be created first`,
        fix: 'make one of these refs optional',
      });
    }
  }
}

/** A circle of required refs that starts and ends at `start`, or undefined. */
function circleFrom(start: string, requires: ReadonlyMap<string, readonly { field: string; to: string }[]>): { model: string; field: string; to: string }[] | undefined {
  const path: { model: string; field: string; to: string }[] = [];
  const visiting = new Set<string>();
  const walk = (model: string): boolean => {
    for (const ref of requires.get(model) ?? []) {
      path.push({ model, field: ref.field, to: ref.to });
      if (ref.to === start) return true;
      if (!visiting.has(ref.to)) {
        visiting.add(ref.to);
        if (walk(ref.to)) return true;
      }
      path.pop();
    }
    return false;
  };
  visiting.add(start);
  return walk(start) ? path : undefined;
}

/** Model names are shared by all modules (a model's table and routes take its name); returns each name's first model. */
function checkModelNames(project: ProjectDraft, problems: ProblemList): Map<string, ModelDraft> {
  const modelsByName = new Map<string, ModelDraft>();
  for (const module of project.modules) {
    for (const model of module.models) {
      const first = modelsByName.get(model.name);
      if (!first) {
        modelsByName.set(model.name, model);
        continue;
      }
      problems.at(module.source, { model: model.name })({
        code: 'duplicate-model-name',
        message: `name already used by a model of module ${first.module.name}`,
        detail: first.module.source,
        fix: 'model names are shared by all modules, rename one',
      });
    }
  }
  return modelsByName;
}

/** Roles are shared across modules: every role name granted anywhere, plus `admin`. */
function roleNames(project: ProjectDraft): string[] {
  const names = new Set<string>();
  for (const module of project.modules) for (const role of Object.keys(module.def.roles ?? {})) names.add(role);
  names.delete(ADMIN_ROLE);
  return [ADMIN_ROLE, ...[...names].sort()];
}
