/**
 * The SDK's own MCP client over real HTTP, with the bearer token in `requestInit.headers`. The
 * client always asks for the newest revision at `initialize`; `revision` pins another one by
 * rewriting `protocolVersion` in the initialize body (a custom `fetch`), which also records what
 * the server answered and the `MCP-Protocol-Version` header of every later request.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import type { TestServer } from './server.ts';

export interface ConnectedClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** `protocolVersion` of the initialize result. */
  readonly negotiated: string;
  /** `MCP-Protocol-Version` of each request after initialize (null when absent), in order. */
  readonly versionHeaders: (string | null)[];
  close(): Promise<void>;
}

export async function connectClient(t: TestServer, token: string, options: { revision?: string } = {}): Promise<ConnectedClient> {
  let negotiated: string | undefined;
  const versionHeaders: (string | null)[] = [];
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', t.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    async fetch(input, init) {
      const method = init?.method ?? 'GET';
      let body = init?.body;
      const message = method === 'POST' && typeof body === 'string' ? (JSON.parse(body) as { method?: string; params?: { protocolVersion?: string } }) : undefined;
      const initialize = message?.method === 'initialize';
      if (initialize) {
        if (options.revision !== undefined) body = JSON.stringify({ ...message, params: { ...message!.params, protocolVersion: options.revision } });
      } else if (method === 'POST') {
        versionHeaders.push(new Headers(init?.headers).get('mcp-protocol-version'));
      }
      const res = await fetchOnce(input, { ...init, body });
      if (initialize && res.ok) negotiated = ((await res.clone().json()) as { result: { protocolVersion: string } }).result.protocolVersion;
      return res;
    },
  });
  const client = new Client({ name: 'rmsgen-test', version: '1.0.0' });
  await client.connect(transport);
  expect(negotiated).toBeDefined();
  return {
    client,
    transport,
    negotiated: negotiated!,
    versionHeaders,
    close: () => client.close(),
  };
}

/**
 * fetch, sent once more when the connection was reset before any answer: the race `sendOn`
 * (helpers/server.ts) describes, a request written on a kept-alive connection just as the
 * in-process server closes it for being idle (its timer late behind a busy test), which the
 * server never read. undici does not say whether the connection was reused, so only once; any
 * other failure, or a second reset, fails the test.
 */
async function fetchOnce(input: string | URL | Request, init: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error;
    return fetch(input, init);
  }
}
