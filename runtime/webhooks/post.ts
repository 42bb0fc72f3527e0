/**
 * A webhook's request: `POST` of its signed body, no redirect followed (a 3xx is an answer like any
 * other), cut off after the timeout, and, unless private addresses are allowed, never connected to
 * an internal address: the address a request connects to is checked, not only the one its name had
 * when the webhook was saved.
 */
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { hostOf, isInternalAddress } from './address.ts';

export interface WebhookPoster {
  /** Sends `body`; resolves with the answer's status, rejects when there is none (refused, cut off, an internal address). */
  post(url: URL, headers: Record<string, string>, body: string): Promise<number>;
  /** Closes the kept-alive connections. */
  destroy(): void;
}

export function createWebhookPoster(options: { readonly allowPrivate: boolean; readonly timeoutMs: number; readonly maxSockets: number }): WebhookPoster {
  const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: options.maxSockets }), https: new HttpsAgent({ keepAlive: true, maxSockets: options.maxSockets }) };
  const lookup = options.allowPrivate ? undefined : publicLookup;
  return {
    post(url: URL, headers: Record<string, string>, body: string): Promise<number> {
      const https = url.protocol === 'https:';
      const host = hostOf(url);
      if (!options.allowPrivate && isIP(host) !== 0 && isInternalAddress(host)) return Promise.reject(new Error(`${host} is an internal address`));
      return new Promise((resolve, reject) => {
        const request = (https ? httpsRequest : httpRequest)(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent: https ? agents.https : agents.http, ...(lookup ? { lookup } : {}) });
        const timer = setTimeout(() => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
        request.on('response', (response: IncomingMessage) => {
          clearTimeout(timer);
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        request.end(body);
      });
    },
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Name resolution that refuses internal addresses: the address a request connects to is checked, not only the name's address when the webhook was saved. */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as LookupAddress[];
    const internal = list.find(({ address }) => isInternalAddress(address));
    if (internal) return callback(Object.assign(new Error(`${hostname} resolves to ${internal.address}, an internal address`), { code: 'EINTERNAL' }), '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};
