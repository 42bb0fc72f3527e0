/**
 * Bearer tokens: 32 random bytes in base64url behind a prefix that tells the kinds apart
 * (`rms_s_…` session, `rms_a_…` agent). Only the sha256 of a token is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TokenKind } from './tables.ts';

const PREFIX: Record<TokenKind, string> = { session: 'rms_s_', agent: 'rms_a_' };

/** A well-formed token: prefix plus 43 base64url characters (32 bytes). */
const TOKEN_SHAPE = /^rms_([sa])_[A-Za-z0-9_-]{43}$/;

/** A new token of `kind` (clear text: hand it to the caller once, store `hashToken` of it). */
export function newToken(kind: TokenKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url');
}

/** sha256 of the token, hex. Tokens carry 256 random bits, so a fast hash is enough (no salt, no bcrypt). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The kind a token claims by its prefix, or undefined when it is not shaped like one of ours. */
export function tokenKindOf(token: string): TokenKind | undefined {
  const match = TOKEN_SHAPE.exec(token);
  if (!match) return undefined;
  return match[1] === 's' ? 'session' : 'agent';
}

/** Current time as stored in the auth tables. */
export function isoNow(now: number = Date.now()): string {
  return new Date(now).toISOString();
}
