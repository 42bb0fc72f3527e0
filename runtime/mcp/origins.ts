/**
 * Which browser origins may call `/mcp`. Browsers send `Origin` on cross-site requests; a page on
 * a foreign site must not drive the endpoint (DNS rebinding, CSRF). Clients outside a browser
 * send no `Origin` and are not affected.
 *
 * Default: same-origin only (the Origin's host equals the request's `Host`). Operators add
 * origins with `RMS_MCP_ALLOWED_ORIGINS` (comma-separated, e.g. `https://app.example.com`;
 * `*` allows any); those get CORS headers so browser-based MCP clients work.
 */

/** Environment variable with the extra allowed origins. */
export const ALLOWED_ORIGINS_ENV = 'RMS_MCP_ALLOWED_ORIGINS';

/**
 * - `absent`: no Origin header (not a browser);
 * - `same-origin`: the page was served by this host;
 * - `listed`: a configured cross-origin caller (answer with CORS headers);
 * - `refused`: 403.
 */
export type OriginVerdict = 'absent' | 'same-origin' | 'listed' | 'refused';

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

export function createOriginPolicy(allowed: readonly string[]): OriginPolicy {
  const anyOrigin = allowed.includes('*');
  const listed = new Set(allowed);
  return function checkOrigin(origin, host) {
    if (origin === undefined) return 'absent';
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (url && url.origin !== 'null' && host !== undefined && url.host === host.toLowerCase()) return 'same-origin';
    if (anyOrigin || (url && listed.has(url.origin))) return 'listed';
    return 'refused';
  };
}
