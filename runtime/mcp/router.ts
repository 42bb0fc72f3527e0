/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless (no session id, so instances behind a load
 * balancer need no stickiness). Each request gets a fresh SDK `Server` and
 * `StreamableHTTPServerTransport` (the SDK refuses to reuse a stateless transport), closed when
 * the response closes; answers are plain JSON (`enableJsonResponse`).
 *
 * The checks in front of the transport are the ones where the SDK's behaviour differs from ours
 * or comes too late (after reading the body, before authentication):
 *
 *   Host and Origin (403) → method (405) → bearer token (401, before anything is said of the
 *   request, as on REST) → Accept (406), Content-Type (415) and `?dry_run` (400: a call here is
 *   never tried) → body (413, 415, 400 parse error)
 *   → MCP-Protocol-Version (400) → batch (400) → agent's rate limits (429; every refused POST
 *   counts, as on REST) → transport
 *
 * Refusals that REST shares (the body, the token, the rate limits, a bug) are answered as
 * http/refusals.ts decides for both, with its JSON-RPC error.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate } from '../auth/index.ts';
import { callCost, type RateCost } from '../auth/rate-limits.ts';
import type { AgentCaller, Caller } from '../caller.ts';
import { HttpError } from '../errors.ts';
import { contentTypeRefusal, readJsonBody } from '../http/body.ts';
import { setRefusalHeaders } from '../http/error-handler.ts';
import { BodyRefusal, refusalOf, type Refusal } from '../http/refusals.ts';
import { sendJson } from '../http/send.ts';
import type { Callers } from '../http/callers.ts';
import { callerOfRequest, noteCommand, requestIdOf } from '../http/observe.ts';
import type { Site } from '../http/site.ts';
import { createOriginPolicy } from './origins.ts';
import { DEFAULT_REVISION, SUPPORTED_REVISIONS, allowsBatches, isSupportedRevision, negotiateRevision, type Revision } from './revisions.ts';
import { JsonRpcError, answerRequest, createToolServer, type ToolServerDeps } from './tool-server.ts';

export interface McpEndpointOptions {
  /** Cross-origin callers allowed besides same-origin ones (`*` for any). */
  readonly allowedOrigins: readonly string[];
  /** The server's own names: what same-origin means, and which Host names a loopback bind answers. */
  readonly site: Site;
  /** Agents' rate limits: a POST counts one request per JSON-RPC message and one write per tools/call of a writing command. */
  readonly callers: Callers;
}

/** Request headers a browser-based client sends to `/mcp` (answered in CORS preflights). */
const CORS_REQUEST_HEADERS = 'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID';

