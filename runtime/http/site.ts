/**
 * Where the server is reached: the names that count as its own origin. Known in full once it
 * listens (the port may be picked then), so it is read per request.
 */
export interface Site {
  /** The origins the server is reached at, e.g. `http://127.0.0.1:3000`, `https://rms.example.com`. */
  origins(): readonly string[];
  /** Bound to loopback only: a request for any other name came through a rebound DNS name. */
  readonly loopback: boolean;
}

/** A site for `host`, completed by `listening(port)` once the server listens. */
export function createSite(host: string, publicUrl?: string): Site & { listening(port: number): void } {
  let origins: readonly string[] = publicUrl === undefined ? [] : [new URL(publicUrl).origin];
  return {
    loopback: isLoopbackHost(host),
    origins: () => origins,
    listening(port) {
      origins = ownOrigins(host, port, publicUrl);
    },
  };
}

/** Whether `host` (an address or name to listen on) is loopback only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * The origins a server listening on `host:port` is reached at: `publicUrl`'s, the host's own when
 * it names one interface (not 0.0.0.0 or ::), and every loopback name when it is loopback.
 */
export function ownOrigins(host: string, port: number, publicUrl?: string): string[] {
  const origins = new Set<string>();
  if (publicUrl !== undefined) origins.add(new URL(publicUrl).origin);
  const bare = host.replace(/^\[|\]$/g, '');
  if (isLoopbackHost(host)) {
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) origins.add(new URL(`http://${name}:${port}`).origin);
  }
  if (bare !== '0.0.0.0' && bare !== '::' && bare !== '') {
    origins.add(new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}:${port}`).origin);
  }
  return [...origins];
}
