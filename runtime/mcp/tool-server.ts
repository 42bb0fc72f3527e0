/**
 * The MCP server of one request: the SDK's low-level `Server` with `initialize`, `tools/list` and
 * `tools/call` over the prepared tool catalogue. `tools/call` is a thin adapter over
 * `executeCommand`, the command path REST uses (rights, validation, unmasking, approval plans,
 * masking, audit); only the shape of the answer differs (SPEC 4.6).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Implementation,
  type InitializeResult,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Caller } from '../caller.ts';
import { executeCommand } from '../commands/pipeline.ts';
import type { CommandOutcome, CommandService } from '../commands/types.ts';
import { HttpError } from '../errors.ts';
import { rightsOf } from '../rights.ts';
import { negotiateRevision } from './revisions.ts';
import type { ToolCatalogue } from './tools.ts';

/** What every per-request server shares; built once when the server starts. */
export interface ToolServerDeps {
  readonly service: CommandService;
  readonly catalogue: ToolCatalogue;
  readonly info: Implementation;
  readonly instructions: string;
  /**
   * The SDK's `Server` builds a fresh Ajv instance unless given one, which would cost more than
   * the rest of a request; ours never validates anything with it (no elicitation), so one is shared.
   */
  readonly validator: jsonSchemaValidator;
}

/**
 * A JSON-RPC error with a plain message. (The SDK's `McpError` prefixes `MCP error <code>: `,
 * which clients prefix once more.)
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

/** Unknown, hidden and forbidden tools get this same error (SPEC 7: indistinguishable by design). */
export function unknownTool(name: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
}

export const APPROVAL_REQUIRED = 'approval_required';

/** Tools only; the list never changes while a (stateless) client talks to us. */
const CAPABILITIES = { tools: { listChanged: false } } as const;

export function createToolServer(deps: ToolServerDeps, caller: Caller): Server {
  const { catalogue, info, instructions } = deps;
  const rights = rightsOf(deps.service.registry, caller);
  const server = new Server(info, {
    capabilities: CAPABILITIES,
    instructions,
    jsonSchemaValidator: deps.validator,
  });
  // Replaces the SDK's handler, which echoes any revision the SDK knows (2024-11-05 included).
  server.setRequestHandler(InitializeRequestSchema, function initialize(request): InitializeResult {
    return {
      protocolVersion: negotiateRevision(request.params.protocolVersion),
      capabilities: CAPABILITIES,
      serverInfo: info,
      instructions,
    };
  });
  server.setRequestHandler(ListToolsRequestSchema, function listTools(): ListToolsResult {
    return catalogue.listFor(rights) as ListToolsResult;
  });
  server.setRequestHandler(CallToolRequestSchema, function callTool(request): Promise<CallToolResult> {
    return runTool(deps, caller, request.params.name, request.params.arguments);
  });
  // Transport-level noise (a client gone before its answer was written); our own failures are
  // logged where they happen.
  server.onerror = () => {};
  return server;
}

async function runTool(deps: ToolServerDeps, caller: Caller, name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  const tool = deps.catalogue.find(name);
  if (!tool) throw unknownTool(name);
  let outcome: CommandOutcome;
  try {
    outcome = await executeCommand(deps.service, caller, tool.command, args ?? {});
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) throw unknownTool(name);
    if (error instanceof HttpError && error.status >= 400 && error.status < 500) {
      return { content: [{ type: 'text', text: error.message }], isError: true };
    }
    // A bug: logged here, answered without details (never the error's own message).
    deps.service.logError(error);
    throw new JsonRpcError(ErrorCode.InternalError, 'internal error');
  }
  const structured: Record<string, unknown> =
    outcome.status === 200
      ? { denied: outcome.body.denied, value: outcome.body.value }
      : { status: APPROVAL_REQUIRED, plan_id: outcome.body.plan_id };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}
