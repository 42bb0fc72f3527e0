/** Which addresses a webhook may reach (runtime/webhooks/address.ts): every internal form refused, public ones taken. */
import { describe, expect, it } from 'vitest';
import { isInternalAddress, webhookUrl, webhookUrlProblem } from '../../../runtime/webhooks/address.ts';

describe('isInternalAddress', () => {
  it.each([
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.0.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:10.1.1.1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::10.0.0.1',
    '2002:7f00:1::',
    '2002:c0a8:0101::1',
    'fc00::1',
    'fdff:ffff::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fec0::1',
    'ff02::1',
    '2001:db8::1',
    '100::1',
    '::ffff:0:7f00:1',
    '::ffff:0:10.0.0.1',
    '64:ff9b:1::7f00:1',
    '64:ff9b:1:ffff::808:808',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001:2::1',
    'not an address',
  ])('%s is internal', (address) => {
    expect(isInternalAddress(address)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:0808:0808::1', '::ffff:0:808:808', '2001:4860:4860::8888'])('%s is public', (address) => {
    expect(isInternalAddress(address)).toBe(false);
  });
});

describe('webhookUrlProblem', () => {
  it.each([
    ['https://93.184.215.14/hook', undefined],
    ['http://[2606:4700:4700::1111]:8080/x', undefined],
    ['ftp://93.184.215.14/', 'url must be an http or https URL, not ftp'],
    ['file:///etc/passwd', 'url must be an http or https URL, not file'],
    ['//example.com', 'url must be an absolute http or https URL'],
    ['https://user:secret@93.184.215.14/', 'url must not carry a user name or password (the secret signs each request)'],
    ['http://0177.0.0.1/', 'url: 127.0.0.1 is a loopback, private or reserved address, which webhooks may not reach (serve --allow-private-webhooks allows it)'],
    ['http://[::ffff:127.0.0.1]/', 'url: ::ffff:7f00:1 is a loopback, private or reserved address, which webhooks may not reach (serve --allow-private-webhooks allows it)'],
    ['http://localhost:3000/', /^url: localhost \((127\.0\.0\.1|::1)\) is a loopback, private or reserved address/],
    ['http://no-such-host.invalid/', 'url: the host no-such-host.invalid does not resolve'],
    [' http://93.184.215.14/', 'url must not contain spaces, backslashes or control characters (percent-encode them)'],
    ['http://93.184.215.14/a\nb', 'url must not contain spaces, backslashes or control characters (percent-encode them)'],
    ['http://93.184.215.14/a\u0000', 'url must not contain spaces, backslashes or control characters (percent-encode them)'],
    ['http://\\93.184.215.14/', 'url must not contain spaces, backslashes or control characters (percent-encode them)'],
    ['http:93.184.215.14', 'url must be an absolute http or https URL (http://host/…)'],
    ['http:///93.184.215.14/', 'url must be an absolute http or https URL (http://host/…)'],
    ['http://93.184.215.14:0/', 'url must not have port 0'],
    [`https://93.184.215.14/${'a'.repeat(2048)}`, 'url must be at most 2048 characters'],
    [`https://93.184.215.14/${'a'.repeat(2048 - 'https://93.184.215.14/'.length)}`, undefined],
  ] as const)('%s → %s', async (url, problem) => {
    const found = await webhookUrlProblem(url, 'url', false);
    if (problem instanceof RegExp) expect(found).toMatch(problem);
    else expect(found).toBe(problem);
  });

  it('takes loopback and private addresses with --allow-private-webhooks, still only http(s)', async () => {
    expect(await webhookUrlProblem('http://127.0.0.1:9999/hook', 'url', true)).toBeUndefined();
    expect(await webhookUrlProblem('http://localhost/hook', 'url', true)).toBeUndefined();
    expect(await webhookUrlProblem('gopher://127.0.0.1/', 'url', true)).toBe('url must be an http or https URL, not gopher');
  });
});

describe('webhookUrl', () => {
  it('is the URL in its normal form, as it is stored and reached', () => {
    expect(webhookUrl('HTTPS://Example.COM')).toBe('https://example.com/');
    expect(webhookUrl('http://93.184.215.14:80/a/../hook?x=1')).toBe('http://93.184.215.14/hook?x=1');
    expect(webhookUrl('https://example.com/a b'.replace(' ', '%20'))).toBe('https://example.com/a%20b');
  });
});
