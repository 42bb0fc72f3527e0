/**
 * `rmsgen user …` through the real CLI (`node bin/rmsgen.js`, of the fixture package: see
 * test/helpers/fixtures.ts), passwords piped on standard input, against a temporary SQLite file.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPerson, hashToken, signIn } from '../../runtime/auth/index.ts';
import { openDatabase } from '../../runtime/db/connect.ts';
import { runFixtureCli } from '../helpers/cli.ts';


let dir: string;
let dbUrl: string;
let db: Knex;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsgen-user-cli-'));
  dbUrl = `sqlite:${join(dir, 'rms.sqlite')}`;
  db = openDatabase(dbUrl);
});

afterAll(async () => {
  await db?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const user = (args: string[], input = '') => runFixtureCli(['user', ...args, '--db', dbUrl], { input });

async function canSignIn(username: string, password: string): Promise<boolean> {
  const result = await signIn(db, username, password);
  return result.outcome === 'ok';
}

describe('rmsgen user add', () => {
  it('adds a person with the password from standard input, never echoing it', async () => {
    const res = await user(['add', 'bob', '--role', 'sales'], 'bob-secret-pw\n');
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout).toBe('added user bob (roles: sales)\n');
    expect(await canSignIn('bob', 'bob-secret-pw')).toBe(true);
    const row = await db('rms_people').where('username', 'bob').first();
    expect(row.password_hash).toMatch(/^\$2[aby]\$10\$/);
  });

  it('takes repeated and comma-separated roles, and a password without a final newline', async () => {
    const res = await user(['add', 'Carla', '--role', 'sales,accountant', '--role', 'admin'], 'carla-secret');
    expect(res.code).toBe(0);
    expect((await findPerson(db, 'carla'))?.roles).toEqual(['accountant', 'admin', 'sales']);
    expect(await canSignIn('carla', 'carla-secret')).toBe(true);
  });

  it('reads only the first line (CRLF too)', async () => {
    expect((await user(['add', 'dan', '--role', 'sales'], 'dan-secret-pw\r\nsecond line\n')).code).toBe(0);
    expect(await canSignIn('dan', 'dan-secret-pw')).toBe(true);
  });

  it('refuses an unknown role, naming the known ones', async () => {
    const res = await user(['add', 'eve', '--role', 'sales,wizard'], 'eve-secret-pw\n');
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('error: unknown role wizard; known roles: accountant, admin, sales\n');
    expect(await findPerson(db, 'eve')).toBeUndefined();
  });

  it('needs --role', async () => {
    const res = await user(['add', 'eve'], 'eve-secret-pw\n');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("required option '--role <role>' not specified");
  });

  it.each([
    ['an empty password', '\n', 'error: password must not be empty\n'],
    ['no input at all', '', 'error: password must not be empty\n'],
    ['a short password', 'short\n', 'error: password must be at least 8 characters\n'],
    ['a password over 72 bytes', `${'x'.repeat(73)}\n`, 'error: password must be at most 72 bytes\n'],
  ])('refuses %s', async (_, input, stderr) => {
    const res = await user(['add', 'fay', '--role', 'sales'], input);
    expect(res).toEqual({ code: 1, stdout: '', stderr });
    expect(await findPerson(db, 'fay')).toBeUndefined();
  });

  it('refuses an existing username and a malformed one', async () => {
    const taken = await user(['add', 'BOB', '--role', 'sales'], 'another-password\n');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toBe('error: user bob already exists\n');
    expect(await canSignIn('bob', 'bob-secret-pw')).toBe(true);

    const bad = await user(['add', 'bad name', '--role', 'sales'], 'long-enough-pw\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: username may contain only/);
  });
});

describe('rmsgen user passwd', () => {
  it('sets a new password and signs the person out', async () => {
    const session = (await signIn(db, 'bob', 'bob-secret-pw')) as { outcome: 'ok'; token: string };
    const res = await user(['passwd', 'bob'], 'bob-new-secret\n');
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('password of bob changed; their sessions were signed out\n');
    expect(res.stdout + res.stderr).not.toContain('bob-new-secret');
    expect(await canSignIn('bob', 'bob-secret-pw')).toBe(false);
    expect(await canSignIn('bob', 'bob-new-secret')).toBe(true);
    const row = await db('rms_tokens').where('token_hash', hashToken(session.token)).first();
    expect(row.revoked_at).not.toBeNull();
  });

  it('refuses an unknown username and a weak password', async () => {
    expect(await user(['passwd', 'nobody'], 'whatever-password\n')).toEqual({ code: 1, stdout: '', stderr: 'error: no user named nobody\n' });
    expect(await user(['passwd', 'bob'], 'short\n')).toEqual({ code: 1, stdout: '', stderr: 'error: password must be at least 8 characters\n' });
    expect(await canSignIn('bob', 'bob-new-secret')).toBe(true);
  });
});

describe('rmsgen user disable / enable', () => {
  it('disables and enables a person', async () => {
    const disabled = await user(['disable', 'dan']);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain('disabled dan');
    expect(await canSignIn('dan', 'dan-secret-pw')).toBe(false);
    expect((await findPerson(db, 'dan'))?.disabled).toBe(true);

    const enabled = await user(['enable', 'dan']);
    expect(enabled).toEqual({ code: 0, stdout: 'enabled dan\n', stderr: '' });
    expect(await canSignIn('dan', 'dan-secret-pw')).toBe(true);
  });

  it('refuses unknown usernames', async () => {
    for (const command of ['disable', 'enable']) {
      expect(await user([command, 'ghost'])).toEqual({ code: 1, stdout: '', stderr: 'error: no user named ghost\n' });
    }
  });
});

describe('rmsgen user roles', () => {
  it("replaces a person's roles", async () => {
    const res = await user(['roles', 'carla', '--role', 'accountant']);
    expect(res).toEqual({ code: 0, stdout: 'roles of carla: accountant\n', stderr: '' });
    expect((await findPerson(db, 'carla'))?.roles).toEqual(['accountant']);
  });

  it('refuses unknown roles and usernames', async () => {
    const role = await user(['roles', 'carla', '--role', 'wizard,sorcerer']);
    expect(role).toEqual({ code: 1, stdout: '', stderr: 'error: unknown roles wizard, sorcerer; known roles: accountant, admin, sales\n' });
    expect((await findPerson(db, 'carla'))?.roles).toEqual(['accountant']);
    expect((await user(['roles', 'ghost', '--role', 'sales'])).stderr).toBe('error: no user named ghost\n');
  });
});

describe('rmsgen user list', () => {
  it('lists people with roles and status', async () => {
    await user(['disable', 'dan']);
    const res = await user(['list']);
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^USERNAME\s+ROLES\s+STATUS\s+CREATED$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      ['bob', 'sales', 'active'],
      ['carla', 'accountant', 'active'],
      ['dan', 'sales', 'disabled'],
    ]);
    const json = JSON.parse((await user(['list', '--json'])).stdout);
    expect(json.map((p: { username: string; disabled: boolean }) => [p.username, p.disabled])).toEqual([
      ['bob', false],
      ['carla', false],
      ['dan', true],
    ]);
    expect(res.stdout).not.toContain('$2');
  });

  it('uses RMS_DB when --db is not given', async () => {
    const res = await runFixtureCli(['user', 'list', '--json'], { env: { RMS_DB: dbUrl } });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toHaveLength(3);
  });

  it('refuses a database URL it cannot use, a SQLite file that is not there (making none), and a PostgreSQL server it cannot reach: one line each', async () => {
    const res = await runFixtureCli(['user', 'list', '--db', 'mysql://x']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: unsupported database URL/);
    const missing = join(dir, 'not-there.sqlite');
    for (const args of [['list'], ['disable', 'bob'], ['roles', 'bob', '--role', 'sales']]) {
      const refused = await runFixtureCli(['user', ...args, '--db', `sqlite:${missing}`]);
      expect([refused.code, refused.stderr]).toEqual([1, `error: no database at ${missing} (the server makes it on its first start; or check --db)\n`]);
    }
    expect(existsSync(missing)).toBe(false);
    const unreachable = await runFixtureCli(['user', 'list', '--db', 'postgres://someone:secret-pw@127.0.0.1:1/none']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^error: cannot use the database: .*ECONNREFUSED.*\n$/);
    expect(unreachable.stderr).not.toContain('secret-pw');
  });
});
