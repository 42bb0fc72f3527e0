/**
 * What a caller may use (SPEC 4.1): `GET /api/commands`, the command catalogue (SPEC 2.5), and
 * `GET /api/meta`, the modules, models, readable fields and actions that drive the web app; and
 * `GET /api/service`, what the service calls itself, for anyone (the sign-in page shows it).
 */
import { Router, type Request, type Response } from 'express';
import { DEFAULT_SERVICE_INFO, type ActionInfo, type CallerInfo, type CommandInfo, type CommandsAnswer, type FieldInfo, type LineListInfo, type MetaAnswer, type ModelInfo, type ModuleInfo, type ServiceAnswer, type ServiceInfo } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import { NOT_AN_AGENTS_KINDS } from '../command-kinds.ts';
import { serviceCommandsOf } from '../webhooks/commands.ts';
import type { RecordService } from '../commands/types.ts';
import type { FieldMeta, Registry } from '../registry.ts';
import { rightsOf, type CallerRights, type FieldRights } from '../rights.ts';
import type { Callers } from './callers.ts';
import { sendJson } from './send.ts';

export function createCatalogueRouter(service: RecordService, callers: Callers, serviceInfo: ServiceInfo = DEFAULT_SERVICE_INFO): Router {
  const { registry } = service;
  const router = Router();

  router.get('/api/service', function serviceIdentity(_req: Request, res: Response) {
    sendJson(res, 200, serviceInfo satisfies ServiceAnswer);
  });

  router.get('/api/commands', async function commandCatalogue(req: Request, res: Response) {
    const caller = await callers.of(req.headers.authorization, res, 'GET /api/commands');
    sendJson(res, 200, { commands: catalogueFor(registry, caller) } satisfies CommandsAnswer);
  });

  router.get('/api/meta', async function meta(req: Request, res: Response) {
    const caller = await callers.of(req.headers.authorization, res, 'GET /api/meta');
    res.setHeader('Link', '</mcp>; rel="mcp"');
    sendJson(res, 200, { ...metaFor(registry, caller), service: serviceInfo } satisfies MetaAnswer);
  });

  return router;
}

/** SPEC 2.5: the commands this caller may use, in catalogue order. */
export function catalogueFor(registry: Registry, caller: Caller): CommandInfo[] {
  const allowed = rightsOf(registry, caller).commands;
  return Object.values(registry.commands)
    .filter((command) => allowed.has(command.id))
    .map((command): CommandInfo => ({ id: command.id, description: command.description, needs_approval: command.needsApproval }));
}

/** The modules, models, readable fields and actions this caller may see. */
export function metaFor(registry: Registry, caller: Caller): MetaAnswer {
  const rights = rightsOf(registry, caller);
  const models: ModelInfo[] = [];
  for (const model of Object.values(registry.models)) {
    const commands = Object.values(registry.commands)
      .filter((command) => command.model === model.name && rights.commands.has(command.id))
      .map((command) => command.name);
    if (commands.length === 0) continue;
    const fieldRights = rights.models[model.name]!;
    models.push({
      name: model.name,
      module: model.module,
      label: model.label,
      description: model.description,
      title_field: model.titleField,
      commands,
      denied: fieldRights.denied,
      fields: fieldRights.readable.map((field) => fieldInfo(field, fieldRights)),
      actions: model.actions
        .filter((action) => rights.commands.has(`${model.name}.${action.name}`))
        .map((action): ActionInfo => ({
          name: action.name,
          description: action.description,
          field: action.field,
          from: action.from,
          to: action.to,
          required: action.required,
          needs_approval: action.needsApproval,
          // An input is the caller's to give; its rights are those of a field the caller writes.
          inputs: action.inputs.map((input) => ({ ...fieldInfo(input, fieldRights), masked: fieldRights.maskedNames.has(input.name), writable: true, field: input.field })),
          set: action.set,
        })),
      ...(model.list ? ({ list: model.list.filter((name) => fieldRights.readableNames.has(name)) } satisfies Pick<ModelInfo, 'list'>) : {}),
      lines: Object.values(fieldRights.lines).map(
        (line): LineListInfo => ({
          name: line.list.name,
          label: line.list.label,
          description: line.list.description,
          min: line.list.min,
          max: line.list.max,
          fields: line.readable.map((field) => fieldInfo(field, line)),
          denied: line.denied,
        }),
      ),
      rules: model.rules.map((rule) => ({ fields: rule.fields, message: rule.message })),
      ...(model.lockedIn ? ({ locked_in: model.lockedIn } satisfies Pick<ModelInfo, 'locked_in'>) : {}),
    });
  }
  const visible = new Set(models.map((model) => model.name));
  const modules = registry.modules
    .map((module): ModuleInfo => ({ name: module.name, label: module.label, description: module.description, models: module.models.filter((name) => visible.has(name)) }))
    .filter((module) => module.models.length > 0);
  const who: CallerInfo =
    caller.kind === 'person'
      ? { kind: 'person', username: caller.username, roles: caller.roles }
      : { kind: 'agent', label: caller.label, scopes: caller.scopes, creator: caller.creatorUsername };
  const serviceCommands = serviceCommandsOf(caller);
  return {
    caller: who,
    modules,
    models,
    ...(caller.kind === 'person' ? { decides_plans: decidesPlans(registry, rights) } : {}),
    ...(serviceCommands.length > 0 ? { service_commands: serviceCommands } : {}),
  };
}

