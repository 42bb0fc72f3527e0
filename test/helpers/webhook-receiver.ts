/**
 * A real webhook receiver for tests: node:http on 127.0.0.1 that keeps every request it is sent
 * (headers, body) and answers with what the test says (by default 200). Each request's
 * signatures are checked with the Standard Webhooks library (`standardwebhooks`), as a receiver
 * would: `verified` says which of the test's secrets accepted it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: any;
  /** The status it was answered. */
  readonly status: number;
  /** When it came (ms since the epoch). */
  readonly receivedAt: number;
}

export interface Receiver {
  readonly url: string;
  readonly received: ReceivedRequest[];
  /** The status for the next request (called per request; default 200). */
  answer: (request: { readonly json: any; readonly index: number }) => number;
  /** How long to hold a request before answering it, in ms (default 0); it counts as received at once. */
  hold: (request: { readonly json: any; readonly index: number }) => number;
  /** Whether a request's signature header verifies with `secret` (a `whsec_` secret), its timestamp as sent. */
  verifies(request: ReceivedRequest, secret: string): boolean;
  /** Waits (polling, bounded) until `count` requests came; throws after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    answer: () => 200,
    hold: () => 0,
    verifies(request, secret) {
      try {
        // The library checks the timestamp against the real time; our servers' clocks may be moved: check at the sent time.
        const sentAt = Number(request.headers['webhook-timestamp']) * 1000;
        const realNow = Date.now;
        Date.now = () => sentAt;
        try {
          new Webhook(secret).verify(request.body, {
            'webhook-id': String(request.headers['webhook-id']),
            'webhook-timestamp': String(request.headers['webhook-timestamp']),
            'webhook-signature': String(request.headers['webhook-signature']),
          });
        } finally {
          Date.now = realNow;
        }
        return true;
      } catch {
        return false;
      }
    },
    async waitFor(count, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > until) throw new Error(`receiver got ${received.length} requests, not ${count}, within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const index = received.length;
      const status = receiver.answer({ json, index });
      const held = receiver.hold({ json, index });
      received.push({ headers: req.headers, body, json, status, receivedAt: Date.now() });
      const respond = () => res.writeHead(status, status >= 300 && status < 400 ? { location: 'http://127.0.0.1:9/elsewhere' } : {}).end();
      if (held > 0) setTimeout(respond, held);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
