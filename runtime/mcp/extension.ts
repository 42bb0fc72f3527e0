/**
 * MCP as a server extension: `POST /mcp`, a direct route answered from node:http before Express
 * (it parses its own body). Profile of `tools/call lead__get` under load, when it was an Express
 * router: about a sixth of the server's time in express and router (two routers deep: the app's,
 * then this one's), for a path that needs neither.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../caller.ts';
import type { Registry } from '../registry.ts';
import type { DirectRoute, ServerExtension } from '../extension.ts';
import { sendError } from '../http/error-handler.ts';
import type { McpEndpoint } from './router.ts';
import { ALLOWED_ORIGINS_ENV, parseAllowedOrigins } from './origins.ts';
import { createToolCatalogue } from './tools.ts';
import { minorUnitsExample } from '../words.ts';

export interface McpExtensionOptions {
  /**
   * Cross-origin callers allowed besides same-origin ones (`*` for any). Default: the
   * comma-separated `RMS_MCP_ALLOWED_ORIGINS`, read when the server starts.
   */
  readonly allowedOrigins?: readonly string[];
}

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

export const MCP_SERVER_INFO: Implementation = { name: 'rmsgen', title: 'rmsgen record service', version };

export function createMcpExtension(options: McpExtensionOptions = {}): ServerExtension {
  return {
    name: 'mcp',
    routes: (service, { site, callers, files, isClosing }) => {
      // Worked out at start, so that a bad registry or RMS_MCP_ALLOWED_ORIGINS stops the start.
      const catalogue = createToolCatalogue(service.registry);
      const instructions = instructionsFor(service.registry);
      const allowedOrigins = options.allowedOrigins ?? parseAllowedOrigins(process.env[ALLOWED_ORIGINS_ENV]);
      const load = async () => {
        const [{ createMcpEndpoint }, { AjvJsonSchemaValidator }] = await Promise.all([
          import('./router.ts'),
          import('@modelcontextprotocol/sdk/validation/ajv'),
        ]);
        return createMcpEndpoint(
          { service, catalogue, info: MCP_SERVER_INFO, instructions, validator: new AjvJsonSchemaValidator(), files },
          { allowedOrigins, site, callers },
        );
      };
      return { direct: [loadedOnFirstRequest(load, isClosing, service.logError)] };
    },
  };
}

/**
 * The one path MCP answers, as Express matched it when it was a router there: any case, with or
 * without a trailing slash, whatever the query string; not percent-encoded.
 */
const MCP_PATH_PATTERN = /^\/mcp\/?(?:\?|$)/i;

/**
 * The MCP endpoint, loaded by the first request to its path. The SDK (its protocol schemas and
 * ajv) is about a sixth of an idle server's memory and of its start-up, and a server that only
 * people use never needs it.
 */
function loadedOnFirstRequest(load: () => Promise<McpEndpoint>, isClosing: () => boolean, logError: (error: unknown) => void): DirectRoute {
  let endpoint: McpEndpoint | undefined;
  let loading: Promise<McpEndpoint> | undefined;
  return function mcpRoute(req: IncomingMessage, res: ServerResponse) {
    if (!MCP_PATH_PATTERN.test(req.url ?? '')) return false;
    if (isClosing()) res.setHeader('Connection', 'close');
    if (endpoint) {
      void endpoint(req, res);
      return true;
    }
    loading ??= load();
    loading.then(
      (loaded) => {
        endpoint = loaded;
        return loaded(req, res);
      },
      (error: unknown) => {
        loading = undefined; // the next request tries again
        sendError(res, error, logError);
      },
    );
    return true;
  };
}

/** The MCP endpoint with the allowed origins from the environment. */
export const mcpExtension: ServerExtension = createMcpExtension();

/**
 * What a model needs to know before its first call (sent once, at `initialize`), one for each kind
 * of caller: an agent reads personal fields as tokens and may have to wait for a person's approval;
 * a person reads them in clear and never waits. Its examples are the service's own, taken from
 * fields every caller may read, so that they name nothing withheld from anyone; a service without
 * personal or money fields is told nothing of them.
 */
export function instructionsFor(registry: Registry): Readonly<Record<Caller['kind'], string>> {
  const modules = registry.modules.map((module) => `${module.label} (${module.models.join(', ')})`).join('; ');
  const fields = registry.modules
    .flatMap((module) => module.models)
    .flatMap((name) => registry.models[name]?.fields.map((field) => ({ model: name, field })) ?? [])
    .filter(({ field }) => field.readRoles === undefined && !field.hiddenFromAgents);
  const personal = fields.find(({ field }) => field.personal && field.maskLabel !== undefined);
  const currencies = new Set(fields.filter(({ field }) => field.kind === 'money').map(({ field }) => field.currency));
  const required = fields.find(({ field }) => field.required);
  const words = (kind: Caller['kind']) =>
    [
      `Business records of ${modules}.`,
      'Each tool <model>__<command> runs one command with your rights; you see only the tools you may use.',
      `Results are {denied, value}: ${
        personal && kind === 'agent'
          ? `personal fields come back as tokens like ${personal.field.maskLabel}_1 (send a token back in the same field to store the real value it stands for); `
          : ''
      }fields you may not read are absent and named in denied.`,
      ...(currencies.size > 0 ? [`Money fields hold integers in minor units: ${minorUnitsExample(currencies.size === 1 ? [...currencies][0] : undefined)}.`] : []),
      ...(kind === 'agent' ? ['A command that needs a person\'s approval changes nothing: it returns {"status": "approval_required", "plan_id"} and a person approves the plan.'] : []),
      `Refused input comes back as a tool error with the reason, e.g. "${required ? `${required.model}.${required.field.name} is required` : 'id is required'}".`,
    ].join(' ');
  return { agent: words('agent'), person: words('person') };
}