/** A field as the caller reads it, and whether it may write it. */
function fieldInfo(field: FieldMeta, rights: FieldRights): FieldInfo {
  return {
    name: field.name,
    kind: field.kind,
    label: field.label,
    description: field.description,
    required: field.required,
    personal: field.personal,
    masked: rights.maskedNames.has(field.name),
    governed: field.governed,
    computed: field.computed,
    writable: rights.writableNames.has(field.name),
    // Spread properties escape excess-property checks: `satisfies` ties these names to FieldInfo.
    ...(field.options ? ({ options: field.options } satisfies Pick<FieldInfo, 'options'>) : {}),
    ...(field.target ? ({ target: field.target } satisfies Pick<FieldInfo, 'target'>) : {}),
    ...(field.currency ? ({ currency: field.currency } satisfies Pick<FieldInfo, 'currency'>) : {}),
    ...(field.scale !== undefined ? ({ scale: field.scale } satisfies Pick<FieldInfo, 'scale'>) : {}),
    ...(field.min !== undefined ? ({ min: field.min } satisfies Pick<FieldInfo, 'min'>) : {}),
    ...(field.max !== undefined ? ({ max: field.max } satisfies Pick<FieldInfo, 'max'>) : {}),
    ...(field.length !== undefined ? ({ length: field.length } satisfies Pick<FieldInfo, 'length'>) : {}),
    ...(field.pattern !== undefined ? ({ pattern: field.pattern } satisfies Pick<FieldInfo, 'pattern'>) : {}),
    ...(field.default !== undefined ? ({ default: field.default } satisfies Pick<FieldInfo, 'default'>) : {}),
    ...(field.kind === 'file' ? ({ multiple: field.multiple === true } satisfies Pick<FieldInfo, 'multiple'>) : {}),
    ...(field.accept !== undefined ? ({ accept: field.accept } satisfies Pick<FieldInfo, 'accept'>) : {}),
    ...(field.maxSize !== undefined ? ({ maxSize: field.maxSize } satisfies Pick<FieldInfo, 'maxSize'>) : {}),
  };
}

/**
 * Whether a person may decide some agent's plan: an agent's call is held as a plan when its
 * command needs approval, or when it is an update that runs an action that does (see
 * `prepareCommand`), and a person decides only the plans of commands they may run themselves,
 * with the actions they run (`personMayDecide` in agents/routes.ts).
 */
function decidesPlans(registry: Registry, rights: CallerRights): boolean {
  return Object.values(registry.commands).some(
    (command) =>
      rights.commands.has(command.id) &&
      // A command no agent may have (erase, most bulk commands) is never in a plan.
      !NOT_AN_AGENTS_KINDS.has(command.kind) &&
      (command.needsApproval ||
        (command.kind === 'update' && (registry.models[command.model]?.actions ?? []).some((action) => action.needsApproval && rights.commands.has(`${command.model}.${action.name}`)))),
  );
}
