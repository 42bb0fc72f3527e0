/**
 * IR building, reached only when the checks found nothing wrong: modules in dependency order,
 * models with their ref targets first, roles with the command ids they may use. The result is
 * deeply frozen.
 */
import type { ModuleIR, ProjectIR, ReferringField, RoleIR } from '../ir.ts';
import { defaultLabel } from '../names.ts';
import { buildModel } from './build-model.ts';
import type { ResolvedReferences } from './check.ts';
import type { ModelDraft, ModuleDraft, ProjectDraft } from './drafts.ts';
import { withImpliedCommands } from '../../runtime/rights.ts';
import { ADMIN_ROLE } from './reserved.ts';

export function buildProject(project: ProjectDraft, resolved: ResolvedReferences): ProjectIR {
  const ordered = dependencyOrder(project.modules, resolved.dependencies);
  const referencedBy = referrers(ordered.flatMap(modelOrder));
  const modules: ModuleIR[] = ordered.map((module) => ({
    name: module.name,
    label: module.def.label ?? defaultLabel(module.name),
    description: module.def.description ?? '',
    dependsOn: resolved.dependencies.get(module.name) ?? [],
    source: module.source,
    models: modelOrder(module).map((model) =>
      buildModel(model, {
        referencedBy: referencedBy.get(model.name) ?? [],
        movedFields: resolved.movedFields,
        actionSets: resolved.actionSets,
        lockedIn: resolved.lockedIn.get(model),
      }),
    ),
    declaredModels: module.models.map((model) => model.name),
    grants: resolved.moduleGrants.get(module.name) ?? [],
  }));
  const catalogue = modules.flatMap((module) => module.models.flatMap((model) => model.commands.map((command) => command.id)));
  const exists = new Set(catalogue);
  const roles: RoleIR[] = resolved.roles.map((role) => {
    const granted = withImpliedCommands(resolved.grants.get(role) ?? [], (id) => exists.has(id));
    return { name: role, commands: role === ADMIN_ROLE ? catalogue : catalogue.filter((id) => granted.has(id)) };
  });
  return deepFreeze({ modules, roles, modulesDirName: project.dirName });
}

/**
 * Per target model, the ref fields pointing at it, in the order of the models given: each model's
 * own, then those of its line lists (a line's ref keeps its target alive as a record's does).
 */
function referrers(models: readonly ModelDraft[]): Map<string, ReferringField[]> {
  const referencedBy = new Map<string, ReferringField[]>();
  const add = (to: string, referrer: ReferringField) => referencedBy.set(to, [...(referencedBy.get(to) ?? []), referrer]);
  for (const model of models) {
    for (const field of model.fields) if (field.kind === 'ref') add(field.to, { model: model.name, field: field.name });
    for (const list of model.lines) {
      for (const field of list.fields) if (field.kind === 'ref') add(field.to, { model: model.name, field: field.name, lines: list.name });
    }
  }
  return referencedBy;
}

/** Modules with their dependencies first; ties by name. */
function dependencyOrder(modules: readonly ModuleDraft[], dependencies: ReadonlyMap<string, readonly string[]>): ModuleDraft[] {
  const byName = new Map(modules.map((module) => [module.name, module]));
  const done = new Set<string>();
  const result: ModuleDraft[] = [];
  const visit = (module: ModuleDraft): void => {
    if (done.has(module.name)) return;
    done.add(module.name);
    for (const dependency of [...(dependencies.get(module.name) ?? [])].sort()) {
      const target = byName.get(dependency);
      if (target) visit(target);
    }
    result.push(module);
  };
  for (const module of [...modules].sort((a, b) => a.name.localeCompare(b.name))) visit(module);
  return result;
}

/** A module's models with the targets of their refs first, otherwise in declaration order. */
function modelOrder(module: ModuleDraft): ModelDraft[] {
  const byName = new Map(module.models.map((model) => [model.name, model]));
  const done = new Set<string>();
  const result: ModelDraft[] = [];
  const visit = (model: ModelDraft): void => {
    if (done.has(model.name)) return;
    done.add(model.name);
    for (const field of model.fields) {
      const target = field.kind === 'ref' ? byName.get(field.to) : undefined;
      if (target) visit(target);
    }
    result.push(model);
  };
  for (const model of module.models) visit(model);
  return result;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
