/**
 * Where a webhook may send: http or https to a public address. Loopback, private, link-local,
 * unique-local, multicast and reserved addresses (IPv4, IPv6, and IPv4 inside IPv6 forms) are
 * refused — for a literal address, for every address a name resolves to when the webhook is
 * saved, and again for the address each request connects to (a name that later resolves to an
 * internal address is refused then) — so that a webhook cannot probe the network the service runs
 * in. `serve --allow-private-webhooks` lifts this (a receiver on the same host, tests).
 */
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

const v4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  v4.addSubnet(network, prefix, 'ipv4');
}

const v6 = new BlockList();
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  // Local-use NAT64 (RFC 8215): translated by the network's own gateway, to any IPv4 address.
  ['64:ff9b:1::', 48],
  ['100::', 64],
  // Teredo: a tunnel to an IPv4 host the address hides.
  ['2001::', 32],
  ['2001:2::', 48],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  v6.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (either family) is one a webhook may not reach. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return v4.check(address, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(address);
  if (embedded !== undefined) return v4.check(embedded, 'ipv4') || embedded === '255.255.255.255';
  return v6.check(address, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that reach it: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`, SIIT),
 * NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`).
 */
function embeddedIpv4(address: string): string | undefined {
  const words = ipv6Words(address);
  if (!words) return undefined;
  const v4Of = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  if (zeros(0, 5) && (words[5] === 0xffff || words[5] === 0) && !(words[5] === 0 && words[6] === 0)) return v4Of(words[6]!, words[7]!);
  if (zeros(0, 4) && words[4] === 0xffff && words[5] === 0) return v4Of(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return v4Of(words[6]!, words[7]!);
  if (words[0] === 0x2002) return v4Of(words[1]!, words[2]!);
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (a trailing dotted IPv4 part as two). */
function ipv6Words(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((word) => parseInt(word, 16)));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  const words = tail === undefined ? first : [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
  return words.length === 8 && words.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff) ? words : undefined;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** The longest URL a webhook takes, in characters (as browsers and most servers handle). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Why the URL may not be a webhook's, or undefined: too long, spaces or control characters in it
 * (which URL parsing would drop or change silently, so that what is shown would differ from what
 * is reached), not http(s), port 0, credentials in it, or (unless `allowPrivate`) a host that is,
 * or resolves to, an internal address. Errors name `field`. A URL it takes is stored as
 * `webhookUrl` writes it.
 */
export async function webhookUrlProblem(text: string, field: string, allowPrivate: boolean): Promise<string | undefined> {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) return `${field} must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(text)) return `${field} must not contain spaces, backslashes or control characters (percent-encode them)`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${field} must be an absolute http or https URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${field} must be an http or https URL, not ${url.protocol.slice(0, -1)}`;
  if (!/^https?:\/\/[^/]/i.test(text)) return `${field} must be an absolute http or https URL (http://host/…)`;
  if (url.port === '0') return `${field} must not have port 0`;
  if (url.username !== '' || url.password !== '') return `${field} must not carry a user name or password (the secret signs each request)`;
  if (allowPrivate) return undefined;
  const host = hostOf(url);
  if (isIP(host) !== 0) return isInternalAddress(host) ? refusal(field, host) : undefined;
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    return `${field}: the host ${host} does not resolve`;
  }
  const internal = addresses.find(({ address }) => isInternalAddress(address));
  return internal ? refusal(field, `${host} (${internal.address})`) : undefined;
}

function refusal(field: string, host: string): string {
  return `${field}: ${host} is a loopback, private or reserved address, which webhooks may not reach (serve --allow-private-webhooks allows it)`;
}

/** A URL `webhookUrlProblem` took, as it is stored, shown and reached: its normal form (lower-case scheme and host, a path). */
export function webhookUrl(text: string): string {
  return new URL(text).href;
}
