/** MCP as a server extension: `POST /mcp`, mounted before the `/api` JSON middleware (it parses its own body). */
import { createRequire } from 'node:module';
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Registry } from '../registry.ts';
import type { ServerExtension } from '../extension.ts';
import { ALLOWED_ORIGINS_ENV, parseAllowedOrigins } from './origins.ts';
import { createMcpRouter } from './router.ts';
import { createToolCatalogue } from './tools.ts';

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
    routes: (service, { site, callers }) => ({
      beforeApi: [
        createMcpRouter(
          {
            service,
            catalogue: createToolCatalogue(service.registry),
            info: MCP_SERVER_INFO,
            instructions: instructionsFor(service.registry),
            validator: new AjvJsonSchemaValidator(),
          },
          { allowedOrigins: options.allowedOrigins ?? parseAllowedOrigins(process.env[ALLOWED_ORIGINS_ENV]), site, callers },
        ),
      ],
    }),
  };
}

/** The MCP endpoint with the allowed origins from the environment. */
export const mcpExtension: ServerExtension = createMcpExtension();

/** What a model needs to know before its first call (sent once, at `initialize`). */
export function instructionsFor(registry: Registry): string {
  const modules = registry.modules.map((module) => `${module.label} (${module.models.join(', ')})`).join('; ');
  return [
    `Business records of ${modules}.`,
    'Each tool <model>__<command> runs one command with your rights; you see only the tools you may use.',
    'Results are {denied, value}: personal fields come back as tokens like NAME_1 (send a token back in the same field to store the real value it stands for); fields you may not read are absent and named in denied.',
    'A command that needs a person\'s approval changes nothing: it returns {"status": "approval_required", "plan_id"} and a person approves the plan.',
    'Refused input comes back as a tool error with the reason, e.g. "lead.title is required".',
  ].join(' ');
}
