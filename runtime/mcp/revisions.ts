/**
 * The MCP protocol revisions this endpoint speaks, and how a request's revision is decided.
 *
 * The SDK knows older revisions too (2024-11-05, 2024-10-07) and would echo them at `initialize`
 * and accept them in `MCP-Protocol-Version`; we support exactly these three (SPEC 4.6).
 */

/** Newest first. */
export const SUPPORTED_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export type Revision = (typeof SUPPORTED_REVISIONS)[number];

/** What `initialize` answers when the client asks for a revision we do not speak. */
export const LATEST_REVISION: Revision = '2025-11-25';

/** A request without `MCP-Protocol-Version` is taken to speak this one (the transport spec's rule). */
export const DEFAULT_REVISION: Revision = '2025-03-26';

export function isSupportedRevision(value: unknown): value is Revision {
  return typeof value === 'string' && (SUPPORTED_REVISIONS as readonly string[]).includes(value);
}

/** `initialize`: the client's revision when we speak it, otherwise the newest. */
export function negotiateRevision(requested: unknown): Revision {
  return isSupportedRevision(requested) ? requested : LATEST_REVISION;
}

/** JSON-RPC batches were removed in 2025-06-18. */
export function allowsBatches(revision: Revision): boolean {
  return revision === '2025-03-26';
}
