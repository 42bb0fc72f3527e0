/** Table tests for the small decisions in front of the MCP transport: origins and revisions. */
import { describe, expect, it } from 'vitest';
import { createSite } from '../../../runtime/http/site.ts';
import { createOriginPolicy, parseAllowedOrigins } from '../../../runtime/mcp/origins.ts';
import { negotiateRevision } from '../../../runtime/mcp/revisions.ts';
import { checkRevision } from '../../../runtime/mcp/router.ts';

describe('parseAllowedOrigins', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['https://App.Example.com/, http://localhost:5173', ['https://app.example.com', 'http://localhost:5173']],
    ['https://a.example:443', ['https://a.example']],
    ['*', ['*']],
  ])('%j → %j', (value, expected) => {
    expect(parseAllowedOrigins(value)).toEqual(expected);
  });

  it.each(['app.example.com', 'https://a.example/path', 'https://a.example/?q=1', 'null'])('refuses %j, saying how to write an origin', (value) => {
    expect(() => parseAllowedOrigins(value)).toThrow(/RMS_MCP_ALLOWED_ORIGINS: .* is not an origin; write it like https:\/\/app\.example\.com/);
  });
});

describe('createOriginPolicy', () => {
  /** A server bound to 127.0.0.1:3000. */
  const loopback = createSite('127.0.0.1');
  loopback.listening(3000);
  const policy = createOriginPolicy(['https://app.example.com'], loopback);
  it.each([
    [undefined, '127.0.0.1:3000', 'absent'],
    [undefined, 'localhost:3000', 'absent'],
    ['http://127.0.0.1:3000', '127.0.0.1:3000', 'same-origin'],
    ['http://LOCALHOST:3000', 'localhost:3000', 'same-origin'],
    ['http://[::1]:3000', '[::1]:3000', 'same-origin'],
    ['http://localhost:3000', '127.0.0.1:3000', 'same-origin'],
    ['https://app.example.com', '127.0.0.1:3000', 'listed'],
    ['https://app.example.com:8443', '127.0.0.1:3000', 'refused'],
    ['http://127.0.0.1:3001', '127.0.0.1:3000', 'refused'],
    ['https://evil.example', '127.0.0.1:3000', 'refused'],
    ['null', '127.0.0.1:3000', 'refused'],
    ['not a url', '127.0.0.1:3000', 'refused'],
    // DNS rebinding: the attacker's name resolves to 127.0.0.1, and its Host and Origin agree.
    ['http://rebind.attacker.example:3000', 'rebind.attacker.example:3000', 'host-refused'],
    [undefined, 'rebind.attacker.example:3000', 'host-refused'],
    [undefined, '127.0.0.1:3001', 'host-refused'],
    [undefined, undefined, 'host-refused'],
  ] as const)('loopback: Origin %j with Host %j → %s', (origin, host, verdict) => {
    expect(policy(origin, host)).toBe(verdict);
  });

  it('counts --public-url as the server\'s own, and checks no Host on a bind to every interface', () => {
    const site = createSite('0.0.0.0', 'https://rms.example.com');
    site.listening(3000);
    const open = createOriginPolicy([], site);
    expect(open('https://rms.example.com', 'rms.example.com')).toBe('same-origin');
    expect(open('https://rms.example.com', 'internal:3000')).toBe('same-origin');
    expect(open('http://example.com', 'Example.com')).toBe('refused');
    expect(open(undefined, 'anything.example')).toBe('absent');
  });

  it('answers to the --public-url name on a loopback bind behind a proxy', () => {
    const site = createSite('127.0.0.1', 'https://rms.example.com');
    site.listening(3000);
    const proxied = createOriginPolicy([], site);
    expect(proxied('https://rms.example.com', 'rms.example.com')).toBe('same-origin');
    expect(proxied(undefined, 'RMS.example.com:443')).toBe('absent');
    expect(proxied(undefined, 'other.example.com')).toBe('host-refused');
  });

  it('allows any origin with *', () => {
    expect(createOriginPolicy(['*'], loopback)('https://anything.example', 'localhost:3000')).toBe('listed');
  });
});

describe('revisions', () => {
  it.each([
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2024-11-05', '2025-11-25'],
    ['2026-01-01', '2025-11-25'],
    [undefined, '2025-11-25'],
  ])('initialize asking for %j is answered with %s', (asked, answered) => {
    expect(negotiateRevision(asked)).toBe(answered);
  });

  const request = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const init = (protocolVersion: string) => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion } });
  it.each([
    ['a request without header', request, undefined, undefined],
    ['a request at 2025-11-25', request, '2025-11-25', undefined],
    ['a request at 2024-11-05', request, '2024-11-05', -32000],
    ['initialize ignores the header', init('2025-06-18'), '2024-11-05', undefined],
    ['a batch without header (2025-03-26)', [request, request], undefined, undefined],
    ['a batch at 2025-03-26', [request, request], '2025-03-26', undefined],
    ['a batch at 2025-06-18', [request, request], '2025-06-18', -32600],
    ['a batch with initialize at 2025-06-18', [init('2025-06-18')], undefined, -32600],
    ['a batch with initialize at 2025-03-26', [init('2025-03-26')], undefined, undefined],
    ['an empty batch', [], undefined, -32600],
  ] as const)('%s', (_name, body, header, code) => {
    expect(checkRevision(body, header)?.code).toBe(code);
  });
});
