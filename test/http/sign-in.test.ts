/**
 * People's sign-in over real HTTP against a real SQLite file: login, lockout, logout, token
 * storage, and the 401 cases of SPEC 5.4 on a command call.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson } from '../../runtime/auth/index.ts';
import { openDatabase } from '../../runtime/db/connect.ts';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let db: Knex;

beforeAll(async () => {
  // The stored hashes are checked here: the runtime's own.
  server = await startTestServer({ realPasswordHashes: true });
  db = openDatabase(server.dbUrl);
  await createPerson(db, { username: 'sam', password: 'sam-password', roles: ['sales'] });
  await createPerson(db, { username: 'lena', password: 'lena-password', roles: ['sales'] });
  await createPerson(db, { username: 'otto', password: 'otto-password', roles: ['sales'] });
});

afterAll(async () => {
  await db?.destroy();
  await server?.close();
});

const login = (body: unknown) => server.request('POST', '/api/auth/login', body);

describe('POST /api/auth/login', () => {
  it('returns a session token for the right password', async () => {
    const res = await login({ username: 'admin', password: ADMIN_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^rms_s_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    // valid 12 hours
    const row = await db('rms_tokens').where('token_hash', sha256(res.body.token)).first();
    const lifetime = Date.parse(row.expires_at) - Date.parse(row.created_at);
    expect(lifetime).toBe(12 * 60 * 60 * 1000);
    expect((await server.command(res.body.token, 'lead.list', {})).status).toBe(200);
  });

  it('usernames are case-insensitive', async () => {
    expect((await login({ username: 'SAM', password: 'sam-password' })).status).toBe(200);
  });

  it.each([
    ['a wrong password', { username: 'admin', password: 'wrong-password' }],
    ['an unknown username', { username: 'nobody', password: 'whatever-pw' }],
    ['a username as long as any can be', { username: 'x'.repeat(64), password: 'whatever-pw' }],
  ])('401 for %s', async (_, body) => {
    const res = await login(body);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid username or password' });
  });

  it.each([
    ['no body', undefined, 'username is required'],
    ['an empty object', {}, 'username is required'],
    ['no password', { username: 'admin' }, 'password is required'],
    ['a number username', { username: 1, password: 'x' }, 'username must be a string'],
    ['a null password', { username: 'admin', password: null }, 'password is required'],
    ['an array password', { username: 'admin', password: ['x'] }, 'password must be a string'],
    ['an empty username', { username: '', password: 'x' }, 'username must not be empty'],
    ['a username over 64 characters (no account has one)', { username: 'x'.repeat(65), password: 'x' }, 'username must be at most 64 characters'],
    ['a password over 1024 characters', { username: 'admin', password: 'x'.repeat(1025) }, 'password must be at most 1024 characters'],
    ['an unknown key', { username: 'admin', password: ADMIN_PASSWORD, remember: true }, 'unknown key remember'],
    ['an array body', [1, 2], 'request body must be a JSON object'],
    ['a null body', null, 'request body must be a JSON object'],
    ['a string body', '"admin"', 'request body must be a JSON object'],
  ])('400 for %s', async (_, body, error) => {
    const res = await login(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
  });

  it('sign-in takes a username and password only: a token in the body is refused', async () => {
    const res = await login({ token: `rms_a_${'A'.repeat(43)}` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unknown key token' });
  });
});

describe('sign-in lockout', () => {
  const LOCKED = { error: 'too many failed sign-ins; try again in a minute' };

  it('five failures in a minute lock the username for a minute, even for the right password', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await login({ username: 'lena', password: `wrong-${i}` });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid username or password' });
    }
    for (const password of ['lena-password', 'wrong-again']) {
      const res = await login({ username: 'lena', password });
      expect(res.status).toBe(429);
      expect(res.body).toEqual(LOCKED);
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // the lock is per username
    expect((await login({ username: 'otto', password: 'otto-password' })).status).toBe(200);
    // the same username in other case is the same username
    expect((await login({ username: 'LENA', password: 'lena-password' })).status).toBe(429);

    // a minute later: move the failures back in time instead of waiting
    await db('rms_login_failures').where('username', 'lena').update({ at: new Date(Date.now() - 61_000).toISOString() });
    expect((await login({ username: 'lena', password: 'lena-password' })).status).toBe(200);
    // a success clears the count: one more failure does not lock
    expect((await login({ username: 'lena', password: 'wrong' })).status).toBe(401);
    expect((await login({ username: 'lena', password: 'lena-password' })).status).toBe(200);
  });

  it('four failures do not lock, and failures older than a minute do not count', async () => {
    for (let i = 0; i < 4; i++) expect((await login({ username: 'otto', password: 'nope-nope' })).status).toBe(401);
    await db('rms_login_failures').where('username', 'otto').update({ at: new Date(Date.now() - 61_000).toISOString() });
    expect((await login({ username: 'otto', password: 'nope-nope' })).status).toBe(401);
    expect((await login({ username: 'otto', password: 'otto-password' })).status).toBe(200);
  });

  it('unknown usernames lock too (no hint whether a username exists)', async () => {
    for (let i = 0; i < 5; i++) expect((await login({ username: 'mallory', password: 'guess-guess' })).status).toBe(401);
    const res = await login({ username: 'mallory', password: 'guess-guess' });
    expect(res.status).toBe(429);
    expect(res.body).toEqual(LOCKED);
  });

  it('parallel guesses cannot get past five', async () => {
    await createPerson(db, { username: 'pia', password: 'pia-password', roles: ['sales'] });
    const results = await Promise.all(Array.from({ length: 12 }, () => login({ username: 'pia', password: 'wrong-guess' })));
    expect(results.filter((r) => r.status === 401).length).toBeLessThanOrEqual(5);
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(7);
    expect((await login({ username: 'pia', password: 'pia-password' })).status).toBe(429);
  });
});

describe('tokens on a command call', () => {
  it('401 for a missing, malformed, unknown, expired or revoked token', async () => {
    const missing = await server.request('POST', '/api/lead/list', {});
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'missing bearer token' });

    const basic = await server.request('POST', '/api/lead/list', {}, undefined, { authorization: 'Basic YWRtaW46eA==' });
    expect(basic.status).toBe(401);

    for (const token of ['garbage', `rms_s_${'A'.repeat(43)}`, `rms_a_${'B'.repeat(43)}`]) {
      const res = await server.command(token, 'lead.list', {});
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid or expired token' });
    }

    const expiring = await server.login('sam', 'sam-password');
    expect((await server.command(expiring, 'lead.list', {})).status).toBe(200);
    await db('rms_tokens').where('token_hash', sha256(expiring)).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const expired = await server.command(expiring, 'lead.list', {});
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ error: 'invalid or expired token' });
  });

  it('logout revokes the token at once; other sessions stay signed in', async () => {
    const token = await server.login('sam', 'sam-password');
    const other = await server.login('sam', 'sam-password');
    const out = await server.request('POST', '/api/auth/logout', undefined, token);
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ ok: true });
    const after = await server.command(token, 'lead.list', {});
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'invalid or expired token' });
    expect((await server.request('POST', '/api/auth/logout', undefined, token)).status).toBe(401);
    expect((await server.command(other, 'lead.list', {})).status).toBe(200);
    expect((await server.request('POST', '/api/auth/logout', undefined)).status).toBe(401);
  });
});

describe('storage', () => {
  it('stores only token hashes and bcrypt password hashes', async () => {
    const session = await server.login('admin');
    const agent = await server.request('POST', '/api/auth/agent-token', { scopes: ['lead.get'], label: 'storage check' }, session);
    expect(agent.status).toBe(200);
    const tokens = [session, agent.body.token as string];

    const rows = (await db('rms_tokens').select('*')) as Record<string, unknown>[];
    for (const token of tokens) {
      expect(rows.some((r) => r.token_hash === sha256(token))).toBe(true);
      for (const row of rows) for (const value of Object.values(row)) expect(String(value)).not.toContain(token.slice(6));
    }
    for (const row of (await db('rms_people').select('*')) as Record<string, unknown>[]) {
      expect(row.password_hash).toMatch(/^\$2[aby]\$10\$[./A-Za-z0-9]{53}$/);
    }
    // nothing in the database files holds a clear token or password (SQLite; on PostgreSQL there are no such files)
    const bytes = [server.dbFile, `${server.dbFile}-wal`].filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('');
    for (const secret of [...tokens.map((t) => t.slice(6)), ADMIN_PASSWORD, 'sam-password']) expect(bytes).not.toContain(secret);
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
