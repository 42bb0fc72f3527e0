/**
 * The SQLite file holds password hashes and every personal value: the server creates it, its
 * `-wal` and `-shm` files and the folders for them readable by its own user only (0600, 0700),
 * whatever the umask lets through (the probe found 0644 files in a 0755 `data/`). The first
 * admin's password file and its folder are private too. A file that exists keeps its mode.
 * And the writer connection's settings, each a decision runtime/db/connect.ts explains.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../runtime/db/connect.ts';
import { startServer } from '../../../runtime/server.ts';
import { registry } from '../../fixtures/generated/registry.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-modes-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe('file modes', () => {
  it('a new database, its WAL files and its folders are the server user\'s only', async () => {
    const data = join(dir, 'fresh', 'data');
    const passwordFile = join(dir, 'fresh', 'secrets', 'initial-admin-password');
    const previous = process.umask(0o022); // the usual umask, which would give 0644 and 0755
    try {
      const server = await startServer({ registry, dbUrl: `sqlite:${join(data, 'rms.sqlite')}`, port: 0, log: () => {}, adminPasswordFile: passwordFile });
      try {
        // The WAL and shared-memory files exist while the server writes.
        const res = await fetch(`${server.url}/healthz`);
        expect(res.status).toBe(200);
        expect({
          fresh: mode(join(dir, 'fresh')),
          data: mode(data),
          db: mode(join(data, 'rms.sqlite')),
          wal: mode(join(data, 'rms.sqlite-wal')),
          shm: mode(join(data, 'rms.sqlite-shm')),
          secrets: mode(join(dir, 'fresh', 'secrets')),
          password: mode(passwordFile),
        }).toEqual({ fresh: 0o700, data: 0o700, db: 0o600, wal: 0o600, shm: 0o600, secrets: 0o700, password: 0o600 });
      } finally {
        await server.close();
      }
    } finally {
      process.umask(previous);
    }
  });

  it('a database file that exists keeps the mode its operator gave it', async () => {
    const data = join(dir, 'existing');
    mkdirSync(data, { mode: 0o750 });
    chmodSync(data, 0o750);
    const file = join(data, 'rms.sqlite');
    writeFileSync(file, '');
    chmodSync(file, 0o640);
    const server = await startServer({ registry, dbUrl: `sqlite:${file}`, port: 0, log: () => {}, adminPassword: 'a-long-enough-password' });
    await server.close();
    expect([mode(data), mode(file)]).toEqual([0o750, 0o640]);
  });
});

describe("the writer's settings", () => {
  it('are the ones the runtime relies on: WAL, NORMAL sync, a checkpoint past 10,000 pages, temporary storage in memory, foreign keys, zeroed deletes', async () => {
    const db = openDatabase(`sqlite:${join(dir, 'settings.sqlite')}`);
    try {
      const value = async (pragma: string) => Object.values(((await db.raw(`pragma ${pragma}`)) as Record<string, unknown>[])[0]!)[0];
      expect({
        journal_mode: await value('journal_mode'),
        synchronous: await value('synchronous'),
        wal_autocheckpoint: await value('wal_autocheckpoint'),
        temp_store: await value('temp_store'),
        foreign_keys: await value('foreign_keys'),
        secure_delete: await value('secure_delete'),
      }).toEqual({ journal_mode: 'wal', synchronous: 1, wal_autocheckpoint: 10_000, temp_store: 2, foreign_keys: 1, secure_delete: 1 });
    } finally {
      await db.destroy();
    }
  });
});
