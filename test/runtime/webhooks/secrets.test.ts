/** Webhook secrets and signatures (runtime/webhooks/secrets.ts), checked against the Standard Webhooks library. */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { generateSecret, secretProblem, sign, signatureHeader } from '../../../runtime/webhooks/secrets.ts';

describe('webhook secrets', () => {
  it('generates whsec_ and the base64 of 32 random bytes, different each time', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
    expect(secretProblem(secret, 'secret')).toBeUndefined();
  });

  it.each([
    ['whsec_' + Buffer.alloc(24).toString('base64'), undefined],
    ['whsec_' + Buffer.alloc(64).toString('base64'), undefined],
    ['whsec_' + Buffer.alloc(23).toString('base64'), 'secret must hold 24 to 64 bytes, not 23'],
    ['whsec_' + Buffer.alloc(65).toString('base64'), 'secret must hold 24 to 64 bytes, not 65'],
    ['whsec_' + Buffer.alloc(32).toString('base64url').replace(/=/g, '') + '-_', 'secret must be whsec_ followed by base64'],
    ['WHSEC_' + Buffer.alloc(32).toString('base64'), 'secret must start with whsec_ (a Standard Webhooks secret: whsec_ and the base64 of 24 to 64 random bytes)'],
    ['', 'secret must start with whsec_ (a Standard Webhooks secret: whsec_ and the base64 of 24 to 64 random bytes)'],
  ])('%s: %s', (secret, problem) => {
    expect(secretProblem(secret, 'secret')).toBe(problem);
  });

  it('signs as Standard Webhooks verifies: one v1 entry per secret, each verifying alone', () => {
    const secrets = [generateSecret(), generateSecret()];
    const body = JSON.stringify({ id: 'E1', type: 'lead.create' });
    const timestamp = Math.floor(Date.now() / 1000);
    const header = signatureHeader(secrets, 'E1', timestamp, body);
    expect(header.split(' ')).toEqual(secrets.map((secret) => `v1,${sign(secret, 'E1', timestamp, body)}`));
    for (const secret of secrets) {
      expect(() => new Webhook(secret).verify(body, { 'webhook-id': 'E1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header })).not.toThrow();
    }
    expect(() => new Webhook(generateSecret()).verify(body, { 'webhook-id': 'E1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header })).toThrow();
    // A changed body, id or timestamp does not verify.
    expect(() => new Webhook(secrets[0]!).verify(body + ' ', { 'webhook-id': 'E1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header })).toThrow();
    expect(() => new Webhook(secrets[0]!).verify(body, { 'webhook-id': 'E2', 'webhook-timestamp': String(timestamp), 'webhook-signature': header })).toThrow();
  });
});
