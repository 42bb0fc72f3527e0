/**
 * The `startServer` contract: one ready line, and a `close()` that lets in-flight requests finish
 * before the database closes.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../fixtures/generated/registry.ts';
import type { NextFunction, Request, Response } from 'express';
import { authenticate } from '../../runtime/auth/index.ts';
import { executeCommand } from '../../runtime/commands/pipeline.ts';
import type { ServerExtension } from '../../runtime/extension.ts';
import { startServer } from '../../runtime/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A route that holds its request until released, then writes a lead through the command path: a
 * request in flight that still needs the database when it goes on.
 */
function slowCreates() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const extension: ServerExtension = {
    name: 'slow',
    routes: (service) => ({
      api: [
        async function slowCreate(req: Request, res: Response, next: NextFunction) {
          if (req.method !== 'POST' || req.path !== '/api/test/slow-create') return next();
          try {
            const caller = await authenticate(service.db, req.headers.authorization);
            entered();
            await released;
            const outcome = await executeCommand(service, caller, 'lead.create', { title: 'slow' });
            res.status(outcome.status).json(outcome.body);
          } catch (error) {
            next(error);
          }
        },
      ],
    }),
  };
  return { extension, release, inside };
}

describe('startServer', () => {
  it('logs exactly one line when ready, and close() lets in-flight requests finish', async () => {
    const lines: string[] = [];
    const slow = slowCreates();
    const server = await startServer({
      registry,
      dbUrl: `sqlite:${join(dir, 'a.sqlite')}`,
      port: 0,
      adminPassword: 'server-test-password',
      log: (line) => lines.push(line),
      extensions: [slow.extension],
    });
    expect(lines).toEqual([`listening on http://127.0.0.1:${server.port}`]);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);

    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'server-test-password' }),
    });
    const { token } = (await login.json()) as { token: string };

    const inFlight = fetch(`${server.url}/api/test/slow-create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: 'slow' }),
    });
    await slow.inside;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    slow.release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { value: { title: string } }).value.title).toBe('slow');
    await closing;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it('answers a connection accepted before the drain whose request comes after it began, and closes it; one that stays silent is closed', async () => {
    const server = await startServer({ registry, dbUrl: `sqlite:${join(dir, 'fresh.sqlite')}`, port: 0, adminPassword: 'server-test-password', log: () => undefined });
    // Accepted (a balancer opened it to send a request) but nothing read from it yet: Node counts
    // such a connection as idle, and closing idle connections reset it before its request came.
    const late = await connected(server.port);
    const silent = await connected(server.port);
    const closing = server.close();
    await new Promise((resolve) => setTimeout(resolve, 120));
    late.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const answer = await late.ended;
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer.endsWith('{"ok":false,"draining":true}')).toBe(true);
    // The silent one does not hold the drain for its whole grace (10 s here).
    const started = performance.now();
    expect(await silent.ended).toBe('');
    await closing;
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('writes a generated password to a file only its user can read, and never logs it', async () => {
    const lines: string[] = [];
    const dbUrl = `sqlite:${join(dir, 'b.sqlite')}`;
    const passwordFile = join(dir, 'secrets', 'admin-password');
    const first = await startServer({ registry, dbUrl, port: 0, adminPasswordFile: passwordFile, log: (line) => lines.push(line) });
    const password = readFileSync(passwordFile, 'utf8').trimEnd();
    expect(password).toMatch(/^\S{12,}$/);
    expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
    const login = await fetch(`${first.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(login.status).toBe(200);
    await first.close();
    expect(lines).toEqual([
      `created person admin; its password is in ${passwordFile} (readable by this user only): sign in, set your own with \`rmsgen user passwd admin\`, and delete the file`,
      `listening on http://127.0.0.1:${first.port}`,
    ]);
    expect(lines.join('\n')).not.toContain(password);

    // A second start has an admin already: no new password, the file left as it is.
    const again: string[] = [];
    const second = await startServer({ registry, dbUrl, port: 0, adminPasswordFile: passwordFile, log: (line) => again.push(line) });
    await second.close();
    expect(readFileSync(passwordFile, 'utf8').trimEnd()).toBe(password);
    expect(again).toEqual([`listening on http://127.0.0.1:${second.port}`]);
  });
});

/** A raw connection to the server on loopback, once connected; `ended`: all it received, when it closes. */
async function connected(port: number): Promise<{ socket: Socket; ended: Promise<string> }> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, ended };
}