/** Answers a request to `/mcp` (any method): served from node:http directly, see extension.ts. */
export type McpEndpoint = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function createMcpEndpoint(deps: ToolServerDeps, options: McpEndpointOptions): McpEndpoint {
  const { service } = deps;
  const checkOrigin = createOriginPolicy(options.allowedOrigins, options.site);

  return async function mcpEndpoint(req, res) {
    try {
      await handle(req, res);
    } catch (error) {
      const logError = (unexpected: unknown) => service.logError(unexpected, requestIdOf(res));
      if (res.headersSent) {
        logError(error);
        res.destroy();
      } else answerRefusal(res, refusalOf(error, logError));
    }
  };

  /**
   * Charges an agent's POST; false when its rate limits refused it (the 429 is answered, with the
   * id of the request it refused when the body is one request whose id can be read).
   */
  async function admitted(caller: AgentCaller, res: ServerResponse, cost: RateCost, body?: unknown): Promise<boolean> {
    try {
      await options.callers.admit(caller, res, 'POST /mcp', cost);
      return true;
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 429) throw error;
      answerRefusal(res, refusalOf(error, service.logError), rpcIdOf(body));
      return false;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const verdict = checkOrigin(req.headers.origin, req.headers.host);
    if (verdict === 'host-refused') return refuse(res, 403, -32000, 'Forbidden: Host not allowed');
    if (verdict === 'refused') return refuse(res, 403, -32000, 'Forbidden: Origin not allowed');
    if (verdict === 'listed') allowCrossOrigin(res, req.headers.origin!);
    if (req.method === 'OPTIONS' && verdict === 'listed') return preflight(res);
    if (req.method !== 'POST') {
      // No GET stream: a stream that never carries anything makes some clients hang; 405 tells
      // them there is none (the transport spec's answer). No DELETE: there are no sessions.
      return refuse(res, 405, -32000, 'Method Not Allowed: use POST', { Allow: 'POST' });
    }
    let caller: Caller;
    try {
      caller = callerOfRequest(await authenticate(service.db, req.headers.authorization, options.callers.clock.now()), res);
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 401) throw error;
      return answerRefusal(res, refusalOf(error, service.logError));
    }
    const acceptRefused = !acceptsJsonAndEventStream(req.headers.accept);
    const typeRefusal = contentTypeRefusal(req.headers['content-type']);
    // Command routes take ?dry_run; here it would be ignored and the call run for real.
    const triedDryRun = /[?&]dry_run(?:[=&]|$)/.test(req.url ?? '');
    if (acceptRefused || typeRefusal !== undefined || triedDryRun) {
      if (caller.kind === 'agent' && !(await admitted(caller, res, ONE_REQUEST))) return;
      if (acceptRefused) return refuse(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
      if (typeRefusal !== undefined) return answerRefusal(res, refusalOf(new BodyRefusal(typeRefusal), service.logError));
      return refuse(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: /mcp takes no dry_run; a bulk tool takes "dry_run": true in its arguments');
    }

    let body: unknown;
    let refused: BodyRefusal | undefined;
    try {
      body = await readJsonBody(req);
      if (body === undefined) refused = new BodyRefusal('empty-body');
    } catch (error) {
      if (!(error instanceof BodyRefusal)) throw error;
      refused = error;
    }
    const revisionRefusal = refused === undefined ? checkRevision(body, req.headers['mcp-protocol-version']) : undefined;
    if (caller.kind === 'agent') {
      // Every POST costs an agent, refused ones too (a body that is not JSON, a revision we do not speak).
      const cost = refused !== undefined || revisionRefusal !== undefined ? ONE_REQUEST : costOf(body, deps);
      if (!(await admitted(caller, res, cost, refused === undefined ? body : undefined))) return;
    }
    if (refused !== undefined) return answerRefusal(res, refusalOf(refused, service.logError));
    if (revisionRefusal) return refuse(res, 400, revisionRefusal.code, revisionRefusal.message);
    // JSON that parsed but is no JSON-RPC message: an invalid request (-32600), not a parse error.
    if (!(Array.isArray(body) ? body.every(isJsonRpcMessage) : isJsonRpcMessage(body))) {
      return refuse(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response');
    }
    const malformed = requestWithBadParams(body);
    if (malformed) {
      // The transport's schema would call this a parse error; it is a request with invalid params.
      return sendJson(res, 200, { jsonrpc: '2.0', id: malformed.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${malformed.method} needs params, an object` } });
    }

    // Records may hold personal data: no caching anywhere on the way (as REST).
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const direct = directToolRequest(body);
    if (direct?.method === 'tools/call') {
      const tool = typeof direct.params?.name === 'string' ? deps.catalogue.find(direct.params.name) : undefined;
      const command = tool ? service.commands.get(tool.command)?.meta : undefined;
      if (command) noteCommand(res, command);
    }
    if (direct) return answerDirectly(deps, caller, direct, res);
    const server = createToolServer(deps, caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

const ONE_REQUEST: RateCost = { requests: 1, writes: 0 };

/** The methods answered without the SDK's `Server` and transport when they come alone (see `directToolRequest`). */
const DIRECT_METHODS = new Set(['tools/call', 'tools/list']);

/**
 * A lone `tools/call` or `tools/list` request, which is nearly every request an agent sends. The
 * SDK would build a `Server`, a transport and a web `Request`/`Response` pair for it only to call
 * our handler (tool-server.ts `answerRequest`) and write its answer as JSON; here the handler is
 * called and the answer written as the SDK writes it. Anything else — batches, notifications,
 * `initialize`, a message that is not exactly a JSON-RPC request — goes through the SDK.
 */
function directToolRequest(body: unknown): { id: string | number; method: string; params?: Record<string, unknown> } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as Record<string, unknown>;
  for (const key of Object.keys(message)) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || !DIRECT_METHODS.has(method)) return undefined;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return undefined;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) return undefined;
  return { id, method, ...(params !== undefined ? { params: params as Record<string, unknown> } : {}) };
}

/** Answers a direct request as the SDK's protocol does: `{result, jsonrpc, id}` or `{jsonrpc, id, error}`, as application/json. */
async function answerDirectly(deps: ToolServerDeps, caller: Caller, request: { id: string | number; method: string; params?: Record<string, unknown> }, res: ServerResponse): Promise<void> {
  let message: unknown;
  try {
    const result = await answerRequest(deps, caller, request);
    message = { result, jsonrpc: '2.0', id: request.id };
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error;
    message = { jsonrpc: '2.0', id: request.id, error: { code: error.code, message: error.message } };
  }
  const text = JSON.stringify(message);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The request's protocol revision, and whether we take the request at all. `initialize` carries
 * its own revision (the negotiated one applies to it); any other request is judged by its
 * `MCP-Protocol-Version` header: absent means 2025-03-26, anything we do not speak is refused.
 * Batches exist only in 2025-03-26.
 */
export function checkRevision(body: unknown, header: string | string[] | undefined): { code: number; message: string } | undefined {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return { code: ErrorCode.InvalidRequest, message: 'Invalid Request: empty batch' };
  const initialize = messages.find(isInitialize);
  let revision: Revision;
  if (initialize) {
    revision = negotiateRevision(initialize.params?.protocolVersion);
  } else if (header === undefined) {
    revision = DEFAULT_REVISION;
  } else if (isSupportedRevision(header)) {
    revision = header;
  } else {
    return {
      code: -32000,
      message: `Bad Request: Unsupported protocol version: ${String(header)} (supported versions: ${SUPPORTED_REVISIONS.join(', ')})`,
    };
  }
  if (Array.isArray(body) && !allowsBatches(revision)) {
    return { code: ErrorCode.InvalidRequest, message: `Invalid Request: JSON-RPC batches are not supported in protocol version ${revision}` };
  }
  return undefined;
}

/** What a POST costs an agent: each JSON-RPC message is a request; each tools/call of a command that writes is a write. */
function costOf(body: unknown, deps: ToolServerDeps): RateCost {
  const messages = Array.isArray(body) ? body : [body];
  let writes = 0;
  for (const message of messages) {
    const { method, params } = (typeof message === 'object' && message !== null ? message : {}) as { method?: unknown; params?: { name?: unknown } };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const tool = deps.catalogue.find(params.name);
    const kind = tool ? deps.service.registry.commands[tool.command]?.kind : undefined;
    writes += callCost(kind).writes;
  }
  return { requests: Math.max(1, messages.length), writes };
}

/** A single request (not a batch) whose `params` is there but not an object (MCP's params are always objects). */
function requestWithBadParams(body: unknown): { id: string | number; method: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { id, method, params } = body as { id?: unknown; method?: unknown; params?: unknown };
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number') || params === undefined) return undefined;
  return typeof params === 'object' && params !== null && !Array.isArray(params) ? undefined : { id, method };
}

/**
 * A JSON-RPC 2.0 message as MCP has them: a request (an id, a string or an integer), a
 * notification (no id), or a response to the server (`result` or `error`), with no other keys.
 */
function isJsonRpcMessage(message: unknown): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const { jsonrpc, id, method, ...rest } = message as Record<string, unknown>;
  if (jsonrpc !== '2.0') return false;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
  if (typeof method === 'string') {
    // `params` of another form than an object is a request with invalid params (-32602: `requestWithBadParams`).
    const { params: _params, ...others } = rest;
    return Object.keys(others).length === 0 && (id === undefined || validId);
  }
  const keys = Object.keys(rest);
  return validId && keys.length === 1 && (keys[0] === 'result' || keys[0] === 'error');
}

function isInitialize(message: unknown): message is { method: 'initialize'; params?: { protocolVersion?: unknown } } {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize';
}

/** Both media types listed (the transport spec's rule, which the SDK enforces too). */
function acceptsJsonAndEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const types = new Set(accept.split(',').map((range) => range.split(';')[0]!.trim().toLowerCase()));
  return types.has('application/json') && types.has('text/event-stream');
}

function allowCrossOrigin(res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate');
  res.setHeader('Vary', 'Origin');
}

function preflight(res: ServerResponse): void {
  res.statusCode = 204;
  res.setHeader('Access-Control-Allow-Methods', 'POST');
  res.setHeader('Access-Control-Allow-Headers', CORS_REQUEST_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.end();
}

/** An MCP refusal before the transport, with a JSON-RPC error body (no request id is known at this level). */
function refuse(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  answerRefusal(res, { status, body: {}, rpc: { code, message }, headers });
}

/**
 * A refusal as MCP answers it: the status and headers REST would send, the JSON-RPC error for its
 * body (refusals.ts), and the refused request's id when known (JSON-RPC 2.0: null only when it
 * could not be read).
 */
function answerRefusal(res: ServerResponse, refusal: Refusal, id: string | number | null = null): void {
  setRefusalHeaders(res, refusal);
  sendJson(res, refusal.status, { jsonrpc: '2.0', error: refusal.rpc, id });
}

/** The id of a body that is one JSON-RPC request (not a batch, not a notification); else null. */
function rpcIdOf(body: unknown): string | number | null {
  if (!isJsonRpcMessage(body) || typeof (body as { method?: unknown }).method !== 'string') return null;
  return (body as { id?: string | number }).id ?? null;
}
