/**
 * The auth functions against a real database, without HTTP: tables, people, sign-in with the
 * lockout (including a burst of parallel guesses), and authenticate for every token state.
 * Runs on a temporary SQLite file, and also on PostgreSQL when `RMS_TEST_POSTGRES_URL` names a
 * server (a throw-away database is created there and dropped afterwards).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../runtime/db/connect.ts';
import {
  AuthInputError,
  authenticate,
  createPerson,
  disablePerson,
  enablePerson,
  ensureAdminUser,
  ensureAuthTables,
  findPerson,
  issueAgentToken,
  listPeople,
  setPassword,
  setRoles,
  signIn,
  TOKENS_TABLE,
  LOGIN_FAILURES_TABLE,
} from '../../../runtime/auth/index.ts';
import { DEFAULT_AGENT_LIMITS } from '../../../runtime/auth/rate-limits.ts';
import type { PersonCaller } from '../../../runtime/caller.ts';
import { HttpError } from '../../../runtime/errors.ts';

interface TestDatabase {
  readonly db: Knex;
  drop(): Promise<void>;
}

async function sqliteDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-auth-db-'));
  const db = openDatabase(`sqlite:${join(dir, 'auth.sqlite')}`);
  return {
    db,
    async drop() {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresDatabase(serverUrl: string): Promise<TestDatabase> {
  const name = `rms_auth_test_${randomBytes(6).toString('hex')}`;
  const admin = openDatabase(serverUrl);
  await admin.raw(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = openDatabase(url.toString());
  return {
    db,
    async drop() {
      await db.destroy();
      await admin.raw(`drop database if exists ${name}`);
      await admin.destroy();
    },
  };
}

const DATABASES: [string, () => Promise<TestDatabase>][] = [['sqlite', sqliteDatabase]];
if (process.env.RMS_TEST_POSTGRES_URL) DATABASES.push(['postgres', () => postgresDatabase(process.env.RMS_TEST_POSTGRES_URL!)]);

describe.each(DATABASES)('auth on %s', (_, open) => {
  let testDb: TestDatabase;
  let db: Knex;

  beforeAll(async () => {
    testDb = await open();
    db = testDb.db;
    await ensureAuthTables(db);
    await ensureAuthTables(db); // idempotent
  });

  afterAll(async () => {
    await testDb?.drop();
  });

  async function expect401(authorization: string | undefined, message: string): Promise<void> {
    const err = await authenticate(db, authorization).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(401);
    expect((err as HttpError).message).toBe(message);
  }

  describe('people', () => {
    it('ensureAdminUser creates admin once, with a generated password only when none is given', async () => {
      const first = await ensureAdminUser(db, {});
      expect(first.created).toBe(true);
      expect(first.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(await ensureAdminUser(db, { password: 'another-password' })).toEqual({ created: false });
      const admin = await findPerson(db, 'admin');
      expect(admin?.roles).toEqual(['admin']);
      expect((await signIn(db, 'admin', first.password!)).outcome).toBe('ok');
    });

    it('createPerson validates and normalises', async () => {
      const bob = await createPerson(db, { username: 'Bob', password: 'bob-password', roles: ['sales', 'sales', 'accountant'] });
      expect(bob.username).toBe('bob');
      expect(bob.roles).toEqual(['accountant', 'sales']);
      await expect(createPerson(db, { username: 'bob', password: 'bob-password', roles: [] })).rejects.toThrow('user bob already exists');
      await expect(createPerson(db, { username: 'carol', password: 'short', roles: [] })).rejects.toThrow('password must be at least 8 characters');
      await expect(createPerson(db, { username: 'carol', password: 'x'.repeat(73), roles: [] })).rejects.toThrow('at most 72 bytes');
      await expect(createPerson(db, { username: 'ca rol', password: 'long-enough', roles: [] })).rejects.toBeInstanceOf(AuthInputError);
      const rows = await db('rms_people').select('password_hash');
      for (const row of rows) expect(row.password_hash).toMatch(/^\$2[aby]\$10\$.{53}$/);
    });

    it('setRoles, disable, enable, passwd', async () => {
      await createPerson(db, { username: 'dora', password: 'dora-password', roles: ['sales'] });
      expect((await setRoles(db, 'dora', ['accountant'])).roles).toEqual(['accountant']);
      const signedIn = await signIn(db, 'dora', 'dora-password');
      expect(signedIn.outcome).toBe('ok');
      const token = (signedIn as { token: string }).token;
      expect(((await authenticate(db, `Bearer ${token}`)) as PersonCaller).roles).toEqual(['accountant']);

      await disablePerson(db, 'dora');
      await expect401(`Bearer ${token}`, 'invalid or expired token');
      expect((await signIn(db, 'dora', 'dora-password')).outcome).toBe('invalid');
      await enablePerson(db, 'dora');
      await expect401(`Bearer ${token}`, 'invalid or expired token'); // the session stays revoked
      const again = (await signIn(db, 'dora', 'dora-password')) as { token: string };
      await setPassword(db, 'dora', 'dora-new-password');
      await expect401(`Bearer ${again.token}`, 'invalid or expired token');
      expect((await signIn(db, 'dora', 'dora-password')).outcome).toBe('invalid');
      expect((await signIn(db, 'DORA', 'dora-new-password')).outcome).toBe('ok');
      await expect(setRoles(db, 'nobody', ['sales'])).rejects.toThrow('no user named nobody');
      expect((await listPeople(db)).map((p) => p.username)).toEqual(['admin', 'bob', 'dora']);
    });
  });

  describe('authenticate', () => {
    it('refuses missing, malformed, unknown, expired and revoked tokens', async () => {
      await expect401(undefined, 'missing bearer token');
      await expect401('', 'missing bearer token');
      await expect401('Basic YWRtaW46YWRtaW4=', 'missing bearer token');
      await expect401('Bearer nonsense', 'invalid or expired token');
      await expect401(`Bearer rms_s_${'A'.repeat(43)}`, 'invalid or expired token');

      const { token } = (await signIn(db, 'bob', 'bob-password')) as { token: string };
      const caller = (await authenticate(db, `bearer ${token}`)) as PersonCaller;
      expect(caller).toMatchObject({ kind: 'person', username: 'bob', roles: ['accountant', 'sales'] });
      // the same secret with the other kind's prefix is not a token
      await expect401(`Bearer rms_a_${token.slice(6)}`, 'invalid or expired token');

      await db(TOKENS_TABLE).where('id', caller.tokenId).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
      await expect401(`Bearer ${token}`, 'invalid or expired token');
    });

    it('gives an agent its scopes and its creator current roles; a disabled creator stops it', async () => {
      const erin = await createPerson(db, { username: 'erin', password: 'erin-password', roles: ['sales'] });
      const creator: PersonCaller = { kind: 'person', userId: erin.id, username: 'erin', roles: erin.roles, tokenId: 'x' };
      const issued = await issueAgentToken(db, creator, { scopes: ['lead.*'], label: 'bot', expiresInDays: 30, limits: { requestsPerMinute: null, writesPerMinute: null } }, DEFAULT_AGENT_LIMITS);
      expect(issued.token).toMatch(/^rms_a_[A-Za-z0-9_-]{43}$/);
      expect(await authenticate(db, `Bearer ${issued.token}`)).toMatchObject({
        kind: 'agent',
        tokenId: issued.id,
        label: 'bot',
        scopes: ['lead.*'],
        creatorId: erin.id,
        creatorUsername: 'erin',
        creatorRoles: ['sales'],
      });
      const firstUse = (await db(TOKENS_TABLE).where('id', issued.id).first()).last_used_at;
      expect(firstUse).not.toBeNull();
      await authenticate(db, `Bearer ${issued.token}`);
      expect((await db(TOKENS_TABLE).where('id', issued.id).first()).last_used_at).toBe(firstUse); // not rewritten within a minute

      await setRoles(db, 'erin', ['accountant']);
      expect(await authenticate(db, `Bearer ${issued.token}`)).toMatchObject({ creatorRoles: ['accountant'] });
      await disablePerson(db, 'erin');
      await expect401(`Bearer ${issued.token}`, 'invalid or expired token');
      await enablePerson(db, 'erin');
      expect(await authenticate(db, `Bearer ${issued.token}`)).toMatchObject({ kind: 'agent' });
    });
  });

  describe('sign-in lockout', () => {
    it('locks after five failures, also for the right password and for unknown usernames', async () => {
      await createPerson(db, { username: 'frank', password: 'frank-password', roles: [] });
      for (let i = 0; i < 5; i++) expect((await signIn(db, 'frank', 'wrong-password')).outcome).toBe('invalid');
      const locked = await signIn(db, 'frank', 'frank-password');
      expect(locked).toEqual({ outcome: 'locked', retryAfterSeconds: expect.any(Number) });
      expect((locked as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(55);
      expect((locked as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(60);
      // other usernames are not affected
      expect((await signIn(db, 'bob', 'bob-password')).outcome).toBe('ok');

      // a minute later the lock is over (move the failures back in time instead of waiting)
      const past = new Date(Date.now() - 61_000).toISOString();
      await db(LOGIN_FAILURES_TABLE).where('username', 'frank').update({ at: past });
      expect((await signIn(db, 'frank', 'frank-password')).outcome).toBe('ok');
      expect(await db(LOGIN_FAILURES_TABLE).where('username', 'frank')).toEqual([]);

      for (let i = 0; i < 5; i++) expect((await signIn(db, 'ghost', 'whatever-password')).outcome).toBe('invalid');
      expect((await signIn(db, 'ghost', 'whatever-password')).outcome).toBe('locked');
    });

    it('a burst of parallel guesses gets at most five tries', async () => {
      await createPerson(db, { username: 'gina', password: 'gina-password', roles: [] });
      const results = await Promise.all(Array.from({ length: 20 }, () => signIn(db, 'gina', 'wrong-password')));
      expect(results.filter((r) => r.outcome === 'invalid').length).toBeLessThanOrEqual(5);
      expect(results.filter((r) => r.outcome === 'locked').length).toBeGreaterThanOrEqual(15);
      expect((await signIn(db, 'gina', 'gina-password')).outcome).toBe('locked');
    });
  });
});
