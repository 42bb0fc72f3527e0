/**
 * What a caller may use (SPEC 4.1): `GET /api/commands`, the command catalogue (SPEC 2.5), and
 * `GET /api/meta`, the modules, models, readable fields and actions that drive the web app; and
 * `GET /api/service`, what the service calls itself, for anyone (the sign-in page shows it).
 */
import { Router, type Request, type Response } from 'express';
import { DEFAULT_SERVICE_INFO, type ActionInfo, type CallerInfo, type CommandInfo, type CommandsAnswer, type FieldInfo, type MetaAnswer, type ModelInfo, type ModuleInfo, type ServiceAnswer, type ServiceInfo } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { RecordService } from '../commands/types.ts';
import type { Registry } from '../registry.ts';
import { rightsOf, type CallerRights } from '../rights.ts';
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
      fields: fieldRights.readable.map((field): FieldInfo => ({
        name: field.name,
        kind: field.kind,
        label: field.label,
        description: field.description,
        required: field.required,
        personal: field.personal,
        masked: fieldRights.maskedNames.has(field.name),
        governed: field.governed,
        // Spread properties escape excess-property checks: `satisfies` ties these names to FieldInfo.
        ...(field.options ? ({ options: field.options } satisfies Pick<FieldInfo, 'options'>) : {}),
        ...(field.target ? ({ target: field.target } satisfies Pick<FieldInfo, 'target'>) : {}),
        ...(field.currency ? ({ currency: field.currency } satisfies Pick<FieldInfo, 'currency'>) : {}),
      })),
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
        })),
      ...(model.list ? ({ list: model.list.filter((name) => fieldRights.readableNames.has(name)) } satisfies Pick<ModelInfo, 'list'>) : {}),
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
  return { caller: who, modules, models, ...(caller.kind === 'person' ? { decides_plans: decidesPlans(registry, rights) } : {}) };
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
      (command.needsApproval ||
        (command.kind === 'update' && (registry.models[command.model]?.actions ?? []).some((action) => action.needsApproval && rights.commands.has(`${command.model}.${action.name}`)))),
  );
}
