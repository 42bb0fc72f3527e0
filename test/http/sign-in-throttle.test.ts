/**
 * Password checks cannot be had for free: a username longer than any account's is refused with
 * 400 before any hashing (the probe's over-long names skipped the lockout and the per-address
 * throttle yet ran bcrypt), and every failed sign-in counts against the client's address,
 * whatever the username — unknown, of the longest length, of a disabled person, spelled in
 * another case. The address comes from X-Forwarded-For (the server trusts loopback), so that each
 * test has addresses of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disablePerson } from '../../runtime/auth/index.ts';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ trustProxy: 'loopback' });
  await t.addPerson('dora', ['sales']);
  await disablePerson(t.server.db, 'dora');
});

afterAll(async () => {
  await t?.close();
});

const login = (body: unknown, address: string) => t.request('POST', '/api/auth/login', body, undefined, { 'x-forwarded-for': address });

function failuresFrom(address: string): number {
  return t.inspect((db) => Number((db.prepare('select count(*) as n from rms_login_failures where address = ?').get(address) as { n: number }).n));
}

describe('a username longer than any account can have', () => {
  it.each([
    ['65 characters', 'x'.repeat(65)],
    ['200 characters', 'y'.repeat(200)],
    ['1000 characters', 'z'.repeat(1000)],
    ['64 characters and a space', ` ${'w'.repeat(64)}`],
    ['a real name, padded', `admin${' '.repeat(60)}`],
  ])('%s: 400 before any password check, and no failure recorded', async (_name, username) => {
    const address = '198.51.100.10';
    const res = await login({ username, password: 'wrong-password' }, address);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: 'username must be at most 64 characters' } });
    expect(failuresFrom(address)).toBe(0);
  });
});

describe('every failed sign-in counts against the address', () => {
  it('whatever the username: unknown, the longest, a disabled person, another case, not ASCII', async () => {
    const address = '198.51.100.20';
    const usernames = [
      ...Array.from({ length: 10 }, (_, i) => `${String(i).padStart(2, '0')}${'l'.repeat(62)}`), // 64 characters each
      ...Array.from({ length: 10 }, (_, i) => `nobody-${i}`),
      'dora',
      'DORA',
      ' Dora ',
      'admin',
      'ADMIN',
      'zoë',
      '東京',
      'a',
      'x'.repeat(64),
      'dora',
    ];
    expect(usernames).toHaveLength(30);
    for (const username of usernames) {
      const password = username.trim().toLowerCase() === 'dora' ? 'dora-test-password' : 'wrong-password';
      const res = await login({ username, password }, address);
      expect({ username, status: res.status }).toEqual({ username, status: 401 });
    }
    expect(failuresFrom(address)).toBe(30);
    // Refused before any check, over-long names neither count nor get past the throttle.
    const long = await login({ username: 'q'.repeat(65), password: 'wrong-password' }, address);
    expect(long.status).toBe(400);
    // The 31st: throttled, even for the right password of a real account.
    for (const body of [{ username: 'someone-new', password: 'wrong-password' }, { username: 'admin', password: ADMIN_PASSWORD }]) {
      const res = await login(body, address);
      expect({ status: res.status, body: res.body }).toEqual({ status: 429, body: { error: 'too many failed sign-ins from this address; try again in a minute' } });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Another address signs in.
    expect((await login({ username: 'admin', password: ADMIN_PASSWORD }, '198.51.100.21')).status).toBe(200);
  });

  it("another person's sign-in does not take an address's failures off its count", async () => {
    await t.addPerson('sam', ['sales']);
    const attacker = '198.51.100.40';
    for (let i = 0; i < 4; i++) expect((await login({ username: 'sam', password: 'wrong-password' }, attacker)).status).toBe(401);
    for (let i = 0; i < 25; i++) expect((await login({ username: `ghost-${i}`, password: 'wrong-password' }, attacker)).status).toBe(401);
    // sam signs in from elsewhere: sam's own count starts over (sam is not locked), the attacker's does not.
    expect((await login({ username: 'sam', password: 'sam-test-password' }, '198.51.100.41')).status).toBe(200);
    expect(failuresFrom(attacker)).toBe(29);
    expect((await login({ username: 'ghost-x', password: 'wrong-password' }, attacker)).status).toBe(401);
    const throttled = await login({ username: 'ghost-y', password: 'wrong-password' }, attacker);
    expect({ status: throttled.status, body: throttled.body }).toEqual({ status: 429, body: { error: 'too many failed sign-ins from this address; try again in a minute' } });
    // sam's lockout count did start over: five more failures lock, not one.
    const other = '198.51.100.42';
    for (let i = 0; i < 4; i++) expect((await login({ username: 'sam', password: 'wrong-password' }, other)).status).toBe(401);
    expect((await login({ username: 'sam', password: 'sam-test-password' }, other)).status).toBe(200);
  });

  it('a name of the longest length is locked after five failures, as any', async () => {
    const address = '198.51.100.30';
    const username = `m${'n'.repeat(63)}`;
    for (let i = 0; i < 5; i++) expect((await login({ username, password: 'wrong-password' }, address)).status).toBe(401);
    const res = await login({ username, password: 'wrong-password' }, '198.51.100.31');
    expect({ status: res.status, body: res.body }).toEqual({ status: 429, body: { error: 'too many failed sign-ins; try again in a minute' } });
  });
});
