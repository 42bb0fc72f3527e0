/**
 * Which browser origins (and, on loopback, which `Host` names) may call `/mcp`. Browsers send
 * `Origin` on cross-site requests; a page on a foreign site must not drive the endpoint (DNS
 * rebinding, CSRF). Clients outside a browser send no `Origin`.
 *
 * Same-origin means the server's own names, never whatever `Host` the request carries (a rebound
 * name sends a matching Host and Origin): the origin of `--public-url`, of `--host` when it names
 * one interface, and the loopback names when bound to loopback. Operators add origins with
 * `RMS_MCP_ALLOWED_ORIGINS` (comma-separated, e.g. `https://app.example.com`; `*` allows any);
 * those get CORS headers so browser-based MCP clients work. On a loopback bind a request whose
 * `Host` is none of the server's names is refused whatever its Origin, as the MCP transport
 * guidance advises against DNS rebinding.
 */

import type { Site } from '../http/site.ts';

/** Environment variable with the extra allowed origins. */
export const ALLOWED_ORIGINS_ENV = 'RMS_MCP_ALLOWED_ORIGINS';

/**
 * - `absent`: no Origin header (not a browser);
 * - `same-origin`: the page was served by this server, under one of its own names;
 * - `listed`: a configured cross-origin caller (answer with CORS headers);
 * - `refused`: 403 for the Origin;
 * - `host-refused`: 403 for the Host (loopback binds only).
 */
export type OriginVerdict = 'absent' | 'same-origin' | 'listed' | 'refused' | 'host-refused';

export type OriginPolicy = (origin: string | undefined, host: string | undefined) => OriginVerdict;

/** Parses a comma-separated list; throws on an entry that is not an origin, naming it. */
export function parseAllowedOrigins(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => (entry === '*' ? entry : normalizeOrigin(entry)));
}

function normalizeOrigin(entry: string): string {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw new Error(`${ALLOWED_ORIGINS_ENV}: ${entry} is not an origin; write it like https://app.example.com`);
  }
  if (url.origin === 'null' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '') {
    throw new Error(`${ALLOWED_ORIGINS_ENV}: ${entry} is not an origin; write it like https://app.example.com (scheme, host and port only)`);
  }
  return url.origin;
}

export function createOriginPolicy(allowed: readonly string[], own: Site): OriginPolicy {
  const anyOrigin = allowed.includes('*');
  const listed = new Set(allowed);
  return function checkOrigin(origin, host) {
    const origins = own.origins();
    if (own.loopback && !hostIsOwn(host, origins)) return 'host-refused';
    if (origin === undefined) return 'absent';
    const url = parseOrigin(origin);
    if (url && origins.includes(url)) return 'same-origin';
    if (anyOrigin || (url && listed.has(url))) return 'listed';
    return 'refused';
  };
}

/** `https://a.example:443` → `https://a.example`; undefined for anything that is not an origin. */
function parseOrigin(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** Whether a Host header names one of the origins (the default port may be left out, case does not matter). */
function hostIsOwn(host: string | undefined, origins: readonly string[]): boolean {
  if (host === undefined) return false;
  return origins.some((origin) => {
    const url = new URL(origin);
    return parseOrigin(`${url.protocol}//${host}`) === origin;
  });
}
