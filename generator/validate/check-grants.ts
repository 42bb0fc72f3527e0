/** Role grants: each module grants its roles commands of its own models; `admin` needs no grant. */
import { GENERATED_COMMANDS } from '../define.ts';
import { IDENTIFIER } from '../names.ts';
import { unknownNameHint } from '../suggest.ts';
import type { ModelDraft, ProjectDraft } from './drafts.ts';
import { choiceHint, describeValue, invalidName } from './hints.ts';
import type { ProblemList } from './problem-list.ts';
import { ADMIN_ROLE } from './reserved.ts';

/** Checks every grant; returns the command ids (`<model>.<command>`) granted to each role. */
export function checkGrants(project: ProjectDraft, modelsByName: ReadonlyMap<string, ModelDraft>, problems: ProblemList): Map<string, Set<string>> {
  const granted = new Map<string, Set<string>>();
  for (const module of project.modules) {
    const ownModels = module.models.map((model) => model.name);
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
        if (!model) {
          report({ code: 'unknown-grant-model', message: `grant on unknown model "${modelName}"`, fix: unknownNameHint(modelName, ownModels, 'models of this module') });
          continue;
        }
        if (model.module !== module) {
          report({
            code: 'grant-outside-module',
            message: `grant on model "${modelName}" of module ${model.module.name}`,
            fix: `grant it in ${model.module.source}, where ${modelName} is defined`,
          });
          continue;
        }
        const reportOnModel = problems.at(module.source, { role, model: modelName });
        const commands = commandNames(model);
        if (grant === '*') {
          for (const command of commands) commandIds.add(`${modelName}.${command}`);
          continue;
        }
        if (!isStringList(grant)) {
          reportOnModel({ code: 'invalid-grant', message: "grant must be '*' or a list of command names", detail: `got ${describeValue(grant)}` });
          continue;
        }
        for (const command of grant) {
          if (commands.includes(command)) commandIds.add(`${modelName}.${command}`);
          else reportOnModel({ code: 'unknown-grant-command', message: `unknown command "${command}"`, fix: choiceHint(command, commands, `commands of ${modelName}`) });
        }
      }
    }
  }
  return granted;
}

/** The generated commands, then the actions (once each, should an action repeat a generated name: that has its own problem). */
function commandNames(model: ModelDraft): string[] {
  return [...new Set([...GENERATED_COMMANDS, ...model.actions.map((action) => action.name)])];
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}
