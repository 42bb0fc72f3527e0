/**
 * Role grants: a module grants its roles commands of its own models and of the models of modules it
 * depends on (so a helpdesk module can let its role read parties without editing the CRM module);
 * grants of one role from several modules add up. `admin` needs no grant.
 */
import { COMMAND_KINDS, catalogueNames, type EveryModelKind } from '../../runtime/command-kinds.ts';
import { holdsPersonalData } from './build-model.ts';
import { IDENTIFIER } from '../names.ts';
import { unknownNameHint } from '../suggest.ts';
import type { ModelDraft, ProjectDraft } from './drafts.ts';
import { choiceHint, describeValue, invalidName } from './hints.ts';
import type { ProblemList } from './problem-list.ts';
import { ADMIN_ROLE } from './reserved.ts';

/** What each module grants: a role, a model, and the command names (for `rmsgen check`'s summary). */
export type ModuleGrants = ReadonlyMap<string, readonly { readonly role: string; readonly model: string; readonly commands: readonly string[] }[]>;

/** Checks every grant; returns the command ids (`<model>.<command>`) granted to each role, and each module's grants. */
export function checkGrants(
  project: ProjectDraft,
  modelsByName: ReadonlyMap<string, ModelDraft>,
  reachable: ReadonlyMap<string, ReadonlySet<string>>,
  problems: ProblemList,
): { readonly granted: Map<string, Set<string>>; readonly byModule: ModuleGrants } {
  const granted = new Map<string, Set<string>>();
  const byModule = new Map<string, { role: string; model: string; commands: string[] }[]>();
  for (const module of project.modules) {
    const visible = reachable.get(module.name) ?? new Set<string>();
    const grantable = [...modelsByName.values()].filter((model) => model.module === module || visible.has(model.module.name)).map((model) => model.name);
    const moduleGrants: { role: string; model: string; commands: string[] }[] = [];
    byModule.set(module.name, moduleGrants);
    for (const [role, grants] of Object.entries(module.def.roles ?? {})) {
      const report = problems.at(module.source, { role });
      if (!IDENTIFIER.test(role)) report(invalidName('role', role));
      if (role === ADMIN_ROLE) {
        report({ code: 'admin-grant', message: `${ADMIN_ROLE} is built in and may use every command`, fix: 'remove this grant' });
        continue;
      }
      const commandIds = granted.get(role) ?? new Set<string>();
      granted.set(role, commandIds);
      for (const [modelName, grant] of Object.entries(grants)) {
        const model = modelsByName.get(modelName);
        // A model whose definition was refused: its own problem says enough.
        if (!model && project.refused.models.has(modelName)) continue;
        if (!model) {
          report({ code: 'unknown-grant-model', message: `grant on unknown model "${modelName}"`, fix: unknownNameHint(modelName, grantable, 'models this module may grant') });
          continue;
        }
        if (model.module !== module && !visible.has(model.module.name)) {
          report({
            code: 'grant-outside-module',
            message: `grant on model "${modelName}" of module ${model.module.name}, which module ${module.name} does not depend on`,
            fix: `add dependsOn: ['${model.module.name}'] to ${module.source}, or grant it in ${model.module.source}`,
          });
          continue;
        }
        const reportOnModel = problems.at(module.source, { role, model: modelName });
        const commands = commandNames(model);
        const adminOnly = commands.filter(isAdminOnly);
        if (grant === '*') {
          for (const command of commands) if (!isAdminOnly(command)) commandIds.add(`${modelName}.${command}`);
          moduleGrants.push({ role, model: modelName, commands: ['*'] });
          continue;
        }
        if (!isStringList(grant)) {
          reportOnModel({ code: 'invalid-grant', message: "grant must be '*' or a list of command names", detail: `got ${describeValue(grant)}` });
          continue;
        }
        for (const command of grant) {
          if (adminOnly.includes(command)) {
            reportOnModel({ code: 'admin-only-grant', message: `${command} is ${ADMIN_ROLE}'s only: no other role may be granted it`, fix: `remove "${command}"` });
          } else if (commands.includes(command)) commandIds.add(`${modelName}.${command}`);
          else if (!model.brokenActions.has(command)) reportOnModel({ code: 'unknown-grant-command', message: `unknown command "${command}"`, fix: choiceHint(command, commands, `commands of ${modelName}`) });
        }
        moduleGrants.push({ role, model: modelName, commands: grant.filter((command) => commands.includes(command) && !isAdminOnly(command)) });
      }
    }
  }
  return { granted, byModule };
}

/** The model's commands in catalogue order: the generated ones, the actions, then history, revert, the bulk commands (each action's too) and erase (once each, should an action repeat a generated name: that has its own problem). */
function commandNames(model: ModelDraft): string[] {
  const has = (kind: EveryModelKind) => !COMMAND_KINDS[kind].personalData || holdsPersonalData(model);
  return [...new Set(catalogueNames(model.actions.map((action) => action.name), has))];
}

/** A generated command only `admin` uses (`erase`): `'*'` leaves it out, and a grant that names it is refused. */
function isAdminOnly(command: string): boolean {
  return Object.hasOwn(COMMAND_KINDS, command) && COMMAND_KINDS[command as keyof typeof COMMAND_KINDS].adminOnly;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}
