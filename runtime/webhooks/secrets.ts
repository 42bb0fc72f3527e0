/**
 * Webhook secrets and signatures, as Standard Webhooks has them (so receivers can use its
 * verifiers): a secret is `whsec_` + the base64 of 24 to 64 random bytes, the decoded bytes are
 * the HMAC-SHA256 key, and a request carries `Webhook-Signature: v1,<base64 HMAC of
 * "<id>.<timestamp>.<body>">` — one entry per active secret, space-separated, so that a receiver
 * that knows either of two secrets accepts it while they are rotated. The audit trail keeps a
 * webhook command's input without them (`withoutSecrets`).
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;
/** What the server generates when a webhook is made without a secret. */
const GENERATED_SECRET_BYTES = 32;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A new secret. */
export function generateSecret(): string {
  return PREFIX + randomBytes(GENERATED_SECRET_BYTES).toString('base64');
}

/** Why `secret` is not a secret of the Standard Webhooks form, or undefined when it is. `name` says which input it was. */
export function secretProblem(secret: string, name: string): string | undefined {
  if (!secret.startsWith(PREFIX)) return `${name} must start with ${PREFIX} (a Standard Webhooks secret: ${PREFIX} and the base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} random bytes)`;
  const encoded = secret.slice(PREFIX.length);
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return `${name} must be ${PREFIX} followed by base64`;
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < MIN_SECRET_BYTES || bytes > MAX_SECRET_BYTES) return `${name} must hold ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes, not ${bytes}`;
  return undefined;
}

/** The `Webhook-Signature` header of a request: one `v1,<signature>` per secret. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${sign(secret, id, timestamp, body)}`).join(' ');
}

/** The HMAC key a secret stands for: its decoded bytes (two spellings of the same bytes are one key). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.slice(PREFIX.length), 'base64');
}

/** The base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed by the secret's decoded bytes. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/**
 * The input as the audit trail keeps it: secrets replaced by a marker. A refused call is audited
 * with its input too, so what is replaced is not only what a valid call holds: the value of any key
 * that names a secret, whatever its shape (a list keeps its length, to tell one from two), and any
 * `whsec_` secret written in another value.
 */
export function withoutSecrets(input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [textWithoutSecrets(key), /secret/i.test(key) ? secretMarkerOf(value) : secretsMasked(value)]));
}

/** A text (a refusal's, which may name what was given) with any `whsec_` secret written in it replaced by a marker. */
export function textWithoutSecrets(text: string): string {
  return text.replace(WRITTEN_SECRET, SECRET_MARKER);
}

const SECRET_MARKER = '[secret]';
/** A secret written in a text: the prefix and what base64 (or its URL-safe form) may follow it with. */
const WRITTEN_SECRET = new RegExp(`${PREFIX}[A-Za-z0-9+/=_-]*`, 'g');

function secretMarkerOf(value: unknown): unknown {
  return Array.isArray(value) ? value.map(() => SECRET_MARKER) : SECRET_MARKER;
}

function secretsMasked(value: unknown): unknown {
  if (typeof value === 'string') return textWithoutSecrets(value);
  if (Array.isArray(value)) return value.map(secretsMasked);
  if (typeof value === 'object' && value !== null) return withoutSecrets(value as Record<string, unknown>);
  return value;
}
