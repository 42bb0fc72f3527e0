/**
 * `GET /metrics` on a port of its own (`serve --metrics-port`, on loopback unless `--metrics-host`
 * says otherwise): scraped by Prometheus without a token, and out of reach of the service's own
 * clients. Anything but `GET`/`HEAD /metrics` is 404 (405 for another method on it).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerMetrics } from '../metrics.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

export async function listenForMetrics(metrics: ServerMetrics, host: string, port: number, logError: (error: unknown) => void): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) return answer(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return answer(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    }
    metrics.render().then(
      ({ contentType, text }) => answer(res, 200, contentType, text, req.method === 'HEAD'),
      (error: unknown) => {
        logError(error);
        answer(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      },
    );
  });
  // A scraper's keep-alive connection must not hold the process after the service has drained.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    // Named as the metrics port's, so that a start refused for it does not read as the service's.
    const refuse = (error: NodeJS.ErrnoException) => reject(Object.assign(new Error(`the metrics port: ${error.message}`), { code: error.code }));
    server.once('error', refuse);
    server.listen(port, host, () => {
      server.off('error', refuse);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function answer(res: ServerResponse, status: number, contentType: string, body: string, headOnly = false): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(headOnly ? undefined : body);
}
