/**
 * The MCP server of one request: the SDK's low-level `Server` with `initialize`, `tools/list` and
 * `tools/call` over the prepared tool catalogue. `tools/call` is a thin adapter over
 * `executeCommand`, the command path REST uses (rights, validation, unmasking, approval plans,
 * masking, audit); only the shape of the answer differs (SPEC 4.6).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  type CallToolResult,
  type Implementation,
  type InitializeResult,
  type JSONRPCRequest,
  type ListToolsResult,
  type ServerResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Caller } from '../caller.ts';
import { executeCommand } from '../commands/pipeline.ts';
import type { CommandOutcome, RecordService } from '../commands/types.ts';
import { HttpError } from '../errors.ts';
import { rightsOf } from '../rights.ts';
import type { FileReading } from '../files/budget.ts';
import { FILE_URI_PREFIX, listResources, readResource, ResourceError } from './resources.ts';
import { negotiateRevision } from './revisions.ts';
import type { ToolCatalogue } from './tools.ts';

/** What every per-request server shares; built once when the server starts. */
export interface ToolServerDeps {
  readonly service: RecordService;
  readonly catalogue: ToolCatalogue;
  readonly info: Implementation;
  /** Sent at `initialize`, worded for the kind of caller (extension.ts). */
  readonly instructions: Readonly<Record<Caller['kind'], string>>;
  /**
   * The SDK's `Server` builds a fresh Ajv instance unless given one, which would cost more than
   * the rest of a request; ours never validates anything with it (no elicitation), so one is shared.
   */
  readonly validator: jsonSchemaValidator;
  /** Files' content and agents' daily budget of it, for `resources/read`. */
  readonly files: FileReading;
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

/** Tools, and files as resources (resources.ts); the lists never change while a (stateless) client talks to us. */
const CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false } } as const;

export function createToolServer(deps: ToolServerDeps, caller: Caller): Server {
  const { info, instructions } = deps;
  const server = new Server(info, {
    capabilities: CAPABILITIES,
    instructions: instructions[caller.kind],
    jsonSchemaValidator: deps.validator,
  });
  // Our three methods are answered here rather than through `setRequestHandler`, whose schema
  // check turns a malformed request (`tools/call` without params) into -32603 with a dump of zod
  // issues; ours are -32602 with one short line. The SDK's own `initialize` handler goes too: it
  // echoes any revision the SDK knows (2024-11-05 included).
  server.removeRequestHandler('initialize');
  server.fallbackRequestHandler = (request) => answerRequest(deps, caller, request);
  // Transport-level noise (a client gone before its answer was written); our own failures are
  // logged where they happen.
  server.onerror = () => {};
  return server;
}

/**
 * The answer to one request of ours: `initialize`, `tools/list` and `tools/call`; anything else
 * is -32601. Throws JsonRpcError for the error answers. Used by the SDK's `Server` and by the
 * router's direct path for single tool requests (router.ts).
 */
export async function answerRequest(deps: ToolServerDeps, caller: Caller, request: Pick<JSONRPCRequest, 'method' | 'params'>): Promise<ServerResult> {
  const { catalogue, info, instructions } = deps;
  switch (request.method) {
    case 'initialize': {
      const params = paramsOf(request, 'initialize', true);
      return {
        protocolVersion: negotiateRevision(params.protocolVersion),
        capabilities: CAPABILITIES,
        serverInfo: info,
        instructions: instructions[caller.kind],
      } satisfies InitializeResult;
    }
    case 'tools/list':
      paramsOf(request, 'tools/list', false);
      return catalogue.listFor(rightsOf(deps.service.registry, caller)) as ListToolsResult;
    case 'tools/call': {
      const params = paramsOf(request, 'tools/call', true);
      if (typeof params.name !== 'string') throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: tools/call needs params.name, the name of a tool');
      const args = params.arguments;
      if (args !== undefined && !isObject(args)) throw new JsonRpcError(ErrorCode.InvalidParams, 'Invalid params: params.arguments must be an object');
      return runTool(deps, caller, params.name, args);
    }
    case 'resources/list':
      return fileResource(() => listResources(deps.service, caller, paramsOf(request, 'resources/list', false)));
    case 'resources/read':
      return fileResource(() => readResource(deps.service, deps.files, caller, paramsOf(request, 'resources/read', true)));
    case 'resources/templates/list':
      paramsOf(request, 'resources/templates/list', false);
      return { resourceTemplates: [{ uriTemplate: `${FILE_URI_PREFIX}{id}`, name: 'file', description: 'A file attached to a record: its id as records answer it', mimeType: 'application/octet-stream' }] };
    default:
      throw new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found');
  }
}

/** A resource answer, its refusals as JSON-RPC errors. */
async function fileResource<T extends ServerResult>(answer: () => Promise<T>): Promise<T> {
  try {
    return await answer();
  } catch (error) {
    if (error instanceof ResourceError) throw new JsonRpcError(error.code, error.message);
    throw error;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The request's params as an object; -32602 when they are missing (and `required`) or not an object. */
function paramsOf(request: Pick<JSONRPCRequest, 'params'>, method: string, required: boolean): Record<string, unknown> {
  const params: unknown = request.params;
  if (params === undefined && !required) return {};
  if (!isObject(params)) throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${method} needs params, an object`);
  return params;
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
      ? {
          // A bulk command's `dry_run: true` says so, as REST's answer does.
          ...('dry_run' in outcome.body && outcome.body.dry_run === true ? { dry_run: true } : {}),
          denied: outcome.body.denied,
          value: outcome.body.value,
          ...(outcome.body.next !== undefined ? { next: outcome.body.next } : {}),
        }
      : { status: APPROVAL_REQUIRED, plan_id: outcome.body.plan_id };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}
